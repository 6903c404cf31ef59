"""Zip caps (``_archive``) and the text budget (``_budget``) of the zip-based parsers."""

from __future__ import annotations

import zlib
from dataclasses import replace

import pytest

from ragchunk.errors import LimitExceededError
from ragchunk.parsers import detect
from ragchunk.parsers._archive import open_zip, refuse_doctypes, zip_names
from ragchunk.parsers._budget import TextBudget, TextBudgetError
from ragchunk.parsers._builder import TextBuilder
from ragchunk.parsers._spec import ParseRequest
from tests.data.make_hostile_zip import LAUGHS, Raw, raw_zip

REQUEST = ParseRequest(source="book.epub")


def archive_of(*members: Raw) -> bytes:
    return raw_zip([Raw.deflated("mimetype", b"application/epub+zip"), *members])


@pytest.mark.parametrize(
    ("method", "name"),
    [(12, "bzip2"), (14, "LZMA"), (9, "deflate64"), (93, "Zstandard"), (77, "an unknown method")],
)
def test_a_member_neither_stored_nor_deflated_is_refused_unread(method: int, name: str) -> None:
    # Garbage as its payload: refused from the directory alone, nothing is decompressed.
    data = archive_of(Raw("EPUB/ch1.xhtml", method, b"\xff" * 64, 0, 10))
    with pytest.raises(LimitExceededError) as caught:
        open_zip(data, REQUEST, kind="EPUB")
    assert str(caught.value) == (
        f"book.epub: refused: EPUB/ch1.xhtml is compressed with {name} (method {method}), "
        "not stored or deflated as EPUB requires"
    )


def test_stored_and_deflated_members_are_read() -> None:
    stored = Raw("EPUB/a.xhtml", 0, b"<p>a</p>", zlib.crc32(b"<p>a</p>"), 8)
    data = archive_of(stored, Raw.deflated("EPUB/b.xhtml", b"<p>b</p>"))
    with open_zip(data, REQUEST, kind="EPUB") as archive:
        assert archive.read("EPUB/a.xhtml") == b"<p>a</p>"
        assert archive.read("EPUB/b.xhtml") == b"<p>b</p>"
    assert zip_names(data) == {"mimetype", "EPUB/a.xhtml", "EPUB/b.xhtml"}
    assert zip_names(b"PK\x03\x04 not a zip") is None


def test_format_detection_lists_names_without_reading_members() -> None:
    data = raw_zip([Raw("word/document.xml", 12, b"\xff" * 64, 0, 10)])
    assert detect("upload", data[:1024], data) == "docx"


def test_an_svg_part_is_checked_for_doctypes_like_any_other() -> None:
    svg = b'<?xml version="1.0"?>' + LAUGHS + b"<svg>&l9;</svg>"
    data = archive_of(Raw.deflated("word/media/image1.svg", svg))
    with (
        open_zip(data, REQUEST, kind="DOCX") as archive,
        pytest.raises(LimitExceededError) as caught,
    ):
        refuse_doctypes(archive, REQUEST)
    assert str(caught.value) == (
        "book.epub: refused: word/media/image1.svg declares a DOCTYPE or entities "
        "(XML entity bomb?)"
    )


def test_the_budget_counts_every_character_before_it_is_kept() -> None:
    request = ParseRequest(source="deck.pptx", budget=TextBudget(10))
    builder = TextBuilder(spend=request.spend_text)
    builder.append("12345")
    builder.append("678")  # with its separator: 10 characters in all
    with pytest.raises(TextBudgetError) as caught:
        builder.append("x")
    assert str(caught.value) == (
        "deck.pptx: refused: its text grows past --max-text 10 characters "
        "(a part or string repeated many times?)"
    )
    assert builder.text() == "12345\n\n678"
    assert isinstance(caught.value, LimitExceededError)


def test_copies_of_a_request_share_its_budget() -> None:
    message = ParseRequest(source="mail.eml", budget=TextBudget(8))
    first = replace(message, source="mail.eml: attachment a.xlsx", depth=1)
    second = replace(message, source="mail.eml: attachment b.xlsx", depth=1)
    first.spend_text(5)
    with pytest.raises(TextBudgetError, match=r"^mail\.eml: attachment b\.xlsx: refused: "):
        second.spend_text(5)
    assert ParseRequest().budget is not ParseRequest().budget  # one per input
