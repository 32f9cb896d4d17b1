"""The max-flow visual: layered directed network, capacities on arcs, source and sink tagged."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from benchmark.suites.mmopt.generation.network import NodeStyle, arc_key, render_layered_network
from benchmark.suites.mmopt.generation.protocol import ExpectedLabel, RenderedVisual
from benchmark.suites.mmopt.subcategories.maximum_flow.generator import layers_of

TITLE = "Directed network: the number on each arc is its capacity"
_SOURCE_STYLE = NodeStyle(fill="#c9ecc4", tag="source", tag_color="#1f6b1a")
_SINK_STYLE = NodeStyle(fill="#f6d0c8", tag="sink", tag_color="#a02a12")


def arc_text(arc: Mapping[str, Any]) -> str:
    return str(arc["capacity"])


def render(instance: Mapping[str, Any]) -> list[RenderedVisual]:
    styles = {instance["source"]: _SOURCE_STYLE, instance["sink"]: _SINK_STYLE}
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
    labels.append(ExpectedLabel(f"tag:{instance['source']}", "source"))
    labels.append(ExpectedLabel(f"tag:{instance['sink']}", "sink"))
    labels += [ExpectedLabel(f"arc:{a['from']}_{a['to']}", arc_text(a)) for a in instance["arcs"]]
    return labels


def visual_values(instance: Mapping[str, Any]) -> set[int]:
    return {int(a["capacity"]) for a in instance["arcs"]}
