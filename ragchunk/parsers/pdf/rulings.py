"""Ruled grids on a PDF page: the horizontal and vertical lines PDFium's path objects draw.

A table's borders are path objects: a stroked line (``m x y l``), a thin filled rectangle (how
Chromium and many office suites draw a cell border), or the edges of a stroked or filled
rectangle. ``page_edges`` reads them through PDFium's raw API (``FPDFPage_GetObject``,
``FPDFPageObj_GetBounds``, ``FPDFPath_GetPathSegment``), in points from the page's top-left
corner; a page without two horizontal and two vertical edges is done after one pass over its
object types, so a page of prose pays next to nothing. ``grids`` snaps the edges to shared
positions, joins the pieces of one rule, and groups the rules that cross into grids: the
column boundaries ``xs`` and row boundaries ``ys`` of a table of two rows and two columns or
more, and which inner boundaries each cell is closed by (a cell spanning two columns has no
rule between them).
"""

from __future__ import annotations

import bisect
import ctypes
import itertools
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

import pypdfium2.raw as pdfium_c

if TYPE_CHECKING:
    from collections.abc import Sequence

THIN: Final = 3.0
"""A path's box narrower than this many points is one rule (a stroked line, a thin rectangle)."""
SHORTEST: Final = 6.0
"""A rule shorter than this many points is a tick or a glyph-like mark, never a border."""
SNAP: Final = 2.0
"""Rules this close (points) across their direction are one; pieces this close along it join."""
MAX_OBJECTS: Final = 5000
"""A page with more objects than this is a drawing: it is not searched for tables."""
MAX_RULES: Final = 1000
"""A page with more horizontal and vertical rules than this is a drawing (a chart's grid, a
hatching): it is not searched for tables, so crossing them stays cheap."""
MAX_SEGMENTS: Final = 64
"""A path of more segments than this is a drawing's curve, not a rectangle's edges."""


@dataclass(frozen=True, slots=True)
class Edge:
    """A horizontal (``at`` is y) or vertical (``at`` is x) rule from ``low`` to ``high``."""

    at: float
    low: float
    high: float


@dataclass(frozen=True, slots=True)
class Grid:
    """A ruled table: its column and row boundaries, top-left origin, in points.

    ``closed[r]`` holds the inner column boundaries (indices into ``xs``) a rule closes in
    row band ``r``: a cell runs from one closed boundary (or the table's edge) to the next.
    ``ruled[r]`` holds the column bands (between ``xs[c]`` and ``xs[c + 1]``) that a rule
    separates from the row band above ``r``: a cell without one spans both rows.
    """

    xs: tuple[float, ...]
    ys: tuple[float, ...]
    closed: tuple[frozenset[int], ...]
    ruled: tuple[frozenset[int], ...] = ()

    def top_band(self, band: int, x: float) -> int:
        """Return the row band where the cell holding ``x`` in row band ``band`` starts."""
        column = next((c for c in range(len(self.xs) - 2) if x < self.xs[c + 1]), len(self.xs) - 2)
        while band > 0 and column not in self.ruled[band]:
            band -= 1
        return band

    @property
    def box(self) -> tuple[float, float, float, float]:
        """The grid's ``(left, top, right, bottom)``."""
        return self.xs[0], self.ys[0], self.xs[-1], self.ys[-1]

    def cells(self, row: int) -> list[tuple[float, float]]:
        """Return the ``(left, right)`` of each cell of row band ``row``, left to right."""
        bounds = [0, *sorted(self.closed[row]), len(self.xs) - 1]
        return [(self.xs[a], self.xs[b]) for a, b in itertools.pairwise(bounds)]


