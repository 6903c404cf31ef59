"""What shapes the chunks of a parsed document: the strategy, its size and options, the records."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from ragchunk.defaults import DEFAULT_STRATEGY, DEFAULT_TOKENIZER, UNITS, Unit
from ragchunk.settings._leaf import INPUT, OUTPUT, STRATEGY, leaf


@dataclass(frozen=True, slots=True, kw_only=True)
class Chunking:
    """The strategy, its size and options, and what every chunk record carries.

    ``options`` are the strategy's own (``-O key=value``, a file's ``[options]``): strings from
    the command line or typed values from a file, kept as given. Only the strategy knows their
    types, so the plan converts them once, by the strategy's declared options type.
    """

    strategy: str = leaf(
        "--strategy", "-s", default=DEFAULT_STRATEGY, help="Chunking strategy.", panel=STRATEGY
    )
    size: int | None = leaf(
        "--size",
        default=None,
        help="Hard maximum chunk size, overlap included [default: per strategy; "
        "hierarchical and sentence-count mode are unbounded unless it is given].",
        panel=STRATEGY,
        show_default=False,
    )
    overlap: int | None = leaf(
        "--overlap",
        default=None,
        help="Units a chunk may repeat from the previous one [default: per strategy].",
        panel=STRATEGY,
        show_default=False,
    )
    unit: Unit | None = leaf(
        "--unit",
        default=None,
        help="Unit of --size and --overlap: chars or tokens [default: per strategy].",
        panel=STRATEGY,
        show_default=False,
        completions=UNITS,
    )
    tokenizer: str = leaf(
        "--tokenizer",
        default=DEFAULT_TOKENIZER,
        help="tiktoken encoding name or path to a tokenizer.json.",
        panel=STRATEGY,
    )
    options: Mapping[str, object] = leaf(
        "--option",
        "-O",
        factory=dict,
        help="Strategy option as key=value (repeatable).",
        panel=STRATEGY,
        show_default=False,
        param="option",
        follows="strategy",  # options written for one strategy mean nothing to another
    )
    count_tokens: bool = leaf(
        "--count-tokens", default=False, help="Add a token count to every chunk.", panel=OUTPUT
    )
    contextualize: bool = leaf(
        "--contextualize",
        default=False,
        help="Add a context field (heading breadcrumb + text) to every chunk; --size then "
        "counts the breadcrumb.",
        panel=STRATEGY,
    )
    min_size: int | None = leaf(
        "--min-size",
        default=None,
        help="Merge chunks smaller than this (unit of --size) into a neighbour under the "
        "same heading, within --size.",
        panel=STRATEGY,
        show_default=False,
    )
    parents: str | None = leaf(
        "--parents",
        default=None,
        help="Also emit parent chunks of SIZE (unit of --size, cut by recursive unless "
        "STRATEGY is named), each followed by the chunks cut inside it, which carry its id "
        "as parent_id.",
        panel=STRATEGY,
        metavar="[STRATEGY:]SIZE[:OVERLAP]",
        show_default=False,
    )
    hashes: bool = leaf(
        "--hashes",
        default=False,
        help="Add doc_hash and hash (SHA-256) to every chunk.",
        panel=OUTPUT,
    )
    format: str | None = leaf(
        "--format",
        default=None,
        help="Force the input format instead of detecting it.",
        panel=INPUT,
        show_default=False,
        param="input_format",
    )
    language: str | None = leaf(
        "--language",
        default=None,
        help="Force the programming language of code inputs (implies --format code).",
        panel=INPUT,
        show_default=False,
    )

    def __post_init__(self) -> None:
        if self.unit is not None:
            from ragchunk.options import parse_unit  # not at import: `--help` reads this module

            parse_unit(self.unit)  # the size's own checks need the strategy: the plan's
