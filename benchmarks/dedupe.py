"""What `split --dedupe` costs on the 10 MB benchmark corpus: CPU time with and without it.

Runs `ragchunk split` as a user would, round-robin (plain, `--dedupe exact`, `--dedupe near`)
after one warm-up run each, on the corpus as one 10 MB file (`--jobs 1`) and as 1,000 files
(`--jobs 2`), and reads CPU time (user + system of the process and its workers) and wall time
from `os.wait4`. Prints a Markdown table of medians and whether dedupe added less CPU time than
the plain run took (issue 17's target). `PYTHONDONTWRITEBYTECODE` is unset, so `.pyc` caches
work as on a user's machine.

    python benchmarks/dedupe.py [--repeat 5]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
VARIANTS = {"plain": [], "exact": ["--dedupe", "exact"], "near": ["--dedupe", "near"]}


def run(args: list[str], out: Path) -> tuple[float, float]:
    """Run ``ragchunk split ARGS -o OUT`` once; return (CPU seconds, wall seconds)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    command = [sys.executable, "-m", "ragchunk", "split", *args, "-q", "-o", str(out)]
    started = time.perf_counter()
    process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - started
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"failed: {' '.join(command)}")
    return usage.ru_utime + usage.ru_stime, wall


def measure(corpus: Path, repeat: int) -> list[str]:
    """Return the Markdown rows of every case and variant."""
    cases = {
        "10 MB, one file, --jobs 1": [str(corpus / "corpus_10mb.txt"), "--jobs", "1"],
        "10 MB, 1,000 files, --jobs 2": [str(corpus / "files_1000"), "--jobs", "2"],
    }
    rows = []
    with tempfile.TemporaryDirectory() as scratch:
        out = Path(scratch) / "chunks.jsonl"
        for case, args in cases.items():
            times: dict[str, list[tuple[float, float]]] = {name: [] for name in VARIANTS}
            lines: dict[str, int] = {}
            for name, extra in VARIANTS.items():  # warm-up: .pyc files, the page cache
                run([*args, *extra], out)
                lines[name] = len(out.read_bytes().splitlines())
            for round_ in range(repeat):
                names = list(VARIANTS)
                names = names[round_ % len(names) :] + names[: round_ % len(names)]
                for name in names:
                    times[name].append(run([*args, *VARIANTS[name]], out))
            cpu = {name: statistics.median(t[0] for t in runs) for name, runs in times.items()}
            wall = {name: statistics.median(t[1] for t in runs) for name, runs in times.items()}
            for name in VARIANTS:
                added = cpu[name] - cpu["plain"]
                verdict = "" if name == "plain" else ("yes" if added < cpu["plain"] else "no")
                rows.append(
                    f"| {case} | {name} | {cpu[name]:.2f} | {wall[name]:.2f} | "
                    f"{'' if name == 'plain' else f'{added:+.2f}'} | {verdict} | "
                    f"{lines[name]} |"
                )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="timed runs of each variant")
    parser.add_argument("--corpus", type=Path, default=HERE / "corpus", help="corpus directory")
    options = parser.parse_args()
    if not (options.corpus / "corpus_10mb.txt").is_file():
        raise SystemExit(f"no corpus in {options.corpus}: run benchmarks/corpus.py first")
    header = [
        "| corpus | --dedupe | CPU s | wall s | added CPU s | added < plain | chunks written |",
        "| --- | --- | ---: | ---: | ---: | --- | ---: |",
    ]
    sys.stdout.write("\n".join([*header, *measure(options.corpus, options.repeat)]) + "\n")


if __name__ == "__main__":
    main()
