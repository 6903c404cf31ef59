"""Alternating measurements: in-process contestants through workers, whole processes directly.

``measure_workers`` starts one worker per contestant (see ``benchmarks.worker``), lets each
check its output once, then times them round-robin: round ``r`` visits every contestant once,
starting at a different one each round, so no contestant always runs first or after the same
neighbour. ``measure_processes`` does the same for whole commands (wall time and the child's
peak resident memory from ``os.wait4``).
"""

from __future__ import annotations

import json
import os
import select
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Final

REPO: Final = Path(__file__).resolve().parent.parent
RUN_TIMEOUT: Final = 900.0
PAGE_SIZE: Final = os.sysconf("SC_PAGE_SIZE")

Progress = Callable[[str], None]


@dataclass
class Measurement:
    """Times and findings for one contestant on one input."""

    name: str
    times: list[float] = field(default_factory=list)
    cpu_times: list[float] = field(default_factory=list)
    findings: dict[str, Any] = field(default_factory=dict)
    error: str | None = None

    def add(self, answer: dict[str, Any]) -> None:
        """Record one timed run (wall and CPU seconds)."""
        self.times.append(answer["seconds"])
        self.cpu_times.append(answer["cpu_seconds"])

    def summary(self, nbytes: int) -> dict[str, Any]:
        """Return median, min, max (wall seconds), MB/s (10^6 bytes per second) and CPU figures.

        ``cpu_median`` is the median CPU time of the process (user + system), which the other
        sessions sharing this machine disturb less than wall time; ``cpu_mbps`` follows from it.
        """
        if not self.times:
            return {
                "n": 0,
                "median": None,
                "min": None,
                "max": None,
                "mbps": None,
                "cpu_median": None,
                "cpu_mbps": None,
            }
        median = statistics.median(self.times)
        cpu = statistics.median(self.cpu_times) if self.cpu_times else None
        return {
            "n": len(self.times),
            "median": median,
            "min": min(self.times),
            "max": max(self.times),
            "mbps": nbytes / 1e6 / median if median > 0 else None,
            "cpu_median": cpu,
            "cpu_mbps": nbytes / 1e6 / cpu if cpu else None,
        }


def rotate(items: Sequence[Any], k: int) -> list[Any]:
    """Return ``items`` rotated left by ``k`` (round ``k`` of the round-robin starts there)."""
    if not items:
        return []
    k %= len(items)
    return [*items[k:], *items[:k]]


