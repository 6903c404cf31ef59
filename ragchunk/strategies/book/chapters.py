"""A book's structure: its parts and chapters, its table of contents and its index.

From headings when the document has them (EPUB, Markdown, DOCX): a heading ``Contents`` /
``Table of Contents`` opens the contents and ``Index`` the index, each running to the next
heading as high as its own; chapters are the headings as deep as the first ``Chapter`` heading
(else the top level). From the text otherwise: a heading is a short line standing alone —
``CHAPTER XII`` / ``Chapter 12`` (with the title on the line after), ``PART TWO`` /
``Part Two``, or a line in capitals (``FOREWORD``); the contents run from their heading over
the blocks that read like entries (page numbers or dotted leaders at their line ends, part
headings between them), the index from its heading over blocks of ``term, pages`` lines.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from ragchunk.model import Section

_CHAPTER: Final = re.compile(r"(?:CHAPTER|Chapter)\s+(?:[IVXLC]+|\d+|[A-Z][a-z]+(?:-[a-z]+)?)\b.*")
_PART: Final = re.compile(r"(?:PART|Part|BOOK|Book)\s+(?:[IVXLC]+|\d+|[A-Z][A-Za-z]+)\b.*")
_CONTENTS: Final = re.compile(r"(?:table\s+of\s+)?contents", re.IGNORECASE)
_INDEX: Final = re.compile(r"(?:general\s+|subject\s+)?index", re.IGNORECASE)
_FRONT: Final = re.compile(
    r"(?:foreword|preface|prologue|introduction|acknowledg(?:e)?ments|dedication|epigraph"
    r"|front\s+matter)",
    re.IGNORECASE,
)
_ENTRY: Final = re.compile(r"(?:\.{3,}|\s)\s*(?:\d+|[ivxlcdm]+)(?:[–-]\d+)?\s*$", re.IGNORECASE)
_INDEX_ENTRY: Final = re.compile(r".+,\s*(?:(?:\d+|[ivxlcdm]+)(?:[–-]\d+)?)(?:,\s*\S+)*\s*$")
_BLOCK: Final = re.compile(r"(?:[^\n]*\S[^\n]*(?:\n|$))+")
_SHORT: Final = 60


@dataclass(frozen=True, slots=True)
class Heading:
    """A book heading found in the text.

    Attributes:
        start: offset of its first character.
        end: offset after its last line (the title line of a chapter included).
        kind: ``part``, ``chapter``, ``contents``, ``index``, ``front`` or ``other``.
        title: its text on one line (``Chapter I: The Weir in Flood``).
        part: the part the text after it lies in, or ``""``.
        chapter: the chapter (or foreword...) the text after it lies in, or ``""``.
    """

    start: int
    end: int
    kind: str
    title: str
    part: str = ""
    chapter: str = ""


@dataclass(frozen=True, slots=True)
class BookParts:
    """What a book template needs: chapter starts, and the spans it drops.

    Attributes:
        headings: the headings that start a chapter, a part or a front or back section.
        contents: the table of contents' span, or None.
        index: the index's span, or None.
    """

    headings: tuple[Heading, ...]
    contents: tuple[int, int] | None
    index: tuple[int, int] | None


def kind_of(title: str) -> str:
    """Return what a heading's title names: part, chapter, contents, index, front or other."""
    title = title.strip()
    if _CONTENTS.fullmatch(title):
        return "contents"
    if _INDEX.fullmatch(title):
        return "index"
    if _CHAPTER.match(title):
        return "chapter"
    if _PART.match(title):
        return "part"
    if _FRONT.fullmatch(title):
        return "front"
    return "other"


