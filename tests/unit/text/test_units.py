"""pack_units: whole units packed greedily, overlap in whole units, oversize units refined."""

from __future__ import annotations

from ragchunk.measure import CharSizer
from ragchunk.text.pack import Window
from ragchunk.text.sentences import split_sentences
from ragchunk.text.units import Piece, pack_units

TEXT = "One two. Three four five. Six. Seven eight nine ten. Eleven."
UNITS = split_sentences(TEXT)  # lengths 8, 16, 4, 21, 7


def _refuse(start: int, end: int) -> list[Window]:
    raise AssertionError(f"no unit should need refining ({start}, {end})")


def _texts(pieces: list[Piece]) -> list[str]:
    return [TEXT[p.start : p.end] for p in pieces]


def test_whole_units_are_packed_while_the_span_fits() -> None:
    pieces = pack_units(UNITS, sizer=CharSizer(TEXT), size=30, refine=_refuse)
    assert _texts(pieces) == [
        "One two. Three four five. Six.",
        "Seven eight nine ten. Eleven.",
    ]


def test_overlap_repeats_the_last_units_that_fit_it() -> None:
    pieces = pack_units(UNITS, sizer=CharSizer(TEXT), size=30, overlap=10, refine=_refuse)
    assert _texts(pieces) == [
        "One two. Three four five. Six.",
        "Six. Seven eight nine ten.",  # "Six." (4) fits the overlap; "Three four five. Six." not
        "Eleven.",  # "Seven eight nine ten." (21) is larger than the overlap: none
    ]


def test_count_mode_takes_n_units_and_repeats_m() -> None:
    pieces = pack_units(
        UNITS, sizer=CharSizer(TEXT), size=None, max_units=2, overlap_units=1, refine=_refuse
    )
    assert _texts(pieces) == [
        "One two. Three four five.",
        "Three four five. Six.",
        "Six. Seven eight nine ten.",
        "Seven eight nine ten. Eleven.",
    ]


def test_an_overlap_that_leaves_no_room_is_dropped() -> None:
    units = [(0, 5), (6, 11), (12, 28)]
    text = "aaaaa bbbbb cccccccccccccccc"
    pieces = pack_units(units, sizer=CharSizer(text), size=16, overlap=5, refine=_refuse)
    assert [(p.start, p.end) for p in pieces] == [(0, 11), (12, 28)]


def test_a_unit_larger_than_the_size_is_refined_and_flagged() -> None:
    calls: list[tuple[int, int]] = []

    def refine(start: int, end: int) -> list[Window]:
        calls.append((start, end))
        return [Window(start, start + 10), Window(start + 10, end)]

    pieces = pack_units(UNITS, sizer=CharSizer(TEXT), size=12, refine=refine)
    assert calls == [UNITS[1], UNITS[3]]
    assert pieces[0] == Piece(*UNITS[0])
    assert pieces[1] == Piece(UNITS[1][0], UNITS[1][0] + 10, split=True)
    assert all(p.split for p in pieces if (p.start, p.end) not in UNITS and p.end - p.start != 4)
