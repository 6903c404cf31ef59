"""``ragchunk split``: parse flags, build the plan, run the pipeline, render the results."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Annotated, Optional, cast

import typer

from ragchunk import strategies
from ragchunk.cli._app import EXIT_OK, app, usage_errors
from ragchunk.defaults import (
    DEFAULT_MAX_BYTES,
    DEFAULT_TIMEOUT,
    DEFAULT_TOKENIZER,
    ENGINES,
    OUTPUT_FORMATS,
    UNITS,
)
from ragchunk.errors import OptionError, UsageError

if TYPE_CHECKING:
    from collections.abc import Iterable

    from ragchunk.defaults import Engine


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
  ragchunk split docs/ -o out/ --jobs 4    one JSONL per input under out/, as in docs/
  ragchunk split a.txt -O 'separators=["\\n\\n", "\\n"]'
  ragchunk split docs/ -o chunks.parquet   Parquet for data pipelines (ragchunk[parquet])
  ragchunk split docs/ --engine ray -o chunks.parquet    on Ray (ragchunk[ray])
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
    ctx: typer.Context,
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
        Optional[str],  # noqa: UP045
        typer.Option(
            "--output",
            "-o",
            help="Write to this file (Parquet if it ends in .parquet, else JSONL), or to DIR/ "
            "one file per input mirroring the tree (a trailing slash or an existing "
            "directory); always atomically.",
            metavar="FILE|DIR/",
            show_default=False,
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
    # Batch runs (issue 6).
    include: Annotated[
        Optional[list[str]],  # noqa: UP045
        typer.Option(
            "--include",
            help="In directories, chunk only files matching GLOB (repeatable).",
            metavar="GLOB",
            show_default=False,
        ),
    ] = None,
    exclude: Annotated[
        Optional[list[str]],  # noqa: UP045
        typer.Option(
            "--exclude",
            help="In directories, skip files and directories matching GLOB (repeatable).",
            metavar="GLOB",
            show_default=False,
        ),
    ] = None,
    no_gitignore: Annotated[
        bool, typer.Option("--no-gitignore", help="Also chunk files that .gitignore ignores.")
    ] = False,
    jobs: Annotated[
        Optional[int],  # noqa: UP045
        typer.Option(
            "--jobs",
            "-j",
            help="Worker processes (default: the number of CPU cores).",
            show_default=False,
        ),
    ] = None,
    quiet: Annotated[
        bool, typer.Option("--quiet", "-q", help="No progress, warnings or notes on stderr.")
    ] = False,
    verbose: Annotated[
        bool, typer.Option("--verbose", "-v", help="A line per input and a summary on stderr.")
    ] = False,
    fail_fast: Annotated[
        bool, typer.Option("--fail-fast", help="Stop at the first input that fails.")
    ] = False,
    manifest: Annotated[
        Optional[str],  # noqa: UP045
        typer.Option(
            "--manifest",
            help="Record inputs here; reruns skip unchanged ones and remove the "
            "outputs of deleted ones.",
            metavar="FILE",
            show_default=False,
        ),
    ] = None,
    hashes: Annotated[
        bool, typer.Option("--hashes", help="Add doc_hash and hash (SHA-256) to every chunk.")
    ] = False,
    timeout: Annotated[
        float,
        typer.Option(
            "--timeout",
            help="Fail an input that takes longer than this many seconds; the others go on.",
            metavar="SECONDS",
        ),
    ] = DEFAULT_TIMEOUT,
    max_bytes: Annotated[
        int,
        typer.Option(
            "--max-bytes",
            help="Refuse an input larger than this, or whose compressed parts (DOCX members, "
            "PDF streams) expand past it.",
            metavar="BYTES",
        ),
    ] = DEFAULT_MAX_BYTES,
    check: Annotated[
        bool,
        typer.Option(
            "--check",
            help="Also check every input's chunks against the output contract (verbatim, "
            "nothing lost, size, order, overlap, determinism); report violations on stderr "
            "and exit 1 if any.",
        ),
    ] = False,
    config: Annotated[
        Optional[str],  # noqa: UP045
        typer.Option(
            "--config",
            help="Read settings from this file instead of the ragchunk.toml or "
            "pyproject.toml found from here up.",
            metavar="FILE",
            show_default=False,
        ),
    ] = None,
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
    # Parquet output and Ray (issue 18).
    output_format: Annotated[
        Optional[str],  # noqa: UP045
        typer.Option(
            "--output-format",
            help="What -o writes: jsonl or parquet [default: parquet for a .parquet file, "
            "else jsonl].",
            show_default=False,
            autocompletion=lambda: list(OUTPUT_FORMATS),
        ),
    ] = None,
    engine: Annotated[
        str,
        typer.Option(
            "--engine",
            help="Where to chunk: local (worker processes, --jobs) or ray (a Ray cluster: "
            "a local one unless --ray-address).",
            autocompletion=lambda: list(ENGINES),
        ),
    ] = "local",
    ray_address: Annotated[
        Optional[str],  # noqa: UP045
        typer.Option(
            "--ray-address",
            help="With --engine ray: the cluster to join (auto, HOST:PORT or "
            "ray://HOST:PORT) instead of starting a local one.",
            metavar="ADDRESS",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Split documents into chunks (the help text is SPLIT_HELP)."""
    from ragchunk.batch import prepare
    from ragchunk.cli import _batch
    from ragchunk.config import RunSettings, Settings, load_config
    from ragchunk.options import parse_unit
    from ragchunk.plan import make_plans

    given = _given(ctx)
    with usage_errors():
        flags = Settings(
            strategy=strategy if "strategy" in given else None,
            size=size,
            overlap=overlap,
            unit=None if unit is None else parse_unit(unit),
            tokenizer=tokenizer if "tokenizer" in given else None,
            count_tokens=count_tokens or None,
            format=input_format,
            language=language,
            hashes=hashes or None,
            timeout=timeout if "timeout" in given else None,
            max_bytes=max_bytes if "max_bytes" in given else None,
            contextualize=contextualize or None,
            min_size=min_size,
            options=_parse_assignments(option or ()),
        )
        run = RunSettings(
            include=tuple(include) if include else None,
            exclude=tuple(exclude) if exclude else None,
            gitignore=False if no_gitignore else None,
            jobs=jobs,
            fail_fast=fail_fast or None,
            manifest=manifest,
            engine=_parse_engine(engine) if "engine" in given else None,
            ray_address=ray_address,
        )
        configuration = load_config(config)
        plans = make_plans(configuration, flags, password=password, debug=debug, check=check)
        try:
            batch = prepare(
                paths,
                plans,
                run.over(configuration.run),
                output=output,
                output_format=output_format,
            )
        except KeyboardInterrupt:  # Ctrl-C while walking a large tree: nothing written yet
            sys.stderr.write("interrupted while finding the inputs; nothing was written\n")
            raise typer.Exit(_batch.EXIT_INTERRUPTED) from None
    display = _batch.Display(table=table, stats=stats, quiet=quiet, verbose=verbose)
    with usage_errors():  # a Ray cluster that cannot be started or joined
        code = _batch.execute(batch, display)
    if code != EXIT_OK:
        raise typer.Exit(code)


def _parse_engine(value: str) -> Engine:
    if value not in ENGINES:
        raise OptionError("--engine", f"must be one of {', '.join(ENGINES)} (got {value!r})")
    return cast("Engine", value)


def _given(ctx: typer.Context) -> set[str]:
    """Return the parameters the user set (a flag wins over a configuration file)."""
    sources = {name: ctx.get_parameter_source(name) for name in ctx.params}
    return {name for name, source in sources.items() if source and source.name != "DEFAULT"}
