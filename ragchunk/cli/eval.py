"""``ragchunk eval``: score chunking configurations by retrieval over the user's own questions."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional

import typer

from ragchunk import strategies
from ragchunk.cli._app import EXIT_FAILED_INPUTS, app, one_line, usage_errors
from ragchunk.cli._options import flags_of, settings_command
from ragchunk.cli._panels import CHAT, RUN, STRATEGY, PanelledCommand
from ragchunk.errors import OptionError, RagchunkError, UsageError
from ragchunk.settings import Settings

if TYPE_CHECKING:
    from ragchunk.backends import EmbedderSpec
    from ragchunk.backends.cache import CachedEmbedder
    from ragchunk.evaluation.corpus import Corpus
    from ragchunk.evaluation.questions import Question
    from ragchunk.evaluation.run import Report
    from ragchunk.evaluation.setups import Setup

EVAL_HELP = """Score chunking configurations by retrieval: which one finds your questions' evidence?

DOCS is a directory (walked as split walks it) or one file. Every document is chunked with
each configuration; chunks and questions are embedded (the cache is shared with split
--embed), the top k chunks are retrieved per question by cosine similarity, and recall,
precision, IoU and precision at perfect recall (Ω) of the evidence spans are reported, in
characters and in cl100k_base tokens.

Questions (JSONL, or CSV by a .csv name), one per line:

\b
  {"id": "q1", "question": "...", "document": "sub/file.md",
   "evidence": [{"start": 120, "end": 198}, {"excerpt": "verbatim text"}]}

Examples:

\b
  ragchunk eval fixtures/ --questions fixtures/questions.jsonl \\
    -s recursive,token --size 200,400
  ragchunk eval docs/ --questions q.csv --size 256,512 --overlap 0,64 \\
    --unit tokens
  ragchunk eval docs/ --questions q.jsonl --config setups.toml --json r.json
  ragchunk eval docs/ --questions q.jsonl --size 200,400,800 --plot out.png
  ragchunk eval docs/ --questions new.jsonl --generate 5 \\
    --api-base URL --model m
