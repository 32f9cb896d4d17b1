"""Layered directed networks for the network-optimization family: topology sampling and drawing.

App. E.1: the topology is not an arbitrary dense graph. A layered backbone guarantees that every
node on the supply side reaches the demand side; controlled extra arcs then create interacting
routes: more arcs between consecutive layers (cross-layer coupling), arcs between vertically adjacent
nodes of one layer (intra-layer coupling) and arcs that skip a layer along the top or bottom edge of
the drawing (bypasses). Every arc kind has one drawing rule, so the picture stays readable:
consecutive-layer arcs are straight and only join nodes of nearby height (a band), intra-layer arcs
are short vertical segments, bypasses curve around the outside of the intermediate layer.

Nodes are labelled ``1..n`` in layer order, top to bottom within a layer; arcs are keyed ``"u_v"``.
Any subcategory of the family (maximum flow, minimum-cost flow, shortest paths …) can reuse both
halves: :func:`sample_layered_topology` for stage 2 and :func:`render_layered_network` for stage 7.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from matplotlib.patches import Circle, FancyArrowPatch

from benchmark.suites.mmopt.generation.protocol import Rejected, RenderedVisual
from benchmark.suites.mmopt.generation.rendering import (
    FONT_FAMILY,
    LabelPlacer,
    default_style,
    new_figure,
    sample_quadratic,
)

Arc = tuple[int, int]


def arc_key(tail: int | str, head: int | str) -> str:
    return f"{tail}_{head}"


@dataclass(frozen=True)
class LayeredTopology:
    """Stage-2 structure: nodes per layer (top to bottom) and the directed arcs."""

    layers: tuple[tuple[int, ...], ...]
    arcs: tuple[Arc, ...]

    @property
    def nodes(self) -> list[int]:
        return [node for layer in self.layers for node in layer]


@dataclass(frozen=True)
class ExtraArcMix:
    """How many non-backbone arcs of each kind a regime asks for (inclusive ranges)."""

    intra: tuple[int, int]
    bypass: tuple[int, int]


def _layer_index(layers: Sequence[Sequence[int]]) -> dict[int, tuple[int, int]]:
    return {node: (k, p) for k, layer in enumerate(layers) for p, node in enumerate(layer)}


def _banded(p: int, a: int, q: int, b: int) -> bool:
    """Consecutive-layer arcs join nodes of similar height only, which keeps crossings few and
    short. Positions are rescaled to the larger layer; a singleton layer fans out to everything."""
    if a == 1 or b == 1:
        return True
    scale = (max(a, b) - 1) / 1.0
    return abs(p / (a - 1) * scale - q / (b - 1) * scale) <= 1.0 + 1e-9


def arc_kind(layers: Sequence[Sequence[int]], tail: int, head: int) -> str:
    """``forward`` (next layer), ``intra`` (same layer) or ``bypass`` (skips a layer)."""
    index = _layer_index(layers)
    step = index[head][0] - index[tail][0]
    return {0: "intra", 1: "forward"}.get(step, "bypass")


def sample_layered_topology(
    rng: random.Random,
    layer_sizes: Sequence[int],
    arc_range: tuple[int, int],
    mix: ExtraArcMix,
) -> LayeredTopology:
    """A layered backbone plus intra-layer and bypass arcs, topped up with more consecutive-layer
    arcs to a total drawn from ``arc_range`` (inclusive).

    Raises :class:`Rejected` when the sizes cannot carry an arc count in the range under the
    drawing rules.
    """
    layers: list[tuple[int, ...]] = []
    label = 1
    for size in layer_sizes:
        layers.append(tuple(range(label, label + size)))
        label += size
    position = _layer_index(layers)

    def allowed(u: int, v: int) -> bool:
        (k, p), (m, q) = position[u], position[v]
        return m == k + 1 and _banded(p, len(layers[k]), q, len(layers[m]))

    forward_pool = sorted((u, v) for k in range(len(layers) - 1) for u in layers[k] for v in layers[k + 1])
    forward_pool = [arc for arc in forward_pool if allowed(*arc)]
    arcs: set[Arc] = set()
    # Backbone: every node has an arc into the next layer and every node an arc from the previous
    # one, so each node lies on a route from the first layer to the last.
    for k in range(len(layers) - 1):
        for u in layers[k]:
            if not any(a[0] == u for a in arcs):
                arcs.add(rng.choice([a for a in forward_pool if a[0] == u]))
        for v in layers[k + 1]:
            if not any(a[1] == v for a in arcs):
                arcs.add(rng.choice([a for a in forward_pool if a[1] == v]))
    intra_pool = sorted(
        (layer[p], layer[p + 1]) for layer in layers if len(layer) > 1 for p in range(len(layer) - 1)
    )
    n_intra = min(rng.randint(*mix.intra), len(intra_pool))
    for u, v in rng.sample(intra_pool, n_intra):
        arcs.add((u, v) if rng.random() < 0.5 else (v, u))

    spans = [(side, k) for side in ("top", "bottom") for k in range(len(layers) - 2)]
    rng.shuffle(spans)
    wanted_bypass = rng.randint(*mix.bypass)
    taken: dict[str, list[int]] = {"top": [], "bottom": []}
    for side, k in spans:
        if sum(len(v) for v in taken.values()) >= wanted_bypass:
            break
        if any(abs(k - other) < 2 for other in taken[side]):
            continue  # two bypasses on one side may meet at a node but never run side by side
        pick = 0 if side == "top" else -1
        tail, head = layers[k][pick], layers[k + 2][pick]
        if side == "bottom" and len(layers[k]) == 1 and len(layers[k + 2]) == 1:
            continue  # both ends are singletons: the top bypass already covers this pair
        arcs.add((tail, head))
        taken[side].append(k)

    remaining = [arc for arc in forward_pool if arc not in arcs]
    low, high = max(arc_range[0], len(arcs)), min(arc_range[1], len(arcs) + len(remaining))
    if low > high:
        raise Rejected("structure: arc count outside the regime under the drawing rules")
    target = rng.randint(low, high)
    rng.shuffle(remaining)
    while len(arcs) < target:
        arcs.add(remaining.pop())
    return LayeredTopology(layers=tuple(layers), arcs=tuple(sorted(arcs)))


def _drawable(layers: Sequence[Sequence[int]], arc: Arc) -> bool:
    """Whether ``arc`` is one the sampler can draw on ``layers``: a banded consecutive-layer arc, an
    arc between vertically adjacent nodes of one layer, or a bypass along the top or bottom edge."""
    index = _layer_index(layers)
    if arc[0] not in index or arc[1] not in index:
        return False
    (k, p), (m, q) = index[arc[0]], index[arc[1]]
    if m == k + 1:
        return _banded(p, len(layers[k]), q, len(layers[m]))
    if m == k:
        return abs(p - q) == 1
    if m == k + 2:
        return (p == 0 and q == 0) or (p == len(layers[k]) - 1 and q == len(layers[m]) - 1)
    return False


def recover_layers(
    nodes: Sequence[int],
    arcs: Sequence[Arc],
    size_options: Sequence[Sequence[int]],
    ends: tuple[Sequence[int], Sequence[int]] | None = None,
) -> tuple[tuple[int, ...], ...] | None:
    """The layers of a sampled topology, read back from its node labels and arcs alone.

    The official instance schema of maximum flow and minimum-cost flow has no layout field, so the
    renderer recovers the columns: labels run ``1..n`` in layer order, so a layering is a split of
    the sorted labels by one of the regime's layer-size options, and the first option under which
    every arc is drawable (and, given ``ends``, whose first and last layers hold exactly those
    nodes, e.g. the supplies and the demands) is taken. Generators reject a candidate whose sampled
    layers differ from the recovered ones, so the drawing always shows the sampled layout."""
    labels = sorted(nodes)
    for sizes in size_options:
        if sum(sizes) != len(labels):
            continue
        layers, start = [], 0
        for size in sizes:
            layers.append(tuple(labels[start : start + size]))
            start += size
        if ends is not None and (set(layers[0]), set(layers[-1])) != (set(ends[0]), set(ends[1])):
            continue
        if all(_drawable(layers, arc) for arc in arcs):
            return tuple(layers)
    return None


def require_recoverable_layers(
    topology: LayeredTopology,
    size_options: Sequence[Sequence[int]],
    ends: tuple[Sequence[int], Sequence[int]] | None = None,
) -> None:
    """Reject a topology whose layers :func:`recover_layers` would not read back."""
    if recover_layers(topology.nodes, topology.arcs, size_options, ends) != topology.layers:
        raise Rejected("structure: layers not recoverable from the arcs")


def reachable(
    nodes: Sequence[int], arcs: Sequence[Arc], starts: Sequence[int], reverse: bool = False
) -> set[int]:
    """Nodes reachable from ``starts`` (or reaching them, with ``reverse``)."""
    adjacency: dict[int, list[int]] = {node: [] for node in nodes}
    for u, v in arcs:
        if reverse:
            adjacency[v].append(u)
        else:
            adjacency[u].append(v)
    seen = set(starts)
    stack = list(starts)
    while stack:
        for nxt in adjacency[stack.pop()]:
            if nxt not in seen:
                seen.add(nxt)
                stack.append(nxt)
    return seen


# --------------------------------------------------------------------------------------------------
# Drawing


@dataclass(frozen=True)
class NodeStyle:
    """How one node is drawn: fill colour, an optional second line inside the disc (e.g. the
    supply ``+12``) and an optional tag outside it (``source``/``sink``)."""

    fill: str = "#dbe9f6"
    inner: str | None = None
    inner_color: str = "black"
    tag: str | None = None
    tag_color: str = "black"


_GAP_X = 3.2  # data units between layers; 1 unit = PIXELS_PER_UNIT pixels
_GAP_Y = 1.9
_RADIUS = 0.36
PIXELS_PER_UNIT = 100
MIN_WIDTH_PX = 1100
_PALETTE = ("#1f4e79", "#9c3d10", "#2e6b30", "#6a3d9a", "#8a6d00", "#b0306a", "#136f77", "#5b5b5b")
_LABEL_T = (0.5, 0.42, 0.58, 0.34, 0.66, 0.27, 0.73, 0.22, 0.78)


def layer_positions(layers: Sequence[Sequence[int]]) -> dict[int, tuple[float, float]]:
    return {
        node: (k * _GAP_X, ((len(layer) - 1) / 2 - p) * _GAP_Y)
        for k, layer in enumerate(layers)
        for p, node in enumerate(layer)
    }


def positions_record(layers: Sequence[Sequence[int]]) -> dict[str, list[float]]:
    """The official ``positions`` field (node → ``[x, y]`` in drawing units) of a layered layout."""
    return {str(node): [round(x, 2), round(y, 2)] for node, (x, y) in sorted(layer_positions(layers).items())}


def layers_from_positions(positions: Mapping[str, Sequence[float]]) -> tuple[tuple[int, ...], ...]:
    """The columns of a ``positions`` field written by :func:`positions_record`: nodes grouped by
    ``x`` (left to right), each column top to bottom."""
    columns: dict[float, list[tuple[float, int]]] = {}
    for node, (x, y) in positions.items():
        columns.setdefault(float(x), []).append((-float(y), int(node)))
    return tuple(tuple(node for _, node in sorted(columns[x])) for x in sorted(columns))


def _bypass_rad(
    layers: Sequence[Sequence[int]], pos: Mapping[int, tuple[float, float]], tail: int, head: int
) -> tuple[float, float]:
    """(arc3 ``rad``, apex height) for a bypass, curving outward enough to clear the skipped layer."""
    index = _layer_index(layers)
    k, p = index[tail]
    top = p == 0
    (x0, y0), (x1, y1) = pos[tail], pos[head]
    middle = [pos[node][1] for node in layers[k + 1]]
    mid_y = (y0 + y1) / 2
    dx = x1 - x0
    if top:
        needed = max(max(middle) + _RADIUS + 0.75 - mid_y, 0.9)
        return -2 * needed / dx, mid_y + needed
    needed = max(mid_y - (min(middle) - _RADIUS - 0.75), 0.9)
    return 2 * needed / dx, mid_y - needed


def render_layered_network(
    layers: Sequence[Sequence[int]],
    arcs: Sequence[Mapping[str, Any]],
    arc_text: Mapping[str, str],
    node_styles: Mapping[int, NodeStyle],
    title: str,
) -> RenderedVisual:
    """Draw a layered directed network; raises :class:`Rejected` when a label finds no free place.

    ``arcs`` are records with ``from`` and ``to``; ``arc_text`` maps ``"u_v"`` to the label text.
    Labels are reported with keys ``node:<v>``, ``inner:<v>``, ``tag:<v>``, ``arc:<u_v>`` and
    ``note:title``.
    """
    pos = layer_positions(layers)
    pairs = [(int(a["from"]), int(a["to"])) for a in arcs]
    geometry: dict[Arc, tuple[float, float]] = {}  # rad, apex y (for bypasses)
    y_hi = max(y for _, y in pos.values()) + _RADIUS
    y_lo = min(y for _, y in pos.values()) - _RADIUS
    for tail, head in pairs:
        if arc_kind(layers, tail, head) == "bypass":
            rad, apex = _bypass_rad(layers, pos, tail, head)
            geometry[(tail, head)] = (rad, apex)
            y_hi, y_lo = max(y_hi, apex), min(y_lo, apex)
        else:
            geometry[(tail, head)] = (0.0, 0.0)
    has_tags = any(style.tag for style in node_styles.values())
    x_lo = -_RADIUS - (1.35 if has_tags else 0.6)
    x_hi = (len(layers) - 1) * _GAP_X + _RADIUS + (1.35 if has_tags else 0.6)
    min_span = MIN_WIDTH_PX / PIXELS_PER_UNIT  # small networks still need room for the title line
    if x_hi - x_lo < min_span:
        pad = (min_span - (x_hi - x_lo)) / 2
        x_lo, x_hi = x_lo - pad, x_hi + pad
    y_lo -= 0.45
    y_hi += 0.95  # room for the title line
    width = round((x_hi - x_lo) * PIXELS_PER_UNIT)
    height = round((y_hi - y_lo) * PIXELS_PER_UNIT)

    with default_style():
        fig, ax = new_figure(width, height)
        ax.set_xlim(x_lo, x_lo + width / PIXELS_PER_UNIT)
        ax.set_ylim(y_lo, y_lo + height / PIXELS_PER_UNIT)
        placer = LabelPlacer(fig, ax)
        radius_px = _RADIUS * PIXELS_PER_UNIT
        shrink_pt = radius_px * 72 / 100 + 1.5

        for node, (x, y) in sorted(pos.items()):
            style = node_styles.get(node, NodeStyle())
            ax.add_patch(Circle((x, y), _RADIUS, facecolor=style.fill, edgecolor="#222222", lw=1.6, zorder=3))
            centre = placer.to_display((x, y))
            placer.add_box(f"disc:{node}", (*(centre - radius_px), *(centre + radius_px)))
            offset = 0.14 if style.inner is not None else 0.0
            name = ax.text(
                x, y + offset, str(node), ha="center", va="center", fontsize=12, fontweight="bold",
                fontfamily=FONT_FAMILY, zorder=4,
            )  # fmt: skip
            placer.fixed(f"node:{node}", name)
            if style.inner is not None:
                inner = ax.text(
                    x, y - 0.15, style.inner, ha="center", va="center", fontsize=11, color=style.inner_color,
                    fontweight="bold", fontfamily=FONT_FAMILY, zorder=4,
                )  # fmt: skip
                placer.fixed(f"inner:{node}", inner)

        for i, (tail, head) in enumerate(pairs):
            rad, _ = geometry[(tail, head)]
            color = _PALETTE[i % len(_PALETTE)]
            ax.add_patch(
                FancyArrowPatch(
                    pos[tail], pos[head], connectionstyle=f"arc3,rad={rad}", arrowstyle="-|>",
                    mutation_scale=17, shrinkA=shrink_pt, shrinkB=shrink_pt, lw=1.5, color=color, zorder=2,
                )
            )  # fmt: skip
            p0, p2 = placer.to_display(pos[tail]), placer.to_display(pos[head])
            mid = (p0 + p2) / 2
            d = p2 - p0
            p1 = mid + rad * np.array([d[1], -d[0]])
            placer.add_path(f"arc:{arc_key(tail, head)}", sample_quadratic(p0, p1, p2))

        title_at = placer.to_display(((x_lo + x_hi) / 2, y_hi - 0.45))
        if placer.place("note:title", title, [title_at], set(), 12, weight="bold") is None:
            raise Rejected("visual: title does not fit")

        for node, (x, y) in sorted(pos.items()):
            style = node_styles.get(node, NodeStyle())
            if style.tag is None:
                continue
            k = _layer_index(layers)[node][0]
            d = _RADIUS + 0.62
            outward = -1.0 if k == 0 else 1.0
            offsets = [
                (outward * d, 0.0),
                (0.0, d - 0.1),
                (0.0, -(d - 0.1)),
                (outward * d, 0.5),
                (outward * d, -0.5),
            ]
            candidates = [placer.to_display((x + ox, y + oy)) for ox, oy in offsets]
            placed = placer.place(
                f"tag:{node}", style.tag, candidates, set(), 12, color=style.tag_color, weight="bold",
                facecolor="white", edgecolor=style.tag_color,
            )  # fmt: skip
            if placed is None:
                raise Rejected("visual: no free place for a node tag")

        # Constrained labels first: bypass and intra-layer arcs have few good spots.
        order = sorted(range(len(pairs)), key=lambda i: (arc_kind(layers, *pairs[i]) == "forward", i))
        for i in order:
            tail, head = pairs[i]
            key = arc_key(tail, head)
            rad, _ = geometry[(tail, head)]
            p0, p2 = placer.to_display(pos[tail]), placer.to_display(pos[head])
            d = p2 - p0
            p1 = (p0 + p2) / 2 + rad * np.array([d[1], -d[0]])
            candidates = [(1 - t) ** 2 * p0 + 2 * (1 - t) * t * p1 + t**2 * p2 for t in _LABEL_T]
            color = _PALETTE[i % len(_PALETTE)]
            if (
                placer.place(f"arc:{key}", arc_text[key], candidates, {f"arc:{key}"}, 11, edgecolor=color)
                is None
            ):
                raise Rejected("visual: no free place for an arc label")
        return placer.rendered()
