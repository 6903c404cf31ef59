"""The span scores of ragchunk eval: hand-computed cases and properties."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ragchunk.evaluation.metrics import Scores, intersect, length, mean, merge, score


def test_one_question_two_chunks_hand_computed() -> None:
    # Evidence [10, 30). Chunk A [0, 20) holds 10 of it, chunk B [20, 60) the other 10.
    evidence = [("d", 10, 30)]
    chunks = [("d", 0, 20), ("d", 20, 60)]
    only_a = score(evidence, [chunks[0]], chunks)
    assert only_a.recall == pytest.approx(10 / 20)
    assert only_a.precision == pytest.approx(10 / 20)
    assert only_a.iou == pytest.approx(10 / 30)  # union: [0, 30)
    both = score(evidence, chunks, chunks)
    assert both.recall == 1.0
    assert both.precision == pytest.approx(20 / 60)
    assert both.iou == pytest.approx(20 / 60)
    # Both chunks hold evidence: the ideal retrieval is both of them.
    assert only_a.precision_omega == pytest.approx(20 / 60)
    assert both.precision_omega == only_a.precision_omega


def test_overlapping_chunks_count_shared_positions_once() -> None:
    evidence = [("d", 5, 15)]
    chunks = [("d", 0, 12), ("d", 8, 20)]  # overlap [8, 12)
    result = score(evidence, chunks, chunks)
    assert result.recall == 1.0
    assert result.precision == pytest.approx(10 / 20)  # |[0, 20)| = 20, not 12 + 12
    assert result.iou == pytest.approx(10 / 20)


def test_chunks_of_other_documents_count_against_precision_only() -> None:
    evidence = [("a", 0, 10)]
    retrieved = [("a", 0, 10), ("b", 0, 10)]  # same positions, another document
    result = score(evidence, retrieved, retrieved)
    assert result.recall == 1.0
    assert result.precision == pytest.approx(0.5)
    assert result.iou == pytest.approx(0.5)
    assert result.precision_omega == 1.0  # only the chunk of "a" holds evidence


def test_two_evidence_spans_one_missed() -> None:
    evidence = [("d", 0, 10), ("d", 50, 70)]
    chunks = [("d", 0, 25), ("d", 25, 50), ("d", 50, 100)]
    result = score(evidence, [chunks[0]], chunks)
    assert result.recall == pytest.approx(10 / 30)
    assert result.precision == pytest.approx(10 / 25)
    assert result.iou == pytest.approx(10 / (25 + 20))
    assert result.precision_omega == pytest.approx(30 / 75)


def test_nothing_retrieved_scores_zero() -> None:
    assert score([("d", 0, 5)], [], [("d", 0, 5)]) == Scores(0.0, 0.0, 0.0, 1.0)
    assert mean([]) == Scores(0.0, 0.0, 0.0, 0.0)


def test_interval_helpers() -> None:
    assert merge([(5, 8), (0, 2), (2, 3), (7, 10), (4, 4)]) == [(0, 3), (5, 10)]
    assert length([(0, 3), (5, 10)]) == 8
    assert intersect([(0, 3), (5, 10)], [(2, 6), (9, 20)]) == [(2, 3), (5, 6), (9, 10)]


def test_mean_of_scores() -> None:
    result = mean([Scores(1.0, 0.5, 0.25, 1.0), Scores(0.0, 0.5, 0.75, 0.0)])
    assert result == Scores(0.5, 0.5, 0.5, 0.5)


span = st.tuples(st.integers(0, 200), st.integers(1, 60)).map(lambda p: (p[0], p[0] + p[1]))
pieces = st.lists(
    st.tuples(st.sampled_from(["a", "b"]), span).map(lambda p: (p[0], *p[1])), max_size=8
)


@given(evidence=st.lists(span, min_size=1, max_size=4), retrieved=pieces, others=pieces)
def test_scores_lie_in_the_unit_interval(
    evidence: list[tuple[int, int]],
    retrieved: list[tuple[str, int, int]],
    others: list[tuple[str, int, int]],
) -> None:
    result = score([("a", s, e) for s, e in evidence], retrieved, retrieved + others)
    for value in (result.recall, result.precision, result.iou, result.precision_omega):
        assert 0.0 <= value <= 1.0
    assert result.iou <= min(result.recall, result.precision) + 1e-12


@given(evidence=st.lists(span, min_size=1, max_size=4), retrieved=pieces, others=pieces)
def test_recall_is_one_when_a_chunk_covers_all_evidence(
    evidence: list[tuple[int, int]],
    retrieved: list[tuple[str, int, int]],
    others: list[tuple[str, int, int]],
) -> None:
    cover = ("a", min(s for s, _ in evidence), max(e for _, e in evidence))
    result = score([("a", s, e) for s, e in evidence], [*retrieved, cover], [*others, cover])
    assert result.recall == 1.0
    assert result.precision_omega > 0.0


@given(evidence=st.lists(span, min_size=1, max_size=4), retrieved=pieces)
def test_identical_inputs_give_identical_scores(
    evidence: list[tuple[int, int]], retrieved: list[tuple[str, int, int]]
) -> None:
    pieces_of_evidence = [("a", s, e) for s, e in evidence]
    first = score(pieces_of_evidence, retrieved, retrieved)
    again = score(list(reversed(pieces_of_evidence)), list(reversed(retrieved)), retrieved)
    assert first == again
