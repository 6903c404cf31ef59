"""Atomic output files: all or nothing, even when an interrupt lands at any moment."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from ragchunk.sinks import atomic


def test_an_interrupt_while_the_temporary_file_is_created_leaves_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Regression: Ctrl-C right after mkstemp made the file, before its name was known."""
    real_open = os.open

    def open_then_interrupt(*args: Any, **kwargs: Any) -> int:
        real_open(*args, **kwargs)
        raise KeyboardInterrupt

    monkeypatch.setattr(atomic.os, "open", open_then_interrupt)
    with pytest.raises(KeyboardInterrupt), atomic.atomic_writer(tmp_path / "out.jsonl"):
        pytest.fail("the block must not run")
    assert list(tmp_path.iterdir()) == []


def test_atomic_files_get_the_mode_open_gives(tmp_path: Path) -> None:
    with atomic.atomic_writer(tmp_path / "out.jsonl") as handle:
        handle.write("{}\n")
    mask = os.umask(0o022)
    os.umask(mask)
    assert (tmp_path / "out.jsonl").stat().st_mode & 0o777 == 0o666 & ~mask
    assert (tmp_path / "out.jsonl").read_text(encoding="utf-8") == "{}\n"


def test_a_writer_interrupted_before_its_block_starts_is_cleaned_up(tmp_path: Path) -> None:
    # An interrupt just after __enter__ returns, before the with block is set up: __exit__
    # never runs, and the suspended writer's file is found by remove_temporaries instead.
    writer = atomic.atomic_writer(tmp_path / "out.jsonl")
    writer.__enter__().write("partial")
    assert len(list(tmp_path.iterdir())) == 1
    atomic.remove_temporaries()
    assert list(tmp_path.iterdir()) == []
    with atomic.atomic_writer(tmp_path / "done.jsonl") as handle:
        handle.write("{}\n")
    atomic.remove_temporaries()  # a finished writer has nothing left to remove
    assert [p.name for p in tmp_path.iterdir()] == ["done.jsonl"]
