"""assemble(): what every strategy gets for free from offsets (headings, lines, pages, symbols)."""

from __future__ import annotations

from ragchunk.model import TOP_LEVEL_SYMBOL, Document, Page, Section, Span
from ragchunk.pipeline.chunks import assemble


def test_code_chunks_of_any_strategy_name_the_definitions_they_overlap() -> None:
    text = "import os\n\ndef a():\n    pass\n\ndef b():\n    pass\n"
    sections = (
        Section(0, 11, "code"),
        Section(11, 29, "function", ("a",), metadata={"symbol": "a", "kind": "function"}),
        Section(29, 31, "code"),
        Section(31, len(text), "function", ("b",), metadata={"symbol": "b", "kind": "function"}),
    )
    doc = Document(text=text, format="code", sections=sections)
    spans = [Span(0, 10), Span(11, 40), Span(33, len(text), metadata={"symbol": "given"})]
    chunks = assemble(doc, spans, strategy="recursive", fingerprint="f")
    assert [c.metadata["symbol"] for c in chunks] == [TOP_LEVEL_SYMBOL, "a, b", "given"]
    assert [c.headings for c in chunks] == [(), ("a",), ("b",)]


def test_lines_and_pages_come_from_offsets() -> None:
    text = "one\ntwo\r\nthree\n\nfour"
    doc = Document(text=text, pages=(Page(1, 0, 14), Page(2, 16, len(text))), has_lines=True)
    chunks = assemble(doc, [Span(0, 3), Span(4, 14), Span(16, 20)], strategy="s", fingerprint="f")
    assert [(c.line_start, c.line_end) for c in chunks] == [(1, 1), (2, 3), (5, 5)]
    assert [(c.page_start, c.page_end) for c in chunks] == [(1, 1), (1, 1), (2, 2)]
    assert [c.text for c in chunks] == ["one", "two\r\nthree", "four"]


def test_a_span_across_the_page_separator_reports_both_pages() -> None:
    text = "page one text\n\npage two text"
    doc = Document(text=text, pages=(Page(1, 0, 13), Page(2, 15, len(text))), has_lines=False)
    (chunk,) = assemble(doc, [Span(5, 20)], strategy="s", fingerprint="f")
    assert (chunk.page_start, chunk.page_end, chunk.line_start) == (1, 2, None)
