"""The benchmark suites: chunkers in process, the whole CLI, start-up, many files, linearity.

Each suite returns plain JSON-ready data; ``benchmarks.report`` turns it into tables and
checks the targets of issue 8.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import IO, Any, Final

from benchmarks.contestants import SIZE, Contestant, all_contestants, version
from benchmarks.rounds import (
    REPO,
    Measurement,
    Progress,
    measure_processes,
    measure_workers,
    rotate,
    user_env,
)

FLOOR_CLI: Final = REPO / "benchmarks" / "floor_cli.py"
LINEAR_LIMIT: Final = 0.25


def matches(name: str, only: Sequence[str]) -> bool:
    """Whether ``name`` contains any of the ``only`` substrings (all match when empty)."""
    return not only or any(part.lower() in name.lower() for part in only)


def _row(contestant: Contestant, measurement: Measurement, nbytes: int) -> dict[str, Any]:
    findings = measurement.findings
    peak = findings.get("peak_rss_bytes")
    return {
        "name": contestant.name,
        "family": contestant.family,
        "unit": contestant.unit,
        "kind": contestant.kind,
        "package": contestant.package,
        "version": version(contestant.package),
        "overlap": contestant.overlap,
        **measurement.summary(nbytes),
        "times": measurement.times,
        "peak_rss_mb": None if peak is None else peak / 1e6,
        "chunks": findings.get("chunks"),
        "offsets": findings.get("offsets"),
        "over": findings.get("over"),
        "largest": findings.get("largest"),
        "lost": findings.get("lost"),
        "error": measurement.error,
    }


def add_ratios(rows: list[dict[str, Any]]) -> None:
    """Give each row ``ratio``: its MB/s over the fastest peer's in the same unit."""
    for unit in ("chars", "tokens"):
        peers = [r for r in rows if r["family"] == "peer" and r["unit"] == unit and r["mbps"]]
        best = max(peers, key=lambda r: r["mbps"], default=None)
        for row in rows:
            if row["unit"] != unit:
                continue
            row["best_peer"] = best["name"] if best else None
            row["ratio"] = row["mbps"] / best["mbps"] if best and row["mbps"] else None


def chunkers(
    paths: dict[str, Path],
    *,
    only: Sequence[str],
    repeat: int,
    slow_cap: float,
    log: IO[str],
    progress: Progress,
) -> dict[str, Any]:
    """Time every contestant on every corpus size, round-robin; check each output once."""
    contestants, skipped = all_contestants()
    chosen = [c for c in contestants if matches(c.name, only)]
    by_size: dict[str, Any] = {}
    for label, path in paths.items():
        nbytes = path.stat().st_size
        names = [c.name for c in chosen]
        results = measure_workers(
            names, path, repeat=repeat, slow_cap=slow_cap, log=log, progress=progress
        )
        rows = [_row(c, results[c.name], nbytes) for c in chosen]
        add_ratios(rows)
        by_size[label] = {"path": path.name, "bytes": nbytes, "rows": rows}
    return {
        "sizes": by_size,
        "skipped": [{"name": s.name, "reason": s.reason} for s in skipped],
    }


def ragchunk_command() -> list[str]:
    """Return the command that runs the installed ragchunk CLI."""
    script = Path(sys.executable).with_name("ragchunk")
    if script.exists():
        return [str(script)]
    found = shutil.which("ragchunk")
    return [found] if found else [sys.executable, "-m", "ragchunk"]


def verify_jsonl(output: Path, text: str | None, size: int = SIZE) -> dict[str, Any]:
    """Count records, exact offsets (when the input text is given) and chunks over ``size``."""
    records = exact = over = 0
    documents: set[str] = set()
    with output.open(encoding="utf-8") as lines:
        for line in lines:
            record = json.loads(line)
            records += 1
            documents.add(record.get("doc_id", ""))
            chunk = record["text"]
            over += len(chunk) > size
            if text is not None:
                exact += text[record["start"] : record["end"]] == chunk
    return {
        "records": records,
        "documents": len(documents),
        "exact": exact if text is not None else None,
        "over": over,
    }


def _process_rows(
    results: dict[str, Measurement], nbytes: dict[str, int], extra: dict[str, dict[str, Any]]
) -> list[dict[str, Any]]:
    rows = []
    for name, measurement in results.items():
        peak = measurement.findings.get("peak_rss_bytes")
        rows.append(
            {
                "name": name,
                "bytes": nbytes[name],
                **measurement.summary(nbytes[name]),
                "times": measurement.times,
                "peak_rss_mb": None if peak is None else peak / 1e6,
                "error": measurement.error,
                **extra.get(name, {}),
            }
        )
    return rows


