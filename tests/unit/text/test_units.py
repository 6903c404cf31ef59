"""pack_units: whole units packed greedily, overlap in whole units, oversize units refined."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from ragchunk.measure import CharSizer
from ragchunk.text.pack import Window
from ragchunk.text.sentences import split_sentences
from ragchunk.text.units import _search, pack_units

TEXT = "One two. Three four five. Six. Seven eight nine ten. Eleven."
UNITS = split_sentences(TEXT)  # lengths 8, 16, 4, 21, 7


def _refuse(start: int, end: int) -> list[Window]:
    raise AssertionError(f"no unit should need refining ({start}, {end})")


def _texts(pieces: list[Window]) -> list[str]:
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
    assert pieces[0] == Window(*UNITS[0])
    assert pieces[1] == Window(UNITS[1][0], UNITS[1][0] + 10, split=True)
    assert all(p.split for p in pieces if (p.start, p.end) not in UNITS and p.end - p.start != 4)


@given(fitting=st.integers(0, 40), extra=st.integers(0, 40), guess=st.integers(-5, 90))
def test_the_search_finds_the_largest_fitting_unit_from_any_guess(
    fitting: int, extra: int, guess: int
) -> None:
    probed: list[int] = []

    def fits(k: int) -> bool:
        probed.append(k)
        return k <= fitting

    miss = fitting + extra + 1
    assert _search(fits, 0, miss, guess) == min(fitting, miss - 1)
    assert len(probed) <= 2 * (miss.bit_length() + 1) + 2
    if guess == fitting:
        assert len(probed) <= 2  # a right guess costs at most two measurements


def test_pieces_match_packing_one_unit_at_a_time() -> None:
    text = " ".join(f"Sentence number {n} has {'many ' * (n % 7)}words." for n in range(300))
    units = split_sentences(text)
    for size in (40, 100, 333):
        pieces = pack_units(units, sizer=CharSizer(text), size=size, refine=_whole)
        assert [(p.start, p.end) for p in pieces] == _one_at_a_time(units, size)


def _whole(start: int, end: int) -> list[Window]:
    return [Window(start, end)]


def _one_at_a_time(units: list[tuple[int, int]], size: int) -> list[tuple[int, int]]:
    """The plain greedy rule: add the next unit while the piece still fits."""
    pieces: list[tuple[int, int]] = []
    first, last = units[0]
    for start, end in units[1:]:
        if end - first <= size:
            last = end
            continue
        pieces.append((first, last))
        first, last = start, end
    pieces.append((first, last))
    return pieces
