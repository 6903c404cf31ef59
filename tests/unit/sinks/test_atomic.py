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


def test_a_symlink_to_a_file_keeps_its_link_and_the_file_is_replaced(tmp_path: Path) -> None:
    """Regression: the rename replaced the link itself with a regular file."""
    data = tmp_path / "data"
    data.mkdir()
    (data / "real.jsonl").write_text("old\n", encoding="utf-8")
    link = tmp_path / "out.jsonl"
    link.symlink_to(data / "real.jsonl")
    with atomic.atomic_writer(link) as handle:
        handle.write("new\n")
    assert link.is_symlink()
    assert link.readlink() == data / "real.jsonl"
    assert (data / "real.jsonl").read_text(encoding="utf-8") == "new\n"
    assert sorted(p.name for p in data.iterdir()) == ["real.jsonl"]  # no temporary left
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data", "out.jsonl"]


def test_a_dangling_symlink_gets_the_file_it_names(tmp_path: Path) -> None:
    link = tmp_path / "out.jsonl"
    link.symlink_to("made.jsonl")
    with atomic.atomic_writer(link) as handle:
        handle.write("{}\n")
    assert link.is_symlink()
    assert (tmp_path / "made.jsonl").read_text(encoding="utf-8") == "{}\n"


def test_a_failed_write_through_a_symlink_leaves_the_file_it_names(tmp_path: Path) -> None:
    (tmp_path / "real.jsonl").write_text("old\n", encoding="utf-8")
    link = tmp_path / "out.jsonl"
    link.symlink_to("real.jsonl")

    def write_then_fail() -> None:
        with atomic.atomic_writer(link) as handle:
            handle.write("partial")
            raise RuntimeError

    with pytest.raises(RuntimeError):
        write_then_fail()
    assert (tmp_path / "real.jsonl").read_text(encoding="utf-8") == "old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.jsonl", "real.jsonl"]


@pytest.mark.parametrize("kind", ["device", "fifo"])
def test_a_symlink_to_a_device_or_fifo_is_written_in_place(tmp_path: Path, kind: str) -> None:
    """``-o /dev/stdout``: a link to a pipe or device; neither the link nor the node changes."""
    if kind == "device":
        node = _null_device(tmp_path)
    else:
        node = tmp_path / "pipe"
        os.mkfifo(node)
        threading.Thread(target=node.read_bytes, daemon=True).start()
    link = tmp_path / "stdout"
    link.symlink_to(node)
    with atomic.atomic_writer(link) as handle:
        handle.write("{}\n")
    assert link.is_symlink()
    mode = node.stat().st_mode
    assert stat.S_ISCHR(mode) if kind == "device" else stat.S_ISFIFO(mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["stdout", node.name])


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="needs /proc")
def test_a_proc_fd_link_replaces_the_file_it_names_or_writes_a_deleted_one_in_place(
    tmp_path: Path,
) -> None:
    """``-o /dev/stdout > out.jsonl``: /proc/self/fd/N names the file the shell opened."""
    named = tmp_path / "out.jsonl"
    with named.open("wb") as opened:
        with atomic.atomic_writer(Path(f"/proc/self/fd/{opened.fileno()}")) as handle:
            handle.write("new\n")
        assert named.read_text(encoding="utf-8") == "new\n"
        assert [p.name for p in tmp_path.iterdir()] == ["out.jsonl"]
    with (tmp_path / "gone.jsonl").open("w+b") as opened:
        (tmp_path / "gone.jsonl").unlink()  # its link now reads ".../gone.jsonl (deleted)"
        with atomic.atomic_writer(Path(f"/proc/self/fd/{opened.fileno()}")) as handle:
            handle.write("kept\n")
        opened.seek(0)
        assert opened.read() == b"kept\n"
    assert [p.name for p in tmp_path.iterdir()] == ["out.jsonl"]


def _full_device(tmp_path: Path) -> Path:
    """A character device like /dev/full (1, 7), made in ``tmp_path``: every write is ENOSPC."""
    node = tmp_path / "full"
    try:
        os.mknod(node, 0o666 | stat.S_IFCHR, os.makedev(1, 7))
    except PermissionError:
        pytest.skip("making a device node needs root (CI runs as root)")
    return node


def test_an_output_error_names_the_output_never_its_temporary(tmp_path: Path) -> None:
    node = _full_device(tmp_path)
    with pytest.raises(OSError, match="No space left") as caught, atomic.atomic_writer(node) as h:
        h.write("x" * 100_000)
    assert caught.value.filename == str(node)
    assert atomic.describe(caught.value) == (
        f"{node}: cannot write the output (No space left on device)"
    )
    blocked = tmp_path / "file"
    blocked.write_text("", encoding="utf-8")
    with pytest.raises(NotADirectoryError) as caught, atomic.atomic_writer(blocked / "out.jsonl"):
        pytest.fail("the block must not run")
    assert caught.value.filename == str(blocked / "out.jsonl")  # not the temporary's name


def _temporary_of(name: str, pid: int) -> str:
    return f".{name}.{pid}.{atomic._host_tag()}{'0' * 8}.tmp"


def _dead_pid() -> int:
    import subprocess
    import sys

    child = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        check=True,
        capture_output=True,
        text=True,
    )
    return int(child.stdout)


def test_stale_temporaries_of_the_output_written_are_removed_and_nothing_else(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(atomic, "_SCANNED", {})
    dead, alive = _dead_pid(), os.getppid()
    names = {
        "stale": _temporary_of("out.jsonl", dead),  # the one to remove
        "live writer": _temporary_of("out.jsonl", alive),
        "another output": _temporary_of("other.jsonl", dead),
        "no pid (an older ragchunk)": ".out.jsonl.0123456789ab.tmp",
        "another host": f".out.jsonl.{dead}.{'f' * 12}.tmp",
        "not ours": f".out.jsonl.{dead}.{atomic._host_tag()}0000000.tmp",  # one digit short
    }
    if names["another host"][-16:-12] == atomic._host_tag():
        names["another host"] = f".out.jsonl.{dead}.{'e' * 12}.tmp"
    for name in names.values():
        (tmp_path / name).write_text("partial", encoding="utf-8")
    with atomic.atomic_writer(tmp_path / "out.jsonl") as handle:
        handle.write("{}\n")
    left = sorted(p.name for p in tmp_path.iterdir())
    assert names["stale"] not in left
    assert left == sorted([*(n for k, n in names.items() if k != "stale"), "out.jsonl"])
