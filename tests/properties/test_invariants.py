"""SPEC §3 on generated text: every strategy, both units, sizes from 1 up, overlap below size.

The embedding strategies (semantic, late) and ``--refine`` on every strategy run with the real
local model on fewer examples: each new text costs model passes.
"""

from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from ragchunk.model import Document
from ragchunk.pipeline.plan import make_plan
from ragchunk.settings import shortcuts
from tests.invariants import assert_invariants
from tests.meaning import EMBEDDING, LOCAL, SHAPES

PIECES = [
    "word",
    "Hello",
    "world.",
    "e.g.",
    " ",
    "  ",
    "\n",
    "\n\n",
    "\r\n",
    "\r\n\r\n",
    "\r",
    "\t",
    ", ",
    ". ",
    "! ",
    "? ",
    "。",
    "日本語のテキスト",
    "漢字",
    "👨‍👩‍👧‍👦",  # ZWJ sequence
    "🇫🇷🇩🇪",  # regional indicator pairs
    "e\u0301",  # combining acute
    "q\u0323\u0307",  # two combining marks
    "\u1100\u1161\u11a8",  # Hangul jamo L V T
    "한국어",
    "supercalifragilisticexpialidocious" * 3,
    "<|endoftext|>",
    "  indented",
    "ʻŌlelo",
    "мир",
    "\u00a0",
    "\ufeff",
]

texts = st.one_of(
    st.lists(st.sampled_from(PIECES), max_size=60).map("".join),
    st.text(max_size=400),
    st.sampled_from(["", " ", "\n\n\n", " \t\r\n "]),
)


def _budget(draw: st.DrawFn, unit: str) -> tuple[int, int]:
    size = draw(st.integers(1, 120 if unit == "chars" else 40))
    overlap = draw(st.integers(0, size - 1))
    return size, overlap


@st.composite
def cases(draw: st.DrawFn, unit: str) -> tuple[str, int, int]:
    size, overlap = _budget(draw, unit)
    return draw(texts), size, overlap


PROSE = st.lists(
    st.sampled_from(
        [
            "The committee met on Tuesday. ",
            "It voted, after long debate, to adopt the plan. ",
            "Dr. Smith disagreed! ",
            "Why? ",
            "\n\n",
            "\n",
            "Costs rose 3.5% in 2024; ",
            "see https://example.com/a.b for details. ",
            "日本語の文です。",
            "«Quoted» text… ",
        ]
    ),
    min_size=20,
    max_size=120,
).map("".join)


@st.composite
def prose_cases(draw: st.DrawFn, unit: str) -> tuple[str, int, int]:
    size, overlap = _budget(draw, unit)
    return draw(PROSE), size + (40 if unit == "chars" else 10), overlap


PINNED = [
    ("a" * 50 + " b", 10, 5),
    ("👨‍👩‍👧‍👦" * 3, 1, 0),
    ("e\u0301" * 30, 2, 1),
    ("x\r\ny\r\n" * 20, 3, 2),
]


@pytest.mark.parametrize("unit", ["chars", "tokens"])
@pytest.mark.parametrize("name", SHAPES)
@given(case=st.data())
@example(case=None)
def test_invariants_hold_on_generated_text(
    name: str, unit: str, case: st.DataObject | None
) -> None:
    samples = PINNED if case is None else [case.draw(cases(unit)), case.draw(prose_cases(unit))]
    for text, size, overlap in samples:
        plan = make_plan(
            shortcuts({"strategy": name, "size": size, "overlap": overlap, "unit": unit})
        )  # type: ignore[arg-type]
        assert_invariants(Document(text=text), plan)


@pytest.mark.slow
@pytest.mark.parametrize("unit", ["chars", "tokens"])
@pytest.mark.parametrize(
    ("name", "refine"),
    [*((name, False) for name in EMBEDDING), *((name, True) for name in LOCAL)],
)
@settings(max_examples=15)
@given(case=st.data())
@example(case=None)
def test_invariants_hold_on_generated_text_with_embeddings(
    name: str, refine: bool, unit: str, case: st.DataObject | None
) -> None:
    if case is None:
        samples = [*PINNED, ("日本語の文です。" * 20 + "e\u0301 \u0001x " * 10, 7, 2)]
    else:
        samples = [case.draw(cases(unit)), case.draw(prose_cases(unit))]
    for text, size, overlap in samples:
        plan = make_plan(
            shortcuts(
                {"strategy": name, "size": size, "overlap": overlap, "unit": unit, "refine": refine}
            )
        )  # type: ignore[arg-type]
        assert_invariants(Document(text=text), plan)
