"""A worker process dies with its parent and never writes to its parent's standard output."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

PARENT = """
import multiprocessing, os, sys, time
from ragchunk.runs import worker

def child(portable):
    if portable:
        sys.platform = "portable"  # no PR_SET_PDEATHSIG: the watchdog thread alone
    worker._die_with_parent()
    os.write(1, b"a worker wrote this\\n")
    time.sleep(60)

if __name__ == "__main__":
    process = multiprocessing.get_context("fork").Process(target=child, args=(sys.argv[1] == "1",))
    process.start()
    print(process.pid, flush=True)
    time.sleep(1)
    os.kill(os.getpid(), 9)  # as kill -9 would: nothing is cleaned up
"""


def _gone(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return True
    return state == "Z"  # exited, waiting to be reaped by whoever adopted it


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize("portable", [False, True], ids=["kernel", "watchdog"])
def test_a_worker_ends_when_its_parent_is_killed(portable: bool) -> None:
    parent = subprocess.run(
        [sys.executable, "-c", PARENT, "1" if portable else "0"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert parent.returncode == -signal.SIGKILL, parent.stderr
    pid = int(parent.stdout.split()[0])
    try:
        deadline = time.monotonic() + 5
        while not _gone(pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _gone(pid), "the worker outlived its parent"
    finally:
        if not _gone(pid):
            os.kill(pid, signal.SIGKILL)
    # The worker's output went to /dev/null, and the pipe ended with the parent: had the
    # worker held it, subprocess.run would have waited for the worker.
    assert parent.stdout.split("\n")[1:] == [""]
