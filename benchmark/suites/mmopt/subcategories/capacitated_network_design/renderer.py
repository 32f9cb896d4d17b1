"""The network-design visual: layered network, "(capacity, unit cost, fixed cost)" on every arc and
each node's signed net supply inside its disc."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from benchmark.suites.mmopt.generation.network import NodeStyle, arc_key, render_layered_network
from benchmark.suites.mmopt.generation.protocol import ExpectedLabel, RenderedVisual
from benchmark.suites.mmopt.generation.supply_network import supply_of
from benchmark.suites.mmopt.subcategories.capacitated_network_design.generator import layers_of

TITLE = "Arc: (capacity, unit cost, fixed cost).   Node: name over net supply (+ supply, - demand)"


def arc_text(arc: Mapping[str, Any]) -> str:
    return f"({arc['capacity']}, {arc['variable_cost']}, {arc['fixed_cost']})"


def balance_text(value: int) -> str:
    """Signed, so a supply is never mistaken for a node name: ``+12``, ``-8``, ``0``."""
    return f"{value:+d}" if value else "0"


def _style(value: int) -> NodeStyle:
    if value > 0:
        return NodeStyle(fill="#c9ecc4", inner=balance_text(value), inner_color="#1f6b1a")
    if value < 0:
        return NodeStyle(fill="#f6d0c8", inner=balance_text(value), inner_color="#a02a12")
    return NodeStyle(fill="#dbe9f6", inner=balance_text(value), inner_color="#44546a")


def render(instance: Mapping[str, Any]) -> list[RenderedVisual]:
    visual = render_layered_network(
        layers=layers_of(instance),
        arcs=instance["arcs"],
        arc_text={arc_key(a["from"], a["to"]): arc_text(a) for a in instance["arcs"]},
        node_styles={node: _style(value) for node, value in supply_of(instance).items()},
        title=TITLE,
    )
    return [visual]


def expected_labels(instance: Mapping[str, Any]) -> list[ExpectedLabel]:
    labels = [ExpectedLabel(f"node:{n}", str(n)) for n in instance["nodes"]]
    labels += [ExpectedLabel(f"inner:{n}", balance_text(supply_of(instance)[n])) for n in instance["nodes"]]
    labels += [ExpectedLabel(f"arc:{a['from']}_{a['to']}", arc_text(a)) for a in instance["arcs"]]
    return labels


def visual_values(instance: Mapping[str, Any]) -> set[int]:
    values = {int(a[key]) for a in instance["arcs"] for key in ("capacity", "variable_cost", "fixed_cost")}
    return values | {abs(v) for v in supply_of(instance).values() if v != 0}
