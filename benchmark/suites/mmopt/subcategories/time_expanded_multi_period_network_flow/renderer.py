"""The multi-period visuals, four panels because one figure would be unreadable: the base network
with each arc named by its id and the warehouses tagged (visual_0), the per-period
"(capacity, unit cost)" of every arc (visual_1), the per-period net supply of every node
(visual_2) and the warehouse table: initial inventory, storage capacity and holding cost per
period (visual_3).

Drawing the time-expanded graph itself (a copy of the network per period plus storage arcs) would
multiply the arcs by the number of periods; the tables keep every number in a labelled cell.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from benchmark.suites.mmopt.generation.network import NodeStyle, arc_key, render_layered_network
from benchmark.suites.mmopt.generation.network_extras import TableCell, render_table
from benchmark.suites.mmopt.generation.protocol import ExpectedLabel, RenderedVisual
from benchmark.suites.mmopt.subcategories.time_expanded_multi_period_network_flow.generator import (
    layers_of,
)

NETWORK_TITLE = "Network: each arc is named by its id; its data per period are in the arc table"
ARC_TITLE = "Arc data per period: (capacity, unit cost) of the arc in that period"
NODE_TITLE = "Node data: net supply per period (+ supply, - demand)"
STORAGE_TITLE = "Warehouses: initial inventory, storage capacity, holding cost per unit per period"
_SUPPLY_STYLE = NodeStyle(fill="#c9ecc4")
_DEMAND_STYLE = NodeStyle(fill="#f6d0c8")
_TRANSIT_STYLE = NodeStyle(fill="#dbe9f6")
_WAREHOUSE_STYLE = NodeStyle(fill="#f3e3b3", tag="storage", tag_color="#7a5a00")


def arc_row_text(arc: Mapping[str, Any]) -> str:
    return f"{arc['id']}: {arc['from']} \u2192 {arc['to']}"


def arc_cell_text(arc: Mapping[str, Any], period: str) -> str:
    return f"({arc['capacity_by_period'][period]}, {arc['cost_by_period'][period]})"


def balance_text(value: int) -> str:
    """Signed, so a supply is never mistaken for a node name: ``+12``, ``-8``, ``0``."""
    return f"{value:+d}" if value else "0"


def _node_style(instance: Mapping[str, Any], node: str) -> NodeStyle:
    values = list(instance["net_supply_by_node_period"][node].values())
    if node in instance["storage"]:
        return _WAREHOUSE_STYLE
    if any(v > 0 for v in values):
        return _SUPPLY_STYLE
    if any(v < 0 for v in values):
        return _DEMAND_STYLE
    return _TRANSIT_STYLE


def _arc_table(instance: Mapping[str, Any]) -> RenderedVisual:
    periods = list(instance["periods"])
    header = [TableCell("note:head:arc", "arc")]
    header += [TableCell(f"v1/period:{t}", t) for t in periods]
    rows = [
        [TableCell(f"v1/row:{a['id']}", arc_row_text(a))]
        + [TableCell(f"v1/arc:{a['id']}@{t}", arc_cell_text(a, t)) for t in periods]
        for a in instance["arcs"]
    ]
    return render_table(ARC_TITLE, header, rows)


def _supply_cells(instance: Mapping[str, Any]) -> list[tuple[str, str]]:
    return [
        (f"v2/supply:{node}@{t}", balance_text(instance["net_supply_by_node_period"][node][t]))
        for node in (str(n) for n in instance["nodes"])
        for t in instance["periods"]
    ]


def _node_table(instance: Mapping[str, Any]) -> RenderedVisual:
    periods = list(instance["periods"])
    header = [TableCell("note:head:node", "node")]
    header += [TableCell(f"v2/period:{t}", t) for t in periods]
    rows = []
    for node in (str(n) for n in instance["nodes"]):
        row = [TableCell(f"v2/node:{node}", node)]
        row += [
            TableCell(f"v2/supply:{node}@{t}", balance_text(instance["net_supply_by_node_period"][node][t]))
            for t in periods
        ]
        rows.append(row)
    return render_table(NODE_TITLE, header, rows)


def _storage_cells(node: str, store: Mapping[str, Any], periods: list[str]) -> list[tuple[str, str]]:
    cells = [
        (f"v3/initial:{node}", str(store["initial_inventory"])),
        (f"v3/capacity:{node}", str(store["capacity"])),
    ]
    return cells + [(f"v3/holding:{node}@{t}", str(store["holding_cost_by_period"][t])) for t in periods]


def _storage_table(instance: Mapping[str, Any]) -> RenderedVisual:
    periods = list(instance["periods"])
    header = [
        TableCell("note:head:warehouse", "warehouse"),
        TableCell("note:head:initial", "initial inventory"),
        TableCell("note:head:capacity", "storage capacity"),
    ]
    header += [TableCell(f"v3/period:{t}", f"holding {t}") for t in periods]
    rows = [
        [TableCell(f"v3/node:{node}", node)]
        + [TableCell(key, text) for key, text in _storage_cells(node, store, periods)]
        for node, store in instance["storage"].items()
    ]
    return render_table(STORAGE_TITLE, header, rows)


def render(instance: Mapping[str, Any]) -> list[RenderedVisual]:
    network = render_layered_network(
        layers=layers_of(instance),
        arcs=instance["arcs"],
        arc_text={arc_key(a["from"], a["to"]): a["id"] for a in instance["arcs"]},
        node_styles={int(node): _node_style(instance, str(node)) for node in instance["nodes"]},
        title=NETWORK_TITLE,
    )
    return [network, _arc_table(instance), _node_table(instance), _storage_table(instance)]


def expected_labels(instance: Mapping[str, Any]) -> list[ExpectedLabel]:
    periods = list(instance["periods"])
    labels = [ExpectedLabel(f"node:{n}", str(n)) for n in instance["nodes"]]
    labels += [ExpectedLabel(f"tag:{node}", "storage") for node in instance["storage"]]
    labels += [ExpectedLabel(f"arc:{a['from']}_{a['to']}", a["id"]) for a in instance["arcs"]]
    for t in periods:
        labels += [
            ExpectedLabel(f"v1/period:{t}", t),
            ExpectedLabel(f"v2/period:{t}", t),
            ExpectedLabel(f"v3/period:{t}", f"holding {t}"),
        ]
    for a in instance["arcs"]:
        labels.append(ExpectedLabel(f"v1/row:{a['id']}", arc_row_text(a)))
        labels += [ExpectedLabel(f"v1/arc:{a['id']}@{t}", arc_cell_text(a, t)) for t in periods]
    labels += [ExpectedLabel(f"v2/node:{n}", str(n)) for n in instance["nodes"]]
    labels += [ExpectedLabel(key, text) for key, text in _supply_cells(instance)]
    for node, store in instance["storage"].items():
        labels.append(ExpectedLabel(f"v3/node:{node}", node))
        labels += [ExpectedLabel(key, text) for key, text in _storage_cells(node, store, periods)]
    return labels


def visual_values(instance: Mapping[str, Any]) -> set[int]:
    values = {
        int(v)
        for a in instance["arcs"]
        for key in ("capacity_by_period", "cost_by_period")
        for v in a[key].values()
    }
    values |= {
        abs(int(v))
        for row in instance["net_supply_by_node_period"].values()
        for v in row.values()
        if int(v) != 0
    }
    for store in instance["storage"].values():
        values |= {int(store["capacity"]), *(int(v) for v in store["holding_cost_by_period"].values())}
        if store["initial_inventory"]:
            values.add(int(store["initial_inventory"]))
    return values
