"""Shared rendering helpers: deterministic PNGs, collision-aware label placement, label audits.

Visuals are part of the optimization specification (App. E.1): a capacity the reader cannot read,
or a label that could belong to two arcs, makes the instance wrong rather than merely ugly. So the
renderer places every label where it touches no other label and no foreign line, reports what it
drew with pixel boxes, and :func:`label_problems` re-checks that report against the instance record
independently of how the placement was done.

Determinism: figures are built on a private Agg canvas (no pyplot state), under matplotlib's default
style (a user's matplotlibrc cannot change a pixel), with a fixed dpi and without the ``Software``
metadata stamp. The bytes are then reproducible for a given matplotlib version.
"""

from __future__ import annotations

import contextlib
import io
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

import matplotlib
import matplotlib.image
import matplotlib.style
import numpy as np
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.text import Text
from matplotlib.transforms import IdentityTransform

from benchmark.suites.mmopt.generation.protocol import DrawnLabel, ExpectedLabel, RenderedVisual

DPI = 100
FONT_FAMILY = "DejaVu Sans"  # shipped with matplotlib, so every machine renders the same glyphs
MIN_FONT_PT = 9.0
DECORATIVE_PREFIX = "note:"  # labels that carry no instance value (titles, legends); must hold no digits

Box = tuple[float, float, float, float]  # x0, y0, x1, y1 in display pixels (origin bottom left)


@contextlib.contextmanager
def default_style() -> Iterator[None]:
    """Matplotlib's built-in defaults, whatever the user's matplotlibrc says."""
    with matplotlib.style.context("default"):
        yield


def new_figure(width_px: int, height_px: int) -> tuple[Figure, Axes]:
    """A figure of exactly ``width_px`` × ``height_px`` whose axes fill it, with data units chosen by
    the caller via ``set_xlim``/``set_ylim``; no axis decorations."""
    fig = Figure(figsize=(width_px / DPI, height_px / DPI), dpi=DPI)
    FigureCanvasAgg(fig)
    ax = fig.add_axes((0.0, 0.0, 1.0, 1.0))
    ax.set_axis_off()
    return fig, ax


def png_bytes(fig: Figure) -> bytes:
    """The figure as PNG bytes, reproducible byte for byte (no software stamp, fixed dpi)."""
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=DPI, metadata={"Software": None})
    return buffer.getvalue()


def _png_of_drawn_canvas(fig: Figure) -> bytes:
    """The PNG of a figure whose canvas was just drawn: the bytes :func:`png_bytes` gives, without
    ``savefig`` drawing every artist a second time (half the cost of a visual, and validation
    re-renders every package)."""
    buffer = io.BytesIO()
    matplotlib.image.imsave(
        buffer,
        np.asarray(fig.canvas.buffer_rgba()),  # type: ignore[attr-defined]
        format="png",
        origin="upper",
        dpi=DPI,
        metadata={"Software": None},  # type: ignore[dict-item]  # None drops the key (documented)
    )
    return buffer.getvalue()


def _boxes_overlap(a: Box, b: Box, tolerance: float = 0.5) -> bool:
    return min(a[2], b[2]) - max(a[0], b[0]) > tolerance and min(a[3], b[3]) - max(a[1], b[1]) > tolerance


def _grow(box: Box, margin: float) -> Box:
    return (box[0] - margin, box[1] - margin, box[2] + margin, box[3] + margin)


def sample_quadratic(p0: np.ndarray, p1: np.ndarray, p2: np.ndarray, step_px: float = 1.5) -> np.ndarray:
    """Points along the quadratic Bézier p0→p2 with control p1 (display pixels), dense enough that
    a line cannot slip between two samples unseen by a label box."""
    length = float(np.linalg.norm(p1 - p0) + np.linalg.norm(p2 - p1))
    count = max(8, int(length / step_px) + 1)
    t = np.linspace(0.0, 1.0, count)[:, None]
    points: np.ndarray = (1 - t) ** 2 * p0 + 2 * (1 - t) * t * p1 + t**2 * p2
    return points


