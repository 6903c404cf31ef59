"""The text decoder's guesses: UTF-16 without a BOM, and binary data that merely looks like it."""

from __future__ import annotations

import pytest

from ragchunk.errors import InputError
from ragchunk.parsers._decode import decode
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