def page_edges(page: Any, height: float) -> tuple[list[Edge], list[Edge]]:
    """Return the page's horizontal and vertical rules (empty when it has too few of either)."""
    count = pdfium_c.FPDFPage_CountObjects(page)
    if count > MAX_OBJECTS:
        return [], []
    paths = [
        obj
        for obj in (pdfium_c.FPDFPage_GetObject(page, k) for k in range(count))
        if pdfium_c.FPDFPageObj_GetType(obj) == pdfium_c.FPDF_PAGEOBJ_PATH
    ]
    if len(paths) < 2:  # the pre-check: no two rules, no table (most pages stop here)
        return [], []
    across: list[Edge] = []
    down: list[Edge] = []
    left, bottom, right, top = (ctypes.c_float() for _ in range(4))
    for obj in paths:
        if not pdfium_c.FPDFPageObj_GetBounds(obj, left, bottom, right, top):
            continue
        x0, x1, y0, y1 = left.value, right.value, height - top.value, height - bottom.value
        if y1 - y0 <= THIN and x1 - x0 >= SHORTEST:
            across.append(Edge((y0 + y1) / 2, x0, x1))
        elif x1 - x0 <= THIN and y1 - y0 >= SHORTEST:
            down.append(Edge((x0 + x1) / 2, y0, y1))
        elif x1 - x0 >= SHORTEST and y1 - y0 >= SHORTEST:
            _segment_edges(obj, height, across, down)
        if len(across) + len(down) > MAX_RULES:
            return [], []
    if len(across) < 2 or len(down) < 2:
        return [], []
    return across, down


def _segment_edges(obj: Any, height: float, across: list[Edge], down: list[Edge]) -> None:
    """Add the straight horizontal and vertical segments of a larger path (a rectangle's sides)."""
    count = pdfium_c.FPDFPath_CountSegments(obj)
    if not 0 < count <= MAX_SEGMENTS:
        return
    matrix = pdfium_c.FS_MATRIX()
    if not pdfium_c.FPDFPageObj_GetMatrix(obj, matrix):
        return
    x, y = ctypes.c_float(), ctypes.c_float()
    points: list[tuple[float, float, int]] = []
    for index in range(count):
        segment = pdfium_c.FPDFPath_GetPathSegment(obj, index)
        if not pdfium_c.FPDFPathSegment_GetPoint(segment, x, y):
            return
        kind = pdfium_c.FPDFPathSegment_GetType(segment)
        px = matrix.a * x.value + matrix.c * y.value + matrix.e
        py = height - (matrix.b * x.value + matrix.d * y.value + matrix.f)
        points.append((px, py, kind))
        if pdfium_c.FPDFPathSegment_GetClose(segment):
            start = next(p for p in reversed(points) if p[2] == pdfium_c.FPDF_SEGMENT_MOVETO)
            points.append((start[0], start[1], pdfium_c.FPDF_SEGMENT_LINETO))
    for (ax, ay, _), (bx, by, kind) in itertools.pairwise(points):
        if kind != pdfium_c.FPDF_SEGMENT_LINETO:
            continue
        if abs(ay - by) <= SNAP / 2 and abs(ax - bx) >= SHORTEST:
            across.append(Edge((ay + by) / 2, min(ax, bx), max(ax, bx)))
        elif abs(ax - bx) <= SNAP / 2 and abs(ay - by) >= SHORTEST:
            down.append(Edge((ax + bx) / 2, min(ay, by), max(ay, by)))


def merged(edges: Sequence[Edge]) -> list[Edge]:
    """Return the rules with those on one line snapped together and touching pieces joined."""
    out: list[Edge] = []
    for group in _clusters(sorted(edges, key=lambda e: e.at), lambda e: e.at):
        at = sum(e.at for e in group) / len(group)
        pieces = sorted(group, key=lambda e: e.low)
        low, high = pieces[0].low, pieces[0].high
        for piece in pieces[1:]:
            if piece.low <= high + SNAP:
                high = max(high, piece.high)
            else:
                out.append(Edge(at, low, high))
                low, high = piece.low, piece.high
        out.append(Edge(at, low, high))
    return out


def _clusters(items: Sequence[Any], key: Any) -> list[list[Any]]:
    """Split sorted ``items`` where ``key`` jumps by more than ``SNAP``."""
    groups: list[list[Any]] = []
    for item in items:
        if groups and key(item) - key(groups[-1][-1]) <= SNAP:
            groups[-1].append(item)
        else:
            groups.append([item])
    return groups


