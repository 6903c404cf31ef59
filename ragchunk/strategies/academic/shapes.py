"""A paper's abstract and reference list found by their shape, where no heading names them.

Converted papers (PDF to Markdown or text) often give sections headings but not the abstract
or the references. The abstract is a paragraph that opens with the word (``Abstract``,
``ABSTRACT``, ``**Abstract.**``, ``Abstract—``) in the title block. A reference list is a run of
numbered entries (``[12]`` or ``12.``) to the end of a section, at least three, nearly all with
a year and an author (``Surname, I.``, ``Surname I``, ``et al.``); a lone ``References`` /
``Bibliography`` line (not a heading) right above it belongs to it. A numbered list without
years and authors (a procedure's steps) is no reference list.
"""

from __future__ import annotations

import re
from typing import Final

_ABSTRACT: Final = re.compile(
    r"(?:^|\n[ \t]*\n)[ \t]*[*_]{0,2}(?:ABSTRACT[*_]{0,2}[ \t]|"
    r"(?:Abstract|ABSTRACT)[*_]{0,2}[ \t]*(?:[.:\u2014\u2013-][*_]{0,2}|\n|$))"
)
_ENTRY: Final = re.compile(r"[ \t]*(?:\[\d{1,4}\]|\d{1,4}\.)[ \t]+\S")
_YEAR: Final = re.compile(r"\b(?:1[6-9]\d\d|20\d\d)[a-z]?\b")
_AUTHOR: Final = re.compile(
    r"\b[A-Z][A-Za-z'’\-]+,?\s+(?:[A-Z]\.|[A-Z]{1,2}\b)|\bet al\b|\b[A-Z][a-z]+,\s+[A-Z][a-z]+"
)
_TITLE: Final = re.compile(
    r"[ \t]*[*_#]*[ \t]*(?:references|bibliography|works cited|literature cited|"
    r"references and notes)[ \t]*[*_:.]*[ \t]*",
    re.IGNORECASE,
)
_MIN_ENTRIES: Final = 3
_SHARE: Final = 0.8
"""The share of entries that must hold a year and an author."""


def abstract_start(text: str, start: int, end: int) -> int | None:
    """Return where a paragraph opening with ``Abstract`` starts in ``[start, end)``, or None."""
    match = _ABSTRACT.search(text[start:end])
    if match is None:
        return None
    at = start + match.start()
    while at < end and text[at].isspace():
        at += 1
    return at if at < end else None


def references_start(text: str, start: int, end: int) -> int | None:
    """Return where a reference list running to ``end`` starts in ``[start, end)``, or None."""
    items = _items(text, start, end)
    run = 0
    while run < len(items) and items[len(items) - 1 - run][2]:
        run += 1
    if run < _MIN_ENTRIES:
        return None
    entries = items[len(items) - run :]
    cited = sum(1 for _, body, _ in entries if _YEAR.search(body) and _AUTHOR.search(body))
    if cited < _SHARE * len(entries):
        return None
    first = entries[0][0]
    if len(items) > run:
        before, body, _ = items[len(items) - run - 1]
        if "\n" not in body.strip() and _TITLE.fullmatch(body.strip()):
            return before
    return first


def _items(text: str, start: int, end: int) -> list[tuple[int, str, bool]]:
    """Return the paragraphs and numbered entries of ``[start, end)``: (start, text, entry).

    An entry starts at a numbered line; a line right after a text line continues its item;
    a line after a blank line starts a new one.
    """
    items: list[tuple[int, str, bool]] = []
    at = start
    blank = True
    for line in text[start:end].split("\n"):
        here, at = at, at + len(line) + 1
        if not line.strip():
            blank = True
            continue
        entry = bool(_ENTRY.match(line))
        if entry or blank or not items:
            items.append((here, line, entry))
        else:
            first, body, is_entry = items[-1]
            items[-1] = (first, f"{body}\n{line}", is_entry)
        blank = False
    return items
