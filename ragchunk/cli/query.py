"""``ragchunk query``: the chunks of a store nearest a question, readable at 80 columns or JSONL."""

from __future__ import annotations

import json
import sys
import textwrap
from typing import TYPE_CHECKING, Annotated, Final

import typer

from ragchunk.cli._app import EXIT_FAILED_INPUTS, app, one_line, usage_errors
from ragchunk.cli._options import ConfigFlag, settings_command
from ragchunk.cli._panels import OUTPUT, PanelledCommand
from ragchunk.settings import Settings

if TYPE_CHECKING:
    from ragchunk.sinks._store import Hit

QUERY_HELP = """Print the chunks of a vector store nearest a question, best first.

The question is embedded with the embedder that `ragchunk index` used for the store (it is
recorded in the store); the embedding options below override it. Each hit shows its
score (cosine similarity; with --hybrid a fused rank score), source, pages, headings,
span and the start of its text; --json prints the records as stored, plus "score".

Examples:

\b
  ragchunk query --store sqlite:///index.db "how do I install it?"
  ragchunk query --store sqlite:///index.db "refund policy" -k 10 --hybrid
  ragchunk query --store sqlite:///index.db "tables" --filter page_start=3
  ragchunk query --store sqlite:///index.db intro --filter doc_id=a.md --json
"""
WIDTH: Final = 80
EXCERPT_LINES: Final = 3


@app.command("query", cls=PanelledCommand, help=QUERY_HELP)
@settings_command(
    "store",
    "k",
    "filters",
    "hybrid",
    "as_json",
    "embedder",
    "embed_model",
    "embed_url",
    "embed_key_env",
    "embed_timeout",
    "device",
    "cache_dir",
    "no_cache",
    "config",
)
def query_command(
    question: Annotated[str, typer.Argument(help="What to look for.", metavar="QUESTION")],
    flags: Settings,
    store: Annotated[
        str,
        typer.Option(
            "--store",
            help="The vector store's URL (as given to ragchunk index).",
            metavar="URL",
            show_default=False,
        ),
    ],
    k: Annotated[int, typer.Option("-k", help="How many chunks to print.")] = 5,
    filters: Annotated[
        list[str] | None,
        typer.Option(
            "--filter",
            help="Keep only chunks whose field equals the value (repeatable): page_start=3, "
            "timestamp_start=21.5, source=docs/a.md, strategy=markdown, metadata.lang=en. "
            "Numbers compare as numbers; quote one (version='\"3\"') to compare it as text.",
            metavar="KEY=VALUE",
            show_default=False,
        ),
    ] = None,
    hybrid: Annotated[
        bool,
        typer.Option(
            "--hybrid",
            help="Mix keyword matches (the store's full-text index: SQLite) with vector "
            "nearness (reciprocal rank fusion).",
        ),
    ] = False,
    as_json: Annotated[
        bool,
        typer.Option(
            "--json", help="One JSON record per line, with its score.", rich_help_panel=OUTPUT
        ),
    ] = False,
    config: ConfigFlag = None,
) -> None:
    """Print the chunks nearest a question (the help text is QUERY_HELP)."""
    from ragchunk.errors import BackendError, StoreError
    from ragchunk.runs.config import load_config
    from ragchunk.runs.query import parse_filters, query
    from ragchunk.settings import merge

    with usage_errors():
        configuration = load_config(config)
        settings = merge(flags, configuration.defaults)
        try:
            hits = query(
                store,
                question,
                k=k,
                filters=parse_filters(filters or []),
                hybrid=hybrid,
                settings=settings,
            )
        except (StoreError, BackendError) as exc:
            sys.stderr.write(f"Error: {one_line(str(exc))}\n")
            raise typer.Exit(EXIT_FAILED_INPUTS) from None
    if as_json:
        sys.stdout.writelines(json_line(hit) for hit in hits)
        return
    if not hits:
        why = "no chunk matches the filters" if filters else "no chunks (ragchunk index fills it)"
        sys.stderr.write(f"{store}: {why}\n")
        return
    sys.stdout.write("\n".join(describe(rank, hit) for rank, hit in enumerate(hits, 1)))


def json_line(hit: Hit) -> str:
    """Return a hit as one JSON line: the record's fields (no vector), then ``score``."""
    record = hit.record
    data: dict[str, object] = {
        "id": record.id,
        "doc_id": record.doc_id,
        "source": record.source,
        "index": record.index,
        "text": record.text,
        "start": record.start,
        "end": record.end,
    }
    if record.page_start is not None:
        data["page_start"] = record.page_start
        data["page_end"] = record.page_end
    if record.timestamp_start is not None:
        data["timestamp_start"] = record.timestamp_start
        data["timestamp_end"] = record.timestamp_end
    data |= {
        "headings": list(record.headings),
        "strategy": record.strategy,
        "metadata": dict(record.metadata),
        "key": record.key,
        "score": round(hit.score, 6),
    }
    return json.dumps(data, ensure_ascii=False) + "\n"


def describe(rank: int, hit: Hit) -> str:
    """Return a hit as a few lines of at most ``WIDTH`` columns.

    The rank, score and source; where it is (pages, span) and its headings; its text's start.
    """
    record = hit.record
    head = f"{rank:>2}. {hit.score:.3f}  "
    source = record.source
    if len(head) + len(source) > WIDTH:  # keep the file's end: its name
        source = "…" + source[len(head) + len(source) - WIDTH + 1 :]
    where = [f"chars {record.start}-{record.end}"]
    if record.page_start is not None:
        first, last = record.page_start, record.page_end
        where.insert(0, f"p. {first}" if first == last else f"pp. {first}-{last}")
    if record.timestamp_start is not None:
        where.insert(0, f"{record.timestamp_start:g}-{record.timestamp_end:g} s")
    if record.headings:
        where.append(" > ".join(record.headings))
    indent = " " * 4
    lines = [head + source]
    wrap = {"initial_indent": indent, "subsequent_indent": indent, "break_on_hyphens": False}
    lines += textwrap.wrap(" · ".join(where), WIDTH, **wrap)  # type: ignore[arg-type]
    text = " ".join(record.text.split())
    lines += textwrap.wrap(text, WIDTH, max_lines=EXCERPT_LINES, placeholder=" …", **wrap)  # type: ignore[arg-type]
    return "\n".join(lines) + "\n"
