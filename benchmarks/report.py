"""Results → tables (rich on the terminal, Markdown for the README) and the targets of issue 8.

A table is a title, a header and rows of strings, so the terminal and the README show the same
figures. ``targets()`` reads the ratios the issue asks for from one run's results.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

Rows = list[list[str]]

README_START: Final = "<!-- results:start -->"
README_END: Final = "<!-- results:end -->"


@dataclass(frozen=True)
class Table:
    """What both renderers draw."""

    title: str
    header: list[str]
    rows: Rows
    note: str = ""


# formatting ----------------------------------------------------------------------------------


def seconds(value: float | None) -> str:
    """Format a duration: milliseconds below one second."""
    if value is None:
        return "–"
    return f"{value * 1e3:.3g} ms" if value < 1 else f"{value:.3g} s"


def span(low: float | None, high: float | None) -> str:
    """Format a min–max range of durations."""
    if low is None or high is None:
        return "–"
    return f"{seconds(low)} – {seconds(high)}"


def number(value: float | None, digits: int = 3) -> str:
    """Format a number to ``digits`` significant digits, or a dash."""
    return "–" if value is None else f"{value:.{digits}g}"


def ratio(value: float | None) -> str:
    """Format a ratio as ``1.23×``."""
    return "–" if value is None else f"{value:.2f}×"


def count(value: int | None) -> str:
    """Format a count with thousands separators, or a dash."""
    return "–" if value is None else f"{value:,}"


# tables --------------------------------------------------------------------------------------


def chunker_table(label: str, data: dict[str, Any]) -> Table:
    """The in-process table for one corpus size."""
    header = ["contestant", "unit", "overlap", "runs", "median", "min – max", "MB/s"]
    header += ["CPU MB/s", "× best peer", "peak MB", "chunks", "offsets", "over limit", "lost"]
    rows: Rows = []
    for r in data["rows"]:
        if r["error"]:
            rows.append([r["name"], r["unit"], "", "0", f"failed: {_short(r['error'])}", *[""] * 9])
            continue
        offsets = r["offsets"]["verdict"] if r["offsets"] else "—"
        rows.append(
            [
                r["name"],
                r["unit"],
                "50" if r["overlap"] else "none",
                str(r["n"]),
                seconds(r["median"]),
                span(r["min"], r["max"]),
                number(r["mbps"]),
                number(r["cpu_mbps"]),
                ratio(r.get("ratio")),
                number(r["peak_rss_mb"]),
                count(r["chunks"]),
                offsets,
                "—" if r["over"] is None else f"{r['over']:,} (max {r['largest']:,})",
                count(r["lost"]),
            ]
        )
    title = f"Chunkers in process, {label} ({data['bytes']:,} bytes of {data['path']})"
    note = (
        "MB = 10^6 bytes of UTF-8 input; MB/s from the median wall time, CPU MB/s from the median "
        "CPU time of the contestant's process. `× best peer`: MB/s over the fastest peer in the "
        "same unit. `peak MB`: peak resident memory above the level before the run, in the "
        "contestant's own process. `over limit`: chunks larger than 512 measured alone in the "
        "unit. `lost`: non-whitespace characters outside every chunk (exact offsets only)."
    )
    return Table(title, header, rows, note)


def process_table(title: str, rows_data: list[dict[str, Any]], *, note: str = "") -> Table:
    """A whole-process table: wall time, MB/s, peak RSS and what the output held."""
    header = ["command", "runs", "median", "min – max", "CPU", "MB/s", "peak RSS MB", "output"]
    rows: Rows = []
    for r in rows_data:
        if r["error"]:
            rows.append([r["name"], "0", f"failed: {_short(r['error'])}", "", "", "", "", ""])
            continue
        rows.append(
            [
                r["name"],
                str(r["n"]),
                seconds(r["median"]),
                span(r["min"], r["max"]),
                seconds(r.get("cpu_median")),
                number(r.get("mbps")),
                number(r["peak_rss_mb"]),
                _describe_output(r.get("output")),
            ]
        )
    return Table(title, header, rows, note)


def _short(error: str, limit: int = 90) -> str:
    """The first line of an error, cut to ``limit`` characters (the JSON keeps all of it)."""
    first = error.splitlines()[0] if error else ""
    return first if len(first) <= limit else first[: limit - 1] + "…"


def _describe_output(output: dict[str, Any] | None) -> str:
    if not output:
        return "–"
    parts = [f"{output['records']:,} records"]
    if output["documents"] > 1:
        parts.append(f"{output['documents']:,} documents")
    if output["exact"] is not None:
        exact = output["exact"] == output["records"]
        parts.append("offsets exact" if exact else f"{output['exact']:,} exact")
    parts.append(f"{output['over']:,} over 512 chars")
    return ", ".join(parts)


def startup_table(data: dict[str, Any]) -> Table:
    """Start-up times and their ratio to ``python -c pass``."""
    header = ["command", "runs", "median", "min – max", "CPU", "× python -c pass"]
    rows = [
        [
            r["name"],
            str(r["n"]),
            seconds(r["median"]),
            span(r["min"], r["max"]),
            seconds(r.get("cpu_median")),
            ratio(r.get("ratio_to_python")),
        ]
        for r in data["rows"]
    ]
    note = "CPU: user + system time of the process (hyperfine: mean per round, median of rounds)."
    return Table(f"Start-up (whole processes; {data['tool']})", header, rows, note)


def linearity_table(data: dict[str, Any]) -> Table:
    """CPU and wall seconds per MB at each size, and the drift from the smallest size."""
    labels = list(data["sizes"])
    header = ["contestant", *[f"CPU s/MB {label}" for label in labels], "CPU drift"]
    header += [*[f"wall s/MB {label}" for label in labels], "wall drift", "flag"]
    rows: Rows = []
    for r in data["rows"]:
        cpu, wall = r["cpu_seconds_per_mb"], r["seconds_per_mb"]
        rows.append(
            [
                r["name"],
                *[seconds(cpu.get(label)) for label in labels],
                _percent(r["worst_drift"]),
                *[seconds(wall.get(label)) for label in labels],
                _percent(r["wall_drift"]),
                f"> ±{data['limit']:.0%}" if r["flagged"] else "ok",
            ]
        )
    title = "Linearity: time per MB over " + ", ".join(data["sizes"].values())
    note = (
        "Drift: the largest change of seconds per MB from the smallest size. The flag uses CPU "
        "time (wall time on this shared machine moves with the other sessions' load)."
    )
    return Table(title, header, rows, note)


def _percent(value: float | None) -> str:
    return "–" if value is None else f"{value:+.0%}"


def skipped_table(skipped: list[dict[str, str]]) -> Table:
    """Contestants that did not take part."""
    return Table(
        "Not measured", ["contestant", "reason"], [[s["name"], s["reason"]] for s in skipped]
    )


def targets_table(items: list[dict[str, Any]]) -> Table:
    """The targets of issue 8 and whether this run meets them."""
    rows = [
        [t["target"], t["measured"], {True: "yes", False: "NO", None: "–"}[t["met"]]] for t in items
    ]
    return Table("Targets of issue 8", ["target", "measured", "met"], rows)


def tables(results: dict[str, Any]) -> list[Table]:
    """Every table of one run, in reading order."""
    out: list[Table] = [targets_table(results["targets"])]
    chunkers = results.get("chunkers")
    if chunkers:
        out += [chunker_table(label, data) for label, data in chunkers["sizes"].items()]
        if chunkers["skipped"]:
            out.append(skipped_table(chunkers["skipped"]))
    for label, data in results.get("cli", {}).get("sizes", {}).items():
        note = "stdout goes to a file, as in `ragchunk split FILE > out.jsonl`."
        out.append(process_table(f"Whole CLI, {label} ({data['path']})", data["rows"], note=note))
    if "startup" in results:
        out.append(startup_table(results["startup"]))
    if "files" in results:
        files = results["files"]
        title = f"10 MB as 1,000 files (--jobs: {files['jobs']})"
        note = (
            "peak RSS: the process and its workers together, sampled every 50 ms (at least the "
            "largest single process's ru_maxrss)."
        )
        out.append(process_table(title, files["rows"], note=note))
    if "linearity" in results:
        out.append(linearity_table(results["linearity"]))
    return out


# targets -------------------------------------------------------------------------------------


def _sizes(results: dict[str, Any]) -> list[tuple[str, dict[str, dict[str, Any]]]]:
    """The chunker rows of every size measured, largest first, by name (measured rows only)."""
    sizes = results.get("chunkers", {}).get("sizes", {})
    return [
        (label, {r["name"]: r for r in data["rows"] if r["mbps"]})
        for label, data in reversed(list(sizes.items()))
    ]


def _compare(
    sizes: list[tuple[str, dict[str, dict[str, Any]]]],
    ours: str,
    theirs: list[str],
    goal: str,
    met: Callable[[float], bool],
) -> dict[str, Any]:
    """A ratio target: our MB/s over the fastest of ``theirs``, at the largest size both ran."""
    label = ""
    rows: dict[str, dict[str, Any]] = {}
    present: list[dict[str, Any]] = []
    for label, rows in sizes:  # noqa: B007 - the match is used after the loop
        present = [rows[name] for name in theirs if name in rows]
        if ours in rows and present:
            break
    else:
        return {"target": goal, "measured": f"not measured ({ours} or {theirs[0]})", "met": None}
    best = max(present, key=lambda r: r["mbps"])
    value = rows[ours]["mbps"] / best["mbps"]
    cpu = None
    if rows[ours].get("cpu_mbps") and best.get("cpu_mbps"):
        cpu = rows[ours]["cpu_mbps"] / best["cpu_mbps"]
    measured = (
        f"{value:.2f}× ({rows[ours]['mbps']:.3g} vs {best['mbps']:.3g} MB/s "
        f"{best['name']}, {label}; by CPU time {ratio(cpu)})"
    )
    return {
        "target": goal,
        "measured": measured,
        "ratio": value,
        "cpu_ratio": cpu,
        "size": label,
        "met": met(value),
    }


RC: Final = "ragchunk "
LLAMA: Final = ["llama-index SentenceSplitter (nodes)", "llama-index SentenceSplitter (strings)"]
RATIO_TARGETS: Final[list[tuple[str, list[str], str, Callable[[float], bool]]]] = [
    (
        RC + "recursive (chars)",
        ["langchain Recursive (add_start_index)"],
        "recursive (chars, exact offsets, overlap 50) ≥ 2× langchain add_start_index",
        lambda v: v >= 2,
    ),
    (
        RC + "recursive (chars)",
        ["chonkie RecursiveChunker (chars)"],
        "recursive (chars) ≥ chonkie RecursiveChunker (Rust, no overlap)",
        lambda v: v >= 1,
    ),
    (
        RC + "fixed (chars)",
        [RC + "recursive (chars)"],
        "fixed (chars) faster than recursive (chars)",
        lambda v: v > 1,
    ),
    (
        RC + "token (tokens)",
        ["tiktoken encode_ordinary (floor)"],
        "token ≥ 0.8× bare tiktoken encode_ordinary",
        lambda v: v >= 0.8,
    ),
    (
        RC + "token (tokens)",
        ["chonkie TokenChunker (tokens)"],
        "token ahead of chonkie TokenChunker",
        lambda v: v > 1,
    ),
    (
        RC + "recursive (tokens)",
        ["chonkie RecursiveChunker (tokens)"],
        "recursive (tokens) ahead of chonkie RecursiveChunker (tokens)",
        lambda v: v > 1,
    ),
    (
        RC + "recursive (tokens)",
        ["tiktoken encode_ordinary (floor)"],
        "recursive (tokens) ≥ 0.6× bare tiktoken encode",
        lambda v: v >= 0.6,
    ),
    (
        RC + "sentence (tokens)",
        LLAMA,
        "sentence ≥ 4× llama-index SentenceSplitter (its faster API)",
        lambda v: v >= 4,
    ),
]


def targets(results: dict[str, Any]) -> list[dict[str, Any]]:
    """Evaluate every target of issue 8 on one run's results."""
    sizes = _sizes(results)
    items = [_compare(sizes, ours, theirs, goal, met) for ours, theirs, goal, met in RATIO_TARGETS]
    items.append(_cli_target(results))
    items += _startup_targets(results)
    items += _files_targets(results)
    items.append(_linearity_target(results))
    return items


