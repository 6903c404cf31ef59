"""The options that ``split`` and ``view`` share, declared once, and the settings built from them.

Each ``...Flag`` alias is one option's declaration (its flag names, help and completion); a
command takes it as a parameter of the same name, so ``settings_from_flags`` can read the
values back from the command's parameters. The recipe options (``RECIPE_FLAGS``: what shapes
the chunks of an already parsed document) are also what ``view --compare`` parses from its
string, with the same declarations (``parse_recipe_flags``).
"""

from __future__ import annotations

import shlex
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Annotated, Final, Optional, TypeVar

import typer
import typer.main

# Typer 0.28 vendors Click and re-exports only some of its exceptions (never their base).
from typer._click.core import Context as ClickContext
from typer._click.exceptions import ClickException

from ragchunk import strategies
from ragchunk.cli._panels import FORMATS, INPUT, OUTPUT, RUN, STRATEGY
from ragchunk.defaults import DEFAULT_TOKENIZER, UNITS
from ragchunk.errors import UsageError

if TYPE_CHECKING:
    from ragchunk.runs.config import Settings


def _complete_strategy(incomplete: str) -> list[str]:
    return [name for name in strategies.names() if name.startswith(incomplete)]


# What shapes the chunks of a parsed document.
StrategyFlag = Annotated[
    str,
    typer.Option(
        "--strategy",
        "-s",
        help="Chunking strategy.",
        autocompletion=_complete_strategy,
        rich_help_panel=STRATEGY,
    ),
]
SizeFlag = Annotated[
    Optional[int],  # noqa: UP045 - Typer needs Optional on Python 3.11
    typer.Option(
        "--size",
        help="Hard maximum chunk size, overlap included [default: per strategy; "
        "hierarchical and sentence-count mode are unbounded unless it is given].",
        show_default=False,
        rich_help_panel=STRATEGY,
    ),
]
OverlapFlag = Annotated[
    Optional[int],  # noqa: UP045
    typer.Option(
        "--overlap",
        help="Units a chunk may repeat from the previous one [default: per strategy].",
        show_default=False,
        rich_help_panel=STRATEGY,
    ),
]
UnitFlag = Annotated[
    Optional[str],  # noqa: UP045
    typer.Option(
        "--unit",
        help="Unit of --size and --overlap: chars or tokens [default: per strategy].",
        show_default=False,
        autocompletion=lambda: list(UNITS),
        rich_help_panel=STRATEGY,
    ),
]
TokenizerFlag = Annotated[
    str,
    typer.Option(
        "--tokenizer",
        help="tiktoken encoding name or path to a tokenizer.json.",
        rich_help_panel=STRATEGY,
    ),
]
OptionFlag = Annotated[
    Optional[list[str]],  # noqa: UP045
    typer.Option(
        "--option",
        "-O",
        help="Strategy option as key=value (repeatable).",
        show_default=False,
        rich_help_panel=STRATEGY,
    ),
]
CountTokensFlag = Annotated[
    bool,
    typer.Option(
        "--count-tokens", help="Add a token count to every chunk.", rich_help_panel=OUTPUT
    ),
]
ContextualizeFlag = Annotated[
    bool,
    typer.Option(
        "--contextualize",
        help="Add a context field (heading breadcrumb + text) to every chunk; --size then "
        "counts the breadcrumb.",
        rich_help_panel=STRATEGY,
    ),
]
MinSizeFlag = Annotated[
    Optional[int],  # noqa: UP045
    typer.Option(
        "--min-size",
        help="Merge chunks smaller than this (unit of --size) into a neighbour under the "
        "same heading, within --size.",
        show_default=False,
        rich_help_panel=STRATEGY,
    ),
]
ParentsFlag = Annotated[
    Optional[str],  # noqa: UP045
    typer.Option(
        "--parents",
        help="Also emit parent chunks of SIZE (unit of --size, cut by recursive unless "
        "STRATEGY is named), each followed by the chunks cut inside it, which carry its id "
        "as parent_id.",
        metavar="[STRATEGY:]SIZE[:OVERLAP]",
        show_default=False,
        rich_help_panel=STRATEGY,
    ),
]

