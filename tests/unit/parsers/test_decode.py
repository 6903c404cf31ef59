"""The text decoder's guesses: UTF-16 without a BOM, and binary data that merely looks like it."""

from __future__ import annotations

import pytest

from ragchunk.errors import InputError
from ragchunk.parsers._decode import charset_problem, decode, text_codec
from ragchunk.parsers._spec import ParseRequest


@pytest.mark.parametrize("encoding", ["utf-16-le", "utf-16-be"])
def test_utf16_without_a_bom_is_text(encoding: str) -> None:
    text = "Tab\there, lines\r\nand a form feed\f: all text.\n"
    assert decode(text.encode(encoding), ParseRequest(source="notes.txt")) == text


@pytest.mark.parametrize(
    "data",
    [b"\x00\x01bin", b"\x00\x01\x00\x02\x00\x03\x00\x04", b"\x07\x00\x08\x00A\x00B\x00"],
)
def test_zero_bytes_in_a_utf16_pattern_with_control_characters_are_binary(data: bytes) -> None:
    with pytest.raises(InputError, match=r"^blob\.txt: binary data, not text"):
        decode(data, ParseRequest(source="blob.txt"))


@pytest.mark.parametrize(
    "name", ["rot13", "base64", "hex", "zlib", "uu", "bz2", "quopri", "undefined", "idna"]
)
def test_a_codec_that_is_not_a_text_encoding_is_no_charset(name: str) -> None:
    assert text_codec(name) is None
    assert charset_problem(name) == f"charset {name!r} is not a text encoding"


def test_text_encodings_are_charsets_and_unknown_names_are_said() -> None:
    assert text_codec("latin-1") == "iso8859-1"
    assert text_codec("UTF-8") == "utf-8"
    assert text_codec("no-such-set") is None
    assert text_codec("a\x00b") is None
    assert charset_problem("no-such-set") == "unknown charset 'no-such-set'"
