"""ByteMap: code point offsets to UTF-8 byte offsets and back, exact across block edges."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from ragchunk.text.bytemap import ByteMap

PIECES = ["a", " ", "\n", "ü", "日本", "😀", "e\u0301", "\ud800", "x" * 500, "é" * 300]
texts = st.lists(st.sampled_from(PIECES), max_size=12).map("".join)


def _starts(text: str) -> list[int]:
    """The byte offset of every code point, then the byte length of the text."""
    offsets, position = [], 0
    for char in text:
        offsets.append(position)
        position += len(char.encode("utf-8", "surrogatepass"))
    return [*offsets, position]


@given(texts)
def test_byte_of_is_the_encoded_length_of_the_prefix(text: str) -> None:
    bytemap = ByteMap(text)
    assert [bytemap.byte_of(c) for c in range(len(text) + 1)] == _starts(text)


@given(texts)
def test_char_of_floors_every_byte_to_the_code_point_holding_it(text: str) -> None:
    bytemap = ByteMap(text)
    starts = _starts(text)
    for char in range(len(text)):
        for byte in range(starts[char], starts[char + 1]):
            assert bytemap.char_of(byte) == char
            assert bytemap.starts_char(byte) == (byte == starts[char])
    assert bytemap.char_of(starts[-1]) == len(text)
    assert bytemap.starts_char(starts[-1])


def test_code_definitions_after_lone_surrogates_start_at_their_keyword() -> None:
    """tree-sitter parses ``surrogatepass`` bytes; the map brings its offsets back exactly."""
    from ragchunk.code import syntax

    text = (
        "s = '\ud800\udcff'  # 日本\n\ndef alpha():\n    return 1\n\n\ndef beta():\n    return 2\n"
    )
    found = syntax.parse(text, "python").definitions
    assert [(d.name, text[d.node_start : d.end]) for d in found] == [
        ("alpha", "def alpha():\n    return 1"),
        ("beta", "def beta():\n    return 2"),
    ]