# How an input is read and parsed.
FormatFlag = Annotated[
    Optional[str],  # noqa: UP045
    typer.Option(
        "--format",
        help="Force the input format instead of detecting it.",
        show_default=False,
        rich_help_panel=INPUT,
    ),
]
PasswordFlag = Annotated[
    Optional[str],  # noqa: UP045
    typer.Option(
        "--password",
        help="Password for encrypted PDFs.",
        show_default=False,
        rich_help_panel=FORMATS,
    ),
]
LanguageFlag = Annotated[
    Optional[str],  # noqa: UP045
    typer.Option(
        "--language",
        help="Force the programming language of code inputs (implies --format code).",
        show_default=False,
        rich_help_panel=INPUT,
    ),
]
DebugFlag = Annotated[
    bool,
    typer.Option("--debug", help="Show tracebacks for unexpected errors.", rich_help_panel=RUN),
]
TimeoutFlag = Annotated[
    float,
    typer.Option(
        "--timeout",
        help="Fail an input that takes longer than this many seconds; the others go on.",
        metavar="SECONDS",
        rich_help_panel=RUN,
    ),
]
MaxBytesFlag = Annotated[
    int,
    typer.Option(
        "--max-bytes",
        help="Refuse an input larger than this, or whose compressed parts (DOCX members, "
        "PDF streams) expand past it.",
        metavar="BYTES",
        rich_help_panel=INPUT,
    ),
]


def _output_formats() -> list[str]:
    """Return the ``--output-format`` choices: the sink table, loaded now (not for --help)."""
    from ragchunk import sinks

    return list(sinks.output_formats())


OutputFormatFlag = Annotated[
    Optional[str],  # noqa: UP045
    typer.Option(
        "--output-format",
        help="What -o writes: jsonl or parquet [default: parquet for a .parquet file, else jsonl].",
        show_default=False,
        autocompletion=_output_formats,
        rich_help_panel=OUTPUT,
    ),
]
ConfigFlag = Annotated[
    Optional[str],  # noqa: UP045
    typer.Option(
        "--config",
        help="Read settings from this file instead of the ragchunk.toml or "
        "pyproject.toml found from here up.",
        metavar="FILE",
        show_default=False,
        rich_help_panel=RUN,
    ),
]

# Which files of a directory are inputs.
IncludeFlag = Annotated[
    Optional[list[str]],  # noqa: UP045
    typer.Option(
        "--include",
        help="In directories, chunk only files matching GLOB (repeatable).",
        metavar="GLOB",
        show_default=False,
        rich_help_panel=INPUT,
    ),
]
ExcludeFlag = Annotated[
    Optional[list[str]],  # noqa: UP045
    typer.Option(
        "--exclude",
        help="In directories, skip files and directories matching GLOB (repeatable).",
        metavar="GLOB",
        show_default=False,
        rich_help_panel=INPUT,
    ),
]
NoGitignoreFlag = Annotated[
    bool,
    typer.Option(
        "--no-gitignore", help="Also chunk files that .gitignore ignores.", rich_help_panel=INPUT
    ),
]

RECIPE_FLAGS: Final = (
    "strategy",
    "size",
    "overlap",
    "unit",
    "tokenizer",
    "option",
    "count_tokens",
    "contextualize",
    "min_size",
)
"""The parameters that shape the chunks of a parsed document (what ``--compare`` may change)."""


def given_flags(ctx: ClickContext) -> set[str]:
    """Return the parameters the user set (a flag wins over a configuration file)."""
    sources = {name: ctx.get_parameter_source(name) for name in ctx.params}
    return {name for name, source in sources.items() if source and source.name != "DEFAULT"}


