"""resume: a CV's sections extracted by a chat model, one chunk per field.

The engine's rewrite pass (``ragchunk.pipeline.rewrite``) sends the whole parsed CV in one call
with a versioned prompt (or the ``prompt`` file given) that asks for its fields: contact, summary,
each experience entry, each education entry, skills and the other sections the prompt names.
Each field becomes a chunk with ``metadata.field``. A field found verbatim in the text has
that span (and its pages); a rewritten one has the whole document's span and no page range.
What this strategy splits is the fallback: when the call fails or its answer is unusable,
the text is chunked by ``recursive`` with its budget, each chunk with its own page range, and
a warning says why.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ragchunk.options import Budget
from ragchunk.strategies._spec import Bounds, Context, Strategy

if TYPE_CHECKING:
    from ragchunk.model import Document, Span


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


def split(doc: Document, options: ResumeOptions, ctx: Context) -> list[Span]:
    """Return the fallback spans (``recursive`` with this budget); the fields come later."""
    return [_fallback(span) for span in ctx.delegate("recursive", options.budget, doc, ctx)]


def _fallback(span: Span) -> Span:
    from dataclasses import replace

    return replace(span, strategy="recursive")


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
    rewrites="resume",
)
