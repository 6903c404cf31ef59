"""Start a server process for the tests, wait until it answers, and stop all of it afterwards.

Each server runs in its own session (process group), so stopping it signals the whole group —
the server and every process it started — and nothing is left behind; no process is ever found
or killed by name. If the test process dies without tearing down (SIGKILL), Linux sends the
server SIGTERM (PR_SET_PDEATHSIG), so it does not outlive the run either.
"""

from __future__ import annotations

import ctypes
import os
import signal
import socket
import subprocess
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path

_PR_SET_PDEATHSIG = 1


def _die_with_parent() -> None:
    """In the child before exec: get SIGTERM when the test process exits (Linux only)."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
    except OSError:
        return
    libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)


def free_port() -> int:
    """Return a TCP port on 127.0.0.1 that was free a moment ago (the kernel's choice)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def log_tail(path: Path, lines: int = 40) -> str:
    """Return the last `lines` lines of a log file (for failure messages)."""
    try:
        text = path.read_text(errors="replace")
    except OSError:
        return "(no log)"
    return "\n".join(text.splitlines()[-lines:])


def stop_group(process: subprocess.Popen[bytes], grace: float = 15.0) -> None:
    """Stop `process`, then whatever is left of its process group.

    The leader gets SIGTERM first so it can stop its own children in order (`ray start --block`
    does); after `grace` seconds, or once it is gone, the rest of the group gets SIGTERM, then
    SIGKILL two seconds later.
    """
    pgid = process.pid  # start_new_session=True made the child its group's leader
    if process.poll() is None:
        process.terminate()
        with suppress(subprocess.TimeoutExpired):
            process.wait(timeout=grace)
    for sig in (signal.SIGTERM, signal.SIGKILL):
        if not _group_alive(pgid):
            break
        _signal_group(pgid, sig)
        deadline = time.monotonic() + 2.0
        while _group_alive(pgid) and time.monotonic() < deadline:
            time.sleep(0.05)
    if process.poll() is None:
        process.wait(timeout=grace)


def group_members(pgid: int) -> list[int]:
    """Return the ids of the live processes in group `pgid` (read from /proc, Linux only)."""
    members = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        # After "pid (comm)": state, ppid, pgrp. Zombies are dead already.
        if fields[2] == str(pgid) and fields[0] != "Z":
            members.append(int(stat.parent.name))
    return members


def _signal_group(pgid: int, sig: signal.Signals) -> None:
    with suppress(ProcessLookupError):
        os.killpg(pgid, sig)


def _group_alive(pgid: int) -> bool:
    return bool(group_members(pgid))


@contextmanager
def running(
    command: Sequence[str],
    *,
    ready: Callable[[], bool],
    log: Path,
    timeout: float,
    env: Mapping[str, str] | None = None,
    name: str,
) -> Iterator[subprocess.Popen[bytes]]:
    """Run `command` in its own session, yield once `ready()` is true, stop the group on exit.

    Raises:
        RuntimeError: the process exited, or was not ready within `timeout` seconds; the message
            holds the end of its log.
    """
    with log.open("wb") as sink:
        process = subprocess.Popen(
            list(command),
            stdin=subprocess.DEVNULL,
            stdout=sink,
            stderr=subprocess.STDOUT,
            env=dict(env) if env is not None else None,
            start_new_session=True,
            preexec_fn=_die_with_parent,  # the tests start servers from one thread only
        )
    try:
        deadline = time.monotonic() + timeout
        while not ready():
            if process.poll() is not None:
                raise RuntimeError(
                    f"{name} exited with {process.returncode} before it was ready; "
                    f"log {log}:\n{log_tail(log)}"
                )
            if time.monotonic() > deadline:
                raise RuntimeError(
                    f"{name} was not ready within {timeout:.0f} s; log {log}:\n{log_tail(log)}"
                )
            time.sleep(0.2)
        yield process
    finally:
        stop_group(process)
