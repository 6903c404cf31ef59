"""``ragchunk split``: parse flags, build the plan, run the pipeline, render the results."""

from __future__ import annotations

import dataclasses
import os
import sys
from typing import TYPE_CHECKING, Annotated, Optional, cast

import typer

from ragchunk import strategies
from ragchunk.cli._app import EXIT_OK, app, usage_errors
from ragchunk.cli._chat import (
    ApiBaseFlag,
    ApiConcurrencyFlag,
    ApiKeyEnvFlag,
    ApiRetriesFlag,
    ApiTimeoutFlag,
    DryRunFlag,
    EmitPassagesFlag,
    ModelFlag,
)
from ragchunk.cli._embedding import (
    CacheDirFlag,
    DeviceFlag,
    EmbedBatchSizeFlag,
    EmbedConcurrencyFlag,
    EmbedderFlag,
    EmbedFlag,
    EmbedKeyEnvFlag,
    EmbedModelFlag,
    EmbedRetriesFlag,
    EmbedTimeoutFlag,
    EmbedUrlFlag,
    NoCacheFlag,
    RefineFlag,
)
from ragchunk.cli._options import (
    ConfigFlag,
    ContextualizeFlag,
    CountTokensFlag,
    DebugFlag,
    ExcludeFlag,
    FormatFlag,
    IncludeFlag,
    LanguageFlag,
    MaxBytesFlag,
    MinSizeFlag,
    NoGitignoreFlag,
    OptionFlag,
    OutputFormatFlag,
    OverlapFlag,
    ParentsFlag,
    PasswordFlag,
    SizeFlag,
    StrategyFlag,
    TimeoutFlag,
    TokenizerFlag,
    UnitFlag,
    given_flags,
    settings_from_flags,
)
from ragchunk.cli._panels import OUTPUT, RUN, PanelledCommand
from ragchunk.cli._parsing import (
    AllowEmptyFlag,
    CommentsFlag,
    HiddenSlidesFlag,
    KeepBoilerplateFlag,
    KeepFlag,
    NotesFlag,
    OcrFlag,
    OcrLanguageFlag,
    PdfEngineFlag,
)
from ragchunk.defaults import (
    DEFAULT_MAX_BYTES,
    DEFAULT_TIMEOUT,
    DEFAULT_TOKENIZER,
    ENGINES,
)
from ragchunk.errors import OptionError

if TYPE_CHECKING:
    from ragchunk.defaults import Engine
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
SPLIT_SUMMARY = "Split documents into chunks, printed as JSONL."
"""The line of ``ragchunk --help`` that names this command (its first sentence is too long)."""


