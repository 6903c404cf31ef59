"""Whole runs against the floors and the peers (issues 21 and 32), measured in one run.

``python benchmarks/whole_runs.py`` runs every command of the ``table`` section as a whole
process, round-robin (each round starts one command further along, so the machine's load
spreads over all of them), after a warm-up run each, and takes the medians of ``--repeat``
(≥ 9) runs: CPU time (user + system of the process and all its workers, from
``RUSAGE_CHILDREN``) and wall time. On this shared machine absolute times move with the other
sessions' load; the ratios, paired in one run, much less. The rows (issue 32's table):

- ``ragchunk --help`` against ``typer_floor.py --help``, a minimal two-command Typer app
  (wall; target ≤ 0.7× its time);
- ``ragchunk split small.txt`` (20 KB) against ``floor_cli.py`` (CPU; target ≤ 2×);
- ``ragchunk split`` of 10 MB against LangChain's ``RecursiveCharacterTextSplitter`` with
  ``add_start_index`` writing the same JSONL (``peers_cli.py langchain``; target ≥ 2.5× its
  speed);
- the whole CLI at 1 MB and 10 MB against ``floor_cli.py`` (CPU; targets ≥ 0.8× and ≥ 1.0× its
  speed);
- ``--jobs 2`` against ``--jobs 1`` over the 10 MB corpus as 1,000 files (CPU ≤ 1.15×, wall
  ≤ 0.6×; the outputs are compared byte for byte);
- ``split -s token`` of 10 MB against chonkie's ``TokenChunker`` (``peers_cli.py
  chonkie-token``; target ≥ 1.5× its speed).

Other sections (``--sections``): ``pdf`` (``benchmarks/pdf_pages.py``: pages per second per
engine; target ≥ 10× pypdf) and ``sentence`` (``sentence`` in tokens against llama-index's
``SentenceSplitter.split_text`` on 1 MB, in this process; target ≥ 4×).

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
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import corpus, pdf_pages
from benchmarks.rounds import user_env
from benchmarks.suites import FLOOR_CLI, ragchunk_command

HERE = Path(__file__).resolve().parent
README = HERE / "README.md"
START, END = "<!-- whole-runs:start -->", "<!-- whole-runs:end -->"
TABLE_MARKERS: Final = ("<!-- start-up:start -->", "<!-- start-up:end -->")
ENV: Final = user_env()  # .pyc caches read and written, as on a user's machine
SECTIONS = ("table", "pdf", "sentence")
DEFAULT_SECTIONS = ("table",)


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_timed(argv: list[str], stdout: Path, cwd: Path | None = None) -> tuple[float, float]:
    """Run a command to its end; return its CPU seconds (with its workers) and wall seconds.

    ``cwd``: where it runs; a directory of no project, as a user's (in this repository,
    ragchunk would find and parse its pyproject.toml, which names ragchunk).
    """
    before = _children_cpu()
    started = time.perf_counter()
    with stdout.open("wb") as out:
        subprocess.run(argv, stdout=out, stderr=subprocess.DEVNULL, check=True, env=ENV, cwd=cwd)
    return _children_cpu() - before, time.perf_counter() - started


def rounds(commands: dict[str, list[str]], repeat: int, tmp: Path) -> dict[str, dict[str, Any]]:
    """Run every command ``repeat`` times, in a rotating order; keep CPU and wall times."""
    names = list(commands)
    times: dict[str, dict[str, list[float]]] = {n: {"cpu": [], "wall": []} for n in names}
    for name in names:  # a warm-up each: the page cache, the interpreter's bytecode
        run_timed(commands[name], tmp / "warmup.out", tmp)
    for r in range(repeat):
        for name in names[r % len(names) :] + names[: r % len(names)]:
            cpu, wall = run_timed(commands[name], tmp / f"{names.index(name)}.out", tmp)
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


@dataclass(frozen=True)
class Row:
    """One row of the table: ours against a baseline, by CPU or wall time, and the target.

    ``speed`` True: the ratio is the baseline's time over ours (how many times as fast we are);
    False: ours over the baseline's (what fraction of its time we take).
    """

    what: str
    ours: str
    baseline: str
    clock: str  # "cpu" or "wall"
    speed: bool
    target: float

    def ratio(self, rows: dict[str, dict[str, Any]]) -> float:
        ours = rows[self.ours][f"{self.clock}_median"]
        theirs = rows[self.baseline][f"{self.clock}_median"]
        return theirs / ours if self.speed else ours / theirs

    def met(self, ratio: float) -> bool:
        return ratio >= self.target if self.speed else ratio <= self.target

    def describe_target(self) -> str:
        return f"≥ {self.target:g}× its speed" if self.speed else f"≤ {self.target:g}× its time"


ROWS: Final = (
    Row("`ragchunk --help` vs a minimal two-command Typer app's `--help`",
        "ragchunk --help", "typer_floor.py --help", "wall", speed=False, target=0.7),
    Row("`ragchunk split small.txt` (20 KB) vs the floor script, CPU",
        "ragchunk split small.txt", "floor_cli.py small.txt", "cpu", speed=False, target=2.0),
    Row("recursive, 10 MB, whole process, vs LangChain's splitter with offsets, CPU",
        "ragchunk split 10 MB", "langchain 10 MB", "cpu", speed=True, target=2.5),
    Row("whole CLI, 1 MB, vs the floor, CPU",
        "ragchunk split 1 MB", "floor_cli.py 1 MB", "cpu", speed=True, target=0.8),
    Row("whole CLI, 10 MB, vs the floor, CPU",
        "ragchunk split 10 MB", "floor_cli.py 10 MB", "cpu", speed=True, target=1.0),
    Row("`--jobs 2` vs `--jobs 1`, 1,000 files, CPU",
        "1,000 files, --jobs 2", "1,000 files, --jobs 1", "cpu", speed=False, target=1.15),
    Row("`--jobs 2` vs `--jobs 1`, 1,000 files, wall",
        "1,000 files, --jobs 2", "1,000 files, --jobs 1", "wall", speed=False, target=0.6),
    Row("token, 10 MB, whole process, vs Chonkie's TokenChunker, CPU",
        "ragchunk split -s token 10 MB", "chonkie TokenChunker 10 MB", "cpu", speed=True,
        target=1.5),
)  # fmt: skip


def small_file(tmp: Path) -> Path:
    """Write the first ~20 KB of the corpus, cut at a blank line: a small file of a shell loop."""
    text = (corpus.CORPUS_DIR / "corpus_50kb.txt").read_text(encoding="utf-8")
    cut = text.rfind("\n\n", 0, 20_000)
    path = tmp / "small.txt"
    path.write_text(text[: cut + 1], encoding="utf-8")
    return path


def table(repeat: int) -> dict[str, Any]:
    """Run every command of ``ROWS`` round-robin; return the medians, ratios and targets."""
    python = sys.executable
    with tempfile.TemporaryDirectory(prefix="ragchunk-bench-") as name:
        tmp = Path(name)
        files = tmp / "files_1000"  # outside the repository: its .gitignore would skip it
        shutil.copytree(corpus.CORPUS_DIR / "files_1000", files)
        small = small_file(tmp)
        one, ten = (str(corpus.CORPUS_DIR / f"corpus_{size}.txt") for size in ("1mb", "10mb"))
        rag = [*ragchunk_command()]
        peers = str(HERE / "peers_cli.py")
        commands = {
            "ragchunk --help": [*rag, "--help"],
            "typer_floor.py --help": [python, str(HERE / "typer_floor.py"), "--help"],
            "ragchunk split small.txt": [*rag, "split", str(small)],
            "floor_cli.py small.txt": [python, str(FLOOR_CLI), str(small)],
            "ragchunk split 1 MB": [*rag, "split", one],
            "floor_cli.py 1 MB": [python, str(FLOOR_CLI), one],
            "ragchunk split 10 MB": [*rag, "split", ten],
            "floor_cli.py 10 MB": [python, str(FLOOR_CLI), ten],
            "langchain 10 MB": [python, peers, "langchain", ten],
            "ragchunk split -s token 10 MB": [*rag, "split", "-s", "token", ten],
            "chonkie TokenChunker 10 MB": [python, peers, "chonkie-token", ten],
            "1,000 files, --jobs 1": [*rag, "split", str(files), "--jobs", "1"],
            "1,000 files, --jobs 2": [*rag, "split", str(files), "--jobs", "2"],
            "python -c pass": [python, "-c", "pass"],
        }
        rows = rounds(commands, repeat, tmp)
        names = list(commands)
        jobs = [
            tmp / f"{names.index(n)}.out"
            for n in ("1,000 files, --jobs 1", "1,000 files, --jobs 2")
        ]
        identical = jobs[0].read_bytes() == jobs[1].read_bytes()
    ratios = []
    for row in ROWS:
        ratio = row.ratio(rows)
        ratios.append({"what": row.what, "ratio": ratio, "target": row.describe_target(),
                       "met": row.met(ratio), "ours": row.ours, "baseline": row.baseline,
                       "clock": row.clock})  # fmt: skip
    return {"rows": rows, "ratios": ratios, "jobs_identical": identical, "repeat": repeat}


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
    if "table" in results:
        t = results["table"]
        lines += [
            f"#### Issue 32's table (medians of {t['repeat']} runs each, round-robin)",
            "",
            "| what | ratio | target | met |",
            "| --- | --- | --- | --- |",
        ]
        lines += [
            f"| {r['what']} | {r['ratio']:.2f}× | {r['target']} | {'yes' if r['met'] else 'NO'} |"
            for r in t["ratios"]
        ]
        lines += [
            "",
            "| command | CPU (median) | wall (median) |",
            "| --- | --- | --- |",
        ]
        lines += [
            f"| {n} | {_ms(r['cpu_median'])} | {_ms(r['wall_median'])} |"
            for n, r in t["rows"].items()
        ]
        lines += [
            "",
            "`--jobs 2` and `--jobs 1` output identical: "
            f"{'yes' if t['jobs_identical'] else 'NO'}.",
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


def _replace(readme: str, markers: tuple[str, str], text: str) -> str:
    head, rest = readme.split(markers[0], 1)
    _, tail = rest.split(markers[1], 1)
    return f"{head}{markers[0]}\n{text}{markers[1]}{tail}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=9, help="timed runs per command")
    parser.add_argument(
        "--sections", default=",".join(DEFAULT_SECTIONS), help=f"of {', '.join(SECTIONS)}"
    )
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
        if section == "table":
            results["table"] = table(args.repeat)
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
        if "table" in results:  # issue 32's section
            table_text = markdown({"table": results["table"]})
            readme = _replace(readme, TABLE_MARKERS, header + table_text)
        rest = {k: v for k, v in results.items() if k in ("pdf", "sentence")}
        if rest:  # issue 21's section
            readme = _replace(readme, (START, END), header + markdown(rest))
        README.write_text(readme, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
