"""End-of-line hyphenation undone, real hyphens kept (``--keep hyphens`` turns this off).

A line ending in a letter and a hyphen, followed (on the next line kept, across a page too) by a
line starting with a lowercase letter, is one word broken in two. The next line's first word
moves up to the broken line, and the hyphen goes, unless the hyphen is real:
1. the document writes the word elsewhere with the hyphen (``well-known``, or the whole
   compound the next line goes on with: ``HER2-`` ``high-risk``) more often than without
   (``wellknown``): kept; written without it more often: joined;
2. else the broken word is already a compound (``state-of-the-`` ``art``) and the parts on
   both sides of the break are words of the document on their own: kept;
3. else joined (``labora-`` ``tory``, ``catchment-sen-`` ``sitive``): hyphenation breaks far
   more words at line ends than compounds do.
Joins and kept hyphens are counted for ``Document.extraction``.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, replace
from itertools import pairwise
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from collections.abc import Sequence

    from ragchunk.parsers.pdf.lines import PageLines

_WORD: Final = re.compile(r"\w+(?:[-\u2010]\w+)*")
_BROKEN: Final = re.compile(r"(\w+(?:[-\u2010]\w+)*)[-\u2010\u00ad]$")
_HYPHENS: Final = frozenset("-\u2010\u00ad")
MAX_WORD: Final = 64
"""The longest word end a broken word is looked for in."""
_FIRST: Final = re.compile(r"\w*")
_PARTS: Final = re.compile("[-\u2010]")


@dataclass(slots=True)
class HyphenCounts:
    """How many line-end hyphens were joined and how many kept as real hyphens."""

    joined: int = 0
    kept: int = 0


def join_hyphenated(pages: Sequence[PageLines], counts: HyphenCounts) -> list[PageLines]:
    """Return the pages with words broken at line ends joined (see the module docstring)."""
    if not any(_broken(line.text) for page in pages for line in page.lines):
        return list(pages)
    words = _vocabulary(pages)
    lines = [list(page.lines) for page in pages]
    places = [(p, i) for p, page_lines in enumerate(lines) for i in range(len(page_lines))]
    for (p, i), (q, j) in pairwise(places):
        above, below = lines[p][i], lines[q][j]
        broken = _broken(above.text)
        head, _, rest = below.text.partition(" ")
        if broken is None or not below.text[:1].islower():
            continue
        left = broken.group(1)
        match = _FIRST.match(head)
        second = match.group() if match else ""
        whole = _WORD.match(head)  # ``high-risk`` after ``HER2-``: the compound goes on
        compound = whole.group() if whole and whole.group() != second else None
        if _is_real_hyphen(left, second, words, compound) and above.text[-1] != "\u00ad":
            counts.kept += 1
            lines[p][i] = replace(above, text=above.text + head)
        else:
            counts.joined += 1
            lines[p][i] = replace(above, text=above.text[:-1] + head)
        lines[q][j] = replace(below, text=rest)
    return [
        replace(page, lines=tuple(line for line in page_lines if line.text))
        for page, page_lines in zip(pages, lines, strict=True)
    ]


def _broken(text: str) -> re.Match[str] | None:
    """Return the match of a word broken by a hyphen at the end of ``text``, if any.

    Only the line's end is searched: the pattern tried at every start of a long line of one
    "word" (a hostile file) would take quadratic time.
    """
    if not text or text[-1] not in _HYPHENS:
        return None  # most lines: no pattern search at all
    return _BROKEN.search(text, max(0, len(text) - MAX_WORD))


def _vocabulary(pages: Sequence[PageLines]) -> Counter[str]:
    """Count the words written whole on the pages, case-folded: compounds and their parts.

    The pieces of words broken at line ends are no evidence of anything and are left out.
    """
    texts = [line.text for page in pages for line in page.lines]
    counts = _with_parts(Counter(map(str.casefold, _WORD.findall("\n".join(texts)))))
    pieces: list[str] = []
    for above, below in pairwise(texts):
        if _broken(above) is not None:
            pieces += [*_WORD.findall(above)[-1:], *_WORD.findall(below)[:1]]
    counts.subtract(_with_parts(Counter(map(str.casefold, pieces))))
    return counts


def _with_parts(counts: Counter[str]) -> Counter[str]:
    """Return ``counts`` with each hyphenated word's parts counted as words too."""
    parts: Counter[str] = Counter()
    for word, count in counts.items():
        if "-" in word or "\u2010" in word:
            for part in _PARTS.split(word):
                if part:
                    parts[part] += count
    counts.update(parts)
    return counts


def _is_real_hyphen(
    left: str, right: str, words: Counter[str], compound: str | None = None
) -> bool:
    """Whether the hyphen between ``left`` and ``right`` is real (see the module docstring).

    ``compound`` is the whole word ``right`` begins (``high-risk``), counted as evidence too.
    """
    if not right:
        return True
    hyphenated = words[f"{left}-{right}".casefold()]
    joined = words[f"{left}{right}".casefold()]
    if compound is not None:
        hyphenated += words[f"{left}-{compound}".casefold()]
        joined += words[f"{left}{compound}".casefold()]
    if hyphenated != joined:
        return hyphenated > joined
    last = _PARTS.split(left)[-1].casefold()
    return last != left.casefold() and words[last] > 0 and words[right.casefold()] > 0
