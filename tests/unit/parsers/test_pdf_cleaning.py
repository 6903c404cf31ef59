"""PDF cleaning and structure on the estuary report (issue 12): what is removed, joined, kept.

The report carries a running header (larger than the body), a footer with page numbers, a
watermark on the annex pages, hyphenation, ligatures, two columns and an outline whose titles
differ from the printed headings (fixtures/README.md). Each test checks one promise of the
"PDF cleaning" section of docs/formats.md, with both engines where they differ.
"""

from __future__ import annotations

import io
import re
from functools import cache

import pypdf
import pytest

from ragchunk.model import Document
from ragchunk.parsers._spec import ParseOptions, ParseRequest
from ragchunk.parsers.pdf import parse
from ragchunk.parsers.pdf.clean import CharacterCounts, normalise, remove_repeated
from ragchunk.parsers.pdf.hyphens import HyphenCounts, join_hyphenated
from ragchunk.parsers.pdf.lines import Line, PageLines
from ragchunk.pipeline.engine import chunk_document
from ragchunk.pipeline.plan import make_plan
from ragchunk.settings import shortcuts
from tests.conftest import FIXTURES

REPORT = FIXTURES / "pdf" / "estuary-report.pdf"
ENGINES = ["pdfium", "pypdf"]
HEADER = "Wend Estuary Water Quality: Annual Report 2023"
WATERMARK = "PRELIMINARY DATA \u2013 NOT FOR CITATION"
CHAPTERS = [
    "I. INTRODUCTION",
    "II. METHODS AND DATA",
    "III. RESULTS",
    "IV. DISCUSSION",
    "V. RECOMMENDATIONS",
    "ANNEX A: PRELIMINARY DATA FOR 2024",
]
SECTIONS = {
    "II. METHODS AND DATA": [
        "2.1 Sampling sites",
        "2.2 Field measurements",
        "2.3 Laboratory analysis",
    ],
    "III. RESULTS": [
        "3.1 Dissolved oxygen",
        "3.2 Nutrients and chlorophyll",
        "3.3 Turbidity and suspended solids",
        "3.4 Bacteria at bathing sites",
    ],
    "ANNEX A: PRELIMINARY DATA FOR 2024": [
        "A.1 Winter and spring surveys",
        "A.2 Oxygen near the bed",
        "A.3 Quality notes on the preliminary data",
        "A.4 Sites added for the summer",
    ],
}


@cache
def report(
    engine: str = "pdfium", keep: tuple[str, ...] = (), data: bytes | None = None
) -> Document:
    options = ParseOptions(pdf_engine=engine, keep=keep)  # type: ignore[arg-type]
    return parse(data or REPORT.read_bytes(), ParseRequest(source="r.pdf", options=options))


def expected_paths(doc: Document) -> list[tuple[int, tuple[str, ...]]]:
    """Return (offset, heading path) where each printed heading starts, found in the text."""
    found = []
    for chapter in CHAPTERS:
        at = doc.text.index(chapter)
        found.append((at, (chapter,)))
        for section in SECTIONS.get(chapter, []):
            pattern = r"\s+".join(re.escape(word) for word in section.split())
            match = re.search(pattern, doc.text)
            assert match is not None, section
            found.append((match.start(), (chapter, section)))
    return sorted(found)


@pytest.mark.parametrize("engine", ENGINES)
def test_running_headers_footers_and_watermarks_are_removed_and_reported(engine: str) -> None:
    doc = report(engine)
    assert HEADER not in doc.text
    assert WATERMARK not in doc.text
    assert not re.search(r"Page \d of 8", doc.text)
    removed = doc.extraction["removed"]
    assert isinstance(removed, list)
    by_page: dict[int, list[str]] = {}
    for item in removed:
        assert isinstance(item, dict)
        by_page.setdefault(int(item["page"]), []).append(str(item["kind"]))  # type: ignore[arg-type]
    assert by_page == {
        **{page: ["header", "footer"] for page in range(2, 6)},
        **{page: ["header", "footer", "watermark"] for page in range(6, 9)},
    }
    texts = {str(item["text"]) for item in removed if isinstance(item, dict)}
    assert {f"Wend Estuary Partnership Page {n} of 8" for n in range(2, 9)} <= texts


def test_a_line_on_one_page_only_is_never_removed() -> None:
    def page(*texts: str) -> PageLines:
        lines = tuple(
            Line(text, 10, 50, 300, 30 + 20 * k, 40 + 20 * k) for k, text in enumerate(texts)
        )
        return PageLines(lines, 600, 800)

    pages = [page("Report", "Body one."), page("Annex", "Body two."), page("Body three.")]
    kept, removed = remove_repeated(pages, headers=True, watermarks=True)
    assert removed == []
    assert kept == pages
    pages = [page("Report 1", "Body one."), page("Report 2", "Body two."), page("Body.")]
    _, removed = remove_repeated(pages, headers=True, watermarks=True)
    assert [(r.page, r.kind, r.text) for r in removed] == [
        (1, "header", "Report 1"),
        (2, "header", "Report 2"),
    ]


