"""Outputs under faults, as real processes: disk full, a read-only folder, a file-size limit,
every input failing, ``kill -9`` in a pipeline, and what a killed run leaves for the next one.

Each failure is one line naming the path, never a traceback; the previous output is kept.
Nothing here touches the system's devices: a device node or FIFO is made in ``tmp_path``.
"""

from __future__ import annotations

import ctypes
import json
import os
import random
import resource
import shutil
import signal
import stat
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from tests.support.processes import group_members

TEXT = "A sentence of the corpus, long enough to make a chunk or two. " * 8 + "\n"
LIMIT = 64 * 1024
"""The file-size limit (RLIMIT_FSIZE) of the runs that test it: the big input's output is larger."""


def ragchunk(
    *args: str | Path,
    cwd: Path,
    preexec: Callable[[], None] | None = None,
    prefix: Sequence[str] = (),
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*prefix, sys.executable, "-m", "ragchunk", *map(str, args)],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        preexec_fn=preexec,
        env={**os.environ, "COLUMNS": "200"},
        check=False,
    )


def corpus(root: Path) -> Path:
    """Three inputs: two small ones around one whose output is larger than ``LIMIT``."""
    root.mkdir()
    (root / "a.txt").write_text(TEXT, encoding="utf-8")
    words = random.Random(33)  # words that do not compress: Parquet's output is large too
    text = " ".join("".join(words.choices("abcdefghij", k=6)) for _ in range(60_000))
    (root / "big.txt").write_text(text + "\n", encoding="utf-8")
    (root / "c.txt").write_text(TEXT, encoding="utf-8")
    return root


def full_device(where: Path) -> Path:
    """A character device like /dev/full (1, 7), made here: every write fails with ENOSPC."""
    node = where / "full"
    try:
        os.mknod(node, 0o666 | stat.S_IFCHR, os.makedev(1, 7))
    except PermissionError:
        pytest.skip("making a device node needs root (CI runs as root)")
    return node


def file_size_limit() -> None:
    """In the child: RLIMIT_FSIZE of ``LIMIT`` and SIGXFSZ ignored, so writes fail with EFBIG."""
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (LIMIT, LIMIT))


def without_root_override() -> None:
    """In the child: lose root's power to write where chmod forbids it (CAP_DAC_OVERRIDE).

    Dropped from the bounding set before exec, the capabilities are gone in the new program.
    """
    if os.geteuid() != 0:
        return
    libc = ctypes.CDLL(None, use_errno=True)
    for capability in (1, 2):  # CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH
        if libc.prctl(24, capability, 0, 0, 0) != 0:  # PR_CAPBSET_DROP
            os._exit(97)


def one_line(stderr: str) -> str:
    assert "Traceback" not in stderr, stderr
    lines = stderr.splitlines()
    assert len(lines) == 1, stderr
    return lines[0]


# -- disk full, file-size limit, read-only folder: one line naming the path --------------------


def test_disk_full_is_one_line_naming_the_output(tmp_path: Path) -> None:
    node = full_device(tmp_path)
    (tmp_path / "a.txt").write_text(TEXT, encoding="utf-8")
    run = ragchunk("split", "a.txt", "-o", node, cwd=tmp_path)
    assert run.returncode == 1
    assert one_line(run.stderr) == (
        f"error: {node}: cannot write the output (No space left on device); "
        "stopped after 1 of 1 input; no partial output was left behind"
    )
    assert stat.S_ISCHR(node.stat().st_mode)
    with node.open("wb") as stdout:  # ragchunk split a.txt > /dev/full
        run = subprocess.run(
            [sys.executable, "-m", "ragchunk", "split", "a.txt"],
            cwd=tmp_path,
            stdout=stdout,
            stderr=subprocess.PIPE,
            text=True,
            timeout=120,
            check=False,
        )
    assert run.returncode == 1
    assert one_line(run.stderr) == (
        "error: standard output: cannot write the output (No space left on device); "
        "stopped after 0 of 1 input"
    )


@pytest.mark.parametrize("name", ["out.jsonl", "out.parquet"])
def test_a_file_size_limit_is_one_line_and_the_old_output_is_kept(
    tmp_path: Path, name: str
) -> None:
    if name.endswith(".parquet"):
        pytest.importorskip("pyarrow")
    corpus(tmp_path / "in")
    (tmp_path / name).write_bytes(b"the previous output\n")
    run = ragchunk("split", "in", "-o", name, "-j", "1", cwd=tmp_path, preexec=file_size_limit)
    assert run.returncode == 1
    line = one_line(run.stderr)
    assert line.startswith(f"error: {name}: cannot write the output (File too large); stopped ")
    assert (tmp_path / name).read_bytes() == b"the previous output\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["in", name])


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_an_output_directory_run_fails_each_input_alone_when_its_file_cannot_be_written(
    tmp_path: Path, jobs: str
) -> None:
    """Regression: the first output that could not be written stopped the whole run."""
    corpus(tmp_path / "in")
    run = ragchunk("split", "in", "-o", "out/", "-j", jobs, cwd=tmp_path, preexec=file_size_limit)
    assert run.returncode == 1
    line = one_line(run.stderr)
    assert line == (
        f"error: {Path('in', 'big.txt')}: {Path('out', 'in', 'big.txt.jsonl')}: "
        "cannot write the output (File too large)"
    )
    written = sorted(p.name for p in (tmp_path / "out" / "in").iterdir())
    assert written == ["a.txt.jsonl", "c.txt.jsonl"]


