"""Paragraphs: runs of text separated by blank lines (lines holding only whitespace)."""

from __future__ import annotations

import re
from typing import Final

from ragchunk.text.sentences import strip_span

# A line break, then any number of whitespace-only lines: CRLF and lone spaces included.
_BLANK_LINES: Final = re.compile(r"\n[^\S\n]*\n(?:[^\S\n]*\n)*")


def split_paragraphs(text: str, start: int = 0, end: int | None = None) -> list[tuple[int, int]]:
    """Return the paragraphs of ``text[start:end]`` in order.

    Returns:
        Absolute, half-open spans without the whitespace around each paragraph; together they
        cover every non-whitespace character of the range.
    """
    end = len(text) if end is None else end
    spans: list[tuple[int, int]] = []
    head = start
    for match in _BLANK_LINES.finditer(text, start, end):
        span = strip_span(text, head, match.start())
        if span is not None:
            spans.append(span)
        head = match.end()
    span = strip_span(text, head, end)
    if span is not None:
        spans.append(span)
    return spans
