"""Run `python -m ragchunk split` as a real process and measure it alone: CPU time and peak RSS.

A small launcher process starts ragchunk (optionally under an address-space limit, set in the
child before it runs: past it an allocation fails with MemoryError) and reports that child's own
usage from ``wait4``. Measured from the test process instead, the peak would include the test
process's memory (the kernel keeps the larger of the forked copy and the program run in it).
The CPU time counts the run's worker processes too: the child waits for them, so their usage is
part of its own.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

_LAUNCHER = """
import os, resource, subprocess, sys
limit = int(sys.argv[2])
def limited():
    if limit:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
child = subprocess.Popen(sys.argv[3:], preexec_fn=limited)
_, status, usage = os.wait4(child.pid, 0)
with open(sys.argv[1], "w") as report:
    report.write(f"{usage.ru_maxrss} {usage.ru_utime + usage.ru_stime}")
sys.exit(os.waitstatus_to_exitcode(status))
"""


@dataclass(frozen=True, slots=True)
class Outcome:
    """A finished run: exit code, standard streams, CPU seconds and peak memory (RSS)."""

    code: int
    stdout: str
    stderr: str
    cpu_seconds: float
    peak_mib: float

    def records(self, source: str) -> list[dict[str, object]]:
        """The JSONL records on standard output whose ``source`` is ``source``."""
        lines = self.stdout.splitlines()
        return [r for r in map(json.loads, lines) if r["source"] == source]


def run_split(*args: str, cwd: Path, limit: int = 0, timeout: float | None = None) -> Outcome:
    """Run `python -m ragchunk split ARGS` in ``cwd``, under ``limit`` bytes of address space.

    ``limit`` 0 sets none; ``timeout`` (seconds of wall time) only guards against a hang.
    """
    with tempfile.TemporaryDirectory() as scratch:
        report = Path(scratch) / "usage"
        command = [sys.executable, "-m", "ragchunk", "split", *args]
        result = subprocess.run(
            [sys.executable, "-c", _LAUNCHER, str(report), str(limit), *command],
            cwd=cwd,
            capture_output=True,
            check=False,
            timeout=timeout,
        )
        peak_kib, cpu_seconds = report.read_text(encoding="utf-8").split()
    stdout, stderr = result.stdout.decode("utf-8"), result.stderr.decode("utf-8")
    return Outcome(result.returncode, stdout, stderr, float(cpu_seconds), int(peak_kib) / 1024)


def assert_complete(outcome: Outcome, source: str, text: str, doc_id: str | None = None) -> None:
    """The chunks of ``source`` are verbatim, in order, and cover every non-space of ``text``.

    ``doc_id`` picks one document of a container (a message of an mbox).
    """
    records = [r for r in outcome.records(source) if doc_id is None or r["doc_id"] == doc_id]
    covered = 0
    for index, record in enumerate(records):
        start, end = record["start"], record["end"]
        assert isinstance(start, int)
        assert isinstance(end, int)
        assert record["index"] == index
        assert record["text"] == text[start:end]
        assert text[covered:start].strip() == "", f"{source}: text lost before {start}"
        covered = max(covered, end)
    assert text[covered:].strip() == "", f"{source}: text lost at the end"