def test_a_repeated_line_in_the_middle_of_pages_is_no_header() -> None:
    def page(*texts: str) -> PageLines:
        lines = tuple(
            Line(text, 10, 50, 300, 100 + 60 * k, 110 + 60 * k) for k, text in enumerate(texts)
        )
        return PageLines(lines, 600, 800)

    words = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta"]
    pages = [
        page(f"{word} one", f"{word} two", f"{word} three", "Same line here", f"{word} four")
        for word in words
    ]
    _, removed = remove_repeated(pages, headers=True, watermarks=False)
    assert removed == []


@pytest.mark.parametrize("engine", ENGINES)
def test_end_of_line_hyphenation_is_undone_and_real_hyphens_kept(engine: str) -> None:
    doc = report(engine)
    for word in ("laboratory", "deterioration", "understood", "catchment-sensitive", "outside"):
        assert word in doc.text, word
    assert "dissolved\n\noxygen" in doc.text  # joined across the page turn, footer gone
    for compound in ("well-known", "Year-on-year", "half-year"):
        assert compound in doc.text, compound
    assert not re.search(r"[a-z]-\n[a-z]", doc.text)
    assert doc.extraction["hyphens_joined"] >= 25  # type: ignore[operator]
    assert doc.extraction["hyphens_kept"] >= 3  # type: ignore[operator]


def test_hyphens_with_no_evidence_are_joined_unless_a_compound_continues() -> None:
    def lines(*texts: str) -> list[PageLines]:
        return [PageLines(tuple(Line(text) for text in texts), 600, 800)]

    counts = HyphenCounts()
    pages = join_hyphenated(
        lines("a state-of-the-", "art method, a labora-", "tory and the art of it"), counts
    )
    assert [line.text for line in pages[0].lines] == [
        "a state-of-the-art",
        "method, a laboratory",
        "and the art of it",
    ]
    assert (counts.joined, counts.kept) == (1, 1)


@pytest.mark.parametrize("engine", ENGINES)
def test_no_ligature_or_control_character_reaches_the_text(engine: str) -> None:
    doc = report(engine)
    assert not re.search("[\ufb00-\ufb06]", doc.text)
    assert not re.search("[\x00-\x08\x0b-\x1f\x7f-\x9f]", doc.text)
    if engine == "pypdf":  # PDFium expands ligatures itself
        assert doc.extraction["ligatures"] >= 5  # type: ignore[operator]


def test_characters_are_normalised_and_counted() -> None:
    counts = CharacterCounts()
    page = PageLines((Line("e\ufb03cient\x00 \ufb01le\x07\ufffe"), Line("\x1f")), 600, 800)
    (cleaned,) = normalise([page], ligatures=True, counts=counts)
    assert [line.text for line in cleaned.lines] == ["efficient file"]
    assert (counts.ligatures, counts.controls) == (2, 4)
    (kept,) = normalise([page], ligatures=False, counts=CharacterCounts())
    assert kept.lines[0].text == "e\ufb03cient \ufb01le"


def test_symbol_font_bullets_become_the_characters_they_show() -> None:
    counts = CharacterCounts()
    lines = ("\uf0b7 North pier", "\uf0a7 South pier", "\uf06en = 3", "where \uf06e is", "\uf0b7")
    page = PageLines(tuple(map(Line, lines)), 600, 800)
    (cleaned,) = normalise([page], ligatures=True, counts=counts)
    # Only a line's first character before a space is a bullet: U+F06E is also Symbol's nu.
    expected = [
        "\u2022 North pier",
        "\u25aa South pier",
        "\uf06en = 3",
        "where \uf06e is",
        "\uf0b7",
    ]
    assert [line.text for line in cleaned.lines] == expected
    assert counts.bullets == 2


@pytest.mark.parametrize("engine", ENGINES)
def test_word_bullets_of_a_real_pdf_are_bullets_in_its_text(engine: str) -> None:
    doc = report(engine, data=(FIXTURES / "pdf" / "report-plain.pdf").read_bytes())
    assert "\u2022 North pier: radar R1 and float F1" in doc.text
    assert "\uf0b7" not in doc.text
    assert doc.extraction["symbol_bullets"] == doc.text.count("\u2022 ")  # type: ignore[operator]


def test_pdfium_puts_glyphs_drawn_late_back_in_their_words() -> None:
    doc = report("pdfium")
    for word in ("the difference that", "the efficient,", "the effluent samples"):
        assert word in doc.text, word


