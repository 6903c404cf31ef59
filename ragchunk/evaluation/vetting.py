"""Vetting a model's questions: evidence located exactly, near duplicates, unrelated questions.

Excerpts are located in the document and numbered sentences turned into spans. Every span
returned is absolute and half-open into the document text, and is only ever a place where the
text was found: the model's words are never kept for the document's.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from collections.abc import Sequence

    from ragchunk.evaluation.windows import Window

DUPLICATE_THRESHOLD: Final = 0.8
"""Word-set Jaccard similarity at or above which a question repeats one already kept."""
_WORD: Final = re.compile(r"[^\W_]+", re.UNICODE)
_PREFIX: Final = 5
"""Two words match when equal or sharing their first five letters (reopen, reopened)."""
_FUNCTION_WORDS: Final = frozenset(
    """the and but nor for with from into onto over under are was were been being its this
    that these those there their they them she his her him our you your not than then too
    very can could will would shall should may might must does did has have had having which
    who whom whose what when where why how all any both each few more most other some such
    only own same also just about above after again against before below between during
    through once here further while because until many much""".split()  # noqa: SIM905 - long
)


def words_of(text: str) -> list[str]:
    """Return the lower-cased words of ``text`` (letters and digits)."""
    return [word.lower() for word in _WORD.findall(text)]


def locate(text: str, excerpt: str, window: tuple[int, int]) -> tuple[int, int] | None:
    """Return the span of ``excerpt`` in ``text`` (see the module docstring), or None."""
    needle = excerpt.strip()
    if not needle:
        return None
    ranges = (window, (0, len(text)))
    for lo, hi in ranges:
        at = text.find(needle, lo, hi)
        if at >= 0:
            return at, at + len(needle)
    loose = re.compile(r"\s+".join(re.escape(word) for word in needle.split()))
    for lo, hi in ranges:
        found = loose.search(text, lo, hi)
        if found is not None:
            return found.span()
    return None


def is_duplicate(words: frozenset[str], seen: Sequence[frozenset[str]]) -> bool:
    """Whether ``words`` is near-identical to a word set in ``seen`` (``DUPLICATE_THRESHOLD``)."""
    for other in seen:
        union = len(words | other)
        if union and len(words & other) / union >= DUPLICATE_THRESHOLD:
            return True
    return False


def is_related(question: str, evidence: Sequence[str]) -> bool:
    """Whether ``question`` shares a content word with its ``evidence``.

    A question copied from the prompt's form, or about something else, shares none. Content
    words hold a digit, or have three letters or more and are not function words; two match
    when equal or sharing their first five letters.
    """
    found = {word[:_PREFIX] for piece in evidence for word in words_of(piece)}
    return any(
        word[:_PREFIX] in found
        for word in words_of(question)
        if any(c.isdigit() for c in word) or (len(word) >= 3 and word not in _FUNCTION_WORDS)
    )


def sentence_spans(numbers: list[Any], window: Window) -> list[tuple[int, int]] | None:
    """Return the spans of the numbered sentences (runs merged), [] if one is not in the window."""
    if not all(isinstance(n, int) and not isinstance(n, bool) for n in numbers):
        return None
    if not all(1 <= n <= len(window.sentences) for n in numbers):
        return []
    spans: list[tuple[int, int]] = []
    previous = -2
    for number in sorted(set(numbers)):
        start, end = window.sentences[number - 1]
        if number == previous + 1:
            spans[-1] = (spans[-1][0], end)
        else:
            spans.append((start, end))
        previous = number
    return spans


def excerpt_spans(excerpts: list[Any], text: str, window: Window) -> list[tuple[int, int]] | None:
    """Return the located excerpts' spans in order, overlaps merged; [] if one is not found."""
    if not all(isinstance(e, str) and e.strip() for e in excerpts):
        return None
    found: list[tuple[int, int]] = []
    for excerpt in excerpts:
        span = locate(text, excerpt, (window.start, window.end))
        if span is None:
            return []
        found.append(span)
    spans: list[tuple[int, int]] = []
    for start, end in sorted(found):
        if spans and start <= spans[-1][1]:
            spans[-1] = (spans[-1][0], max(end, spans[-1][1]))
        else:
            spans.append((start, end))
    return spans
