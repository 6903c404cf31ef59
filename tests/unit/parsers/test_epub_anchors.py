"""EPUB chapters at anchors inside files (Project Gutenberg's layout): `epub/keepers-lamp.epub`."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import pytest

from ragchunk.model import Document
from ragchunk.parsers._spec import ParseRequest
from ragchunk.parsers.epub import parse
from ragchunk.pipeline.check import find_violations
from ragchunk.pipeline.engine import chunk_document
from ragchunk.pipeline.plan import limits_for, make_plan
from ragchunk.settings import shortcuts
from tests.conftest import FIXTURES

BOOK = FIXTURES / "epub" / "keepers-lamp.epub"
ROMAN = ["I", "II", "III", "IV", "V", "VII"]
TITLES = {
    "I": "THE LAMP ROOM",
    "II": "THE LOG BOOK",
    "III": "THE INSPECTOR",
    "IV": "THE STORM",
    "V": "THE MORNING",
    "VI": "THE LETTER",
    "VII": "THE KEEPER",
}
FIRST_WORDS = {
    "I": "The lamp room at Carrick Head",
    "II": "The log book lay open",
    "III": "The inspector came twice",
    "IV": "The storm came in November",
    "V": "At dawn the wind dropped",
    "VI": "The letter from the inspector",
    "VII": "Nell kept the light",
}


def without_nav() -> bytes:
    """The book with its nav document unmarked, so the NCX names the chapters."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(BOOK) as source, zipfile.ZipFile(buffer, "w") as out:
        for info in source.infolist():
            body = source.read(info)
            if info.filename.endswith("content.opf"):
                body = body.replace(b' properties="nav"', b"")
            out.writestr(info, body)
    return buffer.getvalue()


def chapter_of(doc: Document, words: str) -> tuple[str, ...]:
    at = doc.text.index(words)
    return next(s.headings for s in doc.sections if s.start <= at < s.end)


@pytest.mark.parametrize("data", [BOOK.read_bytes(), without_nav()], ids=["nav", "ncx"])
def test_a_chapter_starts_at_its_anchor_and_siblings_stay_siblings(data: bytes) -> None:
    doc = parse(data, ParseRequest(source="keepers-lamp.epub"))
    for number, title in TITLES.items():
        name = f"CHAPTER {number}. {title}"
        starts = f"CHAPTER {number}.\n"
        heading = next(s for s in doc.sections if doc.text[s.start : s.end].startswith(starts))
        assert heading.kind == "heading"
        assert heading.headings == (name,)  # never `CHAPTER V › CHAPTER VI`, never repeated
        assert heading.level == 1
        assert chapter_of(doc, FIRST_WORDS[number]) == (name,)
    # chapter IV goes on across the file break, before chapter V's anchor
    assert chapter_of(doc, "Her father went up at two") == ("CHAPTER IV. THE STORM",)
    for section in doc.sections:
        chapters = [t for t in section.headings if t.startswith("CHAPTER ")]
        assert len(chapters) <= 1, section.headings


def test_front_and_back_matter_are_named_as_such() -> None:
    doc = parse(BOOK.read_bytes(), ParseRequest(source="keepers-lamp.epub"))
    assert chapter_of(doc, "This ebook is for the use of anyone")[0] == "Front matter"
    assert chapter_of(doc, "BY AGNES PELLOW")[0] == "Front matter"
    assert chapter_of(doc, "| CHAPTER I. | THE LAMP ROOM |") == ("CONTENTS",)
    assert chapter_of(doc, "This sample book was written") == (
        "THE FULL PROJECT GUTENBERG LICENSE",
    )
    assert chapter_of(doc, "Transcriber's note") == ("Back matter",)
    assert not any(
        s.headings[:1] == ("CONTENTS",) and "Gutenberg eBook" in s.headings[-1]
        for s in doc.sections
    )


def test_book_labels_each_chapters_chunks_with_its_own_chapter() -> None:
    doc = parse(BOOK.read_bytes(), ParseRequest(source="keepers-lamp.epub"))
    plan = make_plan(shortcuts({"strategy": "book", "size": 400, "overlap": 0}))
    dropped: list = []
    chunks = chunk_document(doc, plan.recipe, dropped=dropped)
    assert find_violations(doc, chunks, limits_for(plan.recipe), dropped) == []
    assert [d.reason for d in dropped] == ["table of contents"]
    seen = set()
    for chunk in chunks:
        for number, words in FIRST_WORDS.items():
            if words in chunk.text:
                assert chunk.metadata["chapter"] == f"CHAPTER {number}. {TITLES[number]}"
                seen.add(number)
    assert seen == set(TITLES)
    storm = next(c for c in chunks if "So Nell went up alone" in c.text)
    assert storm.metadata["chapter"] == "CHAPTER IV. THE STORM"
    front = next(c for c in chunks if "Release date: June 3, 2024" in c.text)
    assert front.metadata["chapter"] == "Front matter"


@pytest.mark.parametrize(
    ("book", "reasons"),
    [
        (BOOK, ["front matter", "table of contents"]),
        (
            FIXTURES / "epub" / "estuary-year.epub",
            ["front matter", "table of contents", "front matter", "index"],
        ),
    ],
    ids=["keepers-lamp", "estuary-year"],
)
def test_book_can_drop_the_front_matter_an_epub_names(book: Path, reasons: list[str]) -> None:
    doc = parse(book.read_bytes(), ParseRequest(source=book.name))
    plan = make_plan(shortcuts({"strategy": "book", "options": {"front_matter": False}}))
    dropped: list = []
    chunks = chunk_document(doc, plan.recipe, dropped=dropped)
    assert find_violations(doc, chunks, limits_for(plan.recipe), dropped) == []
    assert [d.reason for d in dropped] == reasons
    assert all("Release date" not in c.text and "First published" not in c.text for c in chunks)
