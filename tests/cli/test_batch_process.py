"""Batch runs as real processes: interrupted runs, closed pipes, the progress bar on a terminal."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

BODY = ("A line of text that goes on for a while, then stops. " * 12 + "\n\n") * 120


def make_corpus(root: Path, count: int) -> Path:
    root.mkdir(parents=True)
    for k in range(count):
        (root / f"part-{k:03}.txt").write_text(f"Part {k}.\n\n{BODY}", encoding="utf-8")
    return root


def start(*args: str, **kwargs: object) -> subprocess.Popen[bytes]:
    return subprocess.Popen(  # type: ignore[call-overload, no-any-return]
        [sys.executable, "-m", "ragchunk", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        **kwargs,
    )


def wait_for(predicate: object, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():  # type: ignore[operator]
        if time.monotonic() > deadline:
            pytest.fail("the run did not get going in time")
        time.sleep(0.02)


def assert_complete(path: Path, source: Path) -> None:
    """A .jsonl file is complete: every line a record, and they cover the whole document."""
    text = source.read_text(encoding="utf-8")
    covered = 0
    for index, line in enumerate(path.read_text(encoding="utf-8").splitlines()):
        chunk = json.loads(line)
        assert chunk["index"] == index
        assert chunk["text"] == text[chunk["start"] : chunk["end"]]
        covered = max(covered, chunk["end"])
    assert text[covered:].strip() == "", f"{path} stops short"


@pytest.mark.parametrize(
    ("jobs", "sig"), [("1", signal.SIGINT), ("2", signal.SIGINT), ("2", signal.SIGTERM)]
)
def test_an_interrupted_run_leaves_no_partial_jsonl(
    tmp_path: Path, jobs: str, sig: signal.Signals
) -> None:
    corpus = make_corpus(tmp_path / "corpus", 40)
    out = tmp_path / "out"
    with start(
        "split", str(corpus), "-o", f"{out}/", "--size", "60", "-j", jobs, "--root", str(corpus)
    ) as run:
        wait_for(lambda: out.is_dir() and any(out.glob("*.jsonl")))
        run.send_signal(sig)
        _, stderr = run.communicate(timeout=60)
    assert run.returncode == 130, stderr
    assert stderr.decode().startswith("interrupted after ")
    assert stderr.decode().endswith(" of 40 inputs; no partial output was left behind\n")
    written = sorted(out.iterdir())
    assert 0 < len(written) < 40
    assert [p for p in written if not p.name.endswith(".jsonl")] == []  # no temporary files
    for path in written:
        assert_complete(path, corpus / path.name.removesuffix(".jsonl"))


@pytest.mark.parametrize("name", ["all.jsonl", "all.parquet"])
def test_an_interrupted_run_into_one_file_leaves_nothing(tmp_path: Path, name: str) -> None:
    if name.endswith(".parquet"):
        pytest.importorskip("pyarrow")
    corpus = make_corpus(tmp_path / "corpus", 40)
    out = tmp_path / "out"
    out.mkdir()
    with start(
        "split",
        str(corpus),
        "-o",
        str(out / name),
        "--size",
        "60",
        "-j",
        "1",
        "--root",
        str(corpus),
    ) as run:
        wait_for(lambda: any(out.iterdir()))  # the temporary file exists: the run is writing
        run.send_signal(signal.SIGINT)
        run.communicate(timeout=60)
    assert run.returncode == 130
    assert list(out.iterdir()) == []


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_closed_pipe_ends_a_directory_run_quietly(tmp_path: Path, jobs: str) -> None:
    corpus = make_corpus(tmp_path / "corpus", 30)
    with start("split", str(corpus), "--size", "60", "-j", jobs, "--root", str(corpus)) as reader:
        assert reader.stdout is not None
        assert reader.stderr is not None
        first = json.loads(reader.stdout.readline())
        reader.stdout.close()
        reader.wait(timeout=60)
        assert reader.stderr.read() == b""
    assert reader.returncode == 0
    assert first["doc_id"] == "part-000.txt"


@pytest.mark.skipif(not hasattr(os, "openpty"), reason="needs a pseudo-terminal")
def test_progress_shows_on_a_terminal_and_never_on_stdout(tmp_path: Path) -> None:
    corpus = make_corpus(tmp_path / "corpus", 6)
    leader, follower = os.openpty()
    shown: list[bytes] = []

    def drain() -> None:  # read the terminal as it fills, or the run would block on it
        while True:
            try:
                data = os.read(leader, 65536)
            except OSError:  # the terminal closed with the process
                return
            if not data:
                return
            shown.append(data)

    reader = threading.Thread(target=drain)
    reader.start()
    with subprocess.Popen(
        [
            sys.executable,
            "-m",
            "ragchunk",
            "split",
            str(corpus),
            "--size",
            "200",
            "-j",
            "1",
            "--root",
            str(corpus),
        ],
        stdout=subprocess.PIPE,
        stderr=follower,
        env={**os.environ, "COLUMNS": "120", "TERM": "xterm"},
    ) as run:
        os.close(follower)
        stdout, _ = run.communicate(timeout=60)
    reader.join(timeout=60)
    os.close(leader)
    assert run.returncode == 0
    lines = stdout.decode().splitlines()
    assert all(json.loads(line)["doc_id"].startswith("part-") for line in lines)
    screen = b"".join(shown).decode(errors="replace")
    assert "chunking" in screen
    assert "6/6" in screen
    assert f"{len(lines)} chunks" in screen
    assert "files/s" in screen
    assert "eta" in screen
