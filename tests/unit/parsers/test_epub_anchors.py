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


def many_anchors(count: int) -> bytes:
    """An EPUB whose nav names ``count`` anchors inside one file, and as many missing ones."""
    body = "".join(
        f'<h2 id="c{k}">Chapter {k}</h2><p>Text of chapter {k}.</p>' for k in range(count)
    )
    links = "".join(
        f'<li><a href="t.xhtml#c{k}">Chapter {k}</a></li><li><a href="t.xhtml#x{k}">X</a></li>'
        for k in range(count)
    )
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as out:
        out.writestr("mimetype", "application/epub+zip")
        out.writestr(
            "META-INF/container.xml",
            '<container xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles>'
            '<rootfile full-path="content.opf"/></rootfiles></container>',
        )
        out.writestr(
            "content.opf",
            '<package xmlns="http://www.idpf.org/2007/opf"><manifest>'
            '<item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/>'
            '<item id="t" href="t.xhtml" media-type="application/xhtml+xml"/></manifest>'
            '<spine><itemref idref="t"/></spine></package>',
        )
        out.writestr(
            "nav.xhtml",
            '<html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub="http://www.idpf.org/2007/ops">'
            f'<body><nav epub:type="toc"><ol>{links}</ol></nav></body></html>',
        )
        out.writestr("t.xhtml", f"<html><body>{body}</body></html>")
    return buffer.getvalue()


@pytest.mark.timeout(30)
def test_thousands_of_anchors_in_one_file_are_cut_in_one_pass() -> None:
    doc = parse(many_anchors(3000), ParseRequest(source="many.epub"))
    heads = [s for s in doc.sections if s.kind == "heading"]
    assert len(heads) == 3000
    assert heads[2999].headings == ("Chapter 2999",)
    assert chapter_of(doc, "Text of chapter 1234.") == ("Chapter 1234",)
    assert chapter_of(doc, "Text of chapter 0.") == ("Chapter 0",)  # not the missing anchor's "X"
    assert not any("X" in s.headings for s in doc.sections)
