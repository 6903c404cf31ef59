"""split_table: whole rows, the header with a split first row, and never a piece of syntax alone."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ragchunk.measure import CharSizer, load_tokenizer
from ragchunk.model import Section
from ragchunk.options import Capacity
from ragchunk.parsers.markdown import find_sections
from ragchunk.parsers.rst import find_sections as find_rst_sections
from ragchunk.text.tables import is_syntax, split_table

ROW = (
    "| `docs-site/docs/tutorial/request-body.md` "
    "| `## Request Body { #request-body }` and a few more words |\n"
)
TABLE = "| File | Notes |\n|---|---|\n" + ROW + "| short | row |\n"


def table_of(text: str) -> Section:
    (table,) = (s for s in find_sections(text) if s.kind == "table")
    return table


def pieces(text: str, size: int, table: Section | None = None) -> list[str]:
    table = table or table_of(text)
    windows = split_table(
        text, table, table.start, table.end, sizer=CharSizer(text), capacity=Capacity(size=size)
    )
    assert windows[0].start == table.start
    assert windows[-1].end == table.end
    for before, after in itertools.pairwise(windows):
        assert before.end <= after.start
        assert not text[before.end : after.start].strip()
    assert all(w.end - w.start <= size for w in windows)
    return [text[w.start : w.end] for w in windows]


def test_a_pipe_between_two_long_cells_takes_the_words_after_it() -> None:
    # Before: "|" alone, between two cells that each fill the size.
    assert pieces(TABLE, 43) == [
        "| File | Notes |\n|---|---|\n|",
        " `docs-site/docs/tutorial/request-body.md` ",
        "| `## Request Body { #request-body }` and ",
        "a few more words |",
        "| short | row |",
    ]


def test_what_is_left_of_the_piece_joins_the_next_piece_of_its_row() -> None:
    # Before: " |" alone; taking words from the next piece left "and " to join what follows.
    assert pieces(TABLE, 41) == [
        "| File | Notes |\n|---|---|\n| ",
        "`docs-site/docs/tutorial/request-body.md`",
        " | `## Request Body { #request-body }` ",
        "and a few more words |",
        "| short | row |",
    ]


@pytest.mark.parametrize("size", range(20, 90))
def test_no_piece_is_syntax_alone_at_any_size(size: int) -> None:
    assert not any(is_syntax(p, 0, len(p)) for p in pieces(TABLE, size))


def test_a_row_that_fits_is_never_cut_to_give_syntax_some_text() -> None:
    text = "| A | B |\n|---|---|\n| longer words | here |\n|  |  |\n| more words | there |\n"
    # The empty row fits beside neither neighbour at 24: it stays alone, the rows stay whole.
    assert pieces(text, 24) == [
        "| A | B |\n|---|---|",
        "| longer words | here |",
        "|  |  |",
        "| more words | there |",
    ]


def test_a_grid_table_border_is_syntax_and_joins_text() -> None:
    text = (
        "+------+----------------------------------+\n"
        "| Key  | Value                            |\n"
        "+======+==================================+\n"
        "| a    | a value long enough to be split  |\n"
        "+------+----------------------------------+\n"
    )
    (table,) = find_rst_sections(text)
    assert is_syntax(text, 0, text.index("\n"))
    for size in range(50, 130, 7):
        assert not any(is_syntax(p, 0, len(p)) for p in pieces(text, size, table)), size


def test_pieces_in_tokens_fit_and_are_never_syntax_alone() -> None:
    measure = load_tokenizer("cl100k_base")
    table = table_of(TABLE)
    for size in range(8, 40):
        windows = split_table(
            TABLE,
            table,
            table.start,
            table.end,
            sizer=measure.prepare(TABLE),
            capacity=Capacity(size=size, unit="tokens"),
        )
        for window in windows:
            assert measure.count(TABLE[window.start : window.end]) <= size
            assert not is_syntax(TABLE, window.start, window.end), (size, window)


WORDS = st.sampled_from(["a", "bb", "word", "`code`", "x" * 24, "é", "日本", ""])


@st.composite
def tables(draw: st.DrawFn) -> str:
    columns = draw(st.integers(1, 4))

    def row() -> str:
        cells = [" ".join(draw(st.lists(WORDS, max_size=5))) for _ in range(columns)]
        return "| " + " | ".join(c + " " * draw(st.integers(0, 5)) for c in cells) + " |\n"

    delimiter = "|" + "|".join("-" * draw(st.integers(3, 16)) for _ in range(columns)) + "|\n"
    body = "".join(row() for _ in range(draw(st.integers(1, 4))))
    return row().replace("|  |", "| h |") + delimiter + body


@given(text=tables(), size=st.integers(8, 90))
def test_a_piece_of_syntax_alone_fits_beside_neither_neighbour(text: str, size: int) -> None:
    sections = [s for s in find_sections(text) if s.kind == "table"]
    if not sections:
        return
    windows = split_table(
        text,
        sections[0],
        sections[0].start,
        sections[0].end,
        sizer=CharSizer(text),
        capacity=Capacity(size=size),
    )
    assert all(w.end - w.start <= size or w.oversize for w in windows)
    for k, window in enumerate(windows):
        if is_syntax(text, window.start, window.end):
            for other in windows[max(k - 1, 0) : k + 2]:
                if other is not window:
                    first, last = sorted((window, other))
                    assert last.end - first.start > size, (size, windows)
