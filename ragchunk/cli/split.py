"""``ragchunk split``: parse flags, build the plan, run the pipeline, render the results."""

from __future__ import annotations

import dataclasses
import os
import sys
from typing import TYPE_CHECKING, Annotated, Optional

import typer

from ragchunk.cli._app import EXIT_OK, app, usage_errors
from ragchunk.cli._options import READING_FLAGS, ConfigFlag, flags_of, settings_command
from ragchunk.cli._panels import CHAT, OUTPUT, RUN, PanelledCommand
from ragchunk.errors import OptionError
from ragchunk.settings import Settings

if TYPE_CHECKING:
    from ragchunk.runs.dedupe import DedupeOptions

SPLIT_HELP = """Split documents into chunks and print them as JSONL (one record per line).

PATH is a file, a directory (walked) or - for standard input. Every record satisfies
text == document[start:end]; `ragchunk strategies` lists the strategies and their options.

Examples:

\b
  ragchunk split notes.txt                  recursive, 512 chars, overlap 50
  ragchunk split report.txt --table         preview the chunks in a table
  cat notes.txt | ragchunk split - --size 200 --overlap 20
  ragchunk split book.txt -s token --size 256 --tokenizer cl100k_base
  ragchunk split a.txt -O 'separators=["\\n\\n", "\\n"]'
  ragchunk split docs/ -o chunks.jsonl --stats
  ragchunk split docs/ -o out/ --jobs 4     one JSONL per input under out/
  ragchunk split docs/ -o chunks.parquet    Parquet (ragchunk[parquet])
  ragchunk split docs/ --engine ray         on a Ray cluster (ragchunk[ray])
  ragchunk split docs/ --dedupe near        drop repeated boilerplate chunks
  ragchunk split scans/ --ocr auto          OCR pages without a text layer
  ragchunk split report.pdf --keep headers  keep running headers and footers
  ragchunk split docs/ -s semantic --size 800 --embed -o chunks.jsonl
  ragchunk split report.pdf -s hierarchical --refine --size 1000
  ragchunk split a.md --embed --embedder openai \\
    --embed-url http://127.0.0.1:8080/v1 --embed-model nomic-embed-text
  ragchunk split notes.txt -s proposition --api-base URL --model m
  ragchunk split docs/ -s proposition --api-base URL --model m --dry-run
"""


def _output_formats() -> list[str]:
    """Return the ``--output-format`` choices, from the sink table (loaded only now)."""
    from ragchunk import sinks

    return list(sinks.output_formats())


