"""The size histogram: round bins from 0, the limit drawn where it lies, one bar per filled bin."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import pytest

from ragchunk.view.histogram import WIDTH, bin_width, count_bins, histogram_svg

SVG = "{http://www.w3.org/2000/svg}"


@pytest.mark.parametrize(
    ("top", "width"),
    [(0, 1), (23, 1), (24, 2), (47, 2), (48, 5), (512, 50), (600, 50), (10**6, 50000)],
)
def test_bin_width_is_round_and_covers_the_range_in_24_bins(top: int, width: int) -> None:
    assert bin_width(top) == width
    assert (top // width) < 24


def test_count_bins_separates_sizes_over_the_limit() -> None:
    assert count_bins([0, 9, 10, 19, 25, 31], 10, limit=20) == [(2, 0), (2, 0), (0, 1), (0, 1)]
    assert count_bins([5, 15], 10, limit=None) == [(1, 0), (1, 0)]
    assert count_bins([], 10, limit=5) == [(0, 0)]


def parse(svg: str) -> ET.Element:
    return ET.fromstring(svg)


def test_svg_has_a_bar_per_filled_bin_with_its_count() -> None:
    svg = parse(histogram_svg([100, 110, 120, 400, 410], "chars", 512))
    bars = svg.findall(f"{SVG}rect")
    titles = [bar.find(f"{SVG}title").text for bar in bars]  # type: ignore[union-attr]
    assert titles == [
        "100–149 chars: 3 chunks",
        "400–449 chars: 2 chunks",
    ]
    heights = [float(bar.get("height", "")) for bar in bars]
    assert heights[0] > heights[1]
    assert svg.get("aria-label") == "Histogram of 5 chunk sizes in chars; limit 512"


def test_svg_draws_the_limit_at_its_place_on_the_axis() -> None:
    svg = parse(histogram_svg([10, 20], "tokens", 80))
    line = svg.find(f"{SVG}line[@class='limit']")
    assert line is not None
    # Bins of 5 from 0 to 85: the limit at 80 lies 80/85 of the way along the plot.
    left, right = 30, WIDTH - 10
    assert float(line.get("x1", "")) == pytest.approx(left + 80 / 85 * (right - left), abs=0.1)
    labels = [text.text for text in svg.findall(f"{SVG}text")]
    assert "limit 80" in labels
    assert "85 tokens" in labels


def test_svg_marks_bars_over_the_limit_and_says_so() -> None:
    svg = histogram_svg([50, 130], "chars", 100)
    assert re.findall(r'<rect class="(\w+)"', svg) == ["bar", "over"]
    assert "130–139 chars: 1 chunk over the limit of 100" in svg


def test_svg_without_limit_or_sizes() -> None:
    svg = parse(histogram_svg([], "chars", None))
    assert svg.findall(f"{SVG}rect") == []
    assert svg.find(f"{SVG}line[@class='limit']") is None
    assert svg.get("aria-label") == "Histogram of 0 chunk sizes in chars; no limit"