def repeats_for(seconds: float, repeat: int, slow_cap: float) -> int:
    """Return how many timed runs a contestant gets: ``repeat``, fewer if that exceeds the cap.

    A contestant whose one run takes ``seconds`` gets at most ``slow_cap / seconds`` runs, and
    always at least one.
    """
    if seconds <= 0:
        return repeat
    return max(1, min(repeat, int(slow_cap // seconds)))


class Worker:
    """A running worker process for one contestant."""

    def __init__(self, name: str, path: Path, log: IO[str]) -> None:
        self.name = name
        self._log = log
        self._process = subprocess.Popen(
            [sys.executable, "-m", "benchmarks.worker", name, str(path)],
            cwd=REPO,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=log,
            text=True,
        )

    def receive(self, timeout: float = RUN_TIMEOUT) -> dict[str, Any]:
        """Return the worker's next message; an error message if it died or took too long."""
        stdout = self._process.stdout
        assert stdout is not None
        ready, _, _ = select.select([stdout], [], [], timeout)
        if not ready:
            self.close()
            return {"error": f"no answer within {timeout:.0f} s"}
        line = stdout.readline()
        if not line:
            return {"error": f"worker exited with {self._process.wait()} (see the worker log)"}
        message: dict[str, Any] = json.loads(line)
        return message

    def ask(self, op: str) -> dict[str, Any]:
        """Send one command and return the answer."""
        stdin = self._process.stdin
        assert stdin is not None
        try:
            stdin.write(json.dumps({"op": op}) + "\n")
            stdin.flush()
        except BrokenPipeError:
            return {"error": "worker is gone (see the worker log)"}
        return self.receive()

    def close(self) -> None:
        """Ask the worker to quit, and kill it if it does not."""
        if self._process.poll() is None:
            try:
                self.ask_quit()
                self._process.wait(timeout=10)
            except (BrokenPipeError, subprocess.TimeoutExpired):
                self._process.kill()
                self._process.wait()

    def ask_quit(self) -> None:
        stdin = self._process.stdin
        assert stdin is not None
        stdin.write(json.dumps({"op": "quit"}) + "\n")
        stdin.flush()


def measure_workers(
    names: Sequence[str],
    path: Path,
    *,
    repeat: int,
    slow_cap: float,
    log: IO[str],
    progress: Progress,
    check: bool = True,
) -> dict[str, Measurement]:
    """Check (optionally) and time every named contestant on the text at ``path``."""
    results = {name: Measurement(name) for name in names}
    workers = {name: Worker(name, path, log) for name in names}
    live: list[str] = []
    for name, worker in workers.items():
        ready = worker.receive()
        if "error" in ready:
            results[name].error = ready["error"]
        else:
            live.append(name)
    runs: dict[str, int] = {}
    for name in list(live):
        first = workers[name].ask("check" if check else "time")
        if "error" in first:
            results[name].error = first["error"]
            live.remove(name)
            continue
        results[name].findings = first if check else {}
        runs[name] = repeats_for(first["seconds"], repeat, slow_cap)
        progress(f"{path.name}: {name}: first run {first['seconds']:.3f} s, {runs[name]} timed")
    rounds = max(runs.values(), default=0)
    for r in range(rounds):
        progress(f"{path.name}: round {r + 1}/{rounds}")
        for name in rotate(live, r):
            if r >= runs[name] or results[name].error:
                continue
            answer = workers[name].ask("time")
            if "error" in answer:
                results[name].error = answer["error"]
            else:
                results[name].add(answer)
    for worker in workers.values():
        worker.close()
    return results


def tree_rss(root: int) -> int:
    """Return the resident memory (bytes) of process ``root`` and all its descendants now."""
    parents: dict[int, int] = {}
    rss: dict[int, int] = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            stat = Path(entry.path, "stat").read_text()
        except OSError:  # the process ended meanwhile
            continue
        fields = stat[stat.rindex(")") + 2 :].split()  # the command name may hold spaces
        parents[int(entry.name)] = int(fields[1])
        rss[int(entry.name)] = int(fields[21]) * PAGE_SIZE
    family = {root}
    grew = True
    while grew:
        new = {pid for pid, parent in parents.items() if parent in family} - family
        family |= new
        grew = bool(new)
    return sum(rss.get(pid, 0) for pid in family)


class _TreeSampler(threading.Thread):
    """Samples the memory of a process tree every 50 ms; ``peak`` is the largest sum seen."""

    def __init__(self, root: int) -> None:
        super().__init__(daemon=True)
        self.root = root
        self.peak = 0
        self.done = threading.Event()

    def run(self) -> None:
        while not self.done.wait(0.05):
            self.peak = max(self.peak, tree_rss(self.root))


@dataclass(frozen=True)
class ProcessRun:
    """One whole-process run: wall and CPU seconds, the child's peak RSS (bytes), exit code."""

    seconds: float
    cpu_seconds: float
    peak_rss_bytes: int
    returncode: int
    tree_peak_rss_bytes: int | None = None


def user_env() -> dict[str, str]:
    """This environment without PYTHONDONTWRITEBYTECODE (set in this sandbox), so a whole-process
    run reads and writes .pyc caches as on a user's machine; the warm-up run fills them."""
    return {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def run_process(
    argv: Sequence[str], stdout: Path | None, stderr: IO[str], *, sample_tree: bool = False
) -> ProcessRun:
    """Run ``argv`` with stdout sent to a file (or discarded); time it and read its rusage.

    With ``sample_tree``, also sample the memory of the process and its workers together
    (``ru_maxrss`` is the peak of the largest single process, not of the sum).
    """
    with (stdout or Path(os.devnull)).open("wb") as out:
        start = time.perf_counter()
        process = subprocess.Popen(argv, stdout=out, stderr=stderr, cwd=REPO, env=user_env())
        sampler = _TreeSampler(process.pid) if sample_tree else None
        if sampler:
            sampler.start()
        _, status, usage = os.wait4(process.pid, 0)
        seconds = time.perf_counter() - start
        if sampler:
            sampler.done.set()
            sampler.join()
    process.returncode = os.waitstatus_to_exitcode(status)
    cpu = usage.ru_utime + usage.ru_stime
    peak = usage.ru_maxrss * 1024  # KiB on Linux
    tree = None if sampler is None else max(sampler.peak, peak)
    return ProcessRun(seconds, cpu, peak, process.returncode, tree)


def measure_processes(
    commands: dict[str, list[str]],
    *,
    outputs: dict[str, Path | None],
    repeat: int,
    warmup: int,
    log: IO[str],
    progress: Progress,
    sample_tree: bool = False,
) -> dict[str, Measurement]:
    """Time every command round-robin after ``warmup`` untimed rounds; keep peak RSS too."""
    results = {name: Measurement(name) for name in commands}
    names = list(commands)
    for r in range(warmup + repeat):
        if r == warmup:
            progress(f"timing {', '.join(names)}")
        for name in rotate(names, r):
            if results[name].error:
                continue
            run = run_process(commands[name], outputs.get(name), log, sample_tree=sample_tree)
            if run.returncode != 0:
                results[name].error = f"exit code {run.returncode} (see the worker log)"
            elif r >= warmup:
                results[name].add({"seconds": run.seconds, "cpu_seconds": run.cpu_seconds})
                peak = run.tree_peak_rss_bytes or run.peak_rss_bytes
                results[name].findings.setdefault("peak_rss_bytes_runs", []).append(peak)
    for result in results.values():
        peaks = result.findings.get("peak_rss_bytes_runs")
        if peaks:
            result.findings["peak_rss_bytes"] = max(peaks)
    return results
