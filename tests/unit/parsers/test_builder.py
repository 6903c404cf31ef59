"""The parsers' one text builder: offsets, separators, sections, headings, pages, splicing."""

from __future__ import annotations

from ragchunk.model import EMPTY_METADATA, Document, Page, Section
from ragchunk.parsers._builder import HeadingPath, TextBuilder
from ragchunk.parsers._spec import ParseRequest


def test_offsets_are_absolute_and_separators_come_between_blocks_only() -> None:
    builder = TextBuilder()
    first = builder.append("One")
    second = builder.append("Two")
    third = builder.add("x", " | ")
    text = builder.text()
    assert text == "One\n\nTwo | x"
    assert (first, second, third) == (0, 5, 11)
    assert builder.length == len(text)
    assert text[second : second + 3] == "Two"


def test_the_lines_of_a_block_follow_a_line_feed_and_the_block_a_blank_line() -> None:
    builder = TextBuilder()
    builder.add_block("Intro")
    items: list[tuple[int, int]] = []
    for item in ("- a", "- b"):
        builder.line(item, items)
    builder.record(items[0][0], "list", parts=tuple(items))
    text = builder.text()
    assert text == "Intro\n\n- a\n- b"
    assert [text[start:end] for start, end in items] == ["- a", "- b"]
    assert builder.sections[-1] == Section(7, 14, "list", parts=((7, 10), (11, 14)))


def test_headings_close_the_open_ones_of_their_rank_or_more() -> None:
    builder = TextBuilder()
    builder.add_heading("Part  One", 1, title="Part One")
    builder.add_heading("Chapter", 2, level=3, metadata={"style": "x"})
    builder.add_block("Body")
    builder.add_heading("Part Two", 1)
    kinds = [(s.kind, s.headings, s.level) for s in builder.sections]
    assert kinds == [
        ("heading", ("Part One",), 1),
        ("heading", ("Part One", "Chapter"), 3),
        ("prose", ("Part One", "Chapter"), 0),
        ("heading", ("Part Two",), 1),
    ]
    assert builder.sections[1].metadata == {"style": "x"}
    assert builder.sections[2].metadata is EMPTY_METADATA
    path = HeadingPath()
    path.enter(2, "b")
    path.enter(1, "a")
    path.enter(3, "c")
    assert path.titles() == ("a", "c")


def test_a_table_has_its_first_row_as_header_unless_told_otherwise() -> None:
    builder = TextBuilder()
    rows: list[tuple[int, int]] = []
    for row in ("| h |", "| 1 |", "| 2 |"):
        builder.line(row, rows)
    builder.add_table(rows)
    builder.add_table(rows, header=False)
    with_header, without = builder.sections
    assert (with_header.header, with_header.parts) == ((0, 5), ((6, 11), (12, 17)))
    assert (without.header, without.parts) == (None, tuple(rows))
    assert with_header.end == without.end == builder.length


def test_pages_span_their_text_without_the_separators_around_them() -> None:
    builder = TextBuilder()
    for number, blocks in enumerate((["a", "bb"], [], ["c"]), start=1):
        builder.open_page()
        for block in blocks:
            builder.append(block)
        builder.close_page(number)
    assert builder.text() == "a\n\nbb\n\nc"
    assert builder.pages == [Page(1, 0, 5), Page(3, 7, 8)]


def test_pages_after_a_page_separator_are_kept_even_when_empty() -> None:
    builder = TextBuilder()
    for number, lines in enumerate((["a", "b"], [], ["c"])):
        builder.open_page("\n\n" if number else "")
        for index, line in enumerate(lines):
            builder.add(line, "\n" if index else "")
        builder.close_page(number + 1, keep_empty=True)
    assert builder.text() == "a\nb\n\n\n\nc"
    assert builder.pages == [Page(1, 0, 3), Page(2, 5, 5), Page(3, 7, 8)]


def test_a_spliced_document_is_shifted_and_nested_under_its_path() -> None:
    inner = Document(
        text="Title\n\nBody\n\n",
        sections=(
            Section(0, 5, "heading", ("Title",), 1),
            Section(7, 11, "prose", ("Title",), metadata={"k": 1}),
        ),
    )
    builder = TextBuilder()
    builder.add_block("Top")
    builder.splice(inner, path=("Book",), level=1, metadata={"file": "a"})
    builder.splice(inner, path=("Book", "Ch"), level=2, metadata={}, keep_top=False)
    text = builder.text()
    assert text == "Top\n\nTitle\n\nBody\n\nTitle\n\nBody"
    spliced = [
        (text[s.start : s.end], s.headings, s.level, dict(s.metadata)) for s in builder.sections
    ]
    assert spliced[1:] == [
        ("Title", ("Book", "Title"), 2, {"file": "a"}),
        ("Body", ("Book", "Title"), 0, {"k": 1, "file": "a"}),
        ("Title", ("Book", "Ch"), 3, {}),
        ("Body", ("Book", "Ch"), 0, {"k": 1}),
    ]
    builder.splice(Document(text="  \n"), path=(), level=0, metadata={})
    builder.splice(Document(text="plain"), path=("P",), level=0, metadata={"part": "x"})
    assert builder.sections[-1] == Section(31, 36, "prose", ("P",), 0, {"part": "x"})


def test_the_document_carries_the_request_and_what_was_built() -> None:
    builder = TextBuilder()
    builder.open_page()
    builder.add_block("Hello")
    builder.close_page(1)
    request = ParseRequest(source="in.x", doc_id="d")
    doc = builder.document(request, "pptx", {"slides": 1})
    assert doc == Document(
        text="Hello",
        source="in.x",
        doc_id="d",
        format="pptx",
        sections=(Section(0, 5, "prose"),),
        pages=(Page(1, 0, 5),),
        has_lines=False,
        metadata={"slides": 1},
    )
    assert builder.document(request, "docx", {}, pages=()).pages == ()
