"""ragchunk view in a real browser: headless Chromium, the network cut, the page checked by its DOM.

Each page is made by the command line, opened from a file URL with every request other than
the page itself blocked and recorded (any request fails the test), and read through the DOM a
user's browser builds: one element per chunk holding exactly the chunk's text, the list, the
records, the keyboard, copying, a hostile document, a 10 MB document and screenshots.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from typer.testing import CliRunner

from ragchunk.cli import app
from tests.conftest import FIXTURES
from tests.support.browser import OfflinePage, distinct_colours

if TYPE_CHECKING:
    from playwright.sync_api import Page

runner = CliRunner()
NOTES = FIXTURES / "text" / "field-notes.txt"
GUIDE = FIXTURES / "markdown" / "station-guide.md"
REPORT = FIXTURES / "pdf" / "report-outline.pdf"
SENTINEL = "__ragchunk_pwned"
HOSTILE = f"""<script>window.{SENTINEL} = 1</script>
<img src=x onerror="window.{SENTINEL} = 2"> <svg onload="window.{SENTINEL} = 3"></svg>
</script><script>window.{SENTINEL} = 4</script> <!-- <script>window.{SENTINEL} = 5</script> -->
<iframe src="javascript:parent.{SENTINEL} = 6"></iframe> <a href="https://example.com/x">x</a>
<style>body {{ display: none }}</style><link rel="stylesheet" href="https://example.com/a.css">
<img src="https://example.com/pixel.gif"> \u2028 \u2029 &amp; &lt;b&gt; ]]> ${{x}} {{{{x}}}}
emoji 👨‍👩‍👧 and astral 𝔘𝔫𝔦𝔠𝔬𝔡𝔢 😀 in between. "</script><script>window.{SENTINEL} = 7</script>"
"""
Opener = Callable[..., OfflinePage]


def view(tmp_path: Path, source: Path, *args: str, name: str = "page.html") -> Path:
    target = tmp_path / name
    result = runner.invoke(app, ["view", str(source), *args, "-o", str(target)])
    assert result.exit_code == 0, result.stderr
    return target


def records(source: Path, *args: str) -> list[dict[str, Any]]:
    result = runner.invoke(app, ["split", str(source), *args])
    assert result.exit_code == 0, result.stderr
    # JSONL lines end in "\n" only: a record may hold U+2028, which splitlines() breaks at.
    return [json.loads(line) for line in result.stdout.split("\n") if line]


def opened(open_page: Opener, page_file: Path, **size: int) -> OfflinePage:
    offline = open_page(page_file, **size)
    offline.page.wait_for_selector("html[data-ready]", timeout=60_000)
    return offline


def assert_offline(offline: OfflinePage, page_file: Path) -> None:
    assert offline.blocked == []
    assert offline.requests == [page_file.resolve().as_uri()]
    assert offline.console_errors == []


def chunk_elements(page: Page, side: int = 0) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = page.evaluate(
        """side => [...document.querySelectorAll(`#side${side} .text .chunk`)].map(node => ({
            index: Number(node.dataset.index), start: Number(node.dataset.start),
            end: Number(node.dataset.end), text: node.textContent}))""",
        side,
    )
    return found


def in_view(page: Page, selector: str) -> bool:
    """Whether the element lies at least partly inside its scrolled text pane."""
    visible: bool = page.evaluate(
        """selector => {
            const node = document.querySelector(selector);
            const pane = node.closest('.text').getBoundingClientRect();
            const box = node.getBoundingClientRect();
            return box.bottom > pane.top && box.top < pane.bottom;
        }""",
        selector,
    )
    return visible


def first_element_of(page: Page, index: int, side: int = 0) -> str:
    """The selector of where chunk ``index`` starts: an overlap in the chunk before, or itself."""
    selector = f'#side{side} .ov[data-with~="{index}"]'
    if page.query_selector(selector) is not None:
        return selector
    return f'#side{side} .chunk[data-index="{index}"]'


def test_one_element_per_chunk_holds_the_records_span_and_text(
    open_page: Opener, tmp_path: Path
) -> None:
    flags = ("--size", "200", "--overlap", "60")
    page_file = view(tmp_path, NOTES, *flags)
    offline = opened(open_page, page_file)
    expected = records(NOTES, *flags)
    shown = chunk_elements(offline.page)
    assert [(e["index"], e["start"], e["end"]) for e in shown] == [
        (r["index"], r["start"], r["end"]) for r in expected
    ]
    assert [e["text"] for e in shown] == [r["text"] for r in expected]
    overlaps = offline.page.evaluate("document.querySelectorAll('#side0 .ov').length")
    assert overlaps >= len(expected) // 2  # overlap 60: most chunks repeat the one before
    rows = offline.page.evaluate("document.querySelectorAll('#side0 .row').length")
    assert 0 < rows <= len(expected)
    assert_offline(offline, page_file)


def test_a_pdf_shows_its_pages_and_heading_paths(open_page: Opener, tmp_path: Path) -> None:
    page_file = view(tmp_path, REPORT)
    offline = opened(open_page, page_file)
    page = offline.page
    assert page.evaluate("[...document.querySelectorAll('.pg')].map(m => m.dataset.page)") == [
        "1",
        "2",
        "3",
    ]
    notes = page.evaluate("[...document.querySelectorAll('#side0 .hn')].map(n => n.title)")
    assert "Network overview › Stations" in notes
    assert "Maintenance in 2024" in notes
    expected = records(REPORT)
    assert [e["text"] for e in chunk_elements(page)] == [r["text"] for r in expected]
    rows = page.evaluate(
        "[...document.querySelectorAll('#side0 .row .rw')].map(r => r.textContent)"
    )
    assert rows[0] == "page 1"
    assert_offline(offline, page_file)


def test_a_transcript_shows_its_time_ranges(open_page: Opener, tmp_path: Path) -> None:
    talk = FIXTURES / "transcripts" / "talk.vtt"
    page_file = view(tmp_path, talk, "--size", "300")
    offline = opened(open_page, page_file)
    page = offline.page
    expected = records(talk, "--size", "300")
    assert [e["text"] for e in chunk_elements(page)] == [r["text"] for r in expected]
    rows = page.evaluate(
        "[...document.querySelectorAll('#side0 .row .rw')].map(r => r.textContent)"
    )
    assert rows[0] == f"0:00.000–0:{expected[0]['timestamp_end']:06.3f}"
    assert rows[-1].startswith("1:00:")  # past the hour: hours shown
    page.hover('#side0 .chunk[data-index="1"]', position={"x": 30, "y": 5})
    tip = page.inner_text("#tip")
    assert "time" in tip
    assert "timestamp_start" not in tip
    assert_offline(offline, page_file)


def test_the_list_shows_size_place_headings_and_flags(open_page: Opener, tmp_path: Path) -> None:
    source = tmp_path / "fence.md"
    code = "".join(f"value_{i} = compute({i})\n" for i in range(30))
    source.write_text(f"# Guide\n\nSome intro.\n\n```python\n{code}```\n\nAfter.\n", "utf-8")
    page_file = view(tmp_path, source, "-s", "markdown", "--size", "100", "--unit", "chars")
    offline = opened(open_page, page_file)
    rows = offline.page.evaluate(
        """[...document.querySelectorAll('#side0 .row')].map(row => Object.fromEntries(
            [['index', '.ri'], ['size', '.rs'], ['place', '.rw'], ['kind', '.rf:not(.warn)'],
             ['flags', '.rf.warn'], ['headings', '.heads']].map(([name, selector]) =>
                [name, row.querySelector(selector)?.textContent ?? null])))"""
    )
    expected = records(source, "-s", "markdown", "--size", "100")
    assert len(rows) == len(expected)
    assert rows[0] == {
        "index": "#0",
        "size": f"{expected[0]['chars']} chars",
        "place": "lines 1–3",
        "kind": None,
        "flags": None,
        "headings": "Guide",
    }
    assert rows[1] == {
        "index": "#1",
        "size": f"{expected[1]['chars']} chars",
        "place": f"lines {expected[1]['line_start']}–{expected[1]['line_end']}",
        "kind": "code",
        "flags": "oversize_split",
        "headings": "Guide",
    }
    warned = offline.page.evaluate("document.querySelectorAll('#side0 .row .rf.warn').length")
    assert warned == sum(bool(r["metadata"].get("oversize_split")) for r in expected)
    assert_offline(offline, page_file)


def test_clicking_the_third_chunk_in_the_list_scrolls_it_into_view(
    open_page: Opener, tmp_path: Path
) -> None:
    page_file = view(tmp_path, GUIDE, "-s", "markdown", "--size", "1200")
    offline = opened(open_page, page_file, width=1000, height=420)
    page = offline.page
    target = first_element_of(page, 2)
    assert not in_view(page, target)
    page.click('#side0 .row[data-index="2"]')
    assert in_view(page, target)
    assert page.get_attribute('#side0 .row[data-index="2"]', "aria-selected") == "true"
    assert page.evaluate(
        "document.querySelector('#side0 .chunk[data-index=\"2\"]').classList.contains('sel')"
    )
    record = page.inner_text("#side0 .record")
    assert record.startswith("chunk 2:")
    assert records(GUIDE, "-s", "markdown", "--size", "1200")[2]["id"] in record
    assert_offline(offline, page_file)


def test_the_keyboard_moves_between_chunks(open_page: Opener, tmp_path: Path) -> None:
    page_file = view(tmp_path, NOTES, "--size", "150")
    offline = opened(open_page, page_file, width=1000, height=500)
    page = offline.page
    count = len(records(NOTES, "--size", "150"))

    def selected() -> int:
        index: str = page.get_attribute("#side0 .row[aria-selected='true']", "data-index") or ""
        return int(index)

    page.focus("#side0 .list")
    for _ in range(3):
        page.keyboard.press("ArrowDown")
    assert selected() == 2
    page.keyboard.press("j")
    assert selected() == 3
    page.keyboard.press("k")
    assert selected() == 2
    page.keyboard.press("End")
    assert selected() == count - 1
    assert in_view(page, first_element_of(page, count - 1))
    page.keyboard.press("Home")
    assert selected() == 0
    assert page.get_attribute("#side0 .list", "aria-activedescendant") == "s0-r0"
    assert_offline(offline, page_file)


def test_hovering_a_chunk_shows_its_record(open_page: Opener, tmp_path: Path) -> None:
    page_file = view(tmp_path, NOTES, "--size", "200", "--overlap", "60", "--contextualize")
    offline = opened(open_page, page_file)
    page = offline.page
    expected = records(NOTES, "--size", "200", "--overlap", "60", "--contextualize")
    page.hover('#side0 .chunk[data-index="1"]', position={"x": 30, "y": 5})
    tip = page.inner_text("#tip")
    assert tip.startswith("chunk 1: ")
    assert expected[1]["id"] in tip
    assert f"{expected[1]['start']}–{expected[1]['end']}" in tip
    assert "context" in tip
    page.hover('#side0 .ov[data-with="2"]')
    tip = page.inner_text("#tip")
    assert tip.startswith("overlap of chunks 1 and 2")
    assert expected[2]["id"] in tip
    assert_offline(offline, page_file)


def copy_of(page: Page, script: str) -> str:
    """Select with ``script`` and return what a copy puts on the clipboard."""
    copied: str = page.evaluate(
        f"""() => {{
            {script}
            const data = new DataTransfer();
            const event = new ClipboardEvent('copy', {{clipboardData: data, bubbles: true,
                                                        cancelable: true}});
            const start = getSelection().anchorNode;  // a copy event goes where it starts
            const target = start.nodeType === Node.ELEMENT_NODE ? start : start.parentElement;
            target.dispatchEvent(event);
            return data.getData('text/plain');
        }}"""
    )
    return copied


def test_copying_gives_the_document_text_verbatim(open_page: Opener, tmp_path: Path) -> None:
    page_file = view(tmp_path, REPORT, "--size", "300", "--overlap", "80")
    offline = opened(open_page, page_file)
    page = offline.page
    text = runner.invoke(app, ["inspect", str(REPORT), "--text"]).stdout
    everything = copy_of(
        page, "getSelection().selectAllChildren(document.querySelector('#side0 .text'));"
    )
    assert everything == text
    # From inside chunk 1 to inside chunk 3: across overlaps, page marks and heading notes.
    chosen = records(REPORT, "--size", "300", "--overlap", "80")
    part = copy_of(
        page,
        """const first = document.querySelector('#side0 .chunk[data-index="1"]');
           const last = document.querySelector('#side0 .chunk[data-index="3"]');
           const text = node => [...node.childNodes].find(n => n.nodeType === 3);
           const range = document.createRange();
           range.setStart(text(first), 2);
           range.setEnd(text(last), 5);
           getSelection().removeAllRanges();
           getSelection().addRange(range);""",
    )
    assert part.startswith(text[max(chosen[1]["start"], chosen[0]["end"]) + 2 :][:20])
    assert part in text
    assert len(part) > 300
    assert_offline(offline, page_file)


def test_a_hostile_document_is_shown_as_text_and_runs_nothing(
    open_page: Opener, tmp_path: Path
) -> None:
    source = tmp_path / f'"><img src=x onerror="window.{SENTINEL}=8">.md'
    source.write_text(HOSTILE * 4, encoding="utf-8")
    page_file = view(tmp_path, source, "--size", "150", "--overlap", "30", "--compare", "-s fixed")
    offline = opened(open_page, page_file)
    page = offline.page
    page.wait_for_timeout(300)  # give anything that could run (onerror, onload) its chance
    assert page.evaluate(f"typeof window.{SENTINEL}") == "undefined"
    assert page.evaluate("document.scripts.length") == 2  # the data block and the page's own
    tags = page.evaluate(
        "[...new Set([...document.querySelectorAll('.text *')].map(n => n.tagName))].sort()"
    )
    assert tags == ["DIV", "SPAN"]
    expected = records(source, "--size", "150", "--overlap", "30")
    assert [e["text"] for e in chunk_elements(page, 0)] == [r["text"] for r in expected]
    assert page.evaluate("document.title") == f"{source.name} · ragchunk view"
    page.hover('#side0 .chunk[data-index="0"]', position={"x": 30, "y": 5})
    assert page.evaluate(f"typeof window.{SENTINEL}") == "undefined"
    assert_offline(offline, page_file)


def test_screenshots_at_two_sizes_are_not_blank(open_page: Opener, tmp_path: Path) -> None:
    page_file = view(tmp_path, GUIDE, "-s", "markdown", "--compare", "-s recursive --size 300")
    for width, height, scheme in ((1280, 800, "light"), (700, 900, "dark")):
        offline = opened(open_page, page_file, width=width, height=height)
        offline.page.emulate_media(color_scheme=scheme)
        offline.page.click('#side1 .row[data-index="2"]')
        shot = offline.page.screenshot()
        (tmp_path / f"view-{width}x{height}.png").write_bytes(shot)
        assert distinct_colours(shot) > 20
        assert offline.page.evaluate("document.body.scrollWidth") <= width  # no page overflow
        assert_offline(offline, page_file)


def test_compare_panes_scroll_together(open_page: Opener, tmp_path: Path) -> None:
    page_file = view(tmp_path, GUIDE, "-s", "markdown", "--compare", "-s recursive --size 300")
    offline = opened(open_page, page_file, width=1280, height=600)
    page = offline.page
    page.evaluate("document.querySelector('#side0 .text').scrollTop = 1500")
    # The other pane follows on the scroll event: wait for it to move (polled from here: the
    # page's CSP refuses wait_for_function's eval), then let it settle. A fixed wait alone
    # failed on a loaded machine.
    for _ in range(100):
        if page.evaluate("document.querySelector('#side1 .text').scrollTop") > 0:
            break
        page.wait_for_timeout(100)
    page.wait_for_timeout(400)
    tops = page.evaluate(
        """[0, 1].map(side => {
            const pane = document.querySelector(`#side${side} .text`);
            const box = pane.getBoundingClientRect();
            const blk = pane.querySelector('.blk');
            const x = box.left + parseFloat(getComputedStyle(blk).paddingLeft) + 4;
            const spot = document.caretPositionFromPoint(x, box.top + 8);
            const line = spot.offsetNode.textContent.slice(spot.offset, spot.offset + 30);
            return [pane.scrollTop, line];
        })"""
    )
    (top_a, text_a), (top_b, text_b) = tops
    assert top_a == 1500
    assert top_b > 0
    assert text_a[:10] == text_b[:10]  # the same line of the document at the top of both
    for side, args in ((0, ("-s", "markdown")), (1, ("-s", "recursive", "--size", "300"))):
        expected = records(GUIDE, *args)
        shown = chunk_elements(page, side)
        assert [(e["start"], e["end"], e["text"]) for e in shown] == [
            (r["start"], r["end"], r["text"]) for r in expected
        ]
    assert_offline(offline, page_file)


@pytest.mark.slow
def test_a_10_mb_document_opens_and_scrolls(open_page: Opener, tmp_path: Path) -> None:
    words = ["tide", "gauge", "radar", "float", "benchmark", "station", "harbour", "drift"]
    paragraphs = [
        " ".join(words[(i * 7 + k) % len(words)] for k in range(20 + i % 150)) + "."
        for i in range(20_000)
    ]
    text = "\n\n".join(paragraphs)
    while len(text) < 10_000_000:
        text += "\n\n" + text[: 10_000_000 - len(text)]
    source = tmp_path / "big.txt"
    source.write_text(text, encoding="utf-8")
    page_file = view(tmp_path, source)
    offline = opened(open_page, page_file, width=1280, height=800)
    page = offline.page
    drawn = "document.querySelectorAll('#side0 .blk:not(.todo)').length"
    blocks = page.evaluate("document.querySelectorAll('#side0 .blk').length")
    assert blocks > 300
    assert page.evaluate(drawn) < 10  # drawn lazily: only what is near the viewport
    page.evaluate(
        "(p => { p.scrollTop = p.scrollHeight / 2; })(document.querySelector('#side0 .text'))"
    )
    page.wait_for_timeout(500)
    middle = page.evaluate(
        """(() => {
            const pane = document.querySelector('#side0 .text');
            const box = pane.getBoundingClientRect();
            return [...pane.querySelectorAll('.chunk')].filter(node => {
                const r = node.getBoundingClientRect();
                return r.bottom > box.top && r.top < box.bottom;
            }).map(node => [+node.dataset.start, +node.dataset.end, node.textContent]);
        })()"""
    )
    assert middle  # chunks drawn where the user scrolled to
    for start, end, shown in middle:
        assert shown == text[start:end]
    assert page.evaluate(drawn) < 20
    page.focus("#side0 .list")
    page.keyboard.press("End")
    last = page.evaluate("document.querySelectorAll('#side0 .row').length")
    assert last > 0
    count = page.evaluate("document.querySelector('#side0 .row:last-child').dataset.index")
    assert in_view(page, first_element_of(page, int(count)))
    assert_offline(offline, page_file)


BOX = (240, 90, 0)
"""The outline of a box drawn over a page (``--box`` in viewer.css); the page is grey."""


def _box_pixels(png: bytes) -> list[tuple[int, int]]:
    import io

    from PIL import Image

    with Image.open(io.BytesIO(png)) as image:
        rgb = image.convert("RGB")
        width, height = rgb.size
        pixels = rgb.load()
        assert pixels is not None
        return [
            (x, y)
            for y in range(height)
            for x in range(width)
            if all(abs(a - b) <= 24 for a, b in zip(pixels[x, y], BOX, strict=True))
        ]


def test_a_pdf_chunk_is_boxed_on_its_rendered_page(open_page: Opener, tmp_path: Path) -> None:
    source = FIXTURES / "pdf" / "estuary-report.pdf"
    page_file = view(tmp_path, source)
    offline = opened(open_page, page_file, width=1280, height=800)
    page = offline.page
    page.click('#side0 .row[data-index="3"]')
    record = records(source)[3]
    assert record["page_start"] == record["page_end"] == 2
    sheet = page.locator('#side0 .sheet[data-page="2"]')
    assert (
        page.evaluate("document.querySelector('#side0 .sheet img').naturalWidth") > 500
    )  # the page rendered
    frame = sheet.bounding_box()
    assert frame is not None
    shot = page.screenshot()
    (tmp_path / "boxes.png").write_bytes(shot)
    found = _box_pixels(shot)
    assert found, "no box drawn"
    scale = frame["width"] / 595.3  # the page's width in points (A4)
    left = min(frame["x"] + box["x0"] * scale for box in record["boxes"])
    top = min(frame["y"] + box["y0"] * scale for box in record["boxes"])
    right = max(frame["x"] + box["x1"] * scale for box in record["boxes"])
    bottom = max(frame["y"] + box["y1"] * scale for box in record["boxes"])
    xs, ys = [x for x, _ in found], [y for _, y in found]
    # The outlines (2 px, outside each box) trace the chunk's boxes, and nothing else.
    assert abs(min(xs) - left) <= 4
    assert abs(max(xs) - right) <= 4
    assert abs(min(ys) - top) <= 4
    assert abs(max(ys) - bottom) <= 4
    # The last line of the chunk stops mid-line: its box is narrower than the text column.
    last = record["boxes"][-1]
    assert last["x1"] < record["boxes"][-2]["x1"] - 50
    assert_offline(offline, page_file)
