"""merge_small: small spans join a neighbour in the same heading scope, within the size."""

from __future__ import annotations

from ragchunk.model import Section, Span
from ragchunk.pipeline.merge import merge_small
from ragchunk.text.sections import heading_scopes

SECTIONS = (
    Section(0, 5, "heading", ("A",), 1),
    Section(6, 40, "prose", ("A",)),
    Section(41, 46, "heading", ("A", "B"), 2),
    Section(47, 90, "prose", ("A", "B")),
)


def _merge(spans: list[Span], min_size: int, max_size: int | None = 100) -> list[Span]:
    def size(start: int, end: int) -> int:
        return end - start

    def size_as_chunk(start: int, end: int, prefix: str | None) -> int:
        return len(prefix or "") + end - start

    return merge_small(
        spans,
        min_size=min_size,
        max_size=max_size,
        size_alone=size,
        size_as_chunk=size_as_chunk,
        scope=heading_scopes(SECTIONS),
    )


def test_small_spans_merge_forward_and_backward_within_a_heading() -> None:
    spans = [Span(0, 5), Span(6, 20), Span(21, 40), Span(41, 46), Span(47, 90)]
    merged = _merge(spans, min_size=10)
    assert [(s.start, s.end) for s in merged] == [(0, 20), (21, 40), (41, 90)]


def test_a_merge_never_crosses_a_heading() -> None:
    merged = _merge([Span(30, 40), Span(41, 46)], min_size=50)
    assert [(s.start, s.end) for s in merged] == [(30, 40), (41, 46)]


def test_a_merge_never_breaks_the_size_limit() -> None:
    merged = _merge([Span(6, 30), Span(31, 40)], min_size=10, max_size=20)
    assert [(s.start, s.end) for s in merged] == [(6, 30), (31, 40)]
    assert _merge([Span(6, 30), Span(31, 40)], min_size=10, max_size=None)[0].end == 40


def test_other_metadata_or_a_prefix_never_refuse_a_merge() -> None:
    # Only a heading boundary or the size may refuse a merge (issue 13).
    flagged = Span(6, 10, metadata={"oversize_split": True, "kind": "code"})
    prefixed = Span(21, 25, prefix="| h |\n")
    merged = _merge([flagged, Span(11, 20, metadata={"kind": "table"}), prefixed], min_size=10)
    assert [(s.start, s.end) for s in merged] == [(6, 25)]
    assert merged[0].metadata == {"oversize_split": True}  # the flag stays, kinds disagree
    after_prefix = _merge([prefixed, Span(26, 30)], min_size=10)
    assert [(s.start, s.end, s.prefix) for s in after_prefix] == [(21, 30, "| h |\n")]
    # The merged chunk keeps the first part's prefix, and the size counts it: 6 + 9 > 12.
    assert _merge([prefixed, Span(26, 30)], min_size=10, max_size=12)[0].end == 25


def test_two_headings_with_the_same_title_are_two_scopes() -> None:
    sections = (
        Section(0, 5, "heading", ("Notes",), 1),
        Section(6, 10, "prose", ("Notes",)),
        Section(11, 16, "heading", ("Notes",), 1),
        Section(17, 20, "prose", ("Notes",)),
    )
    scope = heading_scopes(sections)
    assert scope(6) != scope(17)
    assert scope(0) == scope(9)
