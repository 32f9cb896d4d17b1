"""The RCSP visuals: the network with "(cost, time[, energy])" on every arc (visual_0) and the
resource budgets as a small table (visual_1), since a budget belongs to no arc or node."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from benchmark.suites.mmopt.generation.network import NodeStyle, arc_key, render_layered_network
from benchmark.suites.mmopt.generation.network_extras import TableCell, render_table
from benchmark.suites.mmopt.generation.protocol import ExpectedLabel, RenderedVisual
from benchmark.suites.mmopt.subcategories.resource_constrained_shortest_path.generator import (
    budgets_of,
    consumption,
    layers_of,
    resources_of,
)

_SOURCE_STYLE = NodeStyle(fill="#c9ecc4", tag="source", tag_color="#1f6b1a")
_SINK_STYLE = NodeStyle(fill="#f6d0c8", tag="sink", tag_color="#a02a12")
BUDGET_TITLE = "Resource budgets: the most of each resource the whole path may consume"


def arc_text(arc: Mapping[str, Any], resources: list[str]) -> str:
    values = [arc["cost"], *(consumption(arc, name) for name in resources)]
    return "(" + ", ".join(str(v) for v in values) + ")"


def network_title(resources: list[str]) -> str:
    return f"Arc label: (cost, {', '.join(resources)}).   Budgets: see the budget table"


def render(instance: Mapping[str, Any]) -> list[RenderedVisual]:
    resources = resources_of(instance)
    budgets = budgets_of(instance)
    network = render_layered_network(
        layers=layers_of(instance),
        arcs=instance["arcs"],
        arc_text={arc_key(a["from"], a["to"]): arc_text(a, resources) for a in instance["arcs"]},
        node_styles={instance["source"]: _SOURCE_STYLE, instance["sink"]: _SINK_STYLE},
        title=network_title(resources),
    )
    header = [TableCell("note:head:resource", "resource"), TableCell("note:head:budget", "budget")]
    rows = [
        [TableCell(f"note:row:{name}", name), TableCell(f"v1/budget:{name}", str(budgets[name]))]
        for name in resources
    ]
    return [network, render_table(BUDGET_TITLE, header, rows)]


def expected_labels(instance: Mapping[str, Any]) -> list[ExpectedLabel]:
    resources, budgets = resources_of(instance), budgets_of(instance)
    labels = [ExpectedLabel(f"node:{n}", str(n)) for n in instance["nodes"]]
    labels.append(ExpectedLabel(f"tag:{instance['source']}", "source"))
    labels.append(ExpectedLabel(f"tag:{instance['sink']}", "sink"))
    labels += [ExpectedLabel(f"arc:{a['from']}_{a['to']}", arc_text(a, resources)) for a in instance["arcs"]]
    labels += [ExpectedLabel(f"v1/budget:{name}", str(budgets[name])) for name in resources]
    return labels


def visual_values(instance: Mapping[str, Any]) -> set[int]:
    values = {int(a["cost"]) for a in instance["arcs"]}
    values |= {consumption(a, name) for a in instance["arcs"] for name in resources_of(instance)}
    return values | set(budgets_of(instance).values())
