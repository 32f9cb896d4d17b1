"""The multi-period visuals, three panels because one figure would be unreadable: the base network
with each arc named by a letter (visual_0), the per-period "(capacity, unit cost)" of every arc
(visual_1) and the per-period net supplies plus storage data of every node (visual_2).

Drawing the time-expanded graph itself (a copy of the network per period plus storage arcs) would
multiply the arcs by the number of periods; the tables keep every number in a labelled cell.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from benchmark.suites.mmopt.generation.network import NodeStyle, render_layered_network
from benchmark.suites.mmopt.generation.network_extras import TableCell, render_table
from benchmark.suites.mmopt.generation.protocol import ExpectedLabel, RenderedVisual

NETWORK_TITLE = "Network: each arc is named by a letter; its data per period are in the arc table"
ARC_TITLE = "Arc data per period: (capacity, unit cost) of the arc in that period"
NODE_TITLE = (
    "Node data: net supply per period (+ supply, - demand), storage capacity, "
    "holding cost per unit per period"
)
_SUPPLY_STYLE = NodeStyle(fill="#c9ecc4")
_DEMAND_STYLE = NodeStyle(fill="#f6d0c8")
_TRANSIT_STYLE = NodeStyle(fill="#dbe9f6")


def arc_row_text(arc: Mapping[str, Any]) -> str:
    return f"{arc['name']}: {arc['from']} \u2192 {arc['to']}"


def arc_cell_text(arc: Mapping[str, Any], t: int) -> str:
    return f"({arc['capacity'][t - 1]}, {arc['cost'][t - 1]})"


def balance_text(value: int) -> str:
    """Signed, so a supply is never mistaken for a node name: ``+12``, ``-8``, ``0``."""
    return f"{value:+d}" if value else "0"


def period_text(t: int) -> str:
    return f"period {t}"


def _periods(instance: Mapping[str, Any]) -> range:
    return range(1, int(instance["periods"]) + 1)


def _node_style(values: list[int]) -> NodeStyle:
    if any(v > 0 for v in values):
        return _SUPPLY_STYLE
    if any(v < 0 for v in values):
        return _DEMAND_STYLE
    return _TRANSIT_STYLE


def _arc_table(instance: Mapping[str, Any]) -> RenderedVisual:
    header = [TableCell("note:head:arc", "arc")]
    header += [TableCell(f"v1/period:{t}", period_text(t)) for t in _periods(instance)]
    rows = [
        [TableCell(f"v1/row:{a['id']}", arc_row_text(a))]
        + [TableCell(f"v1/arc:{a['id']}@{t}", arc_cell_text(a, t)) for t in _periods(instance)]
        for a in instance["arcs"]
    ]
    return render_table(ARC_TITLE, header, rows)


def _node_table(instance: Mapping[str, Any]) -> RenderedVisual:
    header = [TableCell("note:head:node", "node")]
    header += [TableCell(f"v2/period:{t}", period_text(t)) for t in _periods(instance)]
    header += [
        TableCell("note:head:storage", "storage capacity"),
        TableCell("note:head:holding", "holding cost"),
    ]
    rows = []
    for node in (str(n) for n in instance["nodes"]):
        row = [TableCell(f"v2/node:{node}", node)]
        row += [
            TableCell(f"v2/supply:{node}@{t}", balance_text(instance["supply"][node][t - 1]))
            for t in _periods(instance)
        ]
        row += [
            TableCell(f"v2/storage:{node}", str(instance["storage_capacity"][node])),
            TableCell(f"v2/holding:{node}", str(instance["holding_cost"][node])),
        ]
        rows.append(row)
    return render_table(NODE_TITLE, header, rows)


def render(instance: Mapping[str, Any]) -> list[RenderedVisual]:
    network = render_layered_network(
        layers=instance["layers"],
        arcs=instance["arcs"],
        arc_text={a["id"]: a["name"] for a in instance["arcs"]},
        node_styles={int(node): _node_style(values) for node, values in instance["supply"].items()},
        title=NETWORK_TITLE,
    )
    return [network, _arc_table(instance), _node_table(instance)]


def expected_labels(instance: Mapping[str, Any]) -> list[ExpectedLabel]:
    labels = [ExpectedLabel(f"node:{n}", str(n)) for n in instance["nodes"]]
    labels += [ExpectedLabel(f"arc:{a['id']}", a["name"]) for a in instance["arcs"]]
    for t in _periods(instance):
        labels += [
            ExpectedLabel(f"v1/period:{t}", period_text(t)),
            ExpectedLabel(f"v2/period:{t}", period_text(t)),
        ]
    for a in instance["arcs"]:
        labels.append(ExpectedLabel(f"v1/row:{a['id']}", arc_row_text(a)))
        labels += [ExpectedLabel(f"v1/arc:{a['id']}@{t}", arc_cell_text(a, t)) for t in _periods(instance)]
    for node in (str(n) for n in instance["nodes"]):
        labels.append(ExpectedLabel(f"v2/node:{node}", node))
        labels += [
            ExpectedLabel(f"v2/supply:{node}@{t}", balance_text(instance["supply"][node][t - 1]))
            for t in _periods(instance)
        ]
        labels.append(ExpectedLabel(f"v2/storage:{node}", str(instance["storage_capacity"][node])))
        labels.append(ExpectedLabel(f"v2/holding:{node}", str(instance["holding_cost"][node])))
    return labels


def visual_values(instance: Mapping[str, Any]) -> set[int]:
    values = {int(v) for a in instance["arcs"] for key in ("capacity", "cost") for v in a[key]}
    values |= {abs(int(v)) for values_ in instance["supply"].values() for v in values_ if int(v) != 0}
    values |= {int(v) for v in instance["storage_capacity"].values()}
    return values | {int(v) for v in instance["holding_cost"].values()}