def find_in_text(text: str) -> BookParts:
    """Return the structure of a plain-text book (see the module)."""
    blocks = [(m.start(), m.end()) for m in _BLOCK.finditer(text)]
    headings: list[Heading] = []
    contents = index = None
    k = 0
    while k < len(blocks):
        start, end = blocks[k]
        block = text[start:end].strip()
        if "\n" in block or len(block) > _SHORT or not _is_heading_line(block):
            k += 1
            continue
        kind = kind_of(block)
        title_end = end
        if kind == "chapter" and k + 1 < len(blocks) and _is_title(text, *blocks[k + 1]):
            title_end = blocks[k + 1][1]
            block = f"{block}: {text[blocks[k + 1][0] : title_end].strip()}"
            k += 1
        if kind == "part" and k + 1 < len(blocks) and _is_part_name(text, *blocks[k + 1]):
            title_end = blocks[k + 1][1]
            block = f"{block}: {text[blocks[k + 1][0] : title_end].strip()}"
            k += 1
        if kind == "contents" and contents is None:
            last = _run(text, blocks, k + 1, _is_contents_block)
            contents = (start, blocks[last][1] if last > k else end)
            k = last + 1
            continue
        if kind == "index" and headings:
            last = _run(text, blocks, k + 1, _is_index_block)
            index = (start, blocks[last][1] if last > k else end)
            k = last + 1
            continue
        title = block.rstrip()
        part = title if kind == "part" else headings[-1].part if headings else ""
        chapter = title if kind in ("chapter", "front") or (kind == "other" and not part) else ""
        headings.append(Heading(start, title_end, kind, title, part, chapter))
        k += 1
    return BookParts(tuple(headings), contents, index)


def find_in_sections(sections: Sequence[Section], length: int) -> BookParts:
    """Return the structure of a book whose headings were parsed (see the module)."""
    heads = [s for s in sections if s.kind == "heading" and s.headings]
    levels = [s.level for s in heads if kind_of(s.headings[-1]) == "chapter"]
    chapter_level = min(levels) if levels else 1
    headings: list[Heading] = []
    contents = index = None
    for position, section in enumerate(heads):
        if any(a <= section.start < b for a, b in (contents or (0, 0), index or (0, 0))):
            continue  # a part heading listed in the contents
        title = section.headings[-1]
        kind = kind_of(title) if kind_of(title) != "other" else _path_kind(section.headings)
        if kind in ("contents", "index") and (contents if kind == "contents" else index) is None:
            end = next((h.start for h in heads[position + 1 :] if h.level <= section.level), length)
            if kind == "contents":
                contents = (section.start, end)
            else:
                index = (section.start, end)
            continue
        if section.level <= chapter_level:
            part, chapter = _part_and_chapter(section.headings)
            headings.append(Heading(section.start, section.end, kind, title, part, chapter))
    return BookParts(tuple(headings), contents, index)


def _part_and_chapter(path: tuple[str, ...]) -> tuple[str, str]:
    """Return the part and chapter a heading path names (a chapter may have no word for it)."""
    part = next((t for t in path if kind_of(t) == "part"), "")
    chapter = next((t for t in reversed(path) if kind_of(t) in ("chapter", "front")), "")
    if not chapter and not part and path:
        chapter = path[0]
    return part, chapter


def _path_kind(path: tuple[str, ...]) -> str:
    """Return the kind a heading takes from its path (a chapter file's own first heading)."""
    return next((kind_of(t) for t in reversed(path) if kind_of(t) != "other"), "other")


def _is_heading_line(line: str) -> bool:
    if _CHAPTER.fullmatch(line) or _PART.fullmatch(line):
        return True
    letters = [c for c in line if c.isalpha()]
    return bool(letters) and all(c.isupper() for c in letters) and len(line.split()) <= 6


def _is_title(text: str, start: int, end: int) -> bool:
    """A chapter's title: one short line that does not end a sentence."""
    line = text[start:end].strip()
    return "\n" not in line and 0 < len(line) <= _SHORT and not line.endswith((".", ",", ";"))


def _is_part_name(text: str, start: int, end: int) -> bool:
    line = text[start:end].strip()
    return _is_title(text, start, end) and line.isupper() and kind_of(line) == "other"


def _lines(text: str, start: int, end: int) -> list[str]:
    return [line for line in text[start:end].split("\n") if line.strip()]


def _is_contents_block(text: str, start: int, end: int) -> bool:
    lines = _lines(text, start, end)
    entries = sum(1 for line in lines if _ENTRY.search(line))
    if entries * 2 >= len(lines) and entries:
        return True
    return len(lines) == 1 and _is_heading_line(lines[0].strip()) and kind_of(lines[0]) == "part"


def _is_index_block(text: str, start: int, end: int) -> bool:
    lines = _lines(text, start, end)
    return bool(lines) and sum(1 for line in lines if _INDEX_ENTRY.match(line)) * 2 >= len(lines)


def _run(
    text: str, blocks: list[tuple[int, int]], first: int, test: Callable[[str, int, int], bool]
) -> int:
    """Return the index of the last block from ``first`` on that passes ``test`` in a row."""
    last = first - 1
    for k in range(first, len(blocks)):
        if not test(text, *blocks[k]):
            break
        last = k
    return last