def cli(paths: dict[str, Path], *, repeat: int, log: IO[str], progress: Progress) -> dict[str, Any]:
    """Time ``ragchunk split FILE > out.jsonl`` against the minimal CLI floor, per size."""
    by_size: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="ragchunk-bench-") as tmp:
        for label, path in paths.items():
            commands = {
                "ragchunk split (recursive)": [*ragchunk_command(), "split", str(path)],
                "CLI floor (floor_cli.py)": [sys.executable, str(FLOOR_CLI), str(path)],
            }
            outputs: dict[str, Path | None] = {
                name: Path(tmp, f"{label}-{i}.jsonl") for i, name in enumerate(commands)
            }
            progress(f"CLI on {path.name}")
            results = measure_processes(
                commands, outputs=outputs, repeat=repeat, warmup=1, log=log, progress=progress
            )
            text = path.read_text(encoding="utf-8")
            checked = {
                name: {"output": verify_jsonl(out, text)}
                for name, out in outputs.items()
                if out is not None and out.exists() and not results[name].error
            }
            nbytes = path.stat().st_size
            by_size[label] = {
                "path": path.name,
                "bytes": nbytes,
                "rows": _process_rows(results, dict.fromkeys(commands, nbytes), checked),
            }
    return {"sizes": by_size}


def startup(small: Path, *, repeat: int, log: IO[str], progress: Progress) -> dict[str, Any]:
    """Time start-up commands as whole processes (hyperfine when installed)."""
    ragchunk = ragchunk_command()
    commands = {
        "python -c pass": [sys.executable, "-c", "pass"],
        "python -c 'import ragchunk'": [sys.executable, "-c", "import ragchunk"],
        "ragchunk --help": [*ragchunk, "--help"],
        "ragchunk split small.txt": [*ragchunk, "split", str(small)],
    }
    hyperfine = shutil.which("hyperfine")
    if hyperfine:
        progress("start-up: hyperfine")
        rows = _hyperfine(hyperfine, commands, repeat=repeat, log=log)
        tool = _first_line([hyperfine, "--version"])
    else:
        results = measure_processes(
            commands, outputs={}, repeat=repeat, warmup=3, log=log, progress=progress
        )
        rows = _process_rows(results, dict.fromkeys(commands, small.stat().st_size), {})
        tool = "subprocess round-robin (hyperfine not installed)"
    base = next((r["median"] for r in rows if r["name"] == "python -c pass"), None)
    for row in rows:
        row["ratio_to_python"] = row["median"] / base if base and row["median"] else None
    return {"tool": tool, "rows": rows}


def _first_line(argv: list[str]) -> str:
    result = subprocess.run(argv, capture_output=True, text=True, check=False)
    return result.stdout.strip().splitlines()[0] if result.stdout.strip() else argv[0]


def _hyperfine(
    hyperfine: str, commands: dict[str, list[str]], *, repeat: int, log: IO[str]
) -> list[dict[str, Any]]:
    """Run hyperfine in a few rounds, each over every command in a rotated order.

    hyperfine times one command after another; splitting the runs into rounds spreads the load
    of other processes on this shared machine over all commands, as the round-robin does.
    """
    import math
    import shlex

    rounds = min(repeat, 4)
    runs = math.ceil(repeat / rounds)
    times: dict[str, list[float]] = {name: [] for name in commands}
    cpu: dict[str, list[float]] = {name: [] for name in commands}
    with tempfile.TemporaryDirectory(prefix="ragchunk-bench-") as tmp:
        export = Path(tmp, "hyperfine.json")
        for r in range(rounds):
            argv = [hyperfine, "-N", "--warmup", "2", "--runs", str(runs)]
            argv += ["--export-json", str(export), "--style", "basic"]
            for name in rotate(list(commands), r):
                argv += ["--command-name", name, shlex.join(commands[name])]
            subprocess.run(argv, stdout=log, stderr=log, check=True, cwd=REPO, env=user_env())
            for result in json.loads(export.read_text())["results"]:
                times[result["command"]] += result["times"]
                cpu[result["command"]].append(result["user"] + result["system"])
    return [
        {
            "name": name,
            "n": len(times[name]),
            "median": statistics.median(times[name]),
            "min": min(times[name]),
            "max": max(times[name]),
            "cpu_median": statistics.median(cpu[name]),
            "times": times[name],
            "error": None,
        }
        for name in commands
    ]


def supports_jobs() -> bool:
    """Whether the installed ``ragchunk split`` has a ``--jobs`` flag."""
    result = subprocess.run(
        [*ragchunk_command(), "split", "--help"],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "COLUMNS": "200", "TERM": "dumb"},
    )
    return "--jobs" in result.stdout


