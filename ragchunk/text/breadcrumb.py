"""The heading breadcrumb that ``--contextualize`` puts before a chunk, and sizes that count it.

A chunk's ``context`` is its breadcrumb (``Guide > Install > Linux`` and a blank line), then any
prefix its strategy repeats (a table's header rows), then its text. The hard size limit holds
for that whole string, so ``PrefixedSizer`` measures a span as the context it would become.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Final

from ragchunk.errors import InputError
from ragchunk.text.spans import spans_from_windows

if TYPE_CHECKING:
    from ragchunk.measure import Measure, Sizer
    from ragchunk.model import Span
    from ragchunk.text.pack import Window

BREADCRUMB_SEPARATOR: Final = " > "
BREADCRUMB_END: Final = "\n\n"


@functools.lru_cache(maxsize=4096)
def format_breadcrumb(headings: tuple[str, ...]) -> str:
    """Return the breadcrumb of a heading path (``A > B`` and a blank line), or ``""``."""
    if not headings:
        return ""
    return BREADCRUMB_SEPARATOR.join(h.strip() for h in headings) + BREADCRUMB_END


def check_breadcrumbs(
    source: str, paths: Iterable[tuple[str, ...]], measure: Measure, limit: int
) -> None:
    """Check that every heading path's breadcrumb leaves room for text within the size.

    Raises:
        InputError: a breadcrumb alone takes the whole size.
    """
    for path in dict.fromkeys(paths):
        cost = measure.count(format_breadcrumb(path))
        if cost >= limit:
            crumb = " > ".join(path)
            raise InputError(
                f"{source}: the heading breadcrumb {crumb!r} takes {cost} {measure.unit}, "
                f"leaving no room for text within --size {limit}; raise --size or drop "
                "--contextualize"
            )


class PrefixedSizer:
    """A sizer whose spans are measured with the prefix of a chunk starting there.

    ``size(start, end)`` is the size of ``prefix_at(start) + text[start:end]`` measured alone;
    unit boundaries (``total``, ``offset``, ``index``) are the inner sizer's.
    """

    __slots__ = ("_additive", "_count", "_inner", "_prefix_at", "_text")
    is_length: Final = False  # a prefix makes a span's size differ from its length

    def __init__(
        self,
        text: str,
        inner: Sizer,
        *,
        count: Callable[[str], int],
        prefix_at: Callable[[int], str],
        additive: bool,
    ) -> None:
        """Wrap ``inner``; ``additive`` says sizes add up across a join (true of characters)."""
        self._text = text
        self._inner = inner
        self._count = count
        self._prefix_at = prefix_at
        self._additive = additive

    @property
    def unit(self) -> str:
        """The inner sizer's unit: a prefix changes sizes (``is_length``), not what they count."""
        return self._inner.unit

    @property
    def total(self) -> int:
        """The number of units in the whole text."""
        return self._inner.total

    def offset(self, index: int) -> int:
        """Return the character offset of unit boundary ``index``."""
        return self._inner.offset(index)

    def index(self, offset: int) -> int:
        """Return the index of the unit that contains character ``offset``."""
        return self._inner.index(offset)

    def size(self, start: int, end: int) -> int:
        """Return the size of the prefix of ``start`` plus ``text[start:end]``, measured alone."""
        prefix = self._prefix_at(start) if end > start else ""
        if not prefix:
            return self._inner.size(start, end)
        if self._additive:
            return self._count(prefix) + self._inner.size(start, end)
        # Tokens do not add up across a join: encode the context as the model will see it.
        return self._count(prefix + self._text[start:end])

    def extended(self, prefix_at: Callable[[int], str]) -> PrefixedSizer:
        """Return a sizer that counts ``prefix_at(start)`` after this sizer's own prefix."""
        own = self._prefix_at
        return PrefixedSizer(
            self._text,
            self._inner,
            count=self._count,
            prefix_at=lambda start: own(start) + prefix_at(start),
            additive=self._additive,
        )


def with_prefix(
    sizer: Sizer,
    text: str,
    *,
    count: Callable[[str], int],
    prefix_at: Callable[[int], str],
    additive: bool,
) -> PrefixedSizer:
    """Return ``sizer`` also counting ``prefix_at(start)``, after any breadcrumb it counts.

    A chunk's ``context`` is breadcrumb, then prefix, then text: the order sizes follow here.
    """
    if isinstance(sizer, PrefixedSizer):
        return sizer.extended(prefix_at)
    return PrefixedSizer(text, sizer, count=count, prefix_at=prefix_at, additive=additive)


def fit_contexts(
    text: str,
    spans: Sequence[Span],
    *,
    sizer: Sizer,
    count: Callable[[str], int],
    additive: bool,
    limit: int,
    headings_at: Callable[[int], tuple[str, ...]],
    refine: Callable[[int, int, Sizer], Sequence[Window]],
) -> list[Span]:
    """Split every span whose context would exceed ``limit``; return the spans in order.

    A strategy sizes chunks with the breadcrumb of the heading path at their start; one that
    names other headings for a span (a method's class) may have counted the wrong breadcrumb.
    So the context each span will get (breadcrumb, then its prefix unless it is flagged
    ``context_oversize``, then its text) is measured alone, and a span too large is covered by
    ``refine(start, end, sizer)`` with that exact lead counted; its pieces keep its headings
    and metadata and are flagged ``oversize_split``. The first and last piece keep the span's
    ends, so overlaps with the neighbours do not change.
    """
    fitted: list[Span] = []
    for span in spans:
        headings = span.headings if span.headings is not None else headings_at(span.start)
        lead = format_breadcrumb(headings)
        if span.prefix and not span.metadata.get("context_oversize"):
            lead += span.prefix
        if count(lead + text[span.start : span.end]) <= limit:
            fitted.append(span)
            continue
        lead_sizer = PrefixedSizer(
            text, sizer, count=count, prefix_at=_constant(lead), additive=additive
        )
        windows = refine(span.start, span.end, lead_sizer)
        fitted += (
            replace(span, start=p.start, end=p.end, headings=headings, metadata=p.metadata)
            for p in spans_from_windows(text, windows, metadata=span.metadata, split=True)
        )
    return fitted


def _constant(prefix: str) -> Callable[[int], str]:
    def prefix_at(_start: int) -> str:
        return prefix

    return prefix_at
