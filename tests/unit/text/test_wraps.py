"""Wrapped lines (``Document.wraps``): a line feed that only wraps a paragraph ranks as a space.

The text is never changed: the same windows cover it, verbatim; only where they end moves.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from ragchunk.measure import CharSizer
from ragchunk.options import Capacity
from ragchunk.text.separators import split_range

PARAGRAPH = (
    "The pontoon is used at every monthly\n"  # wraps
    "survey. It reaches site W5, and its\n"  # wraps
    "condition matters for the crew.\n"  # ends the paragraph
    "Deck boards are worn and two of them\n"  # wraps
    "are split."
)


def wraps_of(text: str) -> tuple[int, ...]:
    """The line feeds of ``PARAGRAPH``-like text that are not after a full stop."""
    return tuple(i for i, ch in enumerate(text) if ch == "\n" and text[i - 1] != ".")


def windows(text: str, size: int, wraps: tuple[int, ...] = (), overlap: int = 0) -> list[str]:
    budget = Capacity(size=size, overlap=overlap)
    found = split_range(text, 0, len(text), sizer=CharSizer(text), capacity=budget, wraps=wraps)
    return [text[w.start : w.end] for w in found]


def test_a_wrap_ranks_below_a_sentence_end() -> None:
    without = windows(PARAGRAPH, 80)
    assert (
        without[0] == "The pontoon is used at every monthly\nsurvey. It reaches site W5, and its\n"
    )
    with_wraps = windows(PARAGRAPH, 80, wraps_of(PARAGRAPH))
    assert with_wraps[0] == "The pontoon is used at every monthly\nsurvey. "
    assert "".join(with_wraps) == PARAGRAPH


def test_a_hard_line_feed_still_ranks_above_sentence_ends() -> None:
    found = windows(PARAGRAPH, 120, wraps_of(PARAGRAPH))
    assert found[0].endswith("condition matters for the crew.\n")


def test_a_sentence_end_before_a_wrap_counts_and_a_clause_before_words() -> None:
    text = "One two three four five six seven, eight nine\nten eleven twelve"
    found = windows(text, 50, (45,))
    assert found[0] == "One two three four five six seven, "


def test_a_page_turn_inside_a_paragraph_is_a_wrap_too() -> None:
    text = "It records temperature, salinity, dissolved\n\noxygen and turbidity. More."
    at = text.index("\n\n")
    assert windows(text, 70)[0] == "It records temperature, salinity, dissolved\n\n"
    assert windows(text, 70, (at, at + 1))[0] == (
        "It records temperature, salinity, dissolved\n\noxygen and turbidity. "
    )


def test_custom_separators_ignore_wraps() -> None:
    text = "aaaa\nbbbb. cccc"
    budget = Capacity(size=8)
    found = split_range(
        text, 0, len(text), sizer=CharSizer(text), capacity=budget, levels=(("\n",),), wraps=(4,)
    )
    assert text[found[0].start : found[0].end] == "aaaa\n"


@given(
    st.lists(st.sampled_from(["word", " ", "\n", ". ", ", ", "\n\n", "x" * 30]), max_size=80),
    st.integers(min_value=4, max_value=60),
    st.integers(min_value=0, max_value=3),
    st.data(),
)
def test_windows_cover_the_text_verbatim_within_the_size(
    pieces: list[str], size: int, overlap: int, data: st.DataObject
) -> None:
    text = "".join(pieces)
    feeds = [i for i, ch in enumerate(text) if ch == "\n"]
    wraps = tuple(sorted(data.draw(st.sets(st.sampled_from(feeds))) if feeds else ()))
    budget = Capacity(size=size, overlap=min(overlap, size - 1))
    found = split_range(text, 0, len(text), sizer=CharSizer(text), capacity=budget, wraps=wraps)
    covered = 0
    for window in found:
        assert window.end - window.start <= size
        assert window.start <= covered
        covered = max(covered, window.end)
    assert covered == len(text)
