"""Peak memory of one `ragchunk split` run over the whole bad-input corpus (issue 7: < 1 GiB).

    python benchmarks/hostile_memory.py [--jobs N] [--dir DIR] [-- extra split flags]

Builds the corpus of tests/data/make_bad.py (into a temporary directory unless --dir names one),
runs `python -m ragchunk split CORPUS -o OUT/ --jobs N` with default limits, and samples the
process tree (the run and its worker processes) every 20 ms from /proc (Linux). Reports:

- tree peak: the largest sum of resident memory (VmRSS) of the live processes at one sample;
- tree bound: the largest sum of their high-water marks (VmHWM) at one sample — an upper bound
  of the tree's true peak, since no process was ever above its high-water mark, even between
  samples;
- largest process: the largest high-water mark of any one process.

Exits 1 when the tree bound reaches the limit (1 GiB by default).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.data import make_bad  # noqa: E402 - after the path setup above

LIMIT_MIB = 1024


def children(pid: int) -> list[int]:
    """Return the pids of the direct children of ``pid`` (Linux /proc)."""
    found: list[int] = []
    task = Path(f"/proc/{pid}/task")
    try:
        threads = list(task.iterdir())
    except OSError:
        return found
    for thread in threads:
        try:
            found += [int(p) for p in (thread / "children").read_text().split()]
        except OSError:
            continue
    return found


def tree(pid: int) -> list[int]:
    """Return ``pid`` and all its descendants."""
    pids, pending = [], [pid]
    while pending:
        current = pending.pop()
        pids.append(current)
        pending += children(current)
    return pids


def memory_kib(pid: int) -> tuple[int, int]:
    """Return (VmRSS, VmHWM) of a process in KiB, or (0, 0) when it is gone."""
    values = {"VmRSS": 0, "VmHWM": 0}
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            key, _, value = line.partition(":")
            if key in values:
                values[key] = int(value.split()[0])
    except (OSError, ValueError):
        pass
    return values["VmRSS"], values["VmHWM"]


def measure(command: list[str], cwd: Path) -> dict[str, float]:
    """Run ``command``; sample its process tree until it ends; return the peaks in MiB."""
    began = time.monotonic()
    process = subprocess.Popen(
        command, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )
    tree_peak = tree_bound = largest = 0
    processes = set()
    while process.poll() is None:
        pids = tree(process.pid)
        processes.update(pids)
        samples = [memory_kib(pid) for pid in pids]
        tree_peak = max(tree_peak, sum(rss for rss, _ in samples))
        tree_bound = max(tree_bound, sum(hwm for _, hwm in samples))
        largest = max([largest, *(hwm for _, hwm in samples)])
        time.sleep(0.02)
    stderr = process.stderr.read() if process.stderr else ""
    return {
        "exit_code": process.returncode,
        "seconds": round(time.monotonic() - began, 1),
        "tree_peak_mib": round(tree_peak / 1024, 1),
        "tree_bound_mib": round(tree_bound / 1024, 1),
        "largest_process_mib": round(largest / 1024, 1),
        "processes": len(processes),
        "stderr_lines": len(stderr.splitlines()),
        "stderr": stderr,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--dir", type=Path, help="build the corpus here (default: a temp dir)")
    parser.add_argument("--limit-mib", type=float, default=LIMIT_MIB)
    parser.add_argument("--show-stderr", action="store_true", help="print the run's stderr")
    parser.add_argument("extra", nargs="*", help="more `ragchunk split` flags (after --)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        corpus = args.dir or Path(scratch) / "bad"
        corpus.mkdir(parents=True, exist_ok=True)
        make_bad.build_all(corpus)
        size = sum(
            p.stat().st_size for p in corpus.rglob("*") if p.is_file() and not p.is_symlink()
        )
        command = [
            *(sys.executable, "-m", "ragchunk", "split", str(corpus)),
            *("-o", f"{scratch}/out/", "--jobs", str(args.jobs), *args.extra),
        ]
        result = measure(command, ROOT)
    stderr = result.pop("stderr")
    if args.show_stderr:
        sys.stdout.write(str(stderr))
    report = {"corpus_mb": round(size / 1e6, 1), "jobs": args.jobs, **result}
    sys.stdout.write(json.dumps(report, indent=1) + "\n")
    return 1 if report["tree_bound_mib"] >= args.limit_mib else 0


if __name__ == "__main__":
    sys.exit(main())
