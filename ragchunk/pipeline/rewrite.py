"""The rewrite pass: a chat model turns a strategy's spans into propositions or résumé fields.

Used by the strategies whose ``rewrites`` is set (``proposition``, ``resume``; see their
modules). The model's words are never taken for the document's: a proposition is kept only
when most of its content words occur in its passage (``grounding``), every record that is not
verbatim says so in ``metadata.kind``, and nothing is lost — a passage whose call fails, times
out, answers something other than the JSON asked for or yields no grounded proposition is
emitted verbatim as a ``kind: passage`` record, with one warning naming the endpoint, the cause
and the passage. A résumé whose call fails is chunked by ``recursive`` instead.

The document is data: the prompt says so, the answer is parsed as JSON of a fixed shape only,
and grounding drops what the passage does not say, so an instruction written in a document can
change nothing beyond its own passage's propositions.

``Rewriter`` counts what a run spent and made (``counts``): calls, cache hits, tokens in and
out, failures, passages, propositions, propositions dropped over ``max_propositions`` or as
ungrounded, fallbacks; with ``dry_run`` it asks nothing and counts the calls and prompt tokens
the run would make.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import re
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from ragchunk.backends.chat import ChatClient, ChatReply, ChatRequest
from ragchunk.errors import OptionError
from ragchunk.model import Span
from ragchunk.pipeline.prompts import (
    PROPOSITION_PROMPT,
    PROPOSITION_PROMPT_VERSION,
    PROPOSITION_SCHEMA,
    RESUME_PROMPT,
    RESUME_PROMPT_VERSION,
    RESUME_SCHEMA,
)

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from ragchunk.measure import Measure
    from ragchunk.model import Chunk, Document
    from ragchunk.pipeline.plan import Recipe

REWRITE_KINDS: Final = frozenset({"proposition", "field"})
"""``metadata.kind`` of records whose text is a model's, not ``document.text[start:end]``."""

