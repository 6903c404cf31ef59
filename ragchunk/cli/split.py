"""``ragchunk split``: parse flags, build the plan, run the pipeline, render the results."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import IO, TYPE_CHECKING, Annotated, Optional

import typer

from ragchunk import strategies
from ragchunk.cli._app import (
    EXIT_FAILED_INPUTS,
    app,
    stderr_console,
    stdout_console,
    usage_errors,
)
from ragchunk.errors import UsageError
from ragchunk.measure import DEFAULT_TOKENIZER
from ragchunk.options import UNITS

if TYPE_CHECKING:
    from collections.abc import Iterable

    from ragchunk.model import Chunk
    from ragchunk.pipeline import FileResult

SPLIT_HELP = """Split documents into chunks and print them as JSONL (one record per line).

PATH is a file, a directory (walked) or - for standard input. Every record satisfies
text == document[start:end]; `ragchunk strategies` lists the strategies and their options.

Examples:

\b
  ragchunk split notes.txt                 recursive, 512 chars, overlap 50
  ragchunk split report.txt --table        preview the chunks in a table
  cat notes.txt | ragchunk split - --size 200 --overlap 20
  ragchunk split book.txt -s token --size 256 --overlap 32 --tokenizer cl100k_base
  ragchunk split docs/ -o chunks.jsonl --stats
  ragchunk split a.txt -O 'separators=["\\n\\n", "\\n"]'
"""


def _complete_strategy(incomplete: str) -> list[str]:
    return [name for name in strategies.names() if name.startswith(incomplete)]


def _parse_assignments(assignments: Iterable[str]) -> dict[str, str]:
    values: dict[str, str] = {}
    for assignment in assignments:
        key, sep, value = assignment.partition("=")
        if not sep or not key.strip():
            raise UsageError(f"-O expects key=value (got {assignment!r})")
        values[key.strip()] = value
    return values


@app.command("split", help=SPLIT_HELP)
def split_command(
    paths: Annotated[
        list[str],
        typer.Argument(
            help="Files, directories, or - for standard input.",
            show_default=False,
            metavar="PATH",
        ),
    ],
    strategy: Annotated[
        str,
        typer.Option(
            "--strategy", "-s", help="Chunking strategy.", autocompletion=_complete_strategy
        ),
    ] = strategies.DEFAULT_STRATEGY,
    size: Annotated[
        Optional[int],  # noqa: UP045 - Typer needs Optional on Python 3.11
        typer.Option(
            help="Hard maximum chunk size, overlap included [default: per strategy; "
            "hierarchical and sentence-count mode are unbounded unless it is given].",
            show_default=False,
        ),
    ] = None,
    overlap: Annotated[
        Optional[int],  # noqa: UP045
        typer.Option(
            help="Units a chunk may repeat from the previous one [default: per strategy].",
            show_default=False,
        ),
    ] = None,
    unit: Annotated[
        Optional[str],  # noqa: UP045
        typer.Option(
            help="Unit of --size and --overlap: chars or tokens [default: per strategy].",
            show_default=False,
            autocompletion=lambda: list(UNITS),
        ),
    ] = None,
    tokenizer: Annotated[
        str, typer.Option(help="tiktoken encoding name or path to a tokenizer.json.")
    ] = DEFAULT_TOKENIZER,
    option: Annotated[
        Optional[list[str]],  # noqa: UP045
        typer.Option(
            "--option", "-O", help="Strategy option as key=value (repeatable).", show_default=False
        ),
    ] = None,
    output: Annotated[
        Optional[Path],  # noqa: UP045
        typer.Option(
            "--output",
            "-o",
            help="Write JSONL to this file (atomically).",
            show_default=False,
            dir_okay=False,
        ),
    ] = None,
    table: Annotated[bool, typer.Option("--table", help="Show a table instead of JSONL.")] = False,
    stats: Annotated[bool, typer.Option("--stats", help="Print a size summary.")] = False,
    count_tokens: Annotated[
        bool, typer.Option("--count-tokens", help="Add a token count to every chunk.")
    ] = False,
    input_format: Annotated[
        Optional[str],  # noqa: UP045
        typer.Option(
            "--format", help="Force the input format instead of detecting it.", show_default=False
        ),
    ] = None,
    password: Annotated[
        Optional[str],  # noqa: UP045
        typer.Option(help="Password for encrypted PDFs.", show_default=False),
    ] = None,
    language: Annotated[
        Optional[str],  # noqa: UP045
        typer.Option(
            help="Force the programming language of code inputs (implies --format code).",
            show_default=False,
        ),
    ] = None,
    debug: Annotated[
        bool, typer.Option("--debug", help="Show tracebacks for unexpected errors.")
    ] = False,
    contextualize: Annotated[
        bool,
        typer.Option(
            "--contextualize",
            help="Add a context field (heading breadcrumb + text) to every chunk; --size then "
            "counts the breadcrumb.",
        ),
    ] = False,
    min_size: Annotated[
        Optional[int],  # noqa: UP045
        typer.Option(
            "--min-size",
            help="Merge chunks smaller than this (unit of --size) into a neighbour under the "
            "same heading, within --size.",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Split documents into chunks (the help text is SPLIT_HELP)."""
    from ragchunk import pipeline

    with usage_errors():
        if unit is not None and unit not in UNITS:
            raise UsageError(f"--unit must be one of chars, tokens (got {unit!r})")
        plan = pipeline.make_plan(
            strategy,
            size=size,
            overlap=overlap,
            unit=unit,  # type: ignore[arg-type]  # checked against UNITS above
            tokenizer=tokenizer,
            options=_parse_assignments(option or ()),
            count_tokens=count_tokens,
            format=input_format,
            language=language,
            password=password,
            debug=debug,
            contextualize=contextualize,
            min_size=min_size,
        )
    results = pipeline.run(paths, plan)
    failures = _render(results, output=output, table=table, stats=stats)
    if failures:
        _report_failures(failures)
        raise typer.Exit(EXIT_FAILED_INPUTS)


