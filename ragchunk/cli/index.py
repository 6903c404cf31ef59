"""``ragchunk index``: parse flags, sync the store (``ragchunk.runs.index``), print what changed."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Annotated

import typer

from ragchunk.cli._app import EXIT_FAILED_INPUTS, EXIT_OK, app, one_line, usage_errors
from ragchunk.cli._options import READING_FLAGS, ConfigFlag, flags_of, settings_command
from ragchunk.cli._panels import OUTPUT, RUN, PanelledCommand
from ragchunk.settings import Settings

if TYPE_CHECKING:
    from ragchunk.runs.index import IndexReport

INDEX_HELP = """Keep a vector store in step with documents: chunk, embed, upsert, delete.

PATH is a file or a directory (walked, as split walks it). Each document is chunked exactly
as `ragchunk split` chunks it with the same options, every chunk embedded (as --embed does)
and written to the store named by --store, beside a ledger of what each document was.

On a rerun, a document whose bytes and settings are unchanged is skipped without being
read; a changed one gets only its new or moved chunks written and its vanished ones
deleted (a chunk whose text is unchanged keeps its vector); a document gone from a folder
named here is deleted (--no-prune keeps it); documents outside these folders are never
touched. A document that fails keeps its old chunks (exit 1). Only texts the vector cache
has not seen are embedded.

Stores: sqlite:///index.db (one file; pip install 'ragchunk[sqlite]'); docs/stores.md
lists the others. Search the store with `ragchunk query`.

Examples:

\b
  ragchunk index docs/ --store sqlite:///index.db
  ragchunk index docs/ --store sqlite:///index.db --dry-run   (a plan only)
  ragchunk index docs/ --store sqlite:///index.db -s markdown --size 800
  ragchunk index docs/ --store sqlite:///index.db --embedder openai \\
    --embed-url http://127.0.0.1:8080/v1 --embed-model nomic-embed-text
  ragchunk query --store sqlite:///index.db "how do I install it?"
"""


@app.command("index", cls=PanelledCommand, help=INDEX_HELP)
@settings_command(
    "store",
    "strategy",
    "size",
    "overlap",
    "unit",
    "tokenizer",
    "options",
    "format",
    "password",
    "language",
    "contextualize",
    "min_size",
    "root",
    "include",
    "exclude",
    "gitignore",
    "max_bytes",
    "allow_empty",
    *READING_FLAGS,
    *(name for name in flags_of("embedding") if name != "embed"),
    *flags_of("chat"),
    "no_prune",
    "dry_run",
    "jobs",
    "timeout",
    "fail_fast",
    "debug",
    "config",
    "quiet",
    "verbose",
)
def index_command(
    paths: Annotated[
        list[str], typer.Argument(help="Files and directories (walked).", metavar="PATH...")
    ],
    flags: Settings,
    store: Annotated[
        str,
        typer.Option(
            "--store",
            help="The vector store's URL: sqlite:///index.db (relative) or "
            "sqlite:////abs/index.db.",
            metavar="URL",
            show_default=False,
            rich_help_panel=OUTPUT,
        ),
    ],
    no_prune: Annotated[
        bool,
        typer.Option(
            "--no-prune",
            help="Keep documents that are gone from the folders named (default: delete them).",
            rich_help_panel=OUTPUT,
        ),
    ] = False,
    dry_run: Annotated[
        bool,
        typer.Option(
            "--dry-run",
            help="Print what would change (documents, chunks, texts to embed and their "
            "tokens) and change nothing.",
            rich_help_panel=RUN,
        ),
    ] = False,
    quiet: Annotated[
        bool,
        typer.Option("--quiet", "-q", help="No summary on stderr.", rich_help_panel=RUN),
    ] = False,
    verbose: Annotated[
        bool,
        typer.Option("--verbose", "-v", help="A line per document on stderr.", rich_help_panel=RUN),
    ] = False,
    config: ConfigFlag = None,
) -> None:
    """Keep a vector store in step with documents (the help text is INDEX_HELP)."""
    from ragchunk.errors import BackendError, StoreError
    from ragchunk.runs.config import load_config
    from ragchunk.runs.index import index

    def said(source: str, status: str) -> None:
        if verbose and not quiet:
            sys.stderr.write(f"{status:>9}  {source}\n")

    with usage_errors():
        configuration = load_config(config)
        try:
            report = index(
                paths,
                store,
                settings=flags,
                config=configuration,
                prune=not no_prune,
                dry_run=dry_run,
                on_document=said,
            )
        except (StoreError, BackendError) as exc:
            sys.stderr.write(f"Error: {one_line(str(exc))}\n")
            raise typer.Exit(EXIT_FAILED_INPUTS) from None
        except KeyboardInterrupt:
            sys.stderr.write("interrupted: each document is in its old state or its new one\n")
            raise typer.Exit(130) from None
    for failure in report.failures:
        sys.stderr.write(f"Error: {one_line(failure.error or '')}\n")
    if dry_run:
        sys.stdout.write(describe(report))
    elif not quiet:
        sys.stderr.write(describe(report))
    if report.failures:
        raise typer.Exit(EXIT_FAILED_INPUTS)
    raise typer.Exit(EXIT_OK)


def describe(report: IndexReport) -> str:
    """Return the summary of a run (a dry run's plan), a few lines of at most 80 columns."""
    would = "would be " if report.dry_run else ""
    documents = [
        f"{report.added} {would}added",
        f"{report.changed} {would}changed",
        f"{report.unchanged} unchanged",
        f"{report.deleted} {would}deleted",
    ]
    if report.kept:
        documents.append(f"{report.kept} gone but kept (--no-prune)")
    if report.failures:
        documents.append(f"{len(report.failures)} failed (their old chunks kept)")
    counts = report.counts
    verb = "to write" if report.dry_run else "written"
    chunks = [
        f"{counts.written} {verb}",
        f"{counts.moved} {'to move' if report.dry_run else 'moved'}",
        f"{counts.deleted} {'to delete' if report.dry_run else 'deleted'}",
    ]
    if report.dry_run:
        texts = f"texts to embed: {report.embedded} ({report.tokens} tokens)"
    else:
        texts = f"texts embedded: {report.embedded}"
    texts += f", from the cache: {report.cached}, vectors kept: {report.reused}"
    heading = f"{report.store} (dry run: nothing changed)" if report.dry_run else report.store
    return (
        f"{heading}\n"
        f"  documents: {', '.join(documents)}\n"
        f"  chunks: {', '.join(chunks)}\n"
        f"  {texts}\n"
    )