def test_disk_full_under_an_output_directory_fails_those_inputs_alone(tmp_path: Path) -> None:
    """Two outputs land on a full device (links to it): two lines, the third is written."""
    node = full_device(tmp_path)
    corpus(tmp_path / "in")
    out = tmp_path / "out" / "in"
    out.mkdir(parents=True)
    for name in ("a.txt.jsonl", "big.txt.jsonl"):
        (out / name).symlink_to(node)
    run = ragchunk("split", "in", "-o", "out/", cwd=tmp_path)
    assert run.returncode == 1
    errors = [line for line in run.stderr.splitlines() if line.startswith("error:")]
    assert errors == [
        f"error: {Path('in', name)}: {Path('out', 'in', name + '.jsonl')}: "
        "cannot write the output (No space left on device)"
        for name in ("a.txt", "big.txt")
    ]
    assert "Traceback" not in run.stderr
    assert (out / "c.txt.jsonl").stat().st_size > 0
    assert stat.S_ISCHR(node.stat().st_mode)


def test_a_read_only_folder_is_one_line_naming_the_output(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text(TEXT, encoding="utf-8")
    locked = tmp_path / "locked"
    locked.mkdir()
    (locked / "out.jsonl").write_text("old\n", encoding="utf-8")
    locked.chmod(0o555)
    try:
        run = ragchunk(
            "split", "a.txt", "-o", "locked/out.jsonl", cwd=tmp_path, preexec=without_root_override
        )
        if run.returncode == 97:
            pytest.skip("cannot drop CAP_DAC_OVERRIDE here")
        assert run.returncode == 1
        assert one_line(run.stderr) == (
            f"error: {Path('locked', 'out.jsonl')}: cannot write the output (Permission denied); "
            "stopped after 0 of 1 input; no partial output was left behind"
        )
    finally:
        locked.chmod(0o755)
    assert (locked / "out.jsonl").read_text(encoding="utf-8") == "old\n"


def test_a_read_only_file_system_is_one_line_not_hidden_by_the_cleanup(tmp_path: Path) -> None:
    """Regression: the cleanup's own EROFS hid the real error (in a traceback)."""
    if shutil.which("unshare") is None:
        pytest.skip("needs unshare(1) to mount a folder read-only in a namespace of its own")
    (tmp_path / "a.txt").write_text(TEXT, encoding="utf-8")
    frozen = tmp_path / "frozen"
    frozen.mkdir()
    (frozen / "out.jsonl").write_text("old\n", encoding="utf-8")
    # A private mount namespace: the read-only bind of our own folder is seen by this run only.
    mount = f'mount --bind {frozen} {frozen} && mount -o remount,ro,bind {frozen} && exec "$@"'
    prefix = ["unshare", "-m", "sh", "-c", mount, "sh"]
    probe = subprocess.run([*prefix, "true"], capture_output=True, check=False)
    if probe.returncode != 0:
        pytest.skip("cannot mount in a namespace of its own here")
    for output in ("frozen/out.jsonl", "frozen/"):
        run = ragchunk("split", "a.txt", "-o", output, cwd=tmp_path, prefix=prefix)
        assert run.returncode == 1
        line = one_line(run.stderr)
        assert "cannot write the output (Read-only file system)" in line, line
    assert (frozen / "out.jsonl").read_text(encoding="utf-8") == "old\n"
    assert sorted(p.name for p in frozen.iterdir()) == ["out.jsonl"]


# -- every input failed: the previous output is kept, and said ---------------------------------


@pytest.mark.parametrize("name", ["out.jsonl", "out.parquet"])
def test_a_run_where_every_input_failed_keeps_the_previous_output(
    tmp_path: Path, name: str
) -> None:
    """Regression: the previous output was replaced by an empty one."""
    if name.endswith(".parquet"):
        pytest.importorskip("pyarrow")
    (tmp_path / "a.txt").write_text(TEXT, encoding="utf-8")
    (tmp_path / "bad.pdf").write_bytes(b"\x00not a pdf")
    assert ragchunk("split", "a.txt", "-o", name, cwd=tmp_path).returncode == 0
    good = (tmp_path / name).read_bytes()
    run = ragchunk("split", "bad.pdf", "missing.txt", "-o", name, cwd=tmp_path)
    assert run.returncode == 1
    assert f"note: no input succeeded: {name} was left as it was" in run.stderr.splitlines()
    assert (tmp_path / name).read_bytes() == good
    fresh = ragchunk("split", "bad.pdf", "-o", f"new-{name}", cwd=tmp_path)
    assert fresh.returncode == 1
    assert f"note: no input succeeded: new-{name} was not written" in fresh.stderr.splitlines()
    assert not (tmp_path / f"new-{name}").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["a.txt", "bad.pdf", name])