def _crosses(h: Edge, v: Edge) -> bool:
    return h.low - SNAP <= v.at <= h.high + SNAP and v.low - SNAP <= h.at <= v.high + SNAP


def grids(across: Sequence[Edge], down: Sequence[Edge]) -> list[Grid]:
    """Return the grids the crossing rules make, top to bottom (two rows, two columns or more)."""
    hs, vs = merged(across), merged(down)
    parent = list(range(len(hs) + len(vs)))

    def find(k: int) -> int:
        while parent[k] != k:
            parent[k] = parent[parent[k]]
            k = parent[k]
        return k

    for i, h in enumerate(hs):
        for j, v in enumerate(vs):
            if _crosses(h, v):
                parent[find(i)] = find(len(hs) + j)
    groups: dict[int, tuple[list[Edge], list[Edge]]] = {}
    for i, h in enumerate(hs):
        groups.setdefault(find(i), ([], []))[0].append(h)
    for j, v in enumerate(vs):
        groups.setdefault(find(len(hs) + j), ([], []))[1].append(v)
    found = [grid for h, v in groups.values() if (grid := _grid(h, v)) is not None]
    return sorted(found, key=lambda grid: grid.ys[0])


def _grid(hs: list[Edge], vs: list[Edge]) -> Grid | None:
    """Return the grid of one group of crossing rules, or None when it is no table."""
    ys = tuple(_positions(hs))
    xs = tuple(_positions(vs))
    if len(ys) < 2 or len(xs) < 2:  # two rules each way, at least
        return None
    # A table ruled only between its columns (LaTeX's ``|c|c|`` without the outer bars, or
    # none at its ends) ends where its horizontal rules end; likewise for rows.
    xs = _bounded(xs, min(h.low for h in hs), max(h.high for h in hs))
    ys = _bounded(ys, min(v.low for v in vs), max(v.high for v in vs))
    if len(ys) < 3 or len(xs) < 3:  # two rows and two columns at least
        return None
    down, across = _at(vs, xs), _at(hs, ys)
    closed = [
        frozenset(
            index
            for index in range(1, len(xs) - 1)
            if _covers(down.get(index, ()), (top + bottom) / 2)
        )
        for top, bottom in itertools.pairwise(ys)
    ]
    ruled = [frozenset(range(len(xs) - 1))] + [
        frozenset(
            c for c in range(len(xs) - 1) if _covers(across.get(index, ()), (xs[c] + xs[c + 1]) / 2)
        )
        for index in range(1, len(ys) - 1)
    ]
    return Grid(xs, ys, tuple(closed), tuple(ruled))


def _at(edges: Sequence[Edge], positions: Sequence[float]) -> dict[int, list[Edge]]:
    """Return the edges at each of ``positions`` (by index), snapped."""
    found: dict[int, list[Edge]] = {}
    for edge in edges:
        index = bisect.bisect_left(positions, edge.at - SNAP)
        if index < len(positions) and abs(positions[index] - edge.at) <= SNAP:
            found.setdefault(index, []).append(edge)
    return found


def _covers(edges: Sequence[Edge], point: float) -> bool:
    return any(edge.low - SNAP <= point <= edge.high + SNAP for edge in edges)


def _bounded(positions: tuple[float, ...], low: float, high: float) -> tuple[float, ...]:
    """Return ``positions`` with ``low`` and ``high`` added where they lie beyond both ends."""
    if low < positions[0] - SHORTEST:
        positions = (low, *positions)
    if high > positions[-1] + SHORTEST:
        positions = (*positions, high)
    return positions


def _positions(edges: Sequence[Edge]) -> list[float]:
    """Return the distinct positions of ``edges``, snapped."""
    ordered = sorted(edges, key=lambda e: e.at)
    return [sum(e.at for e in group) / len(group) for group in _clusters(ordered, lambda e: e.at)]
