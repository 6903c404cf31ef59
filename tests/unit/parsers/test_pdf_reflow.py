"""PDF paragraph reflow (issue 30): a wrap inside a paragraph is a space, structure keeps its lines.

Measured on our own PDF fixtures, with both engines: the default chunks end at sentence ends,
``auto`` never stops mid-sentence when a sentence end was near, and ``--keep linebreaks``
gives back the layout's line feeds at exactly the same offsets.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import pytest

from benchmarks.extraction_metrics import sentence_final
from ragchunk.model import Document
from ragchunk.parsers._spec import ParseOptions, ParseRequest
from ragchunk.parsers.pdf import parse
from ragchunk.pipeline.engine import chunk_document
from ragchunk.pipeline.plan import make_plan
from ragchunk.settings import shortcuts
from tests.conftest import FIXTURES

ENGINES = ["pdfium", "pypdf"]
PDFS = [
    *sorted((FIXTURES / "pdf").glob("*.pdf")),
    *sorted((FIXTURES / "templates").glob("*.pdf")),
]
PROSE = ["bulletins", "estuary-report", "inspection-letter", "report-plain", "basin-oxygen-paper"]
_SENTENCE_END = re.compile(r"[.!?\u2026]['\")\]\u2019\u201d]*$")
_A_SENTENCE_END = re.compile(r"[a-z0-9)\]][.!?\u2026]['\")\]\u2019\u201d]*(?=\s|$)")


@cache
def parsed(path: Path, engine: str, keep: tuple[str, ...] = ()) -> Document:
    options = ParseOptions(pdf_engine=engine, keep=keep)  # type: ignore[arg-type]
    return parse(path.read_bytes(), ParseRequest(source=path.name, options=options))


def named(name: str) -> Path:
    (path,) = [p for p in PDFS if p.stem == name]
    return path


@pytest.mark.parametrize("engine", ENGINES)
def test_a_wrapped_paragraph_reads_as_one_line(engine: str) -> None:
    doc = parsed(named("estuary-report"), engine)
    # Wrapped twice in the layout; the hyphen-broken word is joined as before.
    assert (
        "The Wend estuary runs for fourteen kilometres from the tidal limit at Harwick Weir to "
        "the sea at Saltings Point." in doc.text
    )
    assert "labora-" not in doc.text
    assert "laboratory" in doc.text
    # Structure keeps its line feeds: a heading, list items, table rows.
    assert "\nI. INTRODUCTION\nThe Wend estuary" in doc.text
    assert re.search(r"\n1\. Continue the programme[^\n]*\n2\. ", doc.text)
    row = "| W1 | Harwick Weir tail | 2.1 | 24 |\n| W3 | Below Harwick works | 3.4 | 24 |\n"
    flat = "\nW1 Harwick Weir tail 2.1 24\nW3 Below Harwick works 3.4 24\n"
    assert (row if engine == "pdfium" else flat) in doc.text  # PDFium reads the ruled table
    # What still joins (a page turn, the line after a heading) is a listed line feed.
    assert doc.wraps
    assert all(doc.text[offset] == "\n" for offset in doc.wraps)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("path", PDFS, ids=lambda p: p.stem)
def test_keep_linebreaks_restores_the_line_feeds_at_the_same_offsets(
    path: Path, engine: str
) -> None:
    flowed, kept = parsed(path, engine), parsed(path, engine, ("linebreaks",))
    assert len(flowed.text) == len(kept.text)
    assert flowed.sections == kept.sections
    assert flowed.pages == kept.pages
    assert set(flowed.wraps) <= set(kept.wraps)
    spaces = sorted(set(kept.wraps) - set(flowed.wraps))
    assert all(kept.text[k] == "\n" and flowed.text[k] == " " for k in spaces)
    restored = list(flowed.text)
    for k in spaces:
        restored[k] = "\n"
    assert "".join(restored) == kept.text
    if path.stem in PROSE:
        assert len(spaces) >= 10, "a prose PDF wraps its paragraphs"


@pytest.mark.parametrize("engine", ENGINES)
def test_default_chunks_of_the_pdf_fixtures_end_at_sentence_ends(engine: str) -> None:
    """At least 80% of default (recursive, 512) chunks that hold a sentence end at one."""
    recipe = make_plan(shortcuts({"strategy": "recursive"})).recipe
    chunks = [[c.text for c in chunk_document(parsed(p, engine), recipe)] for p in PDFS]
    ends, could = sentence_final(chunks)
    assert could >= 70
    assert ends / could >= 0.8, (ends, could)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("name", PROSE)
def test_auto_chunks_of_prose_never_stop_short_of_a_near_sentence_end(
    name: str, engine: str
) -> None:
    """No ``auto`` chunk ends mid-sentence when a sentence ends in its last fifth.

    A chunk that ends where a block of the document ends (a table's last row, before the next
    paragraph) ends at no sentence and is cut where it should be.
    """
    recipe = make_plan(shortcuts({"strategy": "auto"})).recipe
    doc = parsed(named(name), engine)
    block_ends = {section.end for section in doc.sections}
    done = chunk_document(doc, recipe)[:-1]  # the last chunk ends with the document
    chunks = [c.text.rstrip() for c in done if c.end not in block_ends]
    late = [
        text[-120:]
        for text in chunks
        if not _SENTENCE_END.search(text)
        and _A_SENTENCE_END.search(text, len(text) - len(text) // 5)
    ]
    assert late == []
