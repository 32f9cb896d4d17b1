"""The RCSP visuals: the network with "(cost, time[, energy])" on every arc (visual_0) and the
resource budgets as a small table (visual_1), since a budget belongs to no arc or node."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from benchmark.suites.mmopt.generation.network import NodeStyle, render_layered_network
from benchmark.suites.mmopt.generation.network_extras import TableCell, render_table
from benchmark.suites.mmopt.generation.protocol import ExpectedLabel, RenderedVisual

_SOURCE_STYLE = NodeStyle(fill="#c9ecc4", tag="source", tag_color="#1f6b1a")
_SINK_STYLE = NodeStyle(fill="#f6d0c8", tag="sink", tag_color="#a02a12")
BUDGET_TITLE = "Resource budgets: the most of each resource the whole path may consume"


def arc_text(arc: Mapping[str, Any], resources: list[str]) -> str:
    values = [arc["cost"], *(arc["consumption"][name] for name in resources)]
    return "(" + ", ".join(str(v) for v in values) + ")"


def network_title(resources: list[str]) -> str:
    return f"Arc label: (cost, {', '.join(resources)}).   Budgets: see the budget table"


def render(instance: Mapping[str, Any]) -> list[RenderedVisual]:
    resources = list(instance["resources"])
    network = render_layered_network(
        layers=instance["layers"],
        arcs=instance["arcs"],
        arc_text={a["id"]: arc_text(a, resources) for a in instance["arcs"]},
        node_styles={instance["source"]: _SOURCE_STYLE, instance["sink"]: _SINK_STYLE},
        title=network_title(resources),
    )
    header = [TableCell("note:head:resource", "resource"), TableCell("note:head:budget", "budget")]
    rows = [
        [TableCell(f"note:row:{name}", name), TableCell(f"v1/budget:{name}", str(instance["budgets"][name]))]
        for name in resources
    ]
    return [network, render_table(BUDGET_TITLE, header, rows)]


def expected_labels(instance: Mapping[str, Any]) -> list[ExpectedLabel]:
    resources = list(instance["resources"])
    labels = [ExpectedLabel(f"node:{n}", str(n)) for n in instance["nodes"]]
    labels.append(ExpectedLabel(f"tag:{instance['source']}", "source"))
    labels.append(ExpectedLabel(f"tag:{instance['sink']}", "sink"))
    labels += [ExpectedLabel(f"arc:{a['id']}", arc_text(a, resources)) for a in instance["arcs"]]
    labels += [ExpectedLabel(f"v1/budget:{name}", str(instance["budgets"][name])) for name in resources]
    return labels


def visual_values(instance: Mapping[str, Any]) -> set[int]:
    values = {int(a["cost"]) for a in instance["arcs"]}
    values |= {int(v) for a in instance["arcs"] for v in a["consumption"].values()}
    return values | {int(b) for b in instance["budgets"].values()}
