"""rst: the decoded reStructuredText file, verbatim, with one section per top-level block.

A small line scanner, not docutils (whose nodes carry line numbers at best, never offsets).
Section titles are a line of text under an adornment line (one punctuation character repeated,
at least as long as the title or four long), with an optional identical overline; each style
(character, with or without overline) takes the next level the first time it appears, as
docutils does. Kinds: ``heading`` (with ``level``), ``prose`` (paragraphs, field lists,
directives, comments), ``code`` (a literal block after ``::``, a ``code-block`` directive, a
doctest), ``table`` (grid and simple tables: header rows in ``header``, body rows in
``parts``), ``list`` (bullet and enumerated; items in ``parts``), ``quote`` (an indented block)
and ``rule`` (a transition). Spans are exact offsets into the decoded text and end at a block's
last non-whitespace character; each section's ``headings`` is its title path.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from ragchunk.model import Document, Section
from ragchunk.parsers._builder import HeadingPath
from ragchunk.parsers._decode import decode
from ragchunk.parsers._spec import Format

if TYPE_CHECKING:
    from collections.abc import Iterator

    from ragchunk.model import JSONValue
    from ragchunk.parsers._spec import ParseRequest

_NEWLINE: Final = re.compile(r"\r\n?|\n")
_BLANK: Final = " \t\r\n\f\v"
# An adornment: one printable non-alphanumeric ASCII character, repeated (docutils' set).
_ADORNMENT: Final = re.compile(r"([!-/:-@\[-`{-~])\1*[ \t]*")
_MIN_ADORNMENT: Final = 4
_GRID_BORDER: Final = re.compile(r"[ \t]*\+(?:[-=]+\+)+[ \t]*")
_SIMPLE_BORDER: Final = re.compile(r"[ \t]*=+(?:[ \t]+=+)+[ \t]*")
_BULLET: Final = re.compile(r"[ \t]*[-*+•‣⁃](?:[ \t]+|$)")
_ENUMERATOR: Final = r"(?:\d+|#|[A-Za-z]|[ivxlcdmIVXLCDM]+)"
_ENUMERATED: Final = re.compile(rf"[ \t]*(?:{_ENUMERATOR}[.)]|\({_ENUMERATOR}\))(?:[ \t]+|$)")
_EXPLICIT: Final = re.compile(r"\.\.(?:[ \t]|$)")
_DIRECTIVE: Final = re.compile(r"\.\.[ \t]+([\w][\w:+.-]*)[ \t]*::(?:[ \t]+(\S+))?")
_CODE_DIRECTIVES: Final = frozenset({"code-block", "code", "sourcecode", "testcode", "doctest"})
# Inline markup in a title, kept as its text in heading paths: ``literal``, **strong**,
# *emphasis*, `text <url>`_, `reference`_, :role:`text`.
_INLINE: Final = re.compile(
    r"``(?P<literal>.+?)``|\*\*(?P<strong>.+?)\*\*|\*(?P<emphasis>.+?)\*"
    r"|(?::[\w:+.-]+:)?`(?P<interpreted>[^`<]+?)(?:[ \t]*<[^>`]*>)?`_{0,2}"
)


@dataclass(frozen=True, slots=True)
class _Lines:
    """The text cut into lines: their starts, and each line without its line ending."""

    text: str
    starts: list[int]
    lines: list[str]

    @classmethod
    def of(cls, text: str) -> _Lines:
        starts = [0, *(m.end() for m in _NEWLINE.finditer(text))]
        if starts[-1] == len(text) and len(starts) > 1:
            starts.pop()  # the text ends with a line ending: no empty last line
        ends = [*starts[1:], len(text)]
        lines = [text[a:b].rstrip("\r\n") for a, b in zip(starts, ends, strict=True)]
        return cls(text, starts, lines)

    def __len__(self) -> int:
        return len(self.lines)

    def blank(self, index: int) -> bool:
        return index >= len(self.lines) or not self.lines[index].strip()

    def indent(self, index: int) -> int:
        line = self.lines[index]
        return len(line) - len(line.lstrip(" \t"))

    def span(self, first: int, last: int) -> tuple[int, int]:
        """Return the span of lines ``[first, last)``, trailing whitespace excluded."""
        start = self.starts[first]
        end = self.starts[last] if last < len(self.starts) else len(self.text)
        while end > start and self.text[end - 1] in _BLANK:
            end -= 1
        return start, end


def parse(data: bytes, request: ParseRequest) -> Document:
    """Return the decoded reStructuredText file with its block sections and title paths.

    Offsets are absolute, half-open code-point indices into the decoded text.

    Raises:
        InputError: the data is binary.
    """
    text = decode(data, request)
    return Document(
        text=text,
        source=request.source,
        doc_id=request.doc_id,
        format="rst",
        sections=tuple(find_sections(text)),
    )


def find_sections(text: str) -> list[Section]:
    """Return the sections of a reStructuredText text in document order, covering its non-space."""
    return list(_Scanner(_Lines.of(text)).sections())


class _Scanner:
    """Walks the lines once, block by block, tracking the title path and the title styles."""

    def __init__(self, lines: _Lines) -> None:
        self.lines = lines
        self.styles: dict[tuple[str, bool], int] = {}
        self.path = HeadingPath()
        self.literal_next = False  # the paragraph before ended with "::"

    def headings(self) -> tuple[str, ...]:
        return self.path.titles()

    def sections(self) -> Iterator[Section]:
        lines, index = self.lines, 0
        while index < len(lines):
            if lines.blank(index):
                index += 1
                continue
            section, index = self._block(index)
            yield section

    def _block(self, index: int) -> tuple[Section, int]:
        """Return the section of the block starting at line ``index`` and the line after it."""
        lines = self.lines
        literal, self.literal_next = self.literal_next, False
        if lines.indent(index) > 0:
            end = self._indented_end(index, 0)
            return self._section(index, end, "code" if literal else "quote"), end
        title = self._title(index)
        if title is not None:
            return title
        line = lines.lines[index]
        if _ADORNMENT.fullmatch(line) and len(line.strip()) >= _MIN_ADORNMENT:
            return self._section(index, index + 1, "rule"), index + 1
        if _GRID_BORDER.fullmatch(line):
            return self._grid_table(index)
        if _SIMPLE_BORDER.fullmatch(line):
            return self._simple_table(index)
        if _EXPLICIT.match(line):
            return self._explicit(index)
        if _marker(line) is not None:
            return self._list(index)
        end = index + 1
        while end < len(lines) and not lines.blank(end):
            end += 1
        kind = "code" if line.startswith(">>>") else "prose"
        self.literal_next = lines.lines[end - 1].rstrip().endswith("::")
        return self._section(index, end, kind), end

    def _section(
        self, first: int, last: int, kind: str, metadata: dict[str, JSONValue] | None = None
    ) -> Section:
        start, end = self.lines.span(first, last)
        return Section(start, end, kind, self.headings(), metadata=metadata or {})

    def _indented_end(self, index: int, indent: int) -> int:
        """Return the line after the block from ``index`` of lines indented past ``indent``.

        Blank lines inside the block belong to it when an indented line follows them.
        """
        lines, end = self.lines, index + 1
        while end < len(lines):
            if lines.blank(end):
                after = end
                while after < len(lines) and lines.blank(after):
                    after += 1
                if after >= len(lines) or lines.indent(after) <= indent:
                    return end
                end = after
            elif lines.indent(end) <= indent:
                return end
            end += 1
        return end

    # --- titles --------------------------------------------------------------------------------

    def _title(self, index: int) -> tuple[Section, int] | None:
        """Return the title starting at ``index`` (overline or text) and the line after it.

        An adornment shorter than the title's text still counts from four characters on
        (docutils accepts it with a warning); overline and underline must be identical.
        """
        lines = self.lines.lines
        if index + 2 < len(lines) and _is_adornment(lines[index]):
            over, text, under = lines[index].rstrip(), lines[index + 1], lines[index + 2].rstrip()
            if text.strip() and under == over and _is_long_enough(over, text):
                return self._heading(index, index + 3, text, over[0], overline=True)
        if index + 1 < len(lines) and _is_adornment(lines[index + 1]):
            text, under = lines[index], lines[index + 1].rstrip()
            if not _is_adornment(text) and _is_long_enough(under, text):
                return self._heading(index, index + 2, text, under[0], overline=False)
        return None

    def _heading(
        self, first: int, last: int, text: str, char: str, *, overline: bool
    ) -> tuple[Section, int]:
        level = self.styles.setdefault((char, overline), len(self.styles) + 1)
        self.path.enter(level, plain_title(text))
        start, end = self.lines.span(first, last)
        metadata: dict[str, JSONValue] = {"adornment": char, "overline": overline}
        return Section(start, end, "heading", self.headings(), level, metadata), last

    # --- tables, lists, explicit markup --------------------------------------------------------

    def _grid_table(self, index: int) -> tuple[Section, int]:
        """A grid table: rows end at each border line; the header ends at a ``+===+`` border."""
        lines, end = self.lines, index + 1
        while end < len(lines) and lines.lines[end].lstrip().startswith(("+", "|")):
            end += 1
        borders = [k for k in range(index, end) if _GRID_BORDER.fullmatch(lines.lines[k])]
        header_end = next((k + 1 for k in borders if k > index and "=" in lines.lines[k]), None)
        first_row = header_end if header_end is not None else index
        row_ends = [k + 1 for k in borders if k >= first_row and k > index]
        if not row_ends or row_ends[-1] != end:
            row_ends.append(end)
        return self._table(index, end, header_end, first_row, row_ends), end

    def _simple_table(self, index: int) -> tuple[Section, int]:
        """A simple table: ``===  ===`` borders, each line a row; a border before a blank ends it.

        Blank lines may lie inside it when the lines after them reach a border; with three
        borders or more, the second ends the header rows.
        """
        lines, end = self.lines, index + 1
        borders = [index]
        while end < len(lines):
            if lines.blank(end) and not self._border_ahead(end):
                break  # not closed by a border: the table ends at the blank line
            if _SIMPLE_BORDER.fullmatch(lines.lines[end]):
                borders.append(end)
                if lines.blank(end + 1):
                    end += 1
                    break
            end += 1
        header_end = borders[1] + 1 if len(borders) >= 3 else None
        first_row = header_end if header_end is not None else index
        row_ends = [*range(first_row + 1, end - 1), end]
        return self._table(index, end, header_end, first_row, row_ends), end

    def _border_ahead(self, blank: int) -> bool:
        """Return whether the lines after the blank run from ``blank`` hold a table border."""
        lines, index = self.lines, blank
        while index < len(lines) and lines.blank(index):
            index += 1
        while index < len(lines) and not lines.blank(index):
            if _SIMPLE_BORDER.fullmatch(lines.lines[index]):
                return True
            index += 1
        return False

    def _table(
        self, first: int, last: int, header_end: int | None, first_row: int, row_ends: list[int]
    ) -> Section:
        lines = self.lines
        header = lines.span(first, header_end) if header_end is not None else None
        rows, row_start = [], first_row
        for row_end in row_ends:
            row = lines.span(row_start, row_end) if row_end > row_start else (0, 0)
            if row[1] > row[0]:  # a blank line inside a simple table is no row
                rows.append(row)
            row_start = max(row_start, row_end)
        start, end = lines.span(first, last)
        return Section(start, end, "table", self.headings(), header=header, parts=tuple(rows))

    def _list(self, index: int) -> tuple[Section, int]:
        """A bullet or enumerated list: items at its indent, each with its indented lines."""
        lines = self.lines
        indent = lines.indent(index)
        marker = _marker(lines.lines[index])
        items: list[tuple[int, int]] = []
        item = end = index
        while True:
            end = self._indented_end(item, indent)
            items.append(lines.span(item, end))
            after = end
            while after < len(lines) and lines.blank(after):
                after += 1
            if after >= len(lines) or lines.indent(after) != indent:
                break
            if _marker(lines.lines[after]) != marker:
                break  # another kind of list (bullets after numbers) starts a list of its own
            item = after
        start, stop = lines.span(index, end)
        section = Section(start, stop, "list", self.headings(), parts=tuple(items))
        return section, end

    def _explicit(self, index: int) -> tuple[Section, int]:
        """A directive, comment, target or substitution, with its indented body."""
        end = self._indented_end(index, 0)
        found = _DIRECTIVE.match(self.lines.lines[index])
        if found is None or found.group(1) not in _CODE_DIRECTIVES:
            return self._section(index, end, "prose"), end
        metadata: dict[str, JSONValue] = {"directive": found.group(1)}
        if found.group(2):
            metadata["language"] = found.group(2)
        return self._section(index, end, "code", metadata), end


def _is_adornment(line: str) -> bool:
    return _ADORNMENT.fullmatch(line) is not None


def _is_long_enough(adornment: str, title: str) -> bool:
    return len(adornment) >= min(len(title.strip()), _MIN_ADORNMENT)


def _marker(line: str) -> str | None:
    """Return what a list item's marker looks like (``*``, ``1.``, ``(a)``...), or None.

    Items of one list share it: numbers become ``1``, letters and roman numerals ``a``/``A``.
    """
    found = _BULLET.match(line) or _ENUMERATED.match(line)
    if found is None:
        return None
    marker = re.sub(r"\d+", "1", found.group(0).strip())
    return re.sub(r"[a-z]+", "a", re.sub(r"[A-Z]+", "A", marker))


def plain_title(title: str) -> str:
    """Return a title's text without inline markup, spaces collapsed."""

    def text_of(match: re.Match[str]) -> str:
        return next(group for group in match.groups() if group is not None)

    return " ".join(_INLINE.sub(text_of, title).split())


FORMAT = Format(name="rst", parse=parse)