def settings_from_flags(params: Mapping[str, object], given: Iterable[str]) -> Settings:
    """Return the chunking settings the flags set; what a flag leaves unset stays None.

    ``params`` are a command's parameters by name (``click.Context.params``); a command
    without one of the shared options leaves that setting unset. Flags whose default is a
    value (``--strategy``, ``--tokenizer``, ``--timeout``, ``--max-bytes``, the embedding
    flags') count only when
    ``given``, so a configuration file's value is not overridden by a default.

    Raises:
        UsageError: a bad ``--unit`` or ``-O`` assignment.
    """
    from ragchunk.options import parse_unit
    from ragchunk.runs.config import Settings

    chosen = set(given)

    def explicit(name: str) -> object:
        return params.get(name) if name in chosen else None

    unit = _text(params.get("unit"))
    return Settings(
        strategy=_text(explicit("strategy")),
        size=_number(params.get("size"), int),
        overlap=_number(params.get("overlap"), int),
        unit=None if unit is None else parse_unit(unit),
        tokenizer=_text(explicit("tokenizer")),
        count_tokens=bool(params.get("count_tokens")) or None,
        format=_text(params.get("input_format")),
        language=_text(params.get("language")),
        hashes=bool(params.get("hashes")) or None,
        timeout=_number(explicit("timeout"), float),
        max_bytes=_number(explicit("max_bytes"), int),
        contextualize=bool(params.get("contextualize")) or None,
        min_size=_number(params.get("min_size"), int),
        parents=_text(params.get("parents")),
        # How inputs are read (cli/_parsing.py); checked by ParseOptions.
        pdf_engine=_text(params.get("pdf_engine")),  # type: ignore[arg-type]
        ocr=_text(params.get("ocr")),  # type: ignore[arg-type]
        ocr_language=_text(params.get("ocr_language")),
        keep=tuple(_texts(params.get("keep"))) or None,  # type: ignore[arg-type]
        comments=bool(params.get("comments")) or None,
        keep_boilerplate=bool(params.get("keep_boilerplate")) or None,
        notes=bool(params.get("notes")) or None,
        hidden_slides=bool(params.get("hidden_slides")) or None,
        options=parse_assignments(_texts(params.get("option")))
        | ({"emit_passages": "true"} if params.get("emit_passages") else {}),
        # Embedding (cli/_embedding.py), split only.
        refine=bool(params.get("refine")) or None,
        embed=bool(params.get("embed")) or None,
        embedder=_text(explicit("embedder")),
        embed_model=_text(params.get("embed_model")),
        embed_url=_text(params.get("embed_url")),
        embed_key_env=_text(explicit("embed_key_env")),
        embed_batch_size=_number(explicit("embed_batch_size"), int),
        embed_timeout=_number(explicit("embed_timeout"), float),
        embed_concurrency=_number(explicit("embed_concurrency"), int),
        embed_retries=_number(explicit("embed_retries"), int),
        device=_text(params.get("device")),
        cache_dir=_text(params.get("cache_dir")),
        no_cache=bool(params.get("no_cache")) or None,
        # The chat model (cli/_chat.py), split only.
        api_base=_text(params.get("api_base")),
        model=_text(params.get("model")),
        api_key_env=_text(explicit("api_key_env")),
        api_timeout=_number(explicit("api_timeout"), float),
        api_concurrency=_number(explicit("api_concurrency"), int),
        api_retries=_number(explicit("api_retries"), int),
    )


def parse_assignments(assignments: Iterable[str]) -> dict[str, str]:
    """Return ``-O key=value`` assignments as a mapping (the last of a key wins).

    Raises:
        UsageError: an assignment without ``=`` or without a key.
    """
    values: dict[str, str] = {}
    for assignment in assignments:
        key, sep, value = assignment.partition("=")
        if not sep or not key.strip():
            raise UsageError(f"-O expects key=value (got {assignment!r})")
        values[key.strip()] = value
    return values


def parse_recipe_flags(text: str, flag: str) -> Settings:
    """Parse a string of recipe options (``'-s recursive --size 300'``) into settings.

    The string is split as a shell would and parsed with the same option declarations as the
    command line (``RECIPE_FLAGS``); ``flag`` names the option that carried it in messages.

    Raises:
        UsageError: the string does not split, names an unknown option or a bad value.
    """
    try:
        words = shlex.split(text)
    except ValueError as exc:
        raise UsageError(f"{flag} {text!r} does not split into options: {exc}") from None
    command = typer.main.get_command(_recipe_app)
    try:
        with command.make_context(flag, words) as ctx:
            return settings_from_flags(ctx.params, given_flags(ctx))
    except ClickException as exc:
        raise UsageError(f"{flag}: {exc.format_message()}") from None


# Click has converted every value to its declared type; these only narrow it for the checker.
def _text(value: object) -> str | None:
    return None if value is None else str(value)


_N = TypeVar("_N", int, float)


def _number(value: object, kind: type[_N]) -> _N | None:
    return value if isinstance(value, kind) else None


def _texts(value: object) -> list[str]:
    return [str(item) for item in value] if isinstance(value, list | tuple) else []


_recipe_app = typer.Typer(add_completion=False, rich_markup_mode=None)


@_recipe_app.command(context_settings={"help_option_names": []})
def _recipe(
    strategy: StrategyFlag = strategies.DEFAULT_STRATEGY,
    size: SizeFlag = None,
    overlap: OverlapFlag = None,
    unit: UnitFlag = None,
    tokenizer: TokenizerFlag = DEFAULT_TOKENIZER,
    option: OptionFlag = None,
    count_tokens: CountTokensFlag = False,
    contextualize: ContextualizeFlag = False,
    min_size: MinSizeFlag = None,
) -> None:
    """Parse the recipe options of ``--compare`` (never run)."""