def _clearance(box: Box, points: np.ndarray) -> float:
    """Distance in pixels from ``box`` to the nearest of ``points`` (infinite when there are none)."""
    if len(points) == 0:
        return float("inf")
    dx = np.maximum(np.maximum(box[0] - points[:, 0], points[:, 0] - box[2]), 0.0)
    dy = np.maximum(np.maximum(box[1] - points[:, 1], points[:, 1] - box[3]), 0.0)
    return float(np.sqrt(dx * dx + dy * dy).min())


@dataclass
class PlacedText:
    key: str
    artist: Text


class LabelPlacer:
    """Greedy, deterministic label placement on one axes.

    Obstacles are boxes (other labels, node discs) and polylines (arcs, curves), each with an
    owner. A label goes to the first candidate position whose box stays inside the canvas and
    touches no box and no polyline except the ones the caller says it belongs to.
    """

    def __init__(self, fig: Figure, ax: Axes, margin_px: float = 3.0, line_margin_px: float = 6.0) -> None:
        self.fig = fig
        self.ax = ax
        self.margin = margin_px
        self.line_margin = line_margin_px  # a foreign line this close to a label makes it ambiguous
        self.clearance_cap = 36.0  # beyond this distance from other lines every spot is equally good
        self.renderer = fig.canvas.get_renderer()  # type: ignore[attr-defined]
        self.boxes: list[tuple[str, Box]] = []
        self.paths: dict[str, np.ndarray] = {}
        self.placed: list[PlacedText] = []

    def to_display(self, xy: Sequence[float] | np.ndarray) -> np.ndarray:
        """Data coordinates to display pixels: one point or an ``(n, 2)`` array of points."""
        return np.asarray(self.ax.transData.transform(np.asarray(xy, dtype=float)), dtype=float)

    def add_box(self, owner: str, box: Box) -> None:
        self.boxes.append((owner, box))

    def add_path(self, owner: str, points: np.ndarray) -> None:
        self.paths[owner] = points

    def _fits(self, box: Box, owners: set[str]) -> bool:
        width, height = self.fig.bbox.width, self.fig.bbox.height
        if box[0] < 1 or box[1] < 1 or box[2] > width - 1 or box[3] > height - 1:
            return False
        grown = _grow(box, self.margin)
        if any(_boxes_overlap(grown, other) for owner, other in self.boxes if owner not in owners):
            return False
        grown = _grow(box, self.line_margin)
        for owner, points in self.paths.items():
            if owner in owners:
                continue
            inside = (
                (points[:, 0] >= grown[0])
                & (points[:, 0] <= grown[2])
                & (points[:, 1] >= grown[1])
                & (points[:, 1] <= grown[3])
            )
            if bool(inside.any()):
                return False
        return True

    def place(
        self,
        key: str,
        text: str,
        candidates: Sequence[np.ndarray],
        owners: set[str],
        fontsize: float,
        *,
        facecolor: str = "white",
        edgecolor: str = "none",
        color: str = "black",
        weight: str = "normal",
    ) -> Text | None:
        """Draw ``text`` centred at a fitting candidate (display pixels); ``None`` if none fits.

        Among fitting candidates the one farthest from foreign lines wins (distances capped at
        ``clearance_cap``, ties to the earlier candidate): a label right next to a crossing is
        legal but makes a reader guess which line it belongs to. ``owners`` are the obstacles this
        label may touch (its own arc, its own node).
        """
        pad_pt = 0.25 * fontsize
        artist = self.ax.text(
            0.0,
            0.0,
            text,
            transform=IdentityTransform(),  # display pixels: the candidates were computed there
            ha="center",
            va="center",
            fontsize=fontsize,
            fontfamily=FONT_FAMILY,
            color=color,
            fontweight=weight,
            zorder=5,
            bbox={"boxstyle": "round,pad=0.25", "facecolor": facecolor, "edgecolor": edgecolor},
        )
        extent = artist.get_window_extent(renderer=self.renderer)
        pad_px = pad_pt * DPI / 72.0
        half_w, half_h = extent.width / 2 + pad_px, extent.height / 2 + pad_px
        foreign = [points for owner, points in self.paths.items() if owner not in owners]
        obstacles = np.concatenate(foreign) if foreign else np.empty((0, 2))
        best: tuple[float, Box] | None = None
        for point in candidates:
            box = (point[0] - half_w, point[1] - half_h, point[0] + half_w, point[1] + half_h)
            if not self._fits(box, owners):
                continue
            clearance = min(_clearance(box, obstacles), self.clearance_cap)
            if best is None or clearance > best[0]:
                best = (clearance, box)
        if best is None:
            artist.remove()
            return None
        box = best[1]
        artist.set_position(((box[0] + box[2]) / 2, (box[1] + box[3]) / 2))
        self.add_box(key, box)
        self.placed.append(PlacedText(key, artist))
        return artist

    def fixed(self, key: str, artist: Text) -> None:
        """Register a label the caller positioned itself (e.g. a node name inside its disc)."""
        self.placed.append(PlacedText(key, artist))

    def rendered(self) -> RenderedVisual:
        """Draw the figure and report every registered label with its final pixel box."""
        self.fig.canvas.draw()
        height = self.fig.bbox.height
        labels = []
        for item in self.placed:
            box = item.artist.get_window_extent(renderer=self.renderer)
            x0, y0, x1, y1 = box.x0, box.y0, box.x1, box.y1
            patch = item.artist.get_bbox_patch()
            if patch is not None:
                outer = patch.get_window_extent(renderer=self.renderer)
                x0, y0, x1, y1 = min(x0, outer.x0), min(y0, outer.y0), max(x1, outer.x1), max(y1, outer.y1)
            labels.append(
                DrawnLabel(
                    key=item.key,
                    text=item.artist.get_text(),
                    bbox=(round(x0, 2), round(height - y1, 2), round(x1, 2), round(height - y0, 2)),
                    fontsize_pt=float(item.artist.get_fontsize()),
                )
            )
        return RenderedVisual(
            png=_png_of_drawn_canvas(self.fig),
            labels=tuple(labels),
            width_px=round(self.fig.bbox.width),
            height_px=round(height),
        )