def files(directory: Path, *, repeat: int, log: IO[str], progress: Progress) -> dict[str, Any]:
    """Time ``split`` of the 10 MB corpus as 1,000 files (``--jobs 1`` and ``2`` if supported).

    Also splits the first 100 of those files, to show whether memory grows with file count.
    """
    with tempfile.TemporaryDirectory(prefix="ragchunk-bench-") as tmp:
        # A copy outside the repository: a walker that honours .gitignore files would otherwise
        # skip the git-ignored corpus directory.
        copy = Path(tmp, "files_1000")
        shutil.copytree(directory, copy)
        return _files(copy, repeat=repeat, log=log, progress=progress)


def _files(directory: Path, *, repeat: int, log: IO[str], progress: Progress) -> dict[str, Any]:
    ragchunk = [*ragchunk_command(), "split"]
    paths = sorted(str(p) for p in directory.iterdir())
    jobs = supports_jobs()
    if jobs:
        commands = {
            "100 files, --jobs 1": [*ragchunk, *paths[:100], "--jobs", "1"],
            "1,000 files, --jobs 1": [*ragchunk, str(directory), "--jobs", "1"],
            "1,000 files, --jobs 2": [*ragchunk, str(directory), "--jobs", "2"],
        }
    else:
        commands = {
            "100 files": [*ragchunk, *paths[:100]],
            "1,000 files": [*ragchunk, str(directory)],
        }
    total = sum(Path(p).stat().st_size for p in paths)
    first = sum(Path(p).stat().st_size for p in paths[:100])
    nbytes = {name: first if name.startswith("100 ") else total for name in commands}
    with tempfile.TemporaryDirectory(prefix="ragchunk-bench-") as tmp:
        outputs: dict[str, Path | None] = {
            name: Path(tmp, f"files-{i}.jsonl") for i, name in enumerate(commands)
        }
        results = measure_processes(
            commands,
            outputs=outputs,
            repeat=repeat,
            warmup=1,
            log=log,
            progress=progress,
            sample_tree=True,
        )
        checked = {
            name: {"output": verify_jsonl(out, None)}
            for name, out in outputs.items()
            if out is not None and out.exists() and not results[name].error
        }
        rows = _process_rows(results, nbytes, checked)
    return {"jobs": "available" if jobs else "not available", "bytes": total, "rows": rows}


def linearity(
    paths: dict[str, Path],
    *,
    only: Sequence[str],
    repeat: int,
    slow_cap: float,
    log: IO[str],
    progress: Progress,
) -> dict[str, Any]:
    """Time every bounded ragchunk contestant on 1, 10 and 100 MB; flag > ±25 % per-MB drift.

    The flag uses CPU seconds per MB: on this shared machine wall time swings with the other
    sessions' load, and CPU time answers the question asked here (does work grow faster than
    the input?). Wall seconds per MB are reported as well.
    """
    from ragchunk import strategies

    contestants, _ = all_contestants()
    chosen = [
        c
        for c in contestants
        if c.family == "ragchunk" and strategies.get(c.kind).bounded and matches(c.name, only)
    ]
    wall: dict[str, dict[str, float | None]] = {c.name: {} for c in chosen}
    cpu: dict[str, dict[str, float | None]] = {c.name: {} for c in chosen}
    for label, path in paths.items():
        nbytes = path.stat().st_size
        results = measure_workers(
            [c.name for c in chosen],
            path,
            repeat=repeat,
            slow_cap=slow_cap,
            log=log,
            progress=progress,
            check=False,
        )
        for name, measurement in results.items():
            summary = measurement.summary(nbytes)
            for table, key in ((wall, "median"), (cpu, "cpu_median")):
                value = summary[key]
                table[name][label] = None if value is None else value / (nbytes / 1e6)
    rows = [
        {
            "name": name,
            "seconds_per_mb": wall[name],
            "cpu_seconds_per_mb": cpu[name],
            "wall_drift": drift(wall[name]),
            "worst_drift": drift(cpu[name]),
            "flagged": abs(drift(cpu[name]) or 0) > LINEAR_LIMIT,
        }
        for name in wall
    ]
    return {"sizes": {k: p.name for k, p in paths.items()}, "limit": LINEAR_LIMIT, "rows": rows}


def drift(per_mb: dict[str, float | None]) -> float | None:
    """Return the largest relative change of seconds per MB from the first (smallest) size."""
    values = list(per_mb.values())
    if not values or values[0] is None:
        return None
    base = values[0]
    changes = [v / base - 1 for v in values[1:] if v is not None]
    return max(changes, key=abs, default=None)
