"""The size histogram of one chunking as inline SVG, with the hard size limit drawn.

The x axis runs from 0 to the limit or the largest chunk, whichever is larger, in bins of a
round width (1, 2 or 5 times a power of ten), so the limit line sits where it belongs; bins
past the limit are drawn in the warning colour. Colours come from the page's CSS classes, so
the chart follows light and dark mode.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape
from typing import Final

WIDTH: Final = 280
HEIGHT: Final = 120
_LEFT: Final = 30
_RIGHT: Final = 10
_TOP: Final = 16
_BOTTOM: Final = 22
_BINS: Final = 24


def bin_width(top: int, bins: int = _BINS) -> int:
    """Return the smallest round width (1, 2, 5 × 10ⁿ) that covers ``0..top`` in ``bins`` bins."""
    minimum = max(1, -(-(top + 1) // bins))
    scale = 1
    while True:
        for step in (1, 2, 5):
            if step * scale >= minimum:
                return step * scale
        scale *= 10


def count_bins(sizes: Sequence[int], width: int, limit: int | None) -> list[tuple[int, int]]:
    """Return ``(within, over)`` per bin ``[k * width, (k + 1) * width)``.

    ``within`` counts sizes up to the limit, ``over`` those past it (none when SPEC §3.3 holds).
    """
    counts = [[0, 0] for _ in range(max(sizes, default=0) // width + 1)]
    for size in sizes:
        counts[size // width][limit is not None and size > limit] += 1
    return [(within, over) for within, over in counts]


def histogram_svg(sizes: Sequence[int], unit: str, limit: int | None) -> str:
    """Return an ``<svg>`` element: one bar per bin, the limit as a dashed line, axis labels."""
    top = max([*sizes, limit or 0, 1])
    width = bin_width(top)
    counts = count_bins(sizes, width, limit)
    span = (top // width + 1) * width
    peak = max((within + over for within, over in counts), default=0) or 1
    plot_h = HEIGHT - _TOP - _BOTTOM
    base = _TOP + plot_h

    def x(value: float) -> float:
        return _LEFT + value / span * (WIDTH - _LEFT - _RIGHT)

    summary = f"Histogram of {len(sizes)} chunk sizes in {unit}" + (
        f"; limit {limit}" if limit is not None else "; no limit"
    )
    parts = [
        f'<svg class="hist" viewBox="0 0 {WIDTH} {HEIGHT}" width="{WIDTH}" height="{HEIGHT}" '
        f'role="img" aria-label="{escape(summary)}" xmlns="http://www.w3.org/2000/svg">',
        f"<title>{escape(summary)}</title>",
        f'<line class="axis" x1="{_LEFT}" y1="{base}" x2="{WIDTH - _RIGHT}" y2="{base}"/>',
    ]
    bar_w = max(1.0, x(width) - _LEFT - 1)
    for k, (within, over) in enumerate(counts):
        low, high = k * width, (k + 1) * width - 1
        below = 0.0
        for kind, count in (("bar", within), ("over", over)):
            if not count:
                continue
            bar_h = max(1.0, count / peak * plot_h)
            label = f"{low}–{high} {unit}: {count} chunk{'s' if count != 1 else ''}"
            if kind == "over":
                label += f" over the limit of {limit}"
            parts.append(
                f'<rect class="{kind}" x="{x(low):.1f}" y="{base - below - bar_h:.1f}" '
                f'width="{bar_w:.1f}" height="{bar_h:.1f}"><title>{escape(label)}</title></rect>'
            )
            below += bar_h
    if limit is not None:
        at = f"{x(limit):.1f}"
        anchor = "end" if limit > span / 2 else "start"
        parts.append(
            f'<line class="limit" x1="{at}" y1="{_TOP - 4}" x2="{at}" y2="{base}"/>'
            f'<text class="limit" x="{at}" y="{_TOP - 6}" text-anchor="{anchor}">'
            f"limit {limit}</text>"
        )
    parts += [
        f'<text x="{_LEFT}" y="{HEIGHT - 6}" text-anchor="start">0</text>',
        f'<text x="{WIDTH - _RIGHT}" y="{HEIGHT - 6}" text-anchor="end">'
        f"{span} {escape(unit)}</text>",
        f'<text x="{_LEFT - 4}" y="{_TOP + 4}" text-anchor="end">{peak}</text>',
        "</svg>",
    ]
    return "".join(parts)
