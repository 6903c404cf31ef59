"""Measures of extracted text (issue 12): word accuracy against a source, and chunk ends.

- ``word_scores``: the words of an extraction aligned with the words of the source document
  (``difflib`` on word sequences, case-folded, punctuation stripped from word ends): precision
  (extracted words that are in the source, in order), recall (source words found), F1. Running
  headers left in lower the precision; words lost, split ("e cient") or run together lower both.
- ``merged_words``: extracted words not in the source that are two source words run together
  (a missing space), the extractors' known weakness.
- ``sentence_final``: of the chunks that hold a sentence end (so could have ended at one), how
  many do end at one; the last chunk of a document is not counted (it ends where the text does).
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Final

_WORD: Final = re.compile(r"[\w\u00b5\u00b0]+(?:['\u2019.-][\w\u00b5]+)*")
_SENTENCE_END: Final = re.compile(r"[.!?\u2026]['\")\]\u2019\u201d]*$")
_HAS_SENTENCE_END: Final = re.compile(r"[a-z0-9)\]][.!?\u2026]['\")\]\u2019\u201d]*(?=\s|$)")


@dataclass(frozen=True, slots=True)
class WordScores:
    """Word-level accuracy of an extraction against its source."""

    precision: float
    recall: float

    @property
    def f1(self) -> float:
        """The harmonic mean of precision and recall."""
        total = self.precision + self.recall
        return 2 * self.precision * self.recall / total if total else 0.0


def words(text: str) -> list[str]:
    """Return the words of ``text`` in order, case-folded (numbers, hyphenated words whole)."""
    return [word.casefold() for word in _WORD.findall(text)]


def word_scores(extracted: str, source: str) -> WordScores:
    """Return how many of the extracted words are the source's, in order, and the reverse."""
    found, truth = words(extracted), words(source)
    if not found or not truth:
        return WordScores(0.0, 0.0)
    matcher = difflib.SequenceMatcher(None, truth, found, autojunk=False)
    matched = sum(block.size for block in matcher.get_matching_blocks())
    return WordScores(matched / len(found), matched / len(truth))


def merged_words(extracted: str, source: str) -> int:
    """Return how many extracted words are two source words with the space between lost."""
    vocabulary = {word.casefold() for word in words(source)}
    count = 0
    for word in words(extracted):
        folded = word.casefold()
        if folded in vocabulary or len(folded) < 4:
            continue
        if any(
            folded[:cut] in vocabulary and folded[cut:] in vocabulary
            for cut in range(2, len(folded) - 1)
        ):
            count += 1
    return count


def sentence_final(chunks: Iterable[Sequence[str]]) -> tuple[int, int]:
    """Return ``(chunks ending at a sentence end, chunks that could)`` over some documents.

    ``chunks`` holds each document's chunk texts in order.
    """
    ends = could = 0
    for texts in chunks:
        for text in list(texts)[:-1]:
            if not _HAS_SENTENCE_END.search(text):
                continue
            could += 1
            ends += bool(_SENTENCE_END.search(text.rstrip()))
    return ends, could
