"""The invariant checker names each violation of SPEC §3 exactly, first one first."""

from __future__ import annotations

import dataclasses

import pytest

from ragchunk.measure import CHARS
from ragchunk.model import Chunk, Document, Span
from ragchunk.pipeline.check import Limits, find_differences, find_violations
from ragchunk.pipeline.chunks import assemble
from ragchunk.pipeline.engine import chunk_document
from ragchunk.pipeline.plan import limits_for, make_plan
from ragchunk.settings import shortcuts

TEXT = "alpha beta gamma delta epsilon zeta eta theta iota kappa"
DOC = Document(text=TEXT, source="t.txt", doc_id="t.txt")
LIMITS = Limits(size=20, overlap=6, measure=CHARS)
SPANS = [(0, 16), (11, 30), (31, 45), (40, 56)]


def chunks_of(doc: Document, spans: list[tuple[int, int]]) -> list[Chunk]:
    return assemble(doc, [Span(s, e) for s, e in spans], strategy="test", fingerprint="f")


def changed(chunks: list[Chunk], position: int, **changes: object) -> list[Chunk]:
    return [
        dataclasses.replace(c, **changes) if k == position else c  # type: ignore[arg-type]
        for k, c in enumerate(chunks)
    ]


def test_clean_chunks_have_no_violation() -> None:
    assert find_violations(DOC, chunks_of(DOC, SPANS), LIMITS) == []


OVERSIZE = "flagged oversize, but it is not one code point over the size limit 20"
DOC_ID = "doc_id/source 'other'/'t.txt' are not the document's"
PAGES = "page_start and page_end must both be present or absent"


@pytest.mark.parametrize(
    ("position", "changes", "message"),
    [
        (1, {"index": 7}, "chunk 7 [11:30]: index 7 where 1 was expected"),
        (3, {"end": 99, "chars": 59}, "chunk 3 [40:99]: span outside the document (length 56)"),
        (2, {"text": "zeta"}, "chunk 2 [31:45]: text differs from document.text[start:end]"),
        (2, {"chars": 3}, "chunk 2 [31:45]: chars is 3, the span holds 14"),
        (3, {"doc_id": "other"}, f"chunk 3 [40:56]: {DOC_ID}"),
        (0, {"page_start": 1}, f"chunk 0 [0:16]: {PAGES}"),
        (0, {"line_start": 2, "line_end": 1}, "chunk 0 [0:16]: lines 2-1 are not in order"),
        (1, {"metadata": {"oversize": True}}, f"chunk 1 [11:30]: {OVERSIZE}"),
    ],
)
def test_each_record_violation_is_named(
    position: int, changes: dict[str, object], message: str
) -> None:
    chunks = changed(chunks_of(DOC, SPANS), position, **changes)
    assert find_violations(DOC, chunks, LIMITS) == [message]


def test_a_repeated_id_is_named() -> None:
    chunks = changed(changed(chunks_of(DOC, SPANS), 1, id="x"), 3, id="x")
    assert find_violations(DOC, chunks, LIMITS) == ["chunk 3 [40:56]: id x repeats that of chunk 1"]


def test_order_size_coverage_and_overlap_violations() -> None:
    chunks = chunks_of(DOC, [(0, 16), (3, 30), (31, 45)])
    assert find_violations(DOC, chunks, LIMITS) == [
        "chunk 1 [3:30]: its text has 27 chars, over the size limit 20",
        "chunks 0 and 1 share 13 chars, more than 6",
        "chunks 0 and 1: the overlap begins inside a word at 3",
        "character 46 ('i') lies in no chunk",
    ]
    backwards = chunks_of(DOC, [(11, 30), (0, 16), (31, 45), (40, 56)])
    assert find_violations(DOC, backwards, LIMITS) == [
        "chunk 1 [0:16]: starts before the previous chunk (11)"
    ]


