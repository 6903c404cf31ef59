"""text.breakpoints: distances, the four methods, fitting and merging, on small vectors."""

from __future__ import annotations

import math

import pytest

from ragchunk.text.breakpoints import (
    gradient,
    percentile,
    pick_breakpoints,
    semantic_pieces,
    window_distances,
)

X = (1.0, 0.0, 0.0)
Y = (0.0, 1.0, 0.0)
Z = (0.0, 0.0, 1.0)


def sums_of(vectors: list[tuple[float, ...]]) -> list[list[float]]:
    sums = [[0.0] * len(vectors[0])]
    for vector in vectors:
        sums.append([a + b for a, b in zip(sums[-1], vector, strict=True)])
    return sums


def units_of(lengths: list[int]) -> list[tuple[int, int]]:
    """Sentences of the given lengths, one space apart."""
    units, at = [], 0
    for length in lengths:
        units.append((at, at + length))
        at += length + 1
    return units


def no_refine(start: int, end: int) -> list[tuple[int, int, bool]]:
    raise AssertionError(f"no sentence should need refining ({start}, {end})")


def test_percentile_interpolates_between_ranks_like_numpy() -> None:
    assert percentile([1.0, 2.0, 3.0, 4.0], 50) == 2.5
    assert percentile([1.0, 2.0, 3.0, 4.0], 95) == pytest.approx(3.85)
    assert percentile([5.0], 95) == 5.0


def test_gradient_is_central_inside_and_one_sided_at_the_ends() -> None:
    assert gradient([1.0, 2.0, 4.0, 7.0]) == [1.0, 1.5, 2.5, 3.0]


def test_window_distances_with_no_buffer_compare_single_sentences() -> None:
    distances = window_distances(sums_of([X, X, Y]), [0, 0, 0], buffer=0)
    assert distances == pytest.approx([0.0, 1.0])


def test_windows_meet_at_the_boundary_and_stay_inside_their_scope() -> None:
    vectors = [X, X, Y, Z]
    distances = window_distances(sums_of(vectors), [0, 0, 0, 0], buffer=1)
    # after 0: {X} | {X,Y}; after 1: {X,X} | {Y,Z}; after 2: {X,Y} | {Z}
    assert distances == pytest.approx([1 - 1 / math.sqrt(2), 1.0, 1.0])
    scoped = window_distances(sums_of([X, Y, Y, X]), [0, 0, 1, 1], buffer=1)
    # after 1: {X,Y} | {Y,X}, but each window stays in its scope: {X,Y} | {Y,X} -> same sums;
    # after 0: {X} | {Y} (the window after may not reach past sentence 1, its scope's end)
    assert scoped[0] == pytest.approx(1.0)
    assert scoped[2] == pytest.approx(1.0)  # {Y} | {X}: sentence 2 starts scope 1


@pytest.mark.parametrize(
    ("method", "threshold", "expected"),
    [
        ("percentile", 75, [4]),
        ("stddev", 1.5, [4]),
        ("interquartile", 1.0, [4]),
        ("gradient", 90, [3]),  # the rise before the outlier, as LangChain's gradient
    ],
)
def test_each_method_finds_the_outlier(method: str, threshold: float, expected: list[int]) -> None:
    distances = [0.1, 0.12, 0.09, 0.11, 0.9, 0.1, 0.12, 0.1]
    assert pick_breakpoints(distances, method, threshold) == expected  # type: ignore[arg-type]


def test_breakpoints_cut_groups_and_record_their_distance() -> None:
    vectors = [X, X, X, Y, Y, Y]
    units = units_of([10] * 6)
    pieces = semantic_pieces(
        units,
        vectors,
        scopes=[0] * 6,
        size=lambda s, e: e - s,
        limit=1000,
        threshold=80,
        buffer=0,
        refine=no_refine,
    )
    assert [(p.start, p.end, p.opened_by) for p in pieces] == [
        (0, 32, "start"),
        (33, 65, "semantic"),
    ]
    assert pieces[1].distance == pytest.approx(1.0)
    assert pieces[0].distance is None


def test_a_scope_change_always_breaks() -> None:
    pieces = semantic_pieces(
        units_of([5] * 4),
        [X, X, X, X],
        scopes=["a", "a", "b", "b"],
        size=lambda s, e: e - s,
        limit=100,
        buffer=0,
        refine=no_refine,
    )
    assert [p.opened_by for p in pieces] == ["start", "scope"]
    assert [(p.first, p.last) for p in pieces] == [(0, 1), (2, 3)]


def test_a_group_over_the_size_splits_at_its_weakest_link_first() -> None:
    # One group (no breakpoint passes the 100th percentile) of 65 chars at a limit of 25: it
    # splits at its largest distance (X,X,X | Z,Y,Y; the first of equal ones), then each half
    # again at its own largest (X | X,X and Z | Y,Y).
    vectors = [X, X, X, Z, Y, Y]
    units = units_of([10] * 6)
    pieces = semantic_pieces(
        units,
        vectors,
        scopes=[0] * 6,
        size=lambda s, e: e - s,
        limit=25,
        threshold=100,
        buffer=0,
        refine=no_refine,
    )
    assert [(p.first, p.last) for p in pieces] == [(0, 0), (1, 2), (3, 3), (4, 5)]
    assert all(p.end - p.start <= 25 for p in pieces)
    assert [p.opened_by for p in pieces] == ["start", "size", "size", "size"]


def test_a_sentence_over_the_size_is_refined_and_flagged() -> None:
    calls = []

    def refine(start: int, end: int) -> list[tuple[int, int, bool]]:
        calls.append((start, end))
        middle = (start + end) // 2
        return [(start, middle, False), (middle, end, False)]

    pieces = semantic_pieces(
        units_of([5, 30]),
        [X, Y],
        scopes=[0, 0],
        size=lambda s, e: e - s,
        limit=20,
        buffer=0,
        refine=refine,
    )
    assert calls == [(6, 36)]
    assert [(p.start, p.end, p.split, p.opened_by) for p in pieces] == [
        (0, 5, False, "start"),
        (6, 21, True, "size"),
        (21, 36, True, "words"),
    ]


def test_small_groups_merge_into_the_more_similar_neighbour() -> None:
    # Groups: [X X] [Y'] [Y Y]; Y' is small and closer to Y than to X.
    near_y = (0.2, 1.0, 0.0)
    vectors = [X, X, near_y, Y, Y]
    pieces = semantic_pieces(
        units_of([10, 10, 3, 10, 10]),
        vectors,
        scopes=[0] * 5,
        size=lambda s, e: e - s,
        limit=100,
        method="percentile",
        threshold=50,
        buffer=0,
        min_size=8,
        refine=no_refine,
    )
    assert [(p.first, p.last) for p in pieces] == [(0, 1), (2, 4)]


def test_a_small_group_stays_when_no_neighbour_fits() -> None:
    pieces = semantic_pieces(
        units_of([10, 3, 10]),
        [X, Y, Z],
        scopes=[0] * 3,
        size=lambda s, e: e - s,
        limit=12,
        threshold=0,
        buffer=0,
        min_size=8,
        refine=no_refine,
    )
    assert [(p.first, p.last) for p in pieces] == [(0, 0), (1, 1), (2, 2)]


def test_one_sentence_makes_one_piece() -> None:
    pieces = semantic_pieces(
        [(0, 5)], [X], scopes=[0], size=lambda s, e: e - s, limit=10, refine=no_refine
    )
    assert [(p.start, p.end, p.opened_by) for p in pieces] == [(0, 5, "start")]
