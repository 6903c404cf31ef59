"""paragraph: blank-line paragraphs packed to the size; a long one falls back to sentences."""

from __future__ import annotations

from ragchunk.model import Document
from ragchunk.pipeline.plan import make_plan
from ragchunk.settings import shortcuts
from tests.invariants import assert_invariants

TEXT = (
    "First paragraph, short.\n\n"
    "Second paragraph.\nIt wraps onto a second line.\r\n \r\n"
    "Third paragraph has three sentences. The second one is here. And a third one.\n\n\n"
    "Last."
)


def _chunks(size: int, overlap: int = 0) -> list[tuple[str, bool]]:
    plan = make_plan(shortcuts({"strategy": "paragraph", "size": size, "overlap": overlap}))
    chunks = assert_invariants(Document(text=TEXT), plan)
    return [(c.text, bool(c.metadata.get("oversize_split"))) for c in chunks]


def test_paragraphs_are_packed_whole_and_blank_lines_of_any_kind_separate_them() -> None:
    assert _chunks(100) == [
        ("First paragraph, short.\n\nSecond paragraph.\nIt wraps onto a second line.", False),
        (
            "Third paragraph has three sentences. The second one is here. And a third one."
            "\n\n\nLast.",
            False,
        ),
    ]


def test_a_paragraph_larger_than_the_size_falls_back_to_sentences() -> None:
    assert _chunks(70) == [
        ("First paragraph, short.", False),
        ("Second paragraph.\nIt wraps onto a second line.", False),
        ("Third paragraph has three sentences. The second one is here.", True),
        ("And a third one.", True),
        ("Last.", False),
    ]


def test_a_sentence_larger_than_the_size_falls_back_to_words() -> None:
    chunks = _chunks(20)
    assert ("Third paragraph has ", True) in chunks
    assert ("Last.", False) in chunks


def test_overlap_is_made_of_whole_paragraphs() -> None:
    text = "Alpha one.\n\nBeta.\n\nGamma three.\n\nDelta."
    chunks = assert_invariants(
        Document(text=text),
        make_plan(shortcuts({"strategy": "paragraph", "size": 25, "overlap": 6})),
    )
    assert [c.text for c in chunks] == [
        "Alpha one.\n\nBeta.",
        "Beta.\n\nGamma three.",  # "Beta." (5) fits the overlap of 6
        "Delta.",  # "Gamma three." (12) does not: no overlap
    ]
