"""The benchmark harness's correctness checks and bookkeeping, on tiny synthetic contestants.

No peer library is needed: the contestants here are made up, with known mistakes.
"""

from __future__ import annotations

from typing import Any

import pytest

from benchmarks import report
from benchmarks.checks import Piece, check_offsets, count_lost, count_over
from benchmarks.contestants import Contestant
from benchmarks.corpus import cut, split_files, split_parts
from benchmarks.rounds import Measurement, repeats_for, rotate
from benchmarks.suites import add_ratios, drift
from benchmarks.worker import verdict

TEXT = "alpha beta gamma. alpha beta gamma. delta"


def test_span_offsets_exact_and_wrong() -> None:
    pieces = [Piece("alpha beta", 0, 10), Piece("gamma", 11, 16), Piece("delta", 0, 5)]

    report_ = check_offsets(TEXT, pieces, "span")

    assert (report_.exact, report_.total, report_.is_exact) == (2, 3, False)
    assert report_.describe() == "66.7 % exact (1 wrong)"
    assert check_offsets(TEXT, pieces[:2], "span").describe() == "exact"


def test_missing_offsets_in_span_mode_are_wrong() -> None:
    assert check_offsets(TEXT, [Piece("alpha", None, None)], "span").exact == 0


def test_start_only_offsets_checked_with_the_chunk_length() -> None:
    pieces = [Piece("alpha beta", 0), Piece("gamma. delta", 11), Piece("delta", 36)]

    report_ = check_offsets(TEXT, pieces, "start")

    assert (report_.exact, report_.total) == (2, 3)
    assert report_.describe() == "start only: 66.7 % right (1 wrong)"


def test_strings_only_are_searched_in_order() -> None:
    # The third piece occurs only before the second one's position: not in order, not counted.
    pieces = [Piece("beta gamma"), Piece("delta"), Piece("alpha"), Piece("not there")]

    report_ = check_offsets(TEXT, pieces, "none")

    assert (report_.exact, report_.total) == (2, 4)
    assert report_.describe() == "no offsets (50.0 % verbatim)"


def test_overlapping_strings_are_found_in_order() -> None:
    pieces = [Piece("alpha beta gamma."), Piece("gamma. alpha"), Piece("alpha beta gamma. delta")]

    assert check_offsets(TEXT, pieces, "none").describe() == "no offsets (all verbatim)"


def test_count_over_measures_each_chunk_alone() -> None:
    pieces = [Piece("abc"), Piece("abcdef"), Piece("ab")]

    sizes = count_over(pieces, 4, len)
    assert (sizes.over, sizes.largest) == (1, 6)

    words = count_over(pieces, 1, lambda text: len(text.split()))
    assert (words.over, words.largest) == (0, 1)


def test_count_lost_counts_uncovered_non_whitespace() -> None:
    pieces = [Piece("alpha", 0, 5), Piece("beta gamma", 3, 16)]  # overlapping spans

    # Uncovered: ". alpha beta gamma. delta" after 16, of which 21 are not whitespace.
    assert count_lost(TEXT, pieces) == len(TEXT[16:].replace(" ", ""))
    assert count_lost(TEXT, [Piece(TEXT, 0, len(TEXT))]) == 0
    with pytest.raises(ValueError, match="needs a start and an end"):
        count_lost(TEXT, [Piece("alpha")])


def _synthetic(pieces: list[Piece], offsets: Any = "span") -> Contestant:
    return Contestant(
        name="synthetic",
        family="peer",
        unit="chars",
        offsets=offsets,
        overlap=True,
        prepare=lambda: lambda _text: pieces,
        pieces=lambda output: output,
        package="none",
        kind="recursive",
    )


def test_verdict_of_a_contestant_with_one_wrong_offset_and_one_oversize_chunk() -> None:
    text = "x" * 600 + " tail"
    pieces = [Piece("x" * 600, 0, 600), Piece("tail", 600, 604)]  # 512 is the limit

    found = verdict(_synthetic(pieces), text, pieces)

    assert found["chunks"] == 2
    assert found["offsets"]["verdict"] == "50.0 % exact (1 wrong)"
    assert (found["over"], found["largest"]) == (1, 600)
    assert found["lost"] is None  # not counted when offsets are wrong


def test_verdict_counts_loss_when_offsets_are_exact() -> None:
    text = "keep this. drop this"
    pieces = [Piece("keep this.", 0, 10)]

    found = verdict(_synthetic(pieces), text, pieces)

    assert found["offsets"]["verdict"] == "exact"
    assert found["lost"] == len("dropthis")


