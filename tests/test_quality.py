"""The house rules as tests: lint, format, strict typing, the import contract, and the public API
surface."""

from __future__ import annotations

import subprocess
import sys
from typing import Final

import pytest

import ragchunk
from tests.conftest import ROOT


@pytest.mark.parametrize(
    "command",
    [
        ["ruff", "check", "ragchunk", "tests", "fixtures", "benchmarks"],
        ["ruff", "format", "--check", "ragchunk", "tests", "fixtures", "benchmarks"],
        ["mypy", "ragchunk"],
    ],
    ids=["ruff-check", "ruff-format", "mypy-strict"],
)
@pytest.mark.timeout(300)  # a cold mypy on a loaded CI machine: the subprocess's own limit
def test_code_quality_gate(command: list[str]) -> None:
    result = subprocess.run(
        [sys.executable, "-m", *command],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_public_api_is_sorted_and_importable() -> None:
    assert ragchunk.__all__ == sorted(ragchunk.__all__)
    for name in ragchunk.__all__:
        assert getattr(ragchunk, name) is not None


def test_the_import_contract_holds() -> None:
    """The layers and independence contracts of pyproject's [tool.importlinter]."""
    script = "import sys, importlinter.cli as c; sys.exit(c.lint_imports(no_cache=True))"
    result = subprocess.run(
        [sys.executable, "-c", script],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout


WARN_LINES: Final = 400
"""STYLE §2.1: past this, look for a second job (a note, not a failure: never split by count)."""
MAX_LINES: Final = 600
"""STYLE §2.1 and issue 28: past this a module fails the suite."""


def test_no_module_is_over_600_lines(capsys: pytest.CaptureFixture[str]) -> None:
    """Fail past MAX_LINES; name the modules past WARN_LINES on the terminal without failing."""
    lengths = {
        path.relative_to(ROOT).as_posix(): len(path.read_text(encoding="utf-8").splitlines())
        for path in sorted((ROOT / "ragchunk").rglob("*.py"))
    }
    long = {path: n for path, n in lengths.items() if WARN_LINES < n <= MAX_LINES}
    if long:
        listed = ", ".join(f"{path} ({n})" for path, n in long.items())
        with capsys.disabled():
            sys.stdout.write(f"\nnote: over {WARN_LINES} lines, look for a second job: {listed}\n")
    too_long = {path: n for path, n in lengths.items() if n > MAX_LINES}
    assert not too_long, too_long
