"""sentence: whole sentences packed up to the size; overlap made of whole sentences (SPEC §4).

Sentences come from ``text.sentences`` (abbreviations, decimals, initials, quotes, ellipses,
lists). A chunk runs from a sentence's first character to a later sentence's last one, and the
next chunk repeats the last sentences that fit in ``--overlap``. A sentence larger than the
size alone is split by the recursive separators (clause, word, grapheme) and its pieces carry
``metadata.oversize_split``. Sentence-count mode (``-O sentences=N``) puts at most N sentences
in a chunk and repeats ``overlap_sentences`` of them; it has no size limit unless ``--size``
is given.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, get_args

from ragchunk.errors import OptionError
from ragchunk.options import Budget
from ragchunk.strategies._spec import Bounds, Context, Strategy
from ragchunk.text.languages import LanguageOption, detect_language
from ragchunk.text.refine import refine_by_words
from ragchunk.text.sentences import split_sentences
from ragchunk.text.spans import spans_from_windows
from ragchunk.text.units import pack_units

if TYPE_CHECKING:
    from ragchunk.model import Document, Span


@dataclass(frozen=True, slots=True, kw_only=True)
class SentenceOptions:
    """Options of the sentence strategy."""

    budget: Budget = Budget(size=512, overlap=128)
    sentences: int | None = field(
        default=None,
        metadata={
            "help": "Sentence-count mode: at most this many sentences per chunk. --size then "
            "binds only when given, and --overlap gives way to overlap_sentences."
        },
    )
    overlap_sentences: int = field(
        default=0,
        metadata={"help": "In sentence-count mode, sentences a chunk repeats from the last one."},
    )
    language: LanguageOption = field(
        default="auto",
        metadata={
            "help": "Sentence rules (abbreviations, ordinals, quotes) of en, de, fr, es, it, pt "
            "or nl; auto picks one per document from its stop words. CJK and Devanagari full "
            "stops work in all."
        },
    )

    def __post_init__(self) -> None:
        if self.language not in get_args(LanguageOption):
            choices = ", ".join(get_args(LanguageOption))
            raise OptionError("language", f"must be one of {choices} (got {self.language!r})")
        if self.sentences is None:
            if self.overlap_sentences:
                raise OptionError(
                    "overlap_sentences", "applies only in sentence-count mode (set sentences too)"
                )
            return
        if self.sentences < 1:
            raise OptionError("sentences", f"must be at least 1 (got {self.sentences})")
        if not 0 <= self.overlap_sentences < self.sentences:
            raise OptionError(
                "overlap_sentences",
                f"must be at least 0 and smaller than sentences "
                f"(got {self.overlap_sentences} with sentences={self.sentences})",
            )


def split(doc: Document, options: SentenceOptions, ctx: Context) -> list[Span]:
    """Return spans of whole sentences covering ``doc.text`` in order.

    In size mode each span fits ``ctx.capacity``; in sentence-count mode each holds at most
    ``options.sentences`` sentences (and fits the capacity when ``--size`` made it hard).
    """
    text = doc.text
    capacity = ctx.capacity
    counting = options.sentences is not None
    refine_capacity = capacity.without_overlap() if counting else capacity
    language = detect_language(text) if options.language == "auto" else options.language
    pieces = pack_units(
        split_sentences(text, language=language),
        sizer=ctx.sizer,
        size=capacity.limit,
        overlap=0 if counting else capacity.overlap,
        max_units=options.sentences,
        overlap_units=options.overlap_sentences,
        refine=refine_by_words(ctx.sizer, refine_capacity, text),
    )
    return spans_from_windows(text, pieces)


def bounds(options: SentenceOptions) -> Bounds:
    """Sentence-count mode binds the size only when given, and counts its overlap in sentences."""
    if options.sentences is None:
        return Bounds()
    return Bounds(
        bounded=False,
        sentences=options.sentences,
        overlap_sentences=options.overlap_sentences,
        language=options.language,
    )


STRATEGY = Strategy(
    name="sentence",
    summary="Whole sentences packed to the size, overlap in whole sentences; or N sentences "
    "per chunk (-O sentences=N).",
    options=SentenceOptions,
    split=split,
    bounds=bounds,
)