def test_floor_contestants_get_no_verdict() -> None:
    found = verdict(_synthetic([], offsets=None), TEXT, [1, 2, 3])

    assert found == {"chunks": None, "offsets": None, "over": None, "largest": None, "lost": None}


def test_round_robin_rotates_and_caps_slow_contestants() -> None:
    assert [rotate("abc", k) for k in range(4)] == [
        ["a", "b", "c"],
        ["b", "c", "a"],
        ["c", "a", "b"],
        ["a", "b", "c"],
    ]
    assert repeats_for(0.1, 5, 60) == 5
    assert repeats_for(25, 5, 60) == 2
    assert repeats_for(300, 5, 60) == 1


def test_summary_uses_the_median_and_decimal_megabytes() -> None:
    m = Measurement("x")
    for wall, cpu in [(2.0, 1.0), (1.0, 1.0), (4.0, 2.0)]:
        m.add({"seconds": wall, "cpu_seconds": cpu})

    summary = m.summary(10_000_000)

    assert (summary["median"], summary["min"], summary["max"]) == (2.0, 1.0, 4.0)
    assert summary["mbps"] == pytest.approx(5.0)
    assert summary["cpu_mbps"] == pytest.approx(10.0)


def test_ratio_is_to_the_fastest_peer_in_the_same_unit() -> None:
    rows: list[dict[str, Any]] = [
        {"name": "ours", "family": "ragchunk", "unit": "chars", "mbps": 30.0},
        {"name": "slow", "family": "peer", "unit": "chars", "mbps": 10.0},
        {"name": "fast", "family": "peer", "unit": "chars", "mbps": 20.0},
        {"name": "floor", "family": "floor", "unit": "chars", "mbps": 90.0},
        {"name": "tok", "family": "peer", "unit": "tokens", "mbps": 1.0},
    ]

    add_ratios(rows)

    assert [r["ratio"] for r in rows] == [1.5, 0.5, 1.0, 4.5, 1.0]
    assert rows[0]["best_peer"] == "fast"


def test_targets_compare_the_named_rows() -> None:
    def row(name: str, mbps: float) -> dict[str, Any]:
        return {"name": name, "mbps": mbps, "cpu_mbps": mbps}

    rows = [
        row("ragchunk recursive (chars)", 30.0),
        row("langchain Recursive (add_start_index)", 10.0),
        row("chonkie RecursiveChunker (chars)", 40.0),
    ]
    results = {"chunkers": {"sizes": {"10mb": {"rows": rows}}}}

    found = {t["target"]: t for t in report.targets(results)}

    langchain = found["recursive (chars, exact offsets, overlap 50) ≥ 2× langchain add_start_index"]
    assert (langchain["ratio"], langchain["met"]) == (3.0, True)
    chonkie = found["recursive (chars) ≥ chonkie RecursiveChunker (Rust, no overlap)"]
    assert (chonkie["ratio"], chonkie["met"]) == (0.75, False)
    assert found["token ≥ 0.8× bare tiktoken encode_ordinary"]["met"] is None


def test_corpus_parts_never_cut_inside_a_code_fence() -> None:
    text = "intro\n\n```\ncode\n\nmore code\n```\n\nafter"

    parts = split_parts(text, limit=10)

    assert parts == ["intro", "```\ncode\n\nmore code\n```", "after"]


def test_corpus_cuts_end_at_a_blank_line_within_the_byte_budget() -> None:
    text = "one two\n\nthree four\n\nfive"

    assert cut(text, 15) == "one two\n"
    assert cut(text, 100) == text
    assert split_files("a\n\nb\n\nc\n\nd", 2) == ["a\n\nb\n\nc\n", "d"]


def test_drift_is_the_largest_change_from_the_smallest_size() -> None:
    assert drift({"1mb": 0.10, "10mb": 0.12, "100mb": 0.07}) == pytest.approx(-0.3)
    assert drift({"1mb": 0.10, "10mb": None, "100mb": 0.15}) == pytest.approx(0.5)
    assert drift({"1mb": None, "10mb": 0.1}) is None


def test_no_benchmark_script_hides_a_module_its_neighbours_import() -> None:
    """``python benchmarks/X.py`` puts ``benchmarks/`` first on ``sys.path``: a script named as
    a package (``tokenizers.py`` once did) hides it from every other script's imports."""
    import importlib.util
    import sys
    from pathlib import Path

    folder = Path(__file__).resolve().parents[2] / "benchmarks"
    names = {path.stem for path in folder.glob("*.py")} - {"__init__"}
    taken = sorted(
        name
        for name in names
        if name in sys.stdlib_module_names or importlib.util.find_spec(name) is not None
    )
    assert taken == []
