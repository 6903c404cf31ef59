"""``ragchunk stats``: what a set of chunks looks like — sizes, a histogram, documents, structure.

Reads the JSONL that ``ragchunk split`` writes, from files or standard input, once and in order.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional

import typer

from ragchunk.cli._app import (
    EXIT_FAILED_INPUTS,
    app,
    one_line,
    stderr_console,
    stdout_console,
    usage_errors,
)
from ragchunk.cli._panels import PanelledCommand
from ragchunk.defaults import UNITS
from ragchunk.errors import InputError, UsageError

if TYPE_CHECKING:
    from ragchunk.sinks.stats import ChunkStats

STATS_HELP = """Summarise the chunks that `ragchunk split` wrote (JSONL files, or - for stdin).

Shows the count and min/median/p95/max size in chars and tokens, a size histogram, the
documents with the most chunks, and how chunks carry pages, headings and overlap.

Examples:

\b
  ragchunk split docs/ -o chunks.jsonl && ragchunk stats chunks.jsonl
  ragchunk split notes.txt --count-tokens |
    ragchunk stats - --unit tokens --limit 128
  ragchunk stats out/*.jsonl --top 5
"""


@app.command(
    "stats",
    cls=PanelledCommand,
    help=STATS_HELP,
)
def stats_command(
    paths: Annotated[
        list[str],
        typer.Argument(
            help="JSONL files, or - for standard input.", show_default=False, metavar="FILE..."
        ),
    ],
    limit: Annotated[
        Optional[int],  # noqa: UP045 - Typer needs Optional on Python 3.11
        typer.Option(
            "--limit", help="Count and list the chunks larger than this.", show_default=False
        ),
    ] = None,
    unit: Annotated[
        str,
        typer.Option(
            help="Unit of the histogram and --limit: chars or tokens.",
            autocompletion=lambda: list(UNITS),
        ),
    ] = "chars",
    top: Annotated[int, typer.Option("--top", help="How many documents to list (0: all).")] = 20,
) -> None:
    """Summarise chunk files (the help text is STATS_HELP)."""
    from ragchunk.options import parse_unit
    from ragchunk.sinks.stats import ChunkStats

    with usage_errors():
        stats = ChunkStats(limit=limit, unit=parse_unit(unit))
    failures = []
    for path in paths:
        try:
            _read(path, stats)
        except InputError as exc:
            failures.append(str(exc))
    with usage_errors():
        if unit == "tokens" and stats.count and not stats.tokens:
            raise UsageError(
                "--unit tokens needs chunks with token counts "
                "(split with --count-tokens or --unit tokens)"
            )
    if stats.count or not failures:
        _render(stats, top)
    if failures:
        console = stderr_console()
        for failure in failures:
            console.print(f"error: {one_line(failure)}", markup=False)
        raise typer.Exit(EXIT_FAILED_INPUTS)


def _read(path: str, stats: ChunkStats) -> None:
    """Count the records of one JSONL file (``-``: standard input) into ``stats``.

    Raises:
        InputError: the file cannot be read, or holds a line that is not a chunk record.
    """
    from ragchunk.sinks.stats import read_records

    if path == "-":
        read_records(sys.stdin, stats, "-")
        return
    try:
        with Path(path).open(encoding="utf-8") as handle:
            read_records(handle, stats, path)
    except OSError as exc:
        raise InputError(f"{path}: cannot read ({exc.strerror or exc})") from None
    except UnicodeDecodeError as exc:
        raise InputError(f"{path}: not UTF-8 text (byte {exc.start})") from None


def _render(stats: ChunkStats, top: int) -> None:
    from rich.text import Text

    from ragchunk.sinks.stats_tables import (
        build_documents,
        build_histogram,
        build_over,
        build_sizes,
        describe_structure,
    )

    console = stdout_console()
    console.print(build_sizes(stats))
    if not stats.count:
        return
    sizes = stats.tokens if stats.unit == "tokens" else stats.chars
    console.print(build_histogram(sizes, stats.unit, limit=stats.limit))
    if stats.limit is not None:
        console.print(build_over(stats))
    console.print(build_documents(stats, top=top))
    for line in describe_structure(stats):
        console.print(Text(line))
