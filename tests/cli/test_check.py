"""`ragchunk split --check`: the test suite's invariant checker, on the user's documents."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ragchunk import strategies
from ragchunk.cli import app
from ragchunk.model import Span
from ragchunk.strategies._spec import Strategy
from ragchunk.strategies.fixed import FixedOptions, split
from tests.conftest import FIXTURES
from tests.meaning import EMBEDDING, every_strategy
from tests.pending import EXCLUDE_PENDING

pytestmark = pytest.mark.timeout(10)
runner = CliRunner()


@pytest.mark.parametrize("name", every_strategy(pytest.mark.timeout(600)))
def test_every_strategy_on_the_fixtures_has_no_violation(name: str, tmp_path: Path) -> None:
    out = tmp_path / "chunks.jsonl"
    args = ["split", str(FIXTURES), *EXCLUDE_PENDING, "-s", name, "--check", "-o", str(out)]
    if name in EMBEDDING:  # in this process: the model loaded once for the session serves
        args += ["--jobs", "1"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.stderr
    assert re.fullmatch(r"check: no violations in 80 inputs \(\d+ chunks\)\n", result.stderr)
    assert out.stat().st_size > 0


def broken_split(doc, options, ctx):  # type: ignore[no-untyped-def]
    """Split like fixed; in a text saying "Another", drop the last chunk's last non-space."""
    spans = split(doc, options, ctx)
    if "Another" not in doc.text:
        return spans
    last = spans[-1]
    end = len(doc.text[: last.end].rstrip()) - 1
    return [*spans[:-1], Span(last.start, end)]


BROKEN = Strategy(name="broken", summary="test", options=FixedOptions, split=broken_split)


def test_violations_are_reported_per_chunk_and_exit_1(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(strategies.STRATEGIES, "broken", __name__)
    monkeypatch.setattr(f"{__name__}.STRATEGY", BROKEN, raising=False)
    good, bad = tmp_path / "good.txt", tmp_path / "bad.txt"
    good.write_text("A fine line.\n", encoding="utf-8")
    bad.write_text("One short line.\nAnother line.\n", encoding="utf-8")
    args = ["split", str(good), str(bad), "-s", "broken", "--size", "20", "--overlap", "0"]
    result = runner.invoke(app, [*args, "--check", "-j", "1"])
    assert result.exit_code == 1
    assert result.stderr == (
        f"violation: {bad}: character 28 ('.') lies in no chunk\n"
        "check: 1 violation in 1 of 2 inputs (3 chunks)\n"
    )
    records = [json.loads(line) for line in result.stdout.splitlines()]
    assert [(r["source"], r["text"]) for r in records] == [
        (str(good), "A fine line.\n"),
        (str(bad), "One short line.\nAnot"),
        (str(bad), "her line"),
    ]  # the chunks are written all the same
    unchecked = runner.invoke(app, [*args, "-j", "1"])
    assert unchecked.exit_code == 0
    assert unchecked.stderr == ""
    assert unchecked.stdout == result.stdout


def test_check_runs_in_worker_processes() -> None:
    result = runner.invoke(
        app, ["split", str(FIXTURES / "markdown"), "-s", "markdown", "--check", "-j", "2"]
    )
    assert result.exit_code == 0, result.stderr
    assert re.fullmatch(r"check: no violations in 2 inputs \(\d+ chunks\)\n", result.stderr)
