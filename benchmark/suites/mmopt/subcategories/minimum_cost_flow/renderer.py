"""The min-cost-flow visual: layered network, "(capacity, cost)" on arcs, net supply in each node."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from benchmark.suites.mmopt.generation.network import NodeStyle, arc_key, render_layered_network
from benchmark.suites.mmopt.generation.protocol import ExpectedLabel, RenderedVisual
from benchmark.suites.mmopt.subcategories.minimum_cost_flow.generator import layers_of

TITLE = "Arc label: (capacity, cost).   Node: bold name, below it the net supply (+ supply, - demand)"


def arc_text(arc: Mapping[str, Any]) -> str:
    return f"({arc['capacity']}, {arc['cost']})"


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
    styles = {int(node): _style(int(value)) for node, value in instance["supply"].items()}
    visual = render_layered_network(
        layers=layers_of(instance),
        arcs=instance["arcs"],
        arc_text={arc_key(a["from"], a["to"]): arc_text(a) for a in instance["arcs"]},
        node_styles=styles,
        title=TITLE,
    )
    return [visual]


def expected_labels(instance: Mapping[str, Any]) -> list[ExpectedLabel]:
    labels = [ExpectedLabel(f"node:{n}", str(n)) for n in instance["nodes"]]
    labels += [
        ExpectedLabel(f"inner:{n}", balance_text(int(instance["supply"][str(n)]))) for n in instance["nodes"]
    ]
    labels += [ExpectedLabel(f"arc:{a['from']}_{a['to']}", arc_text(a)) for a in instance["arcs"]]
    return labels


def visual_values(instance: Mapping[str, Any]) -> set[int]:
    values = {int(a["capacity"]) for a in instance["arcs"]} | {int(a["cost"]) for a in instance["arcs"]}
    return values | {abs(int(v)) for v in instance["supply"].values() if int(v) != 0}