def _render(
    results: Iterable[FileResult], *, output: Path | None, table: bool, stats: bool
) -> list[FileResult]:
    """Write each result as it arrives; return the failed ones."""
    from ragchunk.writers import jsonl

    failures: list[FileResult] = []
    collected: list[Chunk] = []
    console = stdout_console() if table else None

    def consume(write: IO[str] | None) -> None:
        for result in results:
            for diagnostic in result.diagnostics:
                sys.stderr.write(f"warning: {diagnostic.message}\n")
            if result.error is not None:
                failures.append(result)
                continue
            if stats:
                collected.extend(result.chunks)
            if console is not None:
                from ragchunk.writers.table import build

                title = f"{result.doc_id} · {len(result.chunks)} chunks"
                console.print(build(result.chunks, title))
            elif write is not None:
                write.write(jsonl.lines(result.chunks))

    if output is not None:
        with jsonl.atomic_writer(output) as handle:
            consume(handle)
    else:
        consume(None if table or stats else sys.stdout)
    if stats:
        _print_stats(collected)
    return failures


def _print_stats(chunks: list[Chunk]) -> None:
    from ragchunk.writers.stats import SizeSummary, build

    rows = [("chars", SizeSummary.of([c.chars for c in chunks]))]
    token_counts = [c.tokens for c in chunks if c.tokens is not None]
    if token_counts:
        rows.append(("tokens", SizeSummary.of(token_counts)))
    documents = len({c.doc_id for c in chunks})
    strategies_used = sorted({c.strategy for c in chunks})
    used = ", ".join(strategies_used) or "–"
    title = f"{len(chunks)} chunks from {documents} document(s) · strategy {used}"
    stdout_console().print(build(rows, title))


def _report_failures(failures: list[FileResult]) -> None:
    from rich.table import Table
    from rich.text import Text

    console = stderr_console()
    for failure in failures:
        console.print(Text(f"error: {failure.error}"))
    if len(failures) > 1:
        summary = Table(title=Text(f"{len(failures)} inputs failed"), title_justify="left")
        summary.add_column("input")
        summary.add_column("cause")
        for failure in failures:
            summary.add_row(Text(failure.source), Text(failure.error or ""))
        console.print(summary)
