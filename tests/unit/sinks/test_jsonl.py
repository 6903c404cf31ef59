"""The JSONL writer: compact JSON in SPEC §2's field order, the same bytes on either encoder."""

from __future__ import annotations

import json
import os
import sys
from types import MappingProxyType

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ragchunk.errors import LimitExceededError
from ragchunk.model import Chunk
from ragchunk.sinks import jsonl
from ragchunk.sinks.jsonl import encode, lines, record_bytes

strings = st.text(max_size=40)
metadata = st.dictionaries(
    st.text(max_size=8),
    st.one_of(st.integers(), st.booleans(), strings, st.none(), st.lists(strings, max_size=3)),
    max_size=3,
)
pairs = st.none() | st.tuples(st.integers(1, 999), st.integers(1, 999))


@st.composite
def chunks(draw: st.DrawFn) -> Chunk:
    pages = draw(pairs) or (None, None)
    lines_ = draw(pairs) or (None, None)
    return draw(record(pages, lines_))


def record(
    pages: tuple[int | None, int | None], lines_: tuple[int | None, int | None]
) -> st.SearchStrategy[Chunk]:
    return st.builds(
        Chunk,
        id=st.text("0123456789abcdef", min_size=16, max_size=16),
        doc_id=strings,
        source=strings,
        index=st.integers(0, 10**6),
        text=strings,
        start=st.integers(0, 10**9),
        end=st.integers(0, 10**9),
        strategy=st.sampled_from(["recursive", "token"]),
        chars=st.integers(0, 10**6),
        headings=st.lists(strings, max_size=3).map(tuple),
        page_start=st.just(pages[0]),
        page_end=st.just(pages[1]),
        line_start=st.just(lines_[0]),
        line_end=st.just(lines_[1]),
        tokens=st.none() | st.integers(0, 9999),
        metadata=metadata.map(lambda values: MappingProxyType(values)),
        context=st.none() | strings,
        doc_hash=st.none() | strings,
        hash=st.none() | strings,
    )


def compact(chunk: Chunk) -> str:
    """The documented format, written the generic way."""
    return json.dumps(chunk.to_record(), ensure_ascii=False, separators=(",", ":")) + "\n"


@given(chunks())
def test_a_line_is_the_record_as_compact_json_in_field_order(chunk: Chunk) -> None:
    assert record_bytes(chunk) == compact(chunk).encode("utf-8")


@given(chunks())
def test_the_standard_library_fallback_writes_the_same_bytes(chunk: Chunk) -> None:
    assert jsonl._std_line(chunk.to_record()) == record_bytes(chunk)


def test_the_byte_format_has_no_spaces_and_raw_utf8() -> None:
    chunk = Chunk(
        id="0" * 16,
        doc_id="d",
        source="s",
        index=0,
        text='é "q"\n\t',
        start=0,
        end=7,
        strategy="fixed",
        chars=7,
        headings=("Über",),
        metadata=MappingProxyType({"k": [1, True, None]}),
    )
    assert (
        record_bytes(chunk)
        == (
            '{"id":"0000000000000000","doc_id":"d","source":"s","index":0,'
            '"text":"é \\"q\\"\\n\\t","start":0,"end":7,"headings":["Über"],'
            '"strategy":"fixed","chars":7,"metadata":{"k":[1,true,null]}}\n'
        ).encode()
    )


def test_a_name_that_is_not_utf8_is_written_as_surrogate_escapes() -> None:
    name = os.fsdecode(b"caf\xe9.txt")  # a Latin-1 file name: \udce9 in Python
    chunk = Chunk(
        id="0" * 16,
        doc_id=name,
        source=name,
        index=0,
        text="x",
        start=0,
        end=1,
        strategy="fixed",
        chars=1,
    )
    line = record_bytes(chunk)
    assert b'"doc_id":"caf\\udce9.txt"' in line
    assert os.fsencode(json.loads(line)["source"]) == b"caf\xe9.txt"


def test_an_integer_past_64_bits_falls_back_to_the_standard_library() -> None:
    chunk = Chunk(
        id="0" * 16,
        doc_id="d",
        source="s",
        index=0,
        text="x",
        start=0,
        end=1,
        strategy="fixed",
        chars=1,
        metadata=MappingProxyType({"big": 2**70}),
    )
    assert json.loads(record_bytes(chunk))["metadata"]["big"] == 2**70


def test_lines_end_every_record_with_a_newline() -> None:
    chunk = Chunk(
        id="0" * 16,
        doc_id="d",
        source="s",
        index=0,
        text='a "q"\n',
        start=0,
        end=6,
        strategy="fixed",
        chars=6,
    )
    assert lines([chunk, chunk]).count("\n") == 2
    assert encode([chunk, chunk]) == lines([chunk, chunk]).encode("utf-8")


def test_without_orjson_the_standard_library_writes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "orjson", None)  # import orjson now raises ImportError
    assert jsonl._make_line() is jsonl._std_line


def big_chunk(text: str, metadata: dict[str, object] | None = None) -> Chunk:
    return Chunk(
        id="0123456789abcdef",
        doc_id="big.txt",
        source="big.txt",
        index=3,
        text=text,
        start=0,
        end=len(text),
        strategy="fixed",
        chars=len(text),
        metadata=MappingProxyType(metadata or {}),
    )


def test_a_record_too_large_for_orjson_is_written_by_the_standard_library_the_same() -> None:
    """orjson crashes the process when it cannot allocate: it never gets a record this long."""
    import orjson

    text = 'a "quoted" line\n\twith \x01 controls, é and 😀 ' * 30_000
    chunk = big_chunk(text, {"kind": "x" * 10})
    assert len(text) > jsonl.ORJSON_MOST_CHARS
    expected = orjson.dumps(chunk.to_record(), option=orjson.OPT_APPEND_NEWLINE)
    assert record_bytes(chunk) == expected == compact(chunk).encode("utf-8")


def test_metadata_counts_towards_the_bound() -> None:
    small = big_chunk("short", {"names": ["n" * 100] * 20_000})
    assert jsonl._chars(small) > jsonl.ORJSON_MOST_CHARS
    assert record_bytes(small) == compact(small).encode("utf-8")


def test_a_record_past_the_cap_is_refused_naming_the_input(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(jsonl, "ORJSON_MOST_CHARS", 10)
    monkeypatch.setattr(jsonl, "MAX_RECORD_BYTES", 200)
    with pytest.raises(LimitExceededError) as caught:
        encode([big_chunk("x" * 300)])
    assert str(caught.value) == (
        "big.txt: refused: chunk 3 makes a JSONL record of 463 bytes (limit 200)"
    )
