"""The JSONL writer: its fast path is byte-identical to json.dumps of the record."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from ragchunk.model import Chunk
from ragchunk.writers.jsonl import lines, record_line

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
        metadata=metadata,
        context=st.none() | strings,
        doc_hash=st.none() | strings,
        hash=st.none() | strings,
    )


@given(chunks())
def test_fast_record_line_equals_json_dumps_of_the_record(chunk: Chunk) -> None:
    assert record_line(chunk) == json.dumps(chunk.to_record(), ensure_ascii=False) + "\n"


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