"""


def _list_help(what: str) -> str:
    return f"{what}; a comma-separated list sweeps over each value (every combination is scored)."


@app.command(
    "eval",
    cls=PanelledCommand,
    help=EVAL_HELP,
)
@settings_command(
    "questions",
    "strategy",
    "size",
    "overlap",
    "unit",
    "tokenizer",
    "options",
    "contextualize",
    "min_size",
    "config",
    "top_k",
    "json_path",
    "plot_path",
    "per_document",
    "quiet",
    "include",
    "exclude",
    "gitignore",
    "format",
    "password",
    "max_bytes",
    "max_text",
    *(name for name in flags_of("embedding") if name != "embed"),  # records are not written
    "debug",
    "generate",
    "evidence",
    *flags_of("chat"),
)
def eval_command(
    docs: Annotated[
        str,
        typer.Argument(help="A directory of documents, or one file.", metavar="DOCS"),
    ],
    flags: Settings,
    questions: Annotated[
        str,
        typer.Option("--questions", help="The question file (JSONL or CSV).", metavar="FILE"),
    ],
    strategy: Annotated[
        Optional[str],  # noqa: UP045 - Typer needs Optional on Python 3.11
        typer.Option(
            "--strategy",
            "-s",
            help=_list_help("Chunking strategy [default: recursive]"),
            show_default=False,
            rich_help_panel=STRATEGY,
        ),
    ] = None,
    size: Annotated[
        Optional[str],  # noqa: UP045
        typer.Option(
            "--size",
            help=_list_help("Hard maximum chunk size"),
            show_default=False,
            rich_help_panel=STRATEGY,
        ),
    ] = None,
    overlap: Annotated[
        Optional[str],  # noqa: UP045
        typer.Option(
            "--overlap", help=_list_help("Overlap"), show_default=False, rich_help_panel=STRATEGY
        ),
    ] = None,
    config: Annotated[
        Optional[str],  # noqa: UP045
        typer.Option(
            "--config",
            help="Named setups to compare, from a TOML file of [setups.NAME] tables (instead "
            "of -s/--size/--overlap lists).",
            metavar="FILE",
            show_default=False,
            rich_help_panel=STRATEGY,
        ),
    ] = None,
    top_k: Annotated[int, typer.Option("--top-k", "-k", help="Chunks retrieved per question.")] = 5,
    json_path: Annotated[
        Optional[str],  # noqa: UP045
        typer.Option(
            "--json",
            help="Also write the full report (per document and question) as JSON to FILE; "
            "- writes it to stdout instead of the tables.",
            metavar="FILE|-",
            show_default=False,
        ),
    ] = None,
    plot_path: Annotated[
        Optional[str],  # noqa: UP045
        typer.Option(
            "--plot",
            help="Draw recall and IoU against mean chunk size per strategy to a .png or .svg "
            "file (needs ragchunk[eval]).",
            metavar="FILE",
            show_default=False,
        ),
    ] = None,
    per_document: Annotated[
        bool,
        typer.Option("--per-document", help="Also show the scores of each document."),
    ] = False,
    quiet: Annotated[
        bool,
        typer.Option(
            "--quiet", "-q", help="No progress or warnings on stderr.", rich_help_panel=RUN
        ),
    ] = False,
    generate: Annotated[
        Optional[int],  # noqa: UP045
        typer.Option(
            "--generate",
            help="First write N questions per document to the --questions FILE (which must "
            "not exist yet), asking the chat endpoint of --api-base and --model; only questions "
            "whose evidence is found verbatim are kept. Then score them.",
            metavar="N",
            show_default=False,
            rich_help_panel=CHAT,
        ),
    ] = None,
    evidence: Annotated[
        str,
        typer.Option(
            "--evidence",
            help="--generate: the model names numbered sentences as evidence (sentences: exact "
            "by construction, best for small models) or copies passages (excerpts).",
            rich_help_panel=CHAT,
        ),
    ] = "sentences",
) -> None:
    """Score chunking configurations (the help text is EVAL_HELP)."""
    from ragchunk.backends import check_embedder
    from ragchunk.cli._eval_tables import show_report
    from ragchunk.evaluation.corpus import load_documents
    from ragchunk.evaluation.questions import read_questions, resolve
    from ragchunk.evaluation.report import check_plot, plot, report_json
    from ragchunk.pipeline.scopes import plan_from_settings
    from ragchunk.runs.globs import make_globs

    run = flags.run
    with usage_errors():
        # -s, --size and --overlap are lists here (not settings): each setup sets its own.
        if top_k < 1:
            raise OptionError("--top-k", f"must be at least 1 (got {top_k})")
        setups = _setups(flags, config, strategy, size, overlap)
        # How documents are read, and the embedder of retrieval.
        base = plan_from_settings(flags)
        spec = base.recipe.embedder
        check_embedder(spec, why="ragchunk eval")
        if plot_path is not None:
            check_plot(plot_path)
        for flag, target in (("--json", json_path), ("--plot", plot_path)):
            if target not in (None, "-") and not Path(str(target)).parent.is_dir():
                raise UsageError(f"{flag}: no directory to write {target} in")
        if generate is None:
            asked = read_questions(questions)
        elif Path(questions).exists():
            raise UsageError(
                f"--generate: {questions} exists; it writes a new question file "
                "(move the old one, or name another with --questions)"
            )
        corpus = load_documents(
            docs,
            base,
            include=make_globs(run.include),
            exclude=make_globs(run.exclude),
            gitignore=run.gitignore,
            skip=[questions],
        )
        if not quiet:
            for failure in corpus.failed:
                sys.stderr.write(f"warning: {one_line(failure)} (left out)\n")
        if generate is not None:
            from ragchunk.cli._generate import generate_file

            generate_file(corpus, base, generate, evidence, questions, quiet=quiet)
            asked = read_questions(questions)
        resolved = resolve(asked, corpus.texts(), questions)
    try:
        with usage_errors():
            report = _run(corpus, resolved, setups, spec, base.policy.cache, top_k, quiet)
    except RagchunkError as exc:  # the embedder or a strategy failed on a document
        sys.stderr.write(f"Error: {one_line(str(exc))}\n")
        raise typer.Exit(EXIT_FAILED_INPUTS) from None
    if json_path == "-":
        sys.stdout.write(json.dumps(report_json(report), indent=2) + "\n")
    else:
        show_report(report, per_document=per_document)
    with usage_errors():
        if json_path not in (None, "-"):
            _write_json(report, json_path)
        if plot_path is not None:
            plot(report, plot_path)


def _run(
    corpus: Corpus,
    resolved: list[Question],
    setups: list[Setup],
    spec: EmbedderSpec,
    cache: str | None,
    top_k: int,
    quiet: bool,
) -> Report:
    from ragchunk.backends import open_embedder
    from ragchunk.cli._eval_tables import progress
    from ragchunk.evaluation.run import evaluate

    def models(setup: Setup) -> CachedEmbedder:
        return open_embedder(setup.plan.recipe.embedder, setup.plan.policy.cache)

    with progress(len(setups), quiet=quiet) as tell:
        return evaluate(
            corpus,
            resolved,
            setups,
            embedder=open_embedder(spec, cache),
            top_k=top_k,
            open_embedder=models,
            progress=tell,
        )


def _setups(
    flags: Settings,
    config: str | None,
    strategy: str | None,
    size: str | None,
    overlap: str | None,
) -> list[Setup]:
    from ragchunk.evaluation.setups import read_setups, sweep

    if config is not None:
        for flag, value in (("--strategy", strategy), ("--size", size), ("--overlap", overlap)):
            if value is not None:
                raise UsageError(
                    f"{flag} cannot be combined with --config: set it in the setups of {config}"
                )
        return read_setups(config, flags)
    names = _names(strategy) if strategy is not None else [strategies.DEFAULT_STRATEGY]
    sizes: list[int | None] = list(_numbers(size, "--size")) if size is not None else [None]
    overlaps: list[int | None] = (
        list(_numbers(overlap, "--overlap")) if overlap is not None else [None]
    )
    return sweep(flags, names, sizes, overlaps)


def _names(text: str) -> list[str]:
    names = [part.strip() for part in text.split(",")]
    if not all(names):
        raise OptionError("--strategy", f"must be names separated by commas (got {text!r})")
    return list(dict.fromkeys(names))


def _numbers(text: str, flag: str) -> list[int]:
    values = []
    for part in text.split(","):
        try:
            value = int(part.strip())
        except ValueError:
            raise OptionError(
                flag, f"must be whole numbers separated by commas (got {text!r})"
            ) from None
        if value < 0:
            raise OptionError(flag, f"must not be negative (got {value})")
        values.append(value)
    return list(dict.fromkeys(values))


def _write_json(report: Report, path: str) -> None:
    from ragchunk.evaluation.report import report_json
    from ragchunk.sinks.atomic import atomic_writer

    data = json.dumps(report_json(report), indent=2) + "\n"
    try:
        with atomic_writer(Path(path)) as handle:
            handle.write(data)
    except OSError as exc:
        raise UsageError(f"--json: cannot write {path} ({exc.strerror or exc})") from None
