"""``-s auto`` keeps to a document's structure: no chunk crosses a heading, slide, cue or message.

Measured over every file of ``fixtures/`` (issue 31, finding 6). A document's *units* run from
one boundary to the next: a heading of any level, a slide (a PPTX page), the start of a message
or of one of its parts (a ``headers`` block, a change of ``metadata.part``), a cue, and any
other section kind ``BOUNDARY_KINDS`` names. Every chunk edge must fall on a unit's edge
(whitespace aside), unless the unit it falls in is larger than the size alone, which only then
may be split. So a chunk holds whole units (several small ones, or one) or a piece of one too
large to fit, and its heading path is that of what it holds.
"""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from ragchunk import strategies
from ragchunk.api import chunk_file
from ragchunk.parsers._spec import ParseRequest
from ragchunk.pipeline.reading import parse_documents
from ragchunk.text.sections import BOUNDARY_KINDS
from tests.conftest import FIXTURES

SKIP_SUFFIXES = (".py", ".png", ".jsonl", ".gitattributes")
FILES = sorted(
    p
    for p in FIXTURES.rglob("*")
    if p.is_file()
    and p.suffix not in SKIP_SUFFIXES
    and "builders" not in p.parts
    and p.name != ".gitattributes"
)


def boundaries(doc: object) -> list[int]:
    """Return the sorted offsets where a unit starts (0 and len(text) included)."""
    starts = {section.start for section in doc.sections if section.kind in BOUNDARY_KINDS}  # type: ignore[attr-defined]
    if doc.format == "pptx":  # type: ignore[attr-defined]  # a page of a deck is a slide
        starts.update(page.start for page in doc.pages)  # type: ignore[attr-defined]
    return sorted(starts | {0, len(doc.text)})  # type: ignore[attr-defined]


def crossings(doc: object, chunks: list[object], limit: int) -> list[str]:
    """Return a line per chunk edge that falls inside a unit that fits the size.

    A unit that is only a heading (a chapter's title right above its first subsection) counts
    as one with the next for its size: the two are cut where they must be.
    """
    text: str = doc.text  # type: ignore[attr-defined]
    marks = boundaries(doc)
    units = list(itertools.pairwise(marks))
    bad = []
    for chunk in chunks:
        for edge, name in ((chunk.start, "starts"), (chunk.end, "ends")):  # type: ignore[attr-defined]
            for k, (lo, hi) in enumerate(units):
                if not lo < edge < hi:
                    continue
                if not text[lo:edge].strip() or not text[edge:hi].strip():
                    continue  # on the unit's edge but for whitespace
                first = k
                while (
                    first > 0
                    and "\n" not in text[units[first - 1][0] : units[first - 1][1]].strip()
                ):
                    first -= 1  # titles right above it (one line each) are cut with it
                if len(text[units[first][0] : hi].strip()) > limit:
                    continue  # a unit too large for one chunk may be cut
                bad.append(
                    f"chunk {chunk.index} ({chunk.strategy}) {name} inside "  # type: ignore[attr-defined]
                    f"{text[lo:hi].strip()[:40]!r}…: {text[max(lo, edge - 30) : edge]!r}|"
                    f"{text[edge : edge + 30]!r}"
                )
    return bad


def _docs(path: Path) -> dict[str, object]:
    request = ParseRequest(source=str(path), doc_id=str(path.relative_to(FIXTURES)))
    found = {}
    for doc in parse_documents(path.read_bytes(), request):
        if not isinstance(doc, Exception):
            found[doc.doc_id] = doc
    return found


@pytest.mark.parametrize("size", [None, 300])
@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(FIXTURES)))
def test_no_auto_chunk_crosses_a_boundary(path: Path, size: int | None) -> None:
    chunks = chunk_file(str(path), strategy="auto", size=size, allow_empty=True, root=str(FIXTURES))
    bad: list[str] = []
    for doc_id, doc in _docs(path).items():
        mine = [c for c in chunks if c.doc_id == doc_id]
        if not mine:
            continue
        # without --size each choice keeps its own default size (characters)
        limit = size or strategies.get(mine[0].strategy).options().budget.size
        bad += crossings(doc, mine, limit)
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize(
    "name", ["pdf/gauge-tables.pdf", "pdf/estuary-report.pdf", "docx/report.docx"]
)
def test_a_table_larger_than_the_size_is_cut_between_its_rows(name: str) -> None:
    path = FIXTURES / name
    chunks = chunk_file(str(path), strategy="auto", size=300, root=str(FIXTURES))
    (doc,) = _docs(path).values()
    rows = [row for s in doc.sections if s.kind == "table" for row in s.parts]  # type: ignore[attr-defined]
    assert rows
    inside = [
        f"chunk {c.index} {side} inside row {doc.text[lo:hi]!r}"  # type: ignore[attr-defined]
        for c in chunks
        for side, edge in (("starts", c.start), ("ends", c.end))
        for lo, hi in rows
        if lo < edge < hi and hi - lo <= 300
    ]
    assert inside == []