def _cli_target(results: dict[str, Any]) -> dict[str, Any]:
    goal = "`ragchunk split corpus_10mb.txt > out.jsonl` ≥ 0.7× the minimal CLI floor"
    sizes = results.get("cli", {}).get("sizes", {})
    rows = [
        (label, {r["name"]: r for r in data["rows"] if r["mbps"]})
        for label, data in reversed(list(sizes.items()))
    ]
    return _compare(
        rows, "ragchunk split (recursive)", ["CLI floor (floor_cli.py)"], goal, lambda v: v >= 0.7
    )


def _startup_targets(results: dict[str, Any]) -> list[dict[str, Any]]:
    rows = {r["name"]: r for r in results.get("startup", {}).get("rows", [])}
    items = []
    for name, limit in (("ragchunk --help", 0.150), ("ragchunk split small.txt", 0.250)):
        goal = f"`{name}` < {limit * 1e3:.0f} ms"
        row = rows.get(name)
        if not row or row["median"] is None:
            items.append({"target": goal, "measured": "not measured", "met": None})
            continue
        measured = f"{seconds(row['median'])} ({ratio(row.get('ratio_to_python'))} python -c pass)"
        items.append({"target": goal, "measured": measured, "met": row["median"] < limit})
    return items


def _files_targets(results: dict[str, Any]) -> list[dict[str, Any]]:
    files = results.get("files")
    speed_goal = "10 MB as 1,000 files: --jobs 2 ≥ 1.7× --jobs 1"
    memory_goal = "10 MB as 1,000 files: peak memory < 300 MB either way"
    if not files:
        return [
            {"target": goal, "measured": "not measured", "met": None}
            for goal in (speed_goal, memory_goal)
        ]
    rows = {r["name"]: r for r in files["rows"] if not r["error"]}
    thousand = [r for name, r in rows.items() if name.startswith("1,000")]
    peak = max((r["peak_rss_mb"] for r in thousand if r["peak_rss_mb"]), default=None)
    memory = {
        "target": memory_goal,
        "measured": "not measured" if peak is None else f"{peak:.0f} MB at most",
        "met": None if peak is None else peak < 300,
    }
    one, two = rows.get("1,000 files, --jobs 1"), rows.get("1,000 files, --jobs 2")
    if files["jobs"] != "available" or not one or not two:
        return [{"target": speed_goal, "measured": "--jobs not available", "met": None}, memory]
    value = one["median"] / two["median"]
    measured = f"{value:.2f}× ({seconds(one['median'])} → {seconds(two['median'])})"
    return [
        {"target": speed_goal, "measured": measured, "ratio": value, "met": value >= 1.7},
        memory,
    ]


