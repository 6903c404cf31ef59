"""The fast character paths give exactly the windows of the generic, measuring ``pack`` loop."""

from __future__ import annotations

from hypothesis import example, given
from hypothesis import strategies as st

from ragchunk.measure import CHARS, CharSizer
from ragchunk.options import Capacity
from ragchunk.strategies import fixed
from ragchunk.text.boundaries import last_separator_cut, last_whitespace_end
from ragchunk.text.pack import align_to_word, pack
from ragchunk.text.separators import DEFAULT_LEVELS, align_to_separator, char_windows

PIECES = ["word", " ", "  ", "\n", "\n\n", "\n\n\n", "\r\n", "\r\n\r\n", "\t", ", ", ". ", "! ",
          "。", "、", "e\u0301", "👨‍👩‍👧", "ab", "aab", "supercalifragilistic"]  # fmt: skip

LEVELS = [
    DEFAULT_LEVELS,
    (("\n",),),
    (("ab",), ("b",), (" ",)),
    (("\n\n",), ("\n",), (" ",)),
    (DEFAULT_LEVELS[1], DEFAULT_LEVELS[3], DEFAULT_LEVELS[4]),
]

texts = st.lists(st.sampled_from(PIECES), max_size=120).map("".join)


class PlainSizer:
    """Code points like ``CharSizer``, not flagged as lengths: ``pack`` measures every window."""

    unit = "chars"
    is_length = False

    def __init__(self, text: str) -> None:
        self.total = len(text)

    def size(self, start: int, end: int) -> int:
        return end - start

    def offset(self, index: int) -> int:
        return index

    def index(self, offset: int) -> int:
        return offset


@st.composite
def cases(draw: st.DrawFn) -> tuple[str, int, int, Capacity]:
    text = draw(texts)
    start = draw(st.integers(0, len(text)))
    end = draw(st.integers(start, len(text)))
    size = draw(st.integers(1, 8) | st.integers(1, 60))  # small sizes: long ranges get pruned
    return text, start, end, Capacity(size=size, overlap=draw(st.integers(0, size - 1)))


@given(cases(), st.sampled_from(LEVELS))
@example(("ab. c d\r\n" * 40, 0, 360, Capacity(size=7, overlap=3)), DEFAULT_LEVELS)  # pruned
# A line feed that begins the second block (of 64 windows) and nowhere else in it.
@example(("x" * 256 + "\n" + "x" * 300, 0, 557, Capacity(size=4, overlap=0)), DEFAULT_LEVELS)
def test_recursive_char_windows_match_the_generic_loop(
    case: tuple[str, int, int, Capacity], levels: tuple[tuple[str, ...], ...]
) -> None:
    text, start, end, budget = case
    expected = pack(
        text,
        start,
        end,
        sizer=PlainSizer(text),
        size=budget.size,
        overlap=budget.overlap,
        find_cut=lambda t, lo, limit: last_separator_cut(t, lo, limit, levels),
        align_start=lambda t, lo, hi: align_to_separator(t, lo, hi, levels),
    )
    got = char_windows(text, start, end, capacity=budget, levels=levels)
    assert got == expected


@given(cases())
def test_fixed_char_windows_match_the_generic_loop(case: tuple[str, int, int, Capacity]) -> None:
    text, _, _, budget = case
    windows = {
        sizer.__class__: pack(
            text,
            0,
            len(text),
            sizer=sizer,
            size=budget.size,
            overlap=budget.overlap,
            find_cut=fixed.find_cut,
            align_start=align_to_word,
        )
        for sizer in (PlainSizer(text), CHARS.prepare(text))  # CharSizer: pack's char path
    }
    got, expected = windows[CharSizer], windows[PlainSizer]
    assert got == expected


@given(
    texts.map(lambda t: t + " \u00a0\n\tx\x1cy\u2028z\u3000" if len(t) % 3 == 0 else t), st.data()
)
def test_last_whitespace_end_finds_the_last_space_run_ending_in_range(
    text: str, data: st.DataObject
) -> None:
    lo = data.draw(st.integers(0, len(text)))
    hi = data.draw(st.integers(lo, len(text)))
    ends = [
        q
        for q in range(lo + 1, hi + 1)
        if text[q - 1].isspace() and (q == len(text) or not text[q].isspace())
    ]
    assert last_whitespace_end(text, lo, hi) == (ends[-1] if ends else -1)
