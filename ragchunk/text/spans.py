"""Windows → spans: the one place that drops blank windows and flags oversize pieces.

Every strategy ends here. A whitespace-only window is dropped (SPEC §3.2 only asks for
non-whitespace to be covered). A window that is a piece of a unit which had to stay whole but
was larger than the size (``Window.split``) gets ``metadata.oversize_split``; a window of one
code point larger than the size (``Window.oversize``) gets ``metadata.oversize`` (SPEC §3.3).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from ragchunk.model import EMPTY_METADATA, Span
from ragchunk.text.boundaries import is_blank

if TYPE_CHECKING:
    from ragchunk.model import Metadata
    from ragchunk.text.pack import Window


def spans_from_windows(
    text: str,
    windows: Iterable[Window],
    *,
    metadata: Metadata = EMPTY_METADATA,
    split: bool = False,
    headings_at: Callable[[int], tuple[str, ...]] | None = None,
) -> list[Span]:
    """Return a span per window that holds more than whitespace, flagged as SPEC §3.3 says.

    Args:
        text: the document text the windows index into.
        windows: absolute, half-open windows in order.
        metadata: keys every span starts with (the flags are added after them).
        split: treat every window as a piece of a split unit (``oversize_split``).
        headings_at: gives each span the heading path at its start; None leaves it to the
            record builder (the document's sections).
    """
    flags = _flagged(metadata)
    if headings_at is None:
        return [
            Span(start, end, None, flags[split or piece, oversize])
            for start, end, oversize, piece in windows
            # a window that starts on a non-space character is not blank: skip the search
            if not text[start].isspace() or not is_blank(text, start, end)
        ]
    return [
        Span(start, end, headings_at(start), flags[split or piece, oversize])
        for start, end, oversize, piece in windows
        if not is_blank(text, start, end)
    ]


def _flagged(metadata: Metadata) -> dict[tuple[bool, bool], Metadata]:
    """Return the metadata of a span by (piece of a split unit, one oversize code point)."""
    return {
        (False, False): metadata,
        (True, False): {**metadata, "oversize_split": True},
        (False, True): {**metadata, "oversize": True},
        (True, True): {**metadata, "oversize_split": True, "oversize": True},
    }
