"""proposition: passages of whole sentences, each rewritten by a chat model into propositions.

A rewriter. ``split`` cuts the passages: whole sentences packed up to the size (tokens by
default), with no overlap, so every character is in exactly one passage. ``rewrite`` then sends
each passage to the chat endpoint (``--api-base``, ``--model``; ``ctx.chat()``) in one call
that returns a JSON array of propositions: self-contained one-sentence facts, pronouns
resolved. A proposition's record has the proposition as ``text``, its passage's span as
``start``/``end`` (pages and headings from that span) and ``metadata.kind: proposition``.

The model's words are never taken for the document's: a proposition is kept only when most of
its content words occur in its passage (``grounding``), and nothing is lost — a passage whose
call fails, times out, answers something other than the JSON asked for or yields no grounded
proposition is kept verbatim as a ``kind: passage`` record, with one warning naming the
endpoint, the cause and the passage. The document is data: the prompt says so, the answer is
read as JSON of a fixed shape only, and grounding drops what the passage does not say, so an
instruction written in a document changes nothing beyond its own passage's propositions.
``emit_passages`` keeps every passage as such a record too (for dual-index setups).
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Final

from ragchunk.errors import OptionError
from ragchunk.model import CHAT_SKIPPED, ChatRequest, Span
from ragchunk.options import Budget
from ragchunk.strategies._prompts import (
    INVALID,
    PROPOSITION_PROMPT,
    PROPOSITION_PROMPT_VERSION,
    PROPOSITION_SCHEMA,
    read_answer,
)
from ragchunk.strategies._spec import Context, Strategy
from ragchunk.text.refine import refine_by_words
from ragchunk.text.sentences import split_sentences
from ragchunk.text.spans import spans_from_windows
from ragchunk.text.units import pack_units

if TYPE_CHECKING:
    from collections.abc import Sequence

    from ragchunk.model import ChatReply, Document

_WORD: Final = re.compile(r"[^\W_]+", re.UNICODE)
_STOPWORDS: Final = frozenset(
    """a an the and or but nor of to in on at by for with from into onto over under as is are
    was were be been being it its it's this that these those there their they them he she his
    her him we our you your i me my not no so than then too very can could will would shall
    should may might must do does did has have had having which who whom whose what when where
    why how all any both each few more most other some such only own same also just about
    above after again against before below between during through up down out off once here
    further while if because until""".split()  # noqa: SIM905 - a list this long reads better so
)
_PREFIX: Final = 5
"""Two words match when equal or sharing their first five letters (measured, measures)."""
MIN_WORDS: Final = 3
"""A proposition is a sentence: fewer words (a heading, a table cell echoed) are fragments."""


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


def split(doc: Document, options: PropositionOptions, ctx: Context) -> list[Span]:  # noqa: ARG001 - the seam\'s signature
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


def rewrite(
    doc: Document, passages: Sequence[Span], options: PropositionOptions, ctx: Context
) -> list[Span]:
    """Return each passage's grounded propositions (after it, with ``emit_passages``).

    A passage the model gave none for is kept verbatim as a ``kind: passage`` record, with a
    ``fallback`` cause and a warning. In a dry run the passages are returned as they are.
    """
    text = doc.text
    chat = ctx.chat()
    chat.count("passages", len(passages))
    requests = [
        ChatRequest(
            PROPOSITION_PROMPT,
            f"Text:\n<<<\n{text[p.start : p.end]}\n>>>",
            PROPOSITION_SCHEMA,
            PROPOSITION_PROMPT_VERSION,
            name="propositions",
        )
        for p in passages
    ]
    replies = chat.ask(requests)
    if replies is None:
        return list(passages)
    out: list[Span] = []
    skipped = False  # the endpoint's circuit breaker is open: said once, not per passage
    for number, (passage, reply) in enumerate(zip(passages, replies, strict=True)):
        base = {**passage.metadata, "kind": "passage", "passage": number}
        kept, cause = _read_propositions(text[passage.start : passage.end], reply, options, ctx)
        if not kept:
            chat.count("fallbacks")
            where = f"passage {number} [{passage.start}:{passage.end}]"
            if not reply.skipped:
                ctx.warn(
                    "fallback", f"{doc.source}: {where}: {cause}; kept verbatim as a passage chunk"
                )
            elif not skipped:
                skipped = True
                ctx.warn(CHAT_SKIPPED, f"{doc.source}: {cause}; passages kept verbatim meanwhile")
            out.append(dataclasses.replace(passage, metadata={**base, "fallback": cause}))
            continue
        if options.emit_passages:
            out.append(dataclasses.replace(passage, metadata=base))
        for k, proposition in enumerate(kept):
            metadata = {**passage.metadata, "kind": "proposition", "passage": number}
            metadata["proposition"] = k
            out.append(dataclasses.replace(passage, text=proposition, metadata=metadata))
        chat.count("propositions", len(kept))
    return out


def _read_propositions(
    passage: str, reply: ChatReply, options: PropositionOptions, ctx: Context
) -> tuple[list[str], str]:
    """Return the grounded propositions kept, or none and why (naming the endpoint)."""
    chat = ctx.chat()
    endpoint = chat.endpoint
    if reply.content is None:
        return [], reply.error or f"{endpoint} failed"
    answer = read_answer(reply.content)
    if answer is INVALID:
        return [], f"{endpoint} answered invalid JSON"
    items = answer.get("propositions") if isinstance(answer, dict) else answer
    if not isinstance(items, list) or not all(isinstance(item, str) for item in items):
        return [], f"{endpoint} answered something other than an array of strings"
    texts = [" ".join(item.split()) for item in items if isinstance(item, str)]
    texts = [t for t in texts if t]
    words = content_words(passage)
    sentences = [t for t in texts if len(t.split()) >= MIN_WORDS]
    chat.count("fragments", len(texts) - len(sentences))
    grounded = [t for t in sentences if grounding(t, words) >= options.grounding]
    chat.count("ungrounded", len(sentences) - len(grounded))
    unique = list(dict.fromkeys(grounded))
    if len(unique) > options.max_propositions:
        chat.count("over_max", len(unique) - options.max_propositions)
        unique = unique[: options.max_propositions]
    if not unique:
        why = "no propositions" if not texts else "no proposition grounded in the passage"
        return [], f"{endpoint} answered {why}"
    return unique, ""


def content_words(text: str) -> set[str]:
    """Return the casefolded words of ``text`` that are not stop words."""
    return {w for w in (m.group().casefold() for m in _WORD.finditer(text)) if w not in _STOPWORDS}


def grounding(proposition: str, passage_words: set[str]) -> float:
    """Return the share of ``proposition``'s content words that occur in its passage.

    Words match when equal or when both are at least five letters long and share the first
    five (inflections: measured, measures); a proposition without content words scores 0.
    """
    words = content_words(proposition)
    if not words:
        return 0.0
    prefixes = {w[:_PREFIX] for w in passage_words if len(w) >= _PREFIX}
    found = sum(
        1 for w in words if w in passage_words or (len(w) >= _PREFIX and w[:_PREFIX] in prefixes)
    )
    return found / len(words)


STRATEGY = Strategy(
    name="proposition",
    summary="Sentence-bounded passages, each rewritten by a chat model into self-contained "
    "propositions (--api-base, --model).",
    options=PropositionOptions,
    split=split,
    rewrite=rewrite,
)
