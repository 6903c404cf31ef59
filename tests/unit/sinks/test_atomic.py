"""Atomic output files: all or nothing, even when an interrupt lands at any moment."""

from __future__ import annotations

import os
import stat
import threading
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


def _null_device(tmp_path: Path) -> Path:
    """A character device like /dev/null (1, 3), made in ``tmp_path``: tests never write to /dev."""
    node = tmp_path / "null"
    try:
        os.mknod(node, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    except PermissionError:
        pytest.skip("making a device node needs root (CI runs as root)")
    return node


def test_a_device_is_written_in_place_never_replaced(tmp_path: Path) -> None:
    """Regression: ``-o /dev/null`` renamed a temporary file over the device."""
    node = _null_device(tmp_path)
    with atomic.atomic_writer(node) as handle:
        handle.write("{}\n")
    assert stat.S_ISCHR(node.stat().st_mode)
    assert os.major(node.stat().st_rdev) == 1
    assert [p.name for p in tmp_path.iterdir()] == ["null"]  # no temporary left beside it


def test_a_fifo_is_written_in_place_never_replaced(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()), daemon=True)
    reader.start()
    with atomic.atomic_binary_writer(fifo) as handle:
        handle.write(b"row\n")
    reader.join(timeout=10)
    assert received == [b"row\n"]
    assert stat.S_ISFIFO(fifo.stat().st_mode)
    assert [p.name for p in tmp_path.iterdir()] == ["pipe"]