def test_a_lost_character_is_named_before_the_chunks_after_it() -> None:
    chunks = changed(chunks_of(DOC, [(0, 16), (31, 45), (40, 56)]), 2, text="wrong")
    assert find_violations(DOC, chunks, LIMITS) == [
        "character 17 ('d') lies in no chunk",
        "chunk 2 [40:56]: text differs from document.text[start:end]",
    ]


def test_an_overlap_inside_a_grapheme_cluster() -> None:
    doc = Document(text="ab 👨\u200d👩\u200d👧 cd")
    chunks = chunks_of(doc, [(0, 9), (4, 11)])
    assert find_violations(doc, chunks, Limits(size=20, overlap=5, measure=CHARS)) == [
        "chunks 0 and 1: the overlap begins inside a grapheme cluster at 4"
    ]


def test_one_code_point_over_the_limit_is_allowed_when_flagged() -> None:
    doc = Document(text="🧬🧬")
    plan = make_plan(shortcuts({"strategy": "fixed", "size": 1, "overlap": 0, "unit": "tokens"}))
    chunks = chunk_document(doc, plan.recipe)
    assert [c.metadata.get("oversize") for c in chunks] == [True, True]
    assert find_violations(doc, chunks, limits_for(plan.recipe)) == []
    unflagged = changed(chunks, 0, metadata={})
    assert find_violations(doc, unflagged, limits_for(plan.recipe)) == [
        "chunk 0 [0:1]: its text has 3 cl100k_base, over the size limit 1"
    ]


def test_contextualize_needs_a_context() -> None:
    plan = make_plan(
        shortcuts({"strategy": "recursive", "size": 40, "overlap": 0, "contextualize": True})
    )
    doc = Document(text="Some text here.", sections=())
    chunks = chunk_document(doc, plan.recipe)
    assert find_violations(doc, chunks, limits_for(plan.recipe)) == []
    assert find_violations(doc, changed(chunks, 0, context=None), limits_for(plan.recipe)) == [
        "chunk 0 [0:15]: has no context"
    ]


def test_differences_between_two_runs_name_the_first() -> None:
    first = chunks_of(DOC, SPANS)
    assert find_differences(first, chunks_of(DOC, SPANS)) == []
    assert find_differences(first, changed(chunks_of(DOC, SPANS), 2, headings=("X",))) == [
        "chunk 2 [31:45]: its headings differs between two runs"
    ]
    assert find_differences(first, chunks_of(DOC, SPANS)[:3]) == [
        "a second run gave 3 chunks, the first 4"
    ]


def test_limits_follow_the_plan() -> None:
    assert limits_for(make_plan(shortcuts({"strategy": "hierarchical"})).recipe).size is None
    assert (
        limits_for(make_plan(shortcuts({"strategy": "hierarchical", "size": 300})).recipe).size
        == 300
    )
    assert (
        limits_for(
            make_plan(shortcuts({"strategy": "token", "size": 30, "overlap": 3})).recipe
        ).word_aligned
        is False
    )
    limits = limits_for(
        make_plan(shortcuts({"strategy": "sentence", "options": {"sentences": "3"}})).recipe
    )
    assert (limits.size, limits.sentences) == (None, 3)


def test_a_wrong_token_count_is_named() -> None:
    plan = make_plan(
        shortcuts({"strategy": "recursive", "size": 8, "overlap": 0, "unit": "tokens"})
    )
    chunks = chunk_document(DOC, plan.recipe)
    assert find_violations(DOC, chunks, limits_for(plan.recipe)) == []
    first = chunks[0]
    assert first.tokens is not None
    wrong = changed(chunks, 0, tokens=first.tokens + 1)
    assert find_violations(DOC, wrong, limits_for(plan.recipe)) == [
        f"chunk 0 [{first.start}:{first.end}]: tokens is {first.tokens + 1}, "
        f"its text encodes alone to {first.tokens}"
    ]
