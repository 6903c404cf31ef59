"""What every strategy module exposes: ``STRATEGY = Strategy(...)``, and the ``Context`` it gets."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ragchunk.model import EMPTY_METADATA
from ragchunk.text.boundaries import is_blank

if TYPE_CHECKING:
    from ragchunk.measure import Measure, Sizer
    from ragchunk.model import Document, Span
    from ragchunk.text.pack import Window


def _no_breadcrumb(_start: int) -> str:
    """Return no breadcrumb (``--contextualize`` is off)."""
    return ""


@dataclass(frozen=True, slots=True)
class Context:
    """Everything a strategy may use besides the document and its options.

    Attributes:
        measure: the unit of the budget (characters or a tokenizer).
        sizer: ``measure`` prepared for this document's text. With ``--contextualize`` a
            span's size includes the heading breadcrumb of the chunk starting there, so the
            hard limit holds for the ``context`` that will be embedded.
        tokenizer: the tokenizer name, for strategies that cut at token boundaries whatever
            the unit of their budget.
        warn: a sink for warnings, ``warn(code, message)``; they reach the user as diagnostics.
        size_given: whether the user gave ``--size``: strategies unbounded by design (and
            sentence-count mode) are bounded only then.
        breadcrumb: ``breadcrumb(start)`` is the text ``context`` puts before a chunk starting
            at ``start``; empty when ``--contextualize`` is off.
        contextualize: whether ``--contextualize`` is on (a strategy that finds headings of
            its own must then count their breadcrumbs itself).
    """

    measure: Measure
    sizer: Sizer
    tokenizer: str
    warn: Callable[[str, str], None]
    size_given: bool = True
    breadcrumb: Callable[[int], str] = _no_breadcrumb
    contextualize: bool = False


@dataclass(frozen=True, slots=True)
class Strategy:
    """A chunking strategy: a name, its options type, and the function that splits.

    Attributes:
        name: the single lowercase word users pass to ``--strategy``.
        summary: one line for ``ragchunk strategies``.
        options: the frozen options dataclass; its first field is ``budget``.
        split: ``split(doc, options, ctx)`` returns spans in document order.
        bounded: whether ``--size`` bounds it by default (False: only when a size is given).
    """

    name: str
    summary: str
    options: type[Any]
    split: Callable[[Document, Any, Context], list[Span]]
    bounded: bool = True


def spans_from_windows(text: str, windows: Iterable[Window]) -> list[Span]:
    """Turn packed windows into spans, dropping whitespace-only ones (SPEC §3.2 allows it).

    A window holding one code point larger than the budget gets ``oversize = true``.
    """
    from ragchunk.model import Span

    oversize = {"oversize": True}
    return [
        Span(start, end, None, oversize if flagged else EMPTY_METADATA)
        for start, end, flagged in windows
        # a window that starts on a non-space character is not blank: skip the search
        if not text[start].isspace() or not is_blank(text, start, end)
    ]
