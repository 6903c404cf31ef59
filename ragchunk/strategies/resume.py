"""resume: a CV's sections extracted by a chat model, one chunk per field.

A rewriter. ``rewrite`` sends the whole parsed CV to the chat endpoint (``ctx.chat()``) in one
call with a versioned prompt (or the ``prompt`` file given) that asks for its fields: contact,
summary, each experience entry, each education entry, skills and the other sections the
prompt names. Each field becomes a chunk with ``metadata.field``. A field found verbatim in
the text has that span (and its pages); a rewritten one has the whole document's span and no
page range; what no verbatim field holds is kept as ``kind: passage``, never lost. What
``split`` cuts is the fallback: when the call fails or its answer is unusable, the text is
chunked as ``recursive`` chunks it within the capacity (each chunk named ``recursive``, with
its own page range), and a warning says why.
"""

from __future__ import annotations

import dataclasses
import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ragchunk.errors import OptionError
from ragchunk.model import CHAT_SKIPPED, ChatRequest, Span
from ragchunk.options import Budget
from ragchunk.strategies._prompts import (
    INVALID,
    RESUME_PROMPT,
    RESUME_PROMPT_VERSION,
    RESUME_SCHEMA,
    read_answer,
)
from ragchunk.strategies._spec import Bounds, Context, Strategy
from ragchunk.text.separators import DEFAULT_LEVELS, split_range
from ragchunk.text.spans import spans_from_windows

if TYPE_CHECKING:
    from collections.abc import Sequence

    from ragchunk.model import ChatReply, Document


@dataclass(frozen=True, slots=True, kw_only=True)
class ResumeOptions:
    """Options of the resume strategy."""

    budget: Budget = Budget(size=512, overlap=50)
    prompt: str | None = field(
        default=None,
        metadata={
            "help": "A file holding the system prompt to use instead of the versioned default "
            '(its answer must be {"fields": [{"field": ..., "text": ...}]}).'
        },
    )


def split(doc: Document, options: ResumeOptions, ctx: Context) -> list[Span]:  # noqa: ARG001 - the seam\'s signature
    """Return the fallback spans: ``recursive``'s, within the capacity; the fields come later."""
    text = doc.text
    windows = split_range(
        text,
        0,
        len(text),
        sizer=ctx.sizer,
        capacity=ctx.capacity,
        levels=DEFAULT_LEVELS,
        wraps=doc.wraps,
    )
    return [
        dataclasses.replace(span, strategy="recursive")
        for span in spans_from_windows(text, windows)
    ]


def rewrite(
    doc: Document, fallback: Sequence[Span], options: ResumeOptions, ctx: Context
) -> list[Span]:
    """Return a span per field the model found, or the ``fallback`` spans when it found none.

    Raises:
        OptionError: the ``prompt`` file cannot be read.
    """
    text = doc.text
    chat = ctx.chat()
    system, version = RESUME_PROMPT, RESUME_PROMPT_VERSION
    if options.prompt is not None:
        system, version = _read_prompt(options.prompt)
    request = ChatRequest(system, f"CV:\n<<<\n{text}\n>>>", RESUME_SCHEMA, version, "resume")
    replies = chat.ask([request])
    if replies is None:
        return list(fallback)
    fields, cause = _read_fields(replies[0], chat.endpoint)
    if not fields:
        chat.count("fallbacks")
        ctx.warn(
            CHAT_SKIPPED if replies[0].skipped else "fallback",
            f"{doc.source}: the whole document [0:{len(text)}]: {cause}; chunked by recursive",
        )
        return [
            dataclasses.replace(span, metadata={**span.metadata, "fallback": cause})
            for span in fallback
        ]
    chat.count("fields", len(fields))
    return field_spans(text, fields)


def _read_fields(reply: ChatReply, endpoint: str) -> tuple[list[tuple[str, str]], str]:
    if reply.content is None:
        return [], reply.error or f"{endpoint} failed"
    answer = read_answer(reply.content)
    if answer is INVALID:
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


def _read_prompt(path: str) -> tuple[str, str]:
    try:
        prompt = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise OptionError("prompt", f"cannot read {path} ({exc})") from None
    digest = hashlib.sha256(prompt.encode("utf-8", "surrogatepass")).hexdigest()[:16]
    return prompt, f"file-{digest}"


def field_spans(text: str, fields: Sequence[tuple[str, str]]) -> list[Span]:
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
        spans += _gaps(text, spans)
    spans.sort(key=lambda span: (span.start, -span.end))
    return spans


def _gaps(text: str, spans: Sequence[Span]) -> list[Span]:
    """Return the text no span holds, each stretch as a ``kind: passage`` span."""
    covered = sorted((s.start, s.end) for s in spans)
    at = 0
    gaps: list[tuple[int, int]] = []
    for start, end in [*covered, (len(text), len(text))]:
        if start > at and text[at:start].strip():
            gaps.append((at, start))
        at = max(at, end)
    found: list[Span] = []
    for start, end in gaps:
        lead = len(text[start:end]) - len(text[start:end].lstrip())
        trail = len(text[start:end].rstrip())
        found.append(
            Span(start + lead, start + trail, metadata={"kind": "passage", "field": "other"})
        )
    return found


def bounds(_options: ResumeOptions) -> Bounds:
    """Fields are as long as the CV's sections: no size limit unless --size is given."""
    return Bounds(bounded=False)


STRATEGY = Strategy(
    name="resume",
    summary="A CV's fields (contact, experience, education, skills...) extracted by a chat "
    "model, one chunk each; recursive when the model fails (--api-base, --model).",
    options=ResumeOptions,
    split=split,
    bounds=bounds,
    rewrite=rewrite,
)