@app.command("split", cls=PanelledCommand, help=SPLIT_HELP, short_help=SPLIT_SUMMARY)
def split_command(
    ctx: typer.Context,
    paths: Annotated[
        list[str],
        typer.Argument(help="Files, directories, or - for standard input.", metavar="PATH..."),
    ],
    strategy: StrategyFlag = strategies.DEFAULT_STRATEGY,
    size: SizeFlag = None,
    overlap: OverlapFlag = None,
    unit: UnitFlag = None,
    tokenizer: TokenizerFlag = DEFAULT_TOKENIZER,
    option: OptionFlag = None,
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
            rich_help_panel=OUTPUT,
        ),
    ] = None,
    table: Annotated[
        bool, typer.Option("--table", help="Show a table instead of JSONL.", rich_help_panel=OUTPUT)
    ] = False,
    stats: Annotated[
        bool,
        typer.Option(
            "--stats",
            help="Also print a size summary on stderr (stdout keeps the chunks).",
            rich_help_panel=OUTPUT,
        ),
    ] = False,
    count_tokens: CountTokensFlag = False,
    input_format: FormatFlag = None,
    password: PasswordFlag = None,
    language: LanguageFlag = None,
    debug: DebugFlag = False,
    include: IncludeFlag = None,
    exclude: ExcludeFlag = None,
    no_gitignore: NoGitignoreFlag = False,
    jobs: Annotated[
        Optional[int],  # noqa: UP045
        typer.Option(
            "--jobs",
            "-j",
            help="Worker processes (default: the number of CPU cores).",
            show_default=False,
            rich_help_panel=RUN,
        ),
    ] = None,
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
    fail_fast: Annotated[
        bool,
        typer.Option(
            "--fail-fast", help="Stop at the first input that fails.", rich_help_panel=RUN
        ),
    ] = False,
    manifest: Annotated[
        Optional[str],  # noqa: UP045
        typer.Option(
            "--manifest",
            help="Record inputs here; reruns skip unchanged ones and remove the "
            "outputs of deleted ones.",
            metavar="FILE",
            show_default=False,
            rich_help_panel=RUN,
        ),
    ] = None,
    hashes: Annotated[
        bool,
        typer.Option(
            "--hashes",
            help="Add doc_hash and hash (SHA-256) to every chunk.",
            rich_help_panel=OUTPUT,
        ),
    ] = False,
    timeout: TimeoutFlag = DEFAULT_TIMEOUT,
    max_bytes: MaxBytesFlag = DEFAULT_MAX_BYTES,
    check: Annotated[
        bool,
        typer.Option(
            "--check",
            help="Also check every input's chunks against the output contract (verbatim, "
            "nothing lost, size, order, overlap, determinism); report violations on stderr "
            "and exit 1 if any.",
            rich_help_panel=RUN,
        ),
    ] = False,
    config: ConfigFlag = None,
    contextualize: ContextualizeFlag = False,
    min_size: MinSizeFlag = None,
    parents: ParentsFlag = None,
    root: Annotated[
        Optional[str],  # noqa: UP045
        typer.Option(
            "--root",
            help="doc_id is each file's path relative to DIR (files outside it keep their "
            "absolute path) [default: the current directory].",
            metavar="DIR",
            show_default=False,
            rich_help_panel=OUTPUT,
        ),
    ] = None,
    pdf_engine: PdfEngineFlag = None,
    ocr: OcrFlag = None,
    ocr_language: OcrLanguageFlag = None,
    keep: KeepFlag = None,
    comments: CommentsFlag = False,
    allow_empty: AllowEmptyFlag = False,
    keep_boilerplate: KeepBoilerplateFlag = False,
    notes: NotesFlag = False,
    hidden_slides: HiddenSlidesFlag = False,
    refine: RefineFlag = False,
    embed: EmbedFlag = False,
    embedder: EmbedderFlag = "local",
    embed_model: EmbedModelFlag = None,
    embed_url: EmbedUrlFlag = None,
    embed_key_env: EmbedKeyEnvFlag = "OPENAI_API_KEY",
    embed_batch_size: EmbedBatchSizeFlag = 32,
    embed_timeout: EmbedTimeoutFlag = 60.0,
    embed_concurrency: EmbedConcurrencyFlag = 4,
    embed_retries: EmbedRetriesFlag = 4,
    device: DeviceFlag = None,
    cache_dir: CacheDirFlag = None,
    no_cache: NoCacheFlag = False,
    output_format: OutputFormatFlag = None,
    engine: Annotated[
        str,
        typer.Option(
            "--engine",
            help="Where to chunk: local (worker processes, --jobs) or ray (a Ray cluster: "
            "a local one unless --ray-address).",
            autocompletion=lambda: list(ENGINES),
            rich_help_panel=RUN,
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
            rich_help_panel=RUN,
        ),
    ] = None,
    api_base: ApiBaseFlag = None,
    model: ModelFlag = None,
    api_key_env: ApiKeyEnvFlag = "OPENAI_API_KEY",
    api_timeout: ApiTimeoutFlag = 120.0,
    api_concurrency: ApiConcurrencyFlag = 2,
    api_retries: ApiRetriesFlag = 2,
    emit_passages: EmitPassagesFlag = False,
    dry_run: DryRunFlag = False,
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
    from ragchunk.runs.config import RunSettings, load_config

    with usage_errors():
        flags = settings_from_flags(ctx.params, given_flags(ctx))
        run = RunSettings(
            include=tuple(include) if include else None,
            exclude=tuple(exclude) if exclude else None,
            gitignore=False if no_gitignore else None,
            jobs=jobs,
            fail_fast=fail_fast or None,
            manifest=manifest,
            root=root,
            engine=_parse_engine(engine) if "engine" in given_flags(ctx) else None,
            ray_address=ray_address,
        )
        configuration = load_config(config)
        plans = make_plans(
            configuration,
            flags,
            password=password,
            debug=debug,
            check=check,
            allow_empty=allow_empty,
            dry_run=dry_run,
        )
        try:
            settings = run.over(configuration.run)
            if dry_run:  # nothing is written, so nothing may be recorded as done
                settings = dataclasses.replace(settings, manifest=None)
            batch = prepare(
                paths,
                plans,
                settings,
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


def _parse_engine(value: str) -> Engine:
    if value not in ENGINES:
        raise OptionError("--engine", f"must be one of {', '.join(ENGINES)} (got {value!r})")
    return cast("Engine", value)