def _linearity_target(results: dict[str, Any]) -> dict[str, Any]:
    data = results.get("linearity")
    goal = "time per MB within ±25 % from 1 MB to 100 MB, every bounded strategy"
    if not data or not data["rows"]:
        return {"target": goal, "measured": "not measured", "met": None}
    flagged = [r["name"] for r in data["rows"] if r["flagged"]]
    worst = max(data["rows"], key=lambda r: abs(r["worst_drift"] or 0))
    measured = f"worst CPU-time drift {_percent(worst['worst_drift'])} ({worst['name']})"
    if flagged:
        measured += "; over the limit: " + ", ".join(flagged)
    return {"target": goal, "measured": measured, "met": not flagged}


# rendering -----------------------------------------------------------------------------------


def print_tables(items: list[Table]) -> None:
    """Print every table to the terminal with rich."""
    from rich.console import Console
    from rich.table import Table as RichTable
    from rich.text import Text

    # Off a terminal rich assumes 80 columns; these tables need more.
    console = Console(width=None if sys.stdout.isatty() else 220)
    for item in items:
        table = RichTable(title=Text(item.title), title_justify="left", caption=item.note or None)
        for name in item.header:
            table.add_column(Text(name), overflow="fold")
        for row in item.rows:
            table.add_row(*(Text(cell) for cell in row))
        console.print(table)


def markdown(items: list[Table]) -> str:
    """Return every table as GitHub Markdown."""
    blocks = []
    for item in items:
        lines = [f"#### {item.title}", ""]
        lines.append("| " + " | ".join(item.header) + " |")
        lines.append("|" + " --- |" * len(item.header))
        lines += ["| " + " | ".join(c.replace("|", "\\|") for c in row) + " |" for row in item.rows]
        if item.note:
            lines += ["", item.note]
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks) + "\n"


def update_readme(path: Path, text: str) -> None:
    """Replace the results section of ``path`` (between the markers) with ``text``."""
    readme = path.read_text(encoding="utf-8")
    pattern = re.compile(re.escape(README_START) + ".*?" + re.escape(README_END), re.S)
    if not pattern.search(readme):
        raise ValueError(f"{path} has no {README_START} … {README_END} section")
    replacement = f"{README_START}\n{text}{README_END}"
    path.write_text(pattern.sub(lambda _: replacement, readme), encoding="utf-8")
