"""The rewrite pass's chat model: what a rewriting strategy gets as ``Context.chat``.

A rewriter (``proposition``, ``resume``) cuts spans, then its ``rewrite`` asks a chat model to
make the records of them (see those modules: what is asked, how the answer is read, what is
kept). ``Rewriter`` is the ``Chat`` they ask through: one client per run, its answers cached,
and ``finish`` fixes what ``assemble`` derived from the offsets of a record the model wrote.
The model's words are never taken for the document's: every record that is not verbatim says
so in ``metadata.kind`` (``REWRITE_KINDS``).

``Rewriter`` counts what a run spent and made (``counts``): calls, cache hits, tokens in and
out, failures, passages, propositions, propositions dropped over ``max_propositions`` or as
ungrounded, fallbacks, calls skipped while the endpoint's circuit breaker was open; with
``dry_run`` it asks nothing and counts the calls and prompt tokens
the run would make.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from typing import TYPE_CHECKING, Any, Final

from ragchunk.backends.chat import ChatClient

if TYPE_CHECKING:
    from collections.abc import Sequence

    from ragchunk.measure import Measure
    from ragchunk.model import ChatReply, ChatRequest, Chunk
    from ragchunk.pipeline.plan import Recipe

REWRITE_KINDS: Final = frozenset({"proposition", "field"})
"""``metadata.kind`` of records whose text is a model's, not ``document.text[start:end]``."""

COUNT_NAMES: Final = (
    "calls",
    "cached",
    "tokens_in",
    "tokens_out",
    "failures",
    "skipped",
    "passages",
    "propositions",
    "over_max",
    "ungrounded",
    "fragments",
    "fallbacks",
    "fields",
    "planned_calls",
    "planned_cached",
    "planned_tokens",
)
"""The counts ``Rewriter.counts`` may hold (those at 0 are left out)."""

_MESSAGE_OVERHEAD: Final = 8
"""Tokens a chat request adds around its messages (roles, separators), for estimates."""


def open_rewriter(recipe: Recipe, cache_dir: str | None, *, dry_run: bool = False) -> Rewriter:
    """Return the rewrite pass of ``recipe``'s chat endpoint (answers cached in ``cache_dir``)."""
    from ragchunk.measure import measure_for

    client = ChatClient(recipe.chat, cache_dir)
    return Rewriter(client, measure=measure_for("tokens", recipe.tokenizer), dry_run=dry_run)


class Rewriter:
    """The chat model of one run's rewriting strategy: a ``Chat`` (module docstring)."""

    def __init__(
        self, client: ChatClient, *, measure: Measure | None = None, dry_run: bool = False
    ) -> None:
        self.client = client
        self.measure = measure
        self.dry_run = dry_run
        self.counts: Counter[str] = Counter()

    @property
    def endpoint(self) -> str:
        """The model's name and URL, for the message of a call that failed."""
        return f"{self.client.name} {self.client.url}"

    def count(self, name: str, n: int = 1) -> None:
        """Add ``n`` to the count ``name`` (one of ``COUNT_NAMES``)."""
        self.counts[name] += n

    def snapshot(self) -> dict[str, int]:
        """Return the counts so far, the client's calls, hits and tokens included."""
        counts = Counter(self.counts)
        counts.update(self.client.tally.as_dict())
        return {name: counts[name] for name in COUNT_NAMES if counts[name]}

    def finish(self, chunks: Sequence[Chunk]) -> list[Chunk]:
        """Fix what ``assemble`` derives from offsets for rewritten records.

        A rewritten field has no page range (it was not found verbatim); a rewrite's
        ``tokens`` counts its own text.
        """
        done: list[Chunk] = []
        for chunk in chunks:
            if chunk.metadata.get("kind") not in REWRITE_KINDS:
                done.append(chunk)
                continue
            changes: dict[str, Any] = {}
            if chunk.metadata.get("kind") == "field" and chunk.metadata.get("located") is False:
                changes.update(page_start=None, page_end=None)
            if chunk.tokens is not None and self.measure is not None:
                changes["tokens"] = self.measure.count(chunk.text)
            done.append(dataclasses.replace(chunk, **changes) if changes else chunk)
        return done

    def ask(self, requests: Sequence[ChatRequest]) -> list[ChatReply] | None:
        """Return the replies, or None in a dry run (which counts what it would ask)."""
        if not self.dry_run:
            return self.client.ask_all(requests)
        unique = {self.client.key(request): request for request in requests}
        for request in unique.values():  # asked once each, as ChatClient.ask_all does
            if self.client.stored(request):
                self.counts["planned_cached"] += 1
                continue
            self.counts["planned_calls"] += 1
            if self.measure is not None:
                prompt = self.measure.count(request.system) + self.measure.count(request.user)
                self.counts["planned_tokens"] += prompt + _MESSAGE_OVERHEAD
        return None
