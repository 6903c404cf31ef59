"""The page's data: UTF-16 offsets, records without their text, JSON safe inside <script>."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ragchunk.model import Document
from ragchunk.pipeline.engine import chunk_document
from ragchunk.pipeline.plan import make_plan
from ragchunk.settings import shortcuts
from ragchunk.view import Side
from ragchunk.view.payload import build_payload, script_json, side_label, utf16_offsets


def utf16_length(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


@given(st.text())
def test_utf16_offsets_count_astral_characters_twice(text: str) -> None:
    at = utf16_offsets(text)
    for offset in range(len(text) + 1):
        assert at(offset) == utf16_length(text[:offset])


def test_utf16_offsets_of_plain_text_are_the_offsets() -> None:
    at = utf16_offsets("abc")
    assert [at(i) for i in range(4)] == [0, 1, 2, 3]


@given(st.text())
def test_script_json_reads_back_and_cannot_close_the_script(text: str) -> None:
    value = {"text": text, "list": [text, 1, None]}
    encoded = script_json(value)  # type: ignore[arg-type]
    assert json.loads(encoded) == value
    assert "<" not in encoded
    assert ">" not in encoded
    assert "&" not in encoded
    assert "\u2028" not in encoded
    assert "\u2029" not in encoded
    encoded.encode("utf-8")  # lone surrogates are escaped, so the page can be written


def test_script_json_escapes_markup_and_is_deterministic() -> None:
    hostile = "</script><script>alert(1)</script><!-- &amp; \ud800"
    encoded = script_json({"b": hostile, "a": 1})
    assert encoded == (
        '{"a":1,"b":"\\u003c/script\\u003e\\u003cscript\\u003ealert(1)\\u003c/script\\u003e'
        '\\u003c!-- \\u0026amp; \\ud800"}'
    )


def make_side(doc: Document, strategy: str, **flags: object) -> Side:
    plan = make_plan(shortcuts({"strategy": strategy, **flags}))  # type: ignore[arg-type]
    return Side(plan.recipe, tuple(chunk_document(doc, plan.recipe)))


def test_payload_spans_slice_the_text_in_utf16_as_records_do_in_code_points() -> None:
    text = "😀 emoji first. " * 20 + "\n\nThen 𝔘𝔫𝔦𝔠𝔬𝔡𝔢 text. " * 10
    doc = Document(text=text)
    side = make_side(doc, "recursive", size=60, overlap=12)
    payload = build_payload(doc, (side,))
    utf16 = text.encode("utf-16-le")
    (data,) = payload["sides"]  # type: ignore[misc]
    assert len(data["spans"]) == len(side.chunks) > 3
    for (a, b), chunk, record in zip(data["spans"], side.chunks, data["records"], strict=True):
        assert utf16[2 * a : 2 * b].decode("utf-16-le") == chunk.text
        assert "text" not in record  # the script slices it from the document
        assert (record["start"], record["end"]) == (chunk.start, chunk.end)
    assert data["sizes"] == [chunk.chars for chunk in side.chunks]
    assert data["unit"] == "chars"
    assert data["limit"] == 60
    assert payload["pages"] == []


def test_payload_keeps_the_text_of_a_record_that_is_not_the_slice() -> None:
    doc = Document(text="one two three")
    side = make_side(doc, "recursive", size=5, overlap=0)
    changed = side.chunks[0]
    changed.text = "a rewritten statement"  # as a proposition record would be (SPEC §2)
    payload = build_payload(doc, (side,))
    records = payload["sides"][0]["records"]  # type: ignore[index,call-overload]
    assert records[0]["text"] == "a rewritten statement"
    assert all("text" not in record for record in records[1:])


@pytest.mark.parametrize(
    ("strategy", "flags", "label"),
    [
        ("recursive", {}, "recursive · 512 chars · overlap 50"),
        ("markdown", {"size": 300}, "markdown · 300 chars"),
        ("hierarchical", {}, "hierarchical · unbounded"),
    ],
)
def test_side_label_names_strategy_limit_and_overlap(
    strategy: str, flags: dict[str, object], label: str
) -> None:
    doc = Document(text="# A\n\ntext\n", format="markdown")
    assert side_label(make_side(doc, strategy, **flags)) == label
