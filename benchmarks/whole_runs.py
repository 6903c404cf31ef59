"""Whole runs against their parts (issue 21), measured in one run.

``python benchmarks/whole_runs.py`` measures, round-robin and by CPU time (user + system of
the process and all its workers, from ``RUSAGE_CHILDREN``: on this shared machine wall time
moves with the other sessions' load, CPU time much less):

- ``jobs``: ``ragchunk split`` of the 10 MB corpus as 1,000 files with ``--jobs 1`` and
  ``--jobs 2`` (CPU ratio, target ≤ 1.15×; wall time too), and the same 10 MB as one file, so
  that the per-file overhead of a directory run is ``(CPU of 1,000 files - CPU of one) / 1,000``;
  the outputs of both ``--jobs`` are compared byte for byte;
- ``cli``: ``ragchunk split corpus_{1,10,100}mb.txt > out.jsonl`` against ``floor_cli.py``
  (target ≥ 1.0×: the floor's CPU time over ragchunk's);
- ``pdf``: ``benchmarks/pdf_pages.py`` (pages per second per engine, with and without
  cleaning; target ≥ 10× pypdf);
- ``sentence``: ``sentence`` in tokens against llama-index's ``SentenceSplitter.split_text``
  on the 1 MB corpus, in this process (target ≥ 4×).

``--update-readme`` writes the tables into benchmarks/README.md; the JSON goes to
``benchmarks/results/whole_runs.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import corpus, pdf_pages
from benchmarks.suites import FLOOR_CLI, ragchunk_command

HERE = Path(__file__).resolve().parent
README = HERE / "README.md"
START, END = "<!-- whole-runs:start -->", "<!-- whole-runs:end -->"
SECTIONS = ("jobs", "cli", "pdf", "sentence")


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_timed(argv: list[str], stdout: Path) -> tuple[float, float]:
    """Run a command to its end; return its CPU seconds (with its workers) and wall seconds."""
    before = _children_cpu()
    started = time.perf_counter()
    with stdout.open("wb") as out:
        subprocess.run(argv, stdout=out, stderr=subprocess.DEVNULL, check=True)
    return _children_cpu() - before, time.perf_counter() - started


def rounds(commands: dict[str, list[str]], repeat: int, tmp: Path) -> dict[str, dict[str, Any]]:
    """Run every command ``repeat`` times, in a rotating order; keep CPU and wall times."""
    names = list(commands)
    times: dict[str, dict[str, list[float]]] = {n: {"cpu": [], "wall": []} for n in names}
    for name in names:  # a warm-up each: the page cache, the interpreter's bytecode
        run_timed(commands[name], tmp / "warmup.out")
    for r in range(repeat):
        for name in names[r % len(names) :] + names[: r % len(names)]:
            cpu, wall = run_timed(commands[name], tmp / f"{names.index(name)}.out")
            times[name]["cpu"].append(cpu)
            times[name]["wall"].append(wall)
    return {
        name: {
            "cpu_median": statistics.median(t["cpu"]),
            "wall_median": statistics.median(t["wall"]),
            "cpu": t["cpu"],
            "wall": t["wall"],
        }
        for name, t in times.items()
    }


def jobs(repeat: int) -> dict[str, Any]:
    files = corpus.CORPUS_DIR / "files_1000"
    whole = corpus.CORPUS_DIR / "corpus_10mb.txt"
    with tempfile.TemporaryDirectory(prefix="ragchunk-bench-") as name:
        tmp = Path(name)
        copy = tmp / "files_1000"  # outside the repository: its .gitignore would skip it
        shutil.copytree(files, copy)
        split = [*ragchunk_command(), "split"]
        commands = {
            "1,000 files, --jobs 1": [*split, str(copy), "--jobs", "1"],
            "1,000 files, --jobs 2": [*split, str(copy), "--jobs", "2"],
            "the same 10 MB as one file": [*split, str(whole)],
        }
        rows = rounds(commands, repeat, tmp)
        identical = (tmp / "0.out").read_bytes() == (tmp / "1.out").read_bytes()
    one, two, single = (rows[n]["cpu_median"] for n in commands)
    return {
        "rows": rows,
        "cpu_ratio": two / one,
        "wall_ratio": rows["1,000 files, --jobs 2"]["wall_median"]
        / rows["1,000 files, --jobs 1"]["wall_median"],
        "per_file_overhead_ms": (one - single) / 1000 * 1000,
        "identical_output": identical,
    }


def cli(repeat: int) -> dict[str, Any]:
    out: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="ragchunk-bench-") as name:
        for size in ("1mb", "10mb", "100mb"):
            path = corpus.CORPUS_DIR / f"corpus_{size}.txt"
            commands = {
                "ragchunk split (recursive)": [*ragchunk_command(), "split", str(path)],
                "CLI floor (floor_cli.py)": [sys.executable, str(FLOOR_CLI), str(path)],
                "python -c pass (start-up)": [sys.executable, "-c", "pass"],
            }
            rows = rounds(commands, repeat, Path(name))
            rag, floor, _ = (rows[n]["cpu_median"] for n in commands)
            out[size] = {"rows": rows, "ratio": floor / rag}
    return out


def sentence(repeat: int) -> dict[str, Any]:
    from benchmarks.contestants import all_contestants

    wanted = ("ragchunk sentence (tokens)", "llama-index SentenceSplitter (strings)")
    chosen = [c for c in all_contestants()[0] if c.name in wanted]
    if len(chosen) < 2:
        return {"error": "llama-index-core is not installed (pip install -e '.[bench]')"}
    text = (corpus.CORPUS_DIR / "corpus_1mb.txt").read_text(encoding="utf-8")
    runners = {c.name: c.prepare() for c in chosen}
    best: dict[str, float] = {}
    for r in range(repeat):
        for name in list(runners)[r % 2 :] + list(runners)[: r % 2]:
            started = time.process_time()
            runners[name](text)
            seconds = time.process_time() - started
            best[name] = min(best.get(name, seconds), seconds)
    return {"best_cpu": best, "ratio": best[wanted[1]] / best[wanted[0]]}


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:,.0f} ms"


def markdown(results: dict[str, Any]) -> str:
    lines: list[str] = []
    if "jobs" in results:
        j = results["jobs"]
        lines += [
            "#### --jobs 1 against --jobs 2 (10 MB as 1,000 files)",
            "",
            "| command | CPU (median) | wall (median) |",
            "| --- | --- | --- |",
        ]
        lines += [
            f"| {n} | {_ms(r['cpu_median'])} | {_ms(r['wall_median'])} |"
            for n, r in j["rows"].items()
        ]
        lines += [
            "",
            f"`--jobs 2` / `--jobs 1`: CPU {j['cpu_ratio']:.2f}× (target ≤ 1.15×), wall "
            f"{j['wall_ratio']:.2f}×; output identical: "
            f"{'yes' if j['identical_output'] else 'NO'}. "
            f"Per-file overhead of a directory run: {j['per_file_overhead_ms']:.2f} ms of CPU "
            "per file (1,000 files against the same bytes as one file, `--jobs 1`).",
            "",
        ]
    if "cli" in results:
        lines += [
            "#### Whole CLI against the floor script",
            "",
            "| corpus | command | CPU (median) | wall (median) |",
            "| --- | --- | --- | --- |",
        ]
        for size, data in results["cli"].items():
            lines += [
                f"| {size} | {n} | {_ms(r['cpu_median'])} | {_ms(r['wall_median'])} |"
                for n, r in data["rows"].items()
            ]
        lines += [
            "",
            "ragchunk against the floor, by CPU time (target ≥ 1.0×): "
            + ", ".join(f"{size} {d['ratio']:.2f}×" for size, d in results["cli"].items())
            + ".",
            "",
        ]
    if "pdf" in results:
        pdf = results["pdf"]
        lines += ["#### PDF pages per second", ""]
        lines.append(pdf_pages.table(pdf["sets"], pdf["peak_rss_mb"]))
    if "sentence" in results:
        s = results["sentence"]
        lines += ["#### sentence against llama-index (1 MB, tokens, CPU, best run)", ""]
        if "error" in s:
            lines.append(f"Not measured: {s['error']}.")
        else:
            lines += [f"- {name}: {_ms(sec)}" for name, sec in s["best_cpu"].items()]
            lines.append(f"\nratio {s['ratio']:.2f}× (target ≥ 4×).")
        lines.append("")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="timed runs per command")
    parser.add_argument("--sections", default=",".join(SECTIONS), help="which to run")
    parser.add_argument("--pages", type=int, default=1000, help="pages of the generated PDF")
    parser.add_argument("--update-readme", action="store_true")
    args = parser.parse_args(argv)
    corpus.ensure()
    sections = [s.strip() for s in args.sections.split(",") if s.strip()]
    results: dict[str, Any] = {
        "load_average_at_start": os.getloadavg(),
        "commit": subprocess.run(
            ["git", "describe", "--always", "--dirty"], capture_output=True, text=True, cwd=HERE
        ).stdout.strip(),
    }
    for section in sections:
        print(f"[{time.strftime('%H:%M:%S')}] {section}", file=sys.stderr, flush=True)
        if section == "jobs":
            results["jobs"] = jobs(args.repeat)
        elif section == "cli":
            results["cli"] = cli(args.repeat)
        elif section == "pdf":
            sets = {
                "fixtures/pdf": pdf_pages.FIXTURES,
                f"generated, {args.pages:,} pages": [pdf_pages.generated(args.pages)],
            }
            results["pdf"] = {
                "sets": pdf_pages.measure(sets, min(args.repeat, 3)),
                "peak_rss_mb": {n: pdf_pages.peak_memory(n) for n in (200, args.pages)},
            }
        elif section == "sentence":
            results["sentence"] = sentence(args.repeat)
    results["load_average_at_end"] = os.getloadavg()
    (HERE / "results").mkdir(exist_ok=True)
    (HERE / "results" / "whole_runs.json").write_text(json.dumps(results, indent=1) + "\n")
    text = markdown(results)
    header = (
        f"Run of {time.strftime('%Y-%m-%d %H:%M')} UTC, ragchunk {results['commit']}, load average "
        f"{results['load_average_at_start'][0]:.1f} at the start and "
        f"{results['load_average_at_end'][0]:.1f} at the end (2 cores, shared).\n\n"
    )
    sys.stdout.write(header + text)
    if args.update_readme:
        readme = README.read_text(encoding="utf-8")
        head, rest = readme.split(START, 1)
        _, tail = rest.split(END, 1)
        README.write_text(f"{head}{START}\n{header}{text}{END}{tail}", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
