"""The house rules as tests: lint, format, strict typing, and the public API surface."""

from __future__ import annotations

import subprocess
import sys

import pytest

import ragchunk
from tests.conftest import ROOT


@pytest.mark.parametrize(
    "command",
    [
        ["ruff", "check", "ragchunk", "tests", "fixtures"],
        ["ruff", "format", "--check", "ragchunk", "tests", "fixtures"],
        ["mypy", "ragchunk"],
    ],
    ids=["ruff-check", "ruff-format", "mypy-strict"],
)
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
