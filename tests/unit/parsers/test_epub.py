"""EPUB: the spine in order through the HTML parser, chapters named by the navigation."""

from __future__ import annotations

import io
import zipfile

import pytest

from ragchunk.errors import CorruptDocumentError
from ragchunk.parsers import detect
from ragchunk.parsers._spec import ParseRequest
from ragchunk.parsers.epub import parse
from tests.conftest import FIXTURES

BOOK = FIXTURES / "epub" / "estuary-year.epub"


def test_spine_order_navigation_titles_and_metadata() -> None:
    doc = parse(BOOK.read_bytes(), ParseRequest())
    assert doc.text.startswith("The Estuary Year\n\nNotes from a tidal river")
    assert doc.metadata == {
        "title": "The Estuary Year",
        "author": "Ruth Calloway",
        "language": "en-GB",
        "publisher": "Quay Street Press, Harwick",
        "date": "2024-06-03",
    }
    chapter = next(s for s in doc.sections if doc.text[s.start : s.end] == "Chapter I")
    assert chapter.kind == "heading"
    assert chapter.level == 2
    assert chapter.headings == ("Part One: Winter", "Chapter 1. The Weir in Flood")
    assert chapter.metadata["file"] == "EPUB/chapter-01.xhtml"
    files = list(dict.fromkeys(str(s.metadata["file"]) for s in doc.sections))
    assert files[:3] == ["EPUB/titlepage.xhtml", "EPUB/contents.xhtml", "EPUB/foreword.xhtml"]
    assert files[-1] == "EPUB/index.xhtml"
    assert doc.text.index("In January the Wend") < doc.text.index("alder, 3, 5")


def test_the_ncx_names_chapters_without_a_nav_document() -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(BOOK) as source, zipfile.ZipFile(buffer, "w") as out:
        for info in source.infolist():
            body = source.read(info)
            if info.filename == "EPUB/content.opf":
                body = body.replace(b' properties="nav"', b"")
            out.writestr(info, body)
    doc = parse(buffer.getvalue(), ParseRequest())
    chapter = next(s for s in doc.sections if doc.text[s.start : s.end] == "Chapter IV")
    assert chapter.headings[-1] == "Chapter 4. The Bloom"


def test_not_an_epub() -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as out:
        out.writestr("mimetype", "application/epub+zip")
    with pytest.raises(CorruptDocumentError, match=r"no META-INF/container\.xml"):
        parse(buffer.getvalue(), ParseRequest(source="b.epub"))


def test_detection() -> None:
    data = BOOK.read_bytes()
    assert detect("book", data[:8], data) == "epub"