COUNT_NAMES: Final = (
    "calls",
    "cached",
    "tokens_in",
    "tokens_out",
    "failures",
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

_WORD: Final = re.compile(r"[^\W_]+", re.UNICODE)
_FENCE: Final = re.compile(r"^\s*```(?:json)?\s*(.*?)\s*```\s*$", re.DOTALL)
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
_MESSAGE_OVERHEAD: Final = 8
"""Tokens a chat request adds around its messages (roles, separators), for estimates."""


def open_rewriter(recipe: Recipe[Any], cache_dir: str | None, *, dry_run: bool = False) -> Rewriter:
    """Return the rewrite pass of ``recipe``'s chat endpoint (answers cached in ``cache_dir``)."""
    from ragchunk.measure import measure_for

    client = ChatClient(recipe.chat, cache_dir)
    return Rewriter(client, measure=measure_for("tokens", recipe.tokenizer), dry_run=dry_run)


class Rewriter:
    """Rewrites the spans of one run's documents through one chat client (module docstring)."""

    def __init__(
        self, client: ChatClient, *, measure: Measure | None = None, dry_run: bool = False
    ) -> None:
        self.client = client
        self.measure = measure
        self.dry_run = dry_run
        self.counts: Counter[str] = Counter()

    def snapshot(self) -> dict[str, int]:
        """Return the counts so far, the client's calls, hits and tokens included."""
        counts = Counter(self.counts)
        counts.update(self.client.tally.as_dict())
        return {name: counts[name] for name in COUNT_NAMES if counts[name]}

    def rewrite(
        self,
        doc: Document,
        spans: Sequence[Span],
        kind: str,
        options: Any,
        warn: Callable[[str, str], None],
    ) -> list[Span]:
        """Return the records' spans for ``kind`` (``proposition`` or ``resume``).

        Raises:
            OptionError: the résumé ``prompt`` file cannot be read.
        """
        if kind == "proposition":
            return self._propositions(doc, spans, options, warn)
        return self._resume(doc, spans, options, warn)

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

    def _ask(self, requests: Sequence[ChatRequest]) -> list[ChatReply] | None:
        """Return the replies, or None in a dry run (which counts what it would ask)."""
        if not self.dry_run:
            return self.client.ask_all(requests)
        disk = self.client.disk
        unique = {self.client.key(request): request for request in requests}
        for key, request in unique.items():  # asked once each, as ChatClient.ask_all does
            if disk is not None and disk.get(key) is not None:
                self.counts["planned_cached"] += 1
                continue
            self.counts["planned_calls"] += 1
            if self.measure is not None:
                prompt = self.measure.count(request.system) + self.measure.count(request.user)
                self.counts["planned_tokens"] += prompt + _MESSAGE_OVERHEAD
        return None

    def _propositions(
        self,
        doc: Document,
        passages: Sequence[Span],
        options: Any,
        warn: Callable[[str, str], None],
    ) -> list[Span]:
        text = doc.text
        self.counts["passages"] += len(passages)
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
        replies = self._ask(requests)
        if replies is None:
            return list(passages)
        out: list[Span] = []
        for number, (passage, reply) in enumerate(zip(passages, replies, strict=True)):
            base = {**passage.metadata, "kind": "passage", "passage": number}
            kept, cause = self._read_propositions(text[passage.start : passage.end], reply, options)
            if not kept:
                self.counts["fallbacks"] += 1
                where = f"passage {number} [{passage.start}:{passage.end}]"
                warn(
                    "fallback", f"{doc.source}: {where}: {cause}; kept verbatim as a passage chunk"
                )
                out.append(dataclasses.replace(passage, metadata={**base, "fallback": cause}))
                continue
            if options.emit_passages:
                out.append(dataclasses.replace(passage, metadata=base))
            for k, proposition in enumerate(kept):
                metadata = {**passage.metadata, "kind": "proposition", "passage": number}
                metadata["proposition"] = k
                out.append(dataclasses.replace(passage, text=proposition, metadata=metadata))
            self.counts["propositions"] += len(kept)
        return out

    def _read_propositions(
        self, passage: str, reply: ChatReply, options: Any
    ) -> tuple[list[str], str]:
        """Return the grounded propositions kept, or none and why (naming the endpoint)."""
        endpoint = f"{self.client.name} {self.client.url}"
        if reply.content is None:
            return [], reply.error or f"{endpoint} failed"
        answer = _parse_json(reply.content)
        if answer is _INVALID:
            return [], f"{endpoint} answered invalid JSON"
        items = answer.get("propositions") if isinstance(answer, dict) else answer
        if not isinstance(items, list) or not all(isinstance(item, str) for item in items):
            return [], f"{endpoint} answered something other than an array of strings"
        texts = [" ".join(item.split()) for item in items if isinstance(item, str)]
        texts = [t for t in texts if t]
        words = _content_words(passage)
        sentences = [t for t in texts if len(t.split()) >= MIN_WORDS]
        self.counts["fragments"] += len(texts) - len(sentences)
        grounded = [t for t in sentences if grounding(t, words) >= options.grounding]
        self.counts["ungrounded"] += len(sentences) - len(grounded)
        unique = list(dict.fromkeys(grounded))
        if len(unique) > options.max_propositions:
            self.counts["over_max"] += len(unique) - options.max_propositions
            unique = unique[: options.max_propositions]
        if not unique:
            why = "no propositions" if not texts else "no proposition grounded in the passage"
            return [], f"{endpoint} answered {why}"
        return unique, ""

    def _resume(
        self,
        doc: Document,
        fallback: Sequence[Span],
        options: Any,
        warn: Callable[[str, str], None],
    ) -> list[Span]:
        text = doc.text
        system, version = RESUME_PROMPT, RESUME_PROMPT_VERSION
        if options.prompt is not None:
            system, version = _read_prompt(options.prompt)
        request = ChatRequest(system, f"CV:\n<<<\n{text}\n>>>", RESUME_SCHEMA, version, "resume")
        replies = self._ask([request])
        if replies is None:
            return list(fallback)
        fields, cause = self._read_fields(replies[0])
        if not fields:
            self.counts["fallbacks"] += 1
            warn(
                "fallback",
                f"{doc.source}: the whole document [0:{len(text)}]: {cause}; chunked by recursive",
            )
            return [
                dataclasses.replace(span, metadata={**span.metadata, "fallback": cause})
                for span in fallback
            ]
        self.counts["fields"] += len(fields)
        return _field_spans(text, fields)

    def _read_fields(self, reply: ChatReply) -> tuple[list[tuple[str, str]], str]:
        endpoint = f"{self.client.name} {self.client.url}"
        if reply.content is None:
            return [], reply.error or f"{endpoint} failed"
        answer = _parse_json(reply.content)
        if answer is _INVALID:
            return [], f"{endpoint} answered invalid JSON"
        items = answer.get("fields") if isinstance(answer, dict) else answer
        if not isinstance(items, list):
            return [], f"{endpoint} answered no list of fields"
        fields: list[tuple[str, str]] = []
        for item in items:
            if not isinstance(item, dict):
                continue
            name, value = item.get("field"), item.get("text")
            if isinstance(name, str) and isinstance(value, str) and value.strip() and name.strip():
                fields.append((name.strip().lower(), value.strip()))
        if not fields:
            return [], f"{endpoint} answered no usable field"
        return fields, ""


_INVALID: Final[Any] = object()


def _parse_json(content: str) -> Any:
    """Return the JSON in ``content`` (a Markdown code fence around it allowed), or _INVALID."""
    fenced = _FENCE.match(content)
    if fenced:
        content = fenced.group(1)
    try:
        return json.loads(content)
    except (json.JSONDecodeError, RecursionError):
        return _INVALID


def _read_prompt(path: str) -> tuple[str, str]:
    try:
        prompt = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise OptionError("prompt", f"cannot read {path} ({exc})") from None
    digest = hashlib.sha256(prompt.encode("utf-8", "surrogatepass")).hexdigest()[:16]
    return prompt, f"file-{digest}"


def _field_spans(text: str, fields: Sequence[tuple[str, str]]) -> list[Span]:
    """Return a span per field: its verbatim place when found, else the whole document."""
    spans: list[Span] = []
    whole = False
    for name, value in fields:
        at = text.find(value)
        if at >= 0:
            spans.append(
                Span(
                    at, at + len(value), metadata={"kind": "field", "field": name, "located": True}
                )
            )
        else:
            whole = True
            spans.append(
                Span(
                    0,
                    len(text),
                    text=value,
                    metadata={"kind": "field", "field": name, "located": False},
                )
            )
    if not whole:  # every field verbatim: what none of them holds is kept, never lost
        covered = sorted((s.start, s.end) for s in spans)
        at = 0
        gaps: list[tuple[int, int]] = []
        for start, end in [*covered, (len(text), len(text))]:
            if start > at and text[at:start].strip():
                gaps.append((at, start))
            at = max(at, end)
        for start, end in gaps:
            lead = len(text[start:end]) - len(text[start:end].lstrip())
            trail = len(text[start:end].rstrip())
            spans.append(
                Span(start + lead, start + trail, metadata={"kind": "passage", "field": "other"})
            )
    spans.sort(key=lambda span: (span.start, -span.end))
    return spans


def _content_words(text: str) -> set[str]:
    return {w for w in (m.group().casefold() for m in _WORD.finditer(text)) if w not in _STOPWORDS}


def grounding(proposition: str, passage_words: set[str]) -> float:
    """Return the share of ``proposition``'s content words that occur in its passage.

    Words match when equal or when both are at least five letters long and share the first
    five (inflections: measured, measures); a proposition without content words scores 0.
    """
    words = _content_words(proposition)
    if not words:
        return 0.0
    prefixes = {w[:_PREFIX] for w in passage_words if len(w) >= _PREFIX}
    found = sum(
        1 for w in words if w in passage_words or (len(w) >= _PREFIX and w[:_PREFIX] in prefixes)
    )
    return found / len(words)
