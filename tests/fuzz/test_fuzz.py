"""The fuzz targets in CI: Hypothesis over byte strings with a fixed budget, seeded by real files
and mutated, and every input a fuzzer ever broke a property with, pinned in regressions/."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from functools import cache
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.fuzz.targets import REGRESSIONS, TARGETS

# A target's run takes well under a second; the limit catches a parser that hangs. 30 s, not 10:
# a full CI run on a busy VM once stalled the first target for over 10 s (Hypothesis then
# reports the cut-short run as flaky data generation).
pytestmark = pytest.mark.timeout(30)

BUDGET = {
    "text": 60,
    "markdown": 60,
    "rst": 60,
    "code": 40,
    "markdown-strategy": 40,
    "pdf": 15,
    "docx": 15,
    "docx-body": 25,
    "pdf-content": 25,
    "html": 40,
    "email": 40,
    "mbox": 30,
    "csv": 40,
    "xlsx": 10,
    "pptx": 10,
    "epub": 10,
    "vtt": 40,
    "srt": 40,
    "notebook": 30,
    "json": 40,
    "jsonl": 40,
    "yaml": 40,
    "toml": 40,
}
"""Examples per target and test run: the slowest parse a few hundred ms per example."""


@cache
def seeds(name: str) -> tuple[bytes, ...]:
    return tuple(path.read_bytes() for path in TARGETS[name].seed_files())


@st.composite
def mutated(draw: st.DrawFn, name: str) -> bytes:
    """A seed with a few random edits: flipped, deleted, inserted or repeated bytes, a cut."""
    data = bytearray(draw(st.sampled_from(seeds(name))))
    for _ in range(draw(st.integers(0, 4))):
        if not data:
            break
        at = draw(st.integers(0, len(data) - 1))
        edit = draw(st.sampled_from(["flip", "delete", "insert", "repeat", "cut"]))
        if edit == "flip":
            data[at] ^= draw(st.integers(1, 255))
        elif edit == "delete":
            del data[at : at + draw(st.integers(1, 64))]
        elif edit == "insert":
            data[at:at] = draw(st.binary(min_size=1, max_size=32))
        elif edit == "repeat":
            data[at:at] = data[at : at + draw(st.integers(1, 16))] * draw(st.integers(2, 50))
        else:
            del data[at:]
    return bytes(data)


def inputs(name: str) -> st.SearchStrategy[bytes]:
    return st.one_of(st.binary(max_size=1024), mutated(name))


@pytest.mark.parametrize("name", TARGETS)
def test_every_target_has_seeds_and_a_budget(name: str) -> None:
    assert seeds(name)
    assert name in BUDGET


def _fuzz(name: str) -> None:
    @settings(
        max_examples=BUDGET[name],
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(data=inputs(name))
    def run(data: bytes) -> None:
        TARGETS[name].run(data)

    run()


@pytest.mark.parametrize("name", TARGETS)
def test_target_keeps_its_properties_on_mutated_bytes(name: str) -> None:
    _fuzz(name)


REGRESSION_FILES = sorted(p for p in REGRESSIONS.glob("*/*") if p.is_file())


@pytest.mark.parametrize("path", REGRESSION_FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_pinned_regression(path: Path) -> None:
    TARGETS[path.parent.name].run(path.read_bytes())


def test_regressions_name_real_targets() -> None:
    assert {p.parent.name for p in REGRESSION_FILES} <= set(TARGETS)
    assert REGRESSION_FILES, "the fuzzers' past findings are pinned here"


@pytest.mark.skipif(importlib.util.find_spec("atheris") is None, reason="atheris not installed")
# The subprocess's own timeout (60 s) is the bound; the module's 10 s would cut it short: the
# runner instruments all of ragchunk first, which grows with the code and a loaded machine.
@pytest.mark.timeout(90)
def test_the_atheris_runner_runs_a_target(tmp_path: Path) -> None:
    runner = Path(__file__).with_name("run.py")
    result = subprocess.run(
        [
            sys.executable,
            str(runner),
            "--seconds",
            "1",
            "--targets",
            "text",
            "--dir",
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        timeout=60,  # ~5 s of CPU (instrumenting ragchunk, then 1 s of fuzzing); slack for load
        check=False,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.endswith("all targets ran clean\n")
    assert "Done " in result.stderr
