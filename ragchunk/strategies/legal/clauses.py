"""Numbered clauses in legal text: ``1.``, ``1.1``, ``1.1.1``, ``(a)``, ``(i)``, ``Article 5``...

A clause starts a line (after indentation) with its number: ``ARTICLE 5`` / ``Article 5``,
``SCHEDULE 1``, ``Section 2.3``, ``§ 4``, ``1.`` / ``1.1`` / ``2.3.1``, ``(a)``, ``(i)``, ``(A)``,
``(1)``, followed by its text. A number is a clause only where a clause may begin: at the start
of the text, after a blank line, or after a line ending a sentence or a list (``.``, ``:``,
``;``); a wrapped line that happens to begin ``1.`` or ``4.3;`` is not one. Depth: articles,
schedules, parts and annexes are 1; a dotted number is as deep as its parts (``2.3.1`` is 3),
a lone ``1.`` or ``§ 1`` one below an open article or schedule; ``(a)`` one below the clause
it is in, ``(i)`` one below a letter (``(i)`` right after ``(h)`` is the letter i). A clause's
title is the text up to its first full stop when that is short (``1.1 Definitions. In...``),
or the rest of the line of an article (``ARTICLE 2 – THE SERVICES``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

_TOP: Final = re.compile(
    r"(?P<word>ARTICLE|Article|SCHEDULE|Schedule|PART|Part|ANNEX|Annex|APPENDIX|Appendix|"
    r"SECTION|Section)\s+(?P<n>[0-9]+[A-Za-z]?|[IVXLC]+)\b[ \t]*(?:[-–—:.][ \t]*)?(?P<rest>.*)"
)
_DOTTED: Final = re.compile(r"(?P<n>\d{1,3}(?:\.\d{1,3})*)(?P<dot>\.?)[ \t]+(?P<rest>\S.*)")
_PARAGRAPH: Final = re.compile(r"§\s*(?P<n>\d+[a-z]?)\.?[ \t]+(?P<rest>\S.*)")
_ITEM: Final = re.compile(
    r"\((?P<n>[a-z]{1,2}|[ivxlc]{1,6}|[A-Z]{1,2}|\d{1,3})\)[ \t]+(?P<rest>\S.*)"
)
_ROMAN: Final = re.compile(r"[ivxlc]+")
_LINE: Final = re.compile(r"[^\n]*")
_TITLE_MAX: Final = 80


@dataclass(frozen=True, slots=True)
class Clause:
    """A numbered clause found in the text.

    Attributes:
        start: the offset of its number (the line's first non-space character).
        depth: 1 for articles and schedules, deeper for sub-clauses and items.
        number: its full number (``2.3.2(c)``, ``Article 2``, ``Schedule 3 § 1``).
        label: the number as written (``2.3.2``, ``(c)``, ``ARTICLE 2``).
        title: its title, or ``""`` when it has none.
    """

    start: int
    depth: int
    number: str
    label: str
    title: str

    @property
    def heading(self) -> str:
        """Its number and title, as a heading path shows it (``ARTICLE 2 – THE SERVICES``)."""
        if not self.title:
            return self.label
        joint = " – " if self.depth == 1 and self.label[:1].isalpha() else " "
        return f"{self.label}{joint}{self.title}"


def find_clauses(text: str) -> list[Clause]:
    """Return the numbered clauses of ``text`` in order (absolute offsets, see the module)."""
    clauses: list[Clause] = []
    state = _State()
    previous = ""
    for match in _LINE.finditer(text):
        line = match.group()
        stripped = line.strip()
        if not stripped:
            previous = ""
            continue
        may_start = not previous or previous.endswith((".", ":", ";"))
        previous = stripped
        if not may_start:
            continue
        start = match.start() + len(line) - len(line.lstrip())
        clause = state.read(stripped, start)
        if clause is not None:
            clauses.append(clause)
    return clauses


class _State:
    """The open clauses while the text is read: their depths and numbers by kind."""

    def __init__(self) -> None:
        self.stack: list[tuple[int, str, str]] = []  # (depth, kind, full number)
        self.top: str | None = None
        self.letter = ""

    def read(self, line: str, start: int) -> Clause | None:
        if match := _TOP.match(line):
            word = match.group("word").capitalize()
            if word == "Section" and line[match.end("n") : match.end("n") + 1] == ".":
                return self._section(match, start)
            number = f"{word} {match.group('n')}"
            self.top = number
            self.stack = [(1, "top", number)]
            title = _heading_title(match.group("rest"))
            return Clause(start, 1, number, line[: match.start("rest")].strip(" -–—:."), title)
        if match := _DOTTED.match(line):
            n = match.group("n")
            if "." not in n and not match.group("dot"):
                return None  # a bare number ("2024 was...") is not a clause
            parts = n.count(".") + 1
            depth = parts + (1 if self.top is not None and parts == 1 else 0)
            number = n if self.top is None or parts > 1 else f"{self.top}, {n}"
            return self._push(depth, "dotted", number, f"{n}{match.group('dot')}", match, start)
        if match := _PARAGRAPH.match(line):
            depth = 2 if self.top is not None else 1
            number = f"{self.top} § {match.group('n')}" if self.top else f"§ {match.group('n')}"
            return self._push(depth, "dotted", number, f"§ {match.group('n')}", match, start)
        if match := _ITEM.match(line):
            return self._item(match, start)
        return None

    def _section(self, match: re.Match[str], start: int) -> Clause | None:
        """A ``Section 2.3`` heading: as deep as its number's parts."""
        dotted = _DOTTED.match(match.group(0)[len(match.group("word")) :].strip())
        if dotted is None:
            return None
        n = dotted.group("n")
        label = f"{match.group('word')} {n}"
        return self._push(n.count(".") + 1, "dotted", n, label, dotted, start)

    def _item(self, match: re.Match[str], start: int) -> Clause:
        n = match.group("n")
        kind = _item_kind(n, self.letter)
        if kind == "letter":
            self.letter = n
        parent = next((e for e in reversed(self.stack) if _ranks_above(e[1], kind)), None)
        depth = parent[0] + 1 if parent else 1
        number = f"{parent[2]}({n})" if parent else f"({n})"
        clause = self._push(depth, kind, number, f"({n})", match, start)
        return Clause(clause.start, clause.depth, clause.number, clause.label, "")  # no titles

    def _push(
        self, depth: int, kind: str, number: str, label: str, match: re.Match[str], start: int
    ) -> Clause:
        while self.stack and self.stack[-1][0] >= depth:
            self.stack.pop()
        self.stack.append((depth, kind, number))
        if kind == "dotted":
            self.letter = ""
        return Clause(start, depth, number, label, _title(match.group("rest")))


_RANKS: Final = {"top": 0, "dotted": 1, "letter": 2, "roman": 3, "capital": 2, "numeral": 2}


def _ranks_above(parent: str, kind: str) -> bool:
    return _RANKS[parent] < _RANKS[kind]


def _item_kind(n: str, last_letter: str) -> str:
    if n.isdigit():
        return "numeral"
    if n.isupper():
        return "capital"
    if _ROMAN.fullmatch(n) and not (len(n) == 1 and last_letter and ord(n) == ord(last_letter) + 1):
        return "roman"
    return "letter"


def _title(rest: str) -> str:
    """Return the title before the first full stop when short (``Definitions. In this...``)."""
    head, dot, _ = rest.partition(". ")
    if not dot and rest.endswith("."):
        head, dot = rest[:-1], "."
    if dot and 0 < len(head) <= _TITLE_MAX and not head.endswith(","):
        return head.strip()
    return ""


def _heading_title(rest: str) -> str:
    rest = rest.strip()
    return rest if len(rest) <= _TITLE_MAX else ""