# -- kill -9: the pipeline ends, and the next run cleans up ------------------------------------


def _children_of(pid: int) -> list[int]:
    return [member for member in group_members(pid) if member != pid]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_kill_9_of_the_cli_ends_its_pipeline_within_5_seconds(tmp_path: Path) -> None:
    """Regression: the workers lived on, holding stdout, and the consumer never saw its end."""
    (tmp_path / "a.txt").write_text(TEXT, encoding="utf-8")
    os.mkfifo(tmp_path / "stuck")  # no writer ever comes: the worker reading it waits
    (tmp_path / "c.txt").write_text(TEXT, encoding="utf-8")
    cli = subprocess.Popen(
        [sys.executable, "-m", "ragchunk", "split", "a.txt", "stuck", "c.txt", "-j", "2"],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        start_new_session=True,  # its workers share its process group: found, and cleaned up
    )
    assert cli.stdout is not None
    consumer: threading.Thread | None = None
    try:
        assert json.loads(cli.stdout.readline())["doc_id"] == "a.txt"  # the workers run
        deadline = time.monotonic() + 30
        while len(_children_of(cli.pid)) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert len(_children_of(cli.pid)) >= 2  # its workers (and a fork server, if any)
        ended = threading.Event()
        consumer = threading.Thread(
            target=lambda: (cli.stdout.read() if cli.stdout else None, ended.set()), daemon=True
        )
        consumer.start()
        cli.kill()
        cli.wait(timeout=10)
        assert ended.wait(5), "the consumer did not see the end of its input within 5 s"
        deadline = time.monotonic() + 5
        while _children_of(cli.pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _children_of(cli.pid) == [], "the workers outlived their parent"
    finally:
        for pid in _children_of(cli.pid):
            os.kill(pid, signal.SIGKILL)
        cli.kill()
        cli.wait(timeout=10)
        if consumer is not None:
            consumer.join(timeout=10)
        cli.stdout.close()


@pytest.mark.skipif(os.name != "posix", reason="a pid is checked with kill(pid, 0)")
def test_a_rerun_removes_the_temporary_a_killed_run_left_and_nothing_else(
    tmp_path: Path,
) -> None:
    (tmp_path / "a.txt").write_text(TEXT, encoding="utf-8")
    os.mkfifo(tmp_path / "stuck")  # the run waits on it with its output half-written
    foreign = tmp_path / ".out.jsonl.0123456789ab.tmp"  # no pid: not provably abandoned
    foreign.write_text("someone's", encoding="utf-8")
    cli = subprocess.Popen(
        [sys.executable, "-m", "ragchunk", "split", "a.txt", "stuck", "-j", "1", "-o", "out.jsonl"],
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not [
            p for p in tmp_path.glob(".out.jsonl.*.tmp") if p != foreign
        ]:
            time.sleep(0.05)
    finally:
        cli.kill()
        cli.wait(timeout=10)
    (left,) = [p for p in tmp_path.glob(".out.jsonl.*.tmp") if p != foreign]
    assert f".{cli.pid}." in left.name
    other = tmp_path / left.name.replace(".out.jsonl.", ".other.jsonl.")  # another output's
    other.write_text("partial", encoding="utf-8")
    (tmp_path / "stuck").unlink()
    run = ragchunk("split", "a.txt", "-o", "out.jsonl", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        ["a.txt", "out.jsonl", foreign.name, other.name]
    )


# -- view: a file name that is not UTF-8 -------------------------------------------------------


@pytest.mark.skipif(sys.platform == "darwin", reason="macOS refuses names that are not UTF-8")
def test_view_of_a_folder_with_a_name_that_is_not_utf8_writes_every_page_and_the_index(
    tmp_path: Path,
) -> None:
    """Regression: the index page failed on the name, and no index.html was written."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.txt").write_text(TEXT, encoding="utf-8")
    bad = os.fsdecode(b"b\xffx.txt")
    (docs / bad).write_text(TEXT, encoding="utf-8")
    run = ragchunk("view", "docs", "-o", "site/", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    site = tmp_path / "site"
    assert sorted(os.fsencode(p.name) for p in site.iterdir()) == [
        b"a.txt.html",
        b"b\xffx.txt.html",
        b"index.html",
    ]
    index = (site / "index.html").read_text(encoding="utf-8")
    assert 'href="b%FFx.txt.html"' in index  # the link names the page's bytes