@app.command("split", cls=PanelledCommand, help=SPLIT_HELP)
@settings_command(
    "strategy",
    "size",
    "overlap",
    "unit",
    "tokenizer",
    "options",
    "output",
    "table",
    "stats",
    "count_tokens",
    "format",
    "password",
    "language",
    "debug",
    "include",
    "exclude",
    "gitignore",
    "jobs",
    "quiet",
    "verbose",
    "fail_fast",
    "manifest",
    "hashes",
    "timeout",
    "max_bytes",
    "max_text",
    "check",
    "config",
    "contextualize",
    "min_size",
    "parents",
    "root",
    *READING_FLAGS[:5],  # pdf_engine, ocr, ocr_language, keep, comments
    "allow_empty",
    *READING_FLAGS[5:],
    *flags_of("embedding"),
    "output_format",
    "engine",
    "ray_address",
    *flags_of("chat"),
    "emit_passages",
    "dry_run",
    "dedupe",
    "dedupe_mark",
)
def split_command(
    paths: Annotated[
        list[str],
        typer.Argument(help="Files, directories, or - for standard input.", metavar="PATH..."),
    ],
    flags: Settings,
    output: Annotated[
        Optional[str],  # noqa: UP045 - Typer needs Optional on Python 3.11
        typer.Option(
            "--output",
            "-o",
            help="Write to this file (Parquet if it ends in .parquet, else JSONL), or to DIR/ "
            "one file per input mirroring the tree (a trailing slash or an existing "
            "directory); always atomically.",
            metavar="FILE|DIR/",
            show_default=False,
            rich_help_panel=OUTPUT,
        ),
    ] = None,
    table: Annotated[
        bool,
        typer.Option("--table", help="Show a table instead of JSONL.", rich_help_panel=OUTPUT),
    ] = False,
    stats: Annotated[
        bool,
        typer.Option(
            "--stats",
            help="Also print a size summary on stderr (stdout keeps the chunks).",
            rich_help_panel=OUTPUT,
        ),
    ] = False,
    quiet: Annotated[
        bool,
        typer.Option(
            "--quiet", "-q", help="No progress, warnings or notes on stderr.", rich_help_panel=RUN
        ),
    ] = False,
    verbose: Annotated[
        bool,
        typer.Option(
            "--verbose", "-v", help="A line per input and a summary on stderr.", rich_help_panel=RUN
        ),
    ] = False,
    config: ConfigFlag = None,
    # Parquet output (issue 18).
    output_format: Annotated[
        Optional[str],  # noqa: UP045
        typer.Option(
            "--output-format",
            help="What -o writes: jsonl or parquet [default: parquet for a .parquet file, "
            "else jsonl].",
            show_default=False,
            autocompletion=_output_formats,  # the help is written out: --help loads no sink
            rich_help_panel=OUTPUT,
        ),
    ] = None,
    emit_passages: Annotated[
        bool,
        typer.Option(
            "--emit-passages",
            help="proposition: also emit every passage verbatim (metadata.kind passage).",
            rich_help_panel=CHAT,
        ),
    ] = False,
    # Near-duplicate removal (issue 17).
    dedupe: Annotated[
        Optional[str],  # noqa: UP045
        typer.Option(
            "--dedupe",
            help="Remove chunks that repeat an earlier chunk of the run (first kept, in input "
            "order): exact (same text up to whitespace) or near[:THRESHOLD] (Jaccard "
            "similarity of word 3-shingles, default 0.7; MinHash with LSH).",
            metavar="exact|near[:T]",
            show_default=False,
            autocompletion=lambda: ["exact", "near", "near:0.7"],
            rich_help_panel=OUTPUT,
        ),
    ] = None,
    dedupe_mark: Annotated[
        bool,
        typer.Option(
            "--dedupe-mark",
            help="With --dedupe: keep duplicates, with metadata.duplicate_of (the kept chunk's "
            "id), instead of dropping them.",
            rich_help_panel=OUTPUT,
        ),
    ] = False,
) -> None:
    """Split documents into chunks (the help text is SPLIT_HELP)."""
    from ragchunk.cli import _batch
    from ragchunk.pipeline.scopes import make_plans
    from ragchunk.runs.batch import prepare
    from ragchunk.runs.config import load_config
    from ragchunk.settings import merge

    dry_run = flags.policy.dry_run
    with usage_errors():
        configuration = load_config(config)
        plans = make_plans(configuration, flags)
        try:
            run = merge(flags, configuration.defaults).run
            if dry_run:  # nothing is written, so nothing may be recorded as done
                run = dataclasses.replace(run, manifest=None)
            batch = prepare(
                paths,
                plans,
                run,
                output=None if dry_run else output,
                output_format=output_format,
                dedupe=_parse_dedupe(dedupe, mark=dedupe_mark),
            )
        except KeyboardInterrupt:  # Ctrl-C while walking a large tree: nothing written yet
            sys.stderr.write("interrupted while finding the inputs; nothing was written\n")
            raise typer.Exit(_batch.EXIT_INTERRUPTED) from None
    display = _batch.Display(
        table=table and not dry_run,
        stats=stats and not dry_run,
        quiet=quiet,
        verbose=verbose,
        dry_run=dry_run,
    )
    with usage_errors():  # a Ray cluster that cannot be started or joined
        code = _batch.execute(batch, display)
    if code != EXIT_OK:
        raise typer.Exit(code)


def _parse_dedupe(value: str | None, *, mark: bool) -> DedupeOptions | None:
    if value is None:
        if mark:
            raise OptionError("--dedupe-mark", "needs --dedupe exact or --dedupe near")
        return None
    from ragchunk.runs.dedupe import parse_dedupe

    options = parse_dedupe(value, mark=mark)
    if options.method == "near" and "numpy" not in sys.modules:
        # near imports numpy for integer hashing only: no BLAS. OpenBLAS would start a thread
        # per core as numpy loads, which costs about as much CPU as the rest of the import.
        os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    return options
