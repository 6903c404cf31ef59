"""``--min-size`` joins a title standing alone with the text under it (issue 31, finding 9).

A chapter title directly followed by its first subsection's heading (``Chapter 5⏎The
Context``) cut off as a chunk of its own was kept so: no merge crosses a heading, and the
subsection's heading lies between them. Titles stacked with nothing between them are one
heading scope with what they head.
"""

from __future__ import annotations

from ragchunk.model import Section, Span
from ragchunk.pipeline.merge import merge_small
from ragchunk.text.sections import heading_scopes

BODY = "The harbour was dredged in 1988 and the basin has silted since then, year after year."


def test_stacked_titles_share_a_scope_with_their_text() -> None:
    sections = [
        Section(0, 11, "heading", ("Chapter 5",), 1),
        Section(13, 27, "heading", ("Chapter 5", "The Context"), 2),
        Section(29, 80, "prose", ("Chapter 5", "The Context")),
        Section(82, 96, "heading", ("Chapter 5", "The Survey"), 2),
        Section(98, 150, "prose", ("Chapter 5", "The Survey")),
    ]
    scope = heading_scopes(sections)
    assert scope(0) == scope(13) == scope(29)
    assert scope(82) != scope(29)
    assert scope(82) == scope(98)


def test_min_size_merges_a_lone_title_into_what_follows() -> None:
    text = f"Chapter 5\nThe Context\n{BODY}\nThe Survey\n{BODY}"
    context = text.index("The Context")
    body = text.index(BODY)
    survey = text.index("The Survey")
    sections = [
        Section(0, 9, "heading", ("Chapter 5",), 1),
        Section(context, context + 11, "heading", ("Chapter 5", "The Context"), 2),
        Section(body, body + len(BODY), "prose", ("Chapter 5", "The Context")),
        Section(survey, survey + 10, "heading", ("Chapter 5", "The Survey"), 2),
        Section(survey + 11, len(text), "prose", ("Chapter 5", "The Survey")),
    ]
    spans = [Span(0, context + 11), Span(body, body + len(BODY)), Span(survey, len(text))]

    def size(start: int, end: int, _prefix: str | None = None) -> int:
        return end - start

    merged = merge_small(
        spans,
        min_size=40,
        max_size=200,
        size_alone=size,
        size_as_chunk=size,
        scope=heading_scopes(sections),
    )
    assert [text[s.start : s.end] for s in merged] == [
        f"Chapter 5\nThe Context\n{BODY}",
        f"The Survey\n{BODY}",  # a merge still never crosses a heading that heads text
    ]
