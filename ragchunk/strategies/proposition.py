"""proposition: passages of whole sentences, each rewritten by a chat model into propositions.

The strategy itself only cuts the passages: whole sentences packed up to the size (tokens by
default), with no overlap, so every character is in exactly one passage. The engine's rewrite
pass (``ragchunk.rewrite``) then sends each passage to the chat endpoint (``--api-base``,
``--model``) in one call that returns a JSON array of propositions: self-contained one-sentence
facts, pronouns resolved. A proposition's record has the proposition as ``text``, its
passage's span as ``start``/``end`` (pages and headings from that span) and
``metadata.kind: proposition``; a passage whose call fails, or yields no grounded proposition,
is kept verbatim as a ``kind: passage`` record, with a warning. ``emit_passages`` keeps every
passage as such a record too (for dual-index setups).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ragchunk.errors import OptionError
from ragchunk.model import Span
from ragchunk.options import Budget
from ragchunk.strategies._spec import Context, Strategy
from ragchunk.text.refine import refine_by_words
from ragchunk.text.sentences import split_sentences
from ragchunk.text.spans import spans_from_windows
from ragchunk.text.units import pack_units

if TYPE_CHECKING:
    from ragchunk.model import Document


@dataclass(frozen=True, slots=True, kw_only=True)
class PropositionOptions:
    """Options of the proposition strategy."""

    budget: Budget = Budget(size=256, overlap=0, unit="tokens")
    max_propositions: int = field(
        default=16,
        metadata={"help": "The most propositions kept per passage; the rest are dropped, counted."},
    )
    grounding: float = field(
        default=0.6,
        metadata={
            "help": "The share of a proposition's content words that must occur in its passage; "
            "below it the proposition is dropped as ungrounded (0 keeps all)."
        },
    )
    emit_passages: bool = field(
        default=False,
        metadata={"help": "Also emit every passage verbatim (metadata.kind passage)."},
    )

    def __post_init__(self) -> None:
        if self.budget.overlap:
            raise OptionError("--overlap", "must be 0 for proposition: passages never overlap")
        if self.max_propositions < 1:
            raise OptionError(
                "max_propositions", f"must be at least 1 (got {self.max_propositions})"
            )
        if not 0 <= self.grounding <= 1:
            raise OptionError("grounding", f"must be between 0 and 1 (got {self.grounding})")


def split(doc: Document, options: PropositionOptions, ctx: Context) -> list[Span]:
    """Return the passages: whole sentences up to the size, no overlap, in order."""
    text = doc.text
    pieces = pack_units(
        split_sentences(text),
        sizer=ctx.sizer,
        size=ctx.capacity.limit,
        overlap=0,
        refine=refine_by_words(ctx.sizer, ctx.capacity, text),
    )
    return [
        Span(
            span.start,
            span.end,
            headings=span.headings,
            metadata={**span.metadata, "kind": "passage"},
        )
        for span in spans_from_windows(text, pieces)
    ]


STRATEGY = Strategy(
    name="proposition",
    summary="Sentence-bounded passages, each rewritten by a chat model into self-contained "
    "propositions (--api-base, --model).",
    options=PropositionOptions,
    split=split,
    rewrites="proposition",
)