_DIGIT = re.compile(r"\d")


def label_problems(
    visual: RenderedVisual,
    expected: Sequence[ExpectedLabel],
    *,
    min_font_pt: float = MIN_FONT_PT,
    may_overlap: Mapping[str, set[str]] | None = None,
) -> list[str]:
    """Audit a rendered visual against the instance record.

    Every expected value must be drawn exactly once with exactly the expected text; anything drawn
    that the record does not call for is either a decorative note without digits or a leak; no two
    label boxes may overlap (except pairs in ``may_overlap``, e.g. a node name inside its own disc
    label); every label must be at least ``min_font_pt`` and lie inside the image.
    """
    problems: list[str] = []
    drawn: dict[str, list[DrawnLabel]] = {}
    for label in visual.labels:
        drawn.setdefault(label.key, []).append(label)
    for item in expected:
        found = drawn.get(item.key, [])
        if not found:
            problems.append(f"{item.key} not drawn")
        elif len(found) > 1:
            problems.append(f"{item.key} drawn {len(found)} times")
        elif found[0].text != item.text:
            problems.append(f"{item.key} drawn as {found[0].text!r}, record says {item.text!r}")
    expected_keys = {item.key for item in expected}
    for key, labels in drawn.items():
        if key in expected_keys:
            continue
        if not key.startswith(DECORATIVE_PREFIX) or any(_DIGIT.search(label.text) for label in labels):
            problems.append(f"{key} drawn but not part of the public record")
    allowed = may_overlap or {}
    ordered = list(visual.labels)
    for i, a in enumerate(ordered):
        if a.fontsize_pt < min_font_pt:
            problems.append(f"{a.key} font {a.fontsize_pt:g} pt below {min_font_pt:g} pt")
        x0, y0, x1, y1 = a.bbox
        if x0 < 0 or y0 < 0 or x1 > visual.width_px or y1 > visual.height_px:
            problems.append(f"{a.key} extends outside the image")
        for b in ordered[i + 1 :]:
            if b.key in allowed.get(a.key, set()) or a.key in allowed.get(b.key, set()):
                continue
            if _boxes_overlap(a.bbox, b.bbox):
                problems.append(f"labels {a.key} and {b.key} overlap")
    return problems
