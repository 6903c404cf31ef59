"""email: one chunk (or more, within the size) per part of a message (SPEC §4, templates).

Parts come from the e-mail parser's ``metadata.part`` on sections: ``headers``, ``body`` and
``attachment:NAME`` (an mbox gives one document per message); a forwarded message read inline
(``forwarded:N``) is part of the message, kept with ``attachments`` false. Each run of sections
of one part is a region, split within the size at paragraphs, then sentences. With ``headers``
false the headers block is dropped, with ``attachments`` false every attachment; both are
reported through ``Context.drop``. Every chunk has ``metadata.template = "email"`` and its
``part``. A document that is not an e-mail is one ``body`` part.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ragchunk.options import Budget
from ragchunk.strategies._spec import Context, Strategy
from ragchunk.text.regions import Region, region_spans

if TYPE_CHECKING:
    from ragchunk.model import Document, Span

_BODY = "body"


@dataclass(frozen=True, slots=True, kw_only=True)
class EmailOptions:
    """Options of the email template."""

    budget: Budget = Budget(size=1000, overlap=0)
    headers: bool = field(
        default=True, metadata={"help": "Keep the headers block (false: drop it, reported)."}
    )
    attachments: bool = field(
        default=True, metadata={"help": "Keep the attachments (false: drop them, reported)."}
    )


def split(doc: Document, options: EmailOptions, ctx: Context) -> list[Span]:
    """Return spans within the parts of a message, in order; dropped parts go to ``ctx.drop``.

    Spans are absolute and half-open; every non-space character lies in a span or in a span
    reported to ``ctx.drop``.
    """
    regions: list[Region] = []
    for start, end, part in _parts(doc):
        if part == "headers" and not options.headers:
            ctx.drop(start, end, "headers")
        elif part.startswith("attachment:") and not options.attachments:
            ctx.drop(start, end, part)
        else:
            regions.append(Region(start, end, None, {"template": "email", "part": part}))
    return region_spans(doc.text, regions, sizer=ctx.sizer, capacity=ctx.capacity)


def _parts(doc: Document) -> list[tuple[int, int, str]]:
    """Return ``(start, end, part)`` runs covering the text, one per run of a part."""
    runs: list[tuple[int, int, str]] = []
    for section in doc.sections:
        part = str(section.metadata.get("part", _BODY))
        if runs and runs[-1][2] == part:
            runs[-1] = (runs[-1][0], section.end, part)
        else:
            if runs:  # the text between two parts belongs to the earlier one
                runs[-1] = (runs[-1][0], section.start, runs[-1][2])
            runs.append((section.start if runs else 0, section.end, part))
    if not runs:
        return [(0, len(doc.text), _BODY)]
    runs[-1] = (runs[-1][0], len(doc.text), runs[-1][2])
    return runs


STRATEGY = Strategy(
    name="email",
    summary="Template: one chunk (or more, within --size) per part of an e-mail: headers, "
    "body, attachment:NAME (headers and attachments switchable; dropped parts are reported).",
    options=EmailOptions,
    split=split,
    drops=True,
)