def test_glyph_reordering_on_char_boxes() -> None:
    from ragchunk.parsers.pdf.pdfium import reorder_line

    chars = [
        ("d", 0, 5, False),
        ("i", 5, 8, False),
        (" ", 15, 15, True),  # PDFium's space in the gap the ligature fills
        ("e", 15.5, 20, False),
        (" ", 21, 21, True),
        ("f", 8, 15, False),  # drawn last, printed between "i" and "e"
        ("f", 8, 15, False),
    ]
    assert reorder_line(chars, 11) == "diffe"


@pytest.mark.parametrize("keep", ["headers", "watermarks", "hyphens", "ligatures"])
def test_each_part_of_cleaning_can_be_turned_off(keep: str) -> None:
    engine = "pypdf" if keep == "ligatures" else "pdfium"
    doc = report(engine, (keep,))
    if keep == "headers":
        assert doc.text.count(HEADER) == 7
        assert WATERMARK not in doc.text
    elif keep == "watermarks":
        assert doc.text.count(WATERMARK) == 3
        assert HEADER not in doc.text
    elif keep == "hyphens":
        assert "labora-\ntory" in doc.text
        assert doc.extraction["hyphens_joined"] == 0
    else:
        assert "\ufb01" in doc.text
        assert doc.extraction["ligatures"] == 0


@pytest.mark.parametrize("engine", ENGINES)
def test_outline_headings_are_the_printed_ones_at_their_place(engine: str) -> None:
    doc = report(engine)
    headings = [(s.start, s.headings) for s in doc.sections if s.kind == "heading"]
    assert headings == expected_paths(doc)


@pytest.mark.parametrize("strategy", ["recursive", "auto", "hierarchical", "markdown"])
@pytest.mark.parametrize("engine", ENGINES)
def test_every_chunk_has_the_right_heading_path(engine: str, strategy: str) -> None:
    doc = report(engine)
    expected = expected_paths(doc)
    chunks = chunk_document(doc, make_plan(shortcuts({"strategy": strategy, "size": 400})).recipe)
    assert len(chunks) > 20
    for chunk in chunks:
        before = [path for at, path in expected if at <= chunk.start]
        assert chunk.headings == (before[-1] if before else ()), chunk.text[:60]


def test_without_an_outline_font_sizes_give_the_same_headings_under_the_title() -> None:
    writer = pypdf.PdfWriter()
    writer.append(io.BytesIO(REPORT.read_bytes()), import_outline=False)
    buffer = io.BytesIO()
    writer.write(buffer)
    doc = report("pdfium", (), buffer.getvalue())
    headings = [(s.start, s.headings) for s in doc.sections if s.kind == "heading"]
    title = ("Water Quality in the Wend Estuary",)
    # The cover's title (26 pt) and subtitle (14 pt, with the date on the next line, read as
    # one wrapped heading) come first; the running header, also 14 pt, is gone before sizes
    # are compared, so it heads nothing. "Summary", bold at the body size and standing alone,
    # is a heading below the sized ones (the outline does not name it).
    subtitle = (*title, "Annual report of the monitoring programme, 2023 14 March 2024")
    assert [path for _, path in headings[:3]] == [title, subtitle, (*subtitle, "Summary")]
    assert headings[3:] == [(at, (*title, *path)) for at, path in expected_paths(doc)]


def test_a_section_number_on_its_own_line_stays_with_its_heading() -> None:
    doc = report("pdfium")
    (heading,) = [s for s in doc.sections if s.headings[-1:] == ("3.2 Nutrients and chlorophyll",)][
        :1
    ]
    assert doc.text[heading.start : heading.end] == "3.2 Nutrients and chlorophyll"  # reflowed


@pytest.mark.parametrize("strategy", ["recursive", "auto"])
@pytest.mark.parametrize("engine", ENGINES)
def test_chunks_end_at_sentence_ends_not_at_wrapped_lines(engine: str, strategy: str) -> None:
    """Issue 12: at least 80% of chunks that hold a sentence end at one (default sizes)."""
    from benchmarks.extraction_metrics import sentence_final

    names = ["estuary-report", "inspection-letter", "report-outline", "report-plain"]
    per_document = []
    for name in names:
        data = (FIXTURES / "pdf" / f"{name}.pdf").read_bytes()
        doc = report(engine, (), data)
        assert all(doc.text[offset] == "\n" for offset in doc.wraps)
        chunks = chunk_document(doc, make_plan(shortcuts({"strategy": strategy})).recipe)
        per_document.append([chunk.text for chunk in chunks])
    ends, could = sentence_final(per_document)
    assert ends / could >= 0.8, (ends, could)
    ends, could = sentence_final(per_document[:1])  # the report alone: 34 chunks that could
    assert ends / could >= 0.8, (ends, could)
