"""docx: body paragraphs and tables in document order, with heading paths and page breaks.

``Document.text`` joins the blocks with a blank line; list items and table rows with a line
feed; a table row reads ``| a | b |``. Headings come from the styles Title and Heading 1–9 and
from outline levels (direct or inherited through the style chain); Title is the root of the
heading path (level 1, like Heading 1, but Heading 1 stays under it). Pages come from rendered
page breaks (``w:lastRenderedPageBreak``) and explicit ones (page breaks, page-break-before,
section breaks); without any, the document has no pages rather than guessed ones. Before
python-docx opens the file, zip and XML bomb checks run (``_archive``). Core properties
(title, author, created) become document metadata.
"""

from __future__ import annotations

import datetime as dt
import io
import re
import zipfile
import zlib
from dataclasses import dataclass, field
from itertools import pairwise
from typing import TYPE_CHECKING, Any, Final

import docx
from docx.opc.exceptions import OpcError
from docx.styles import BabelFish

from ragchunk.errors import CorruptDocumentError
from ragchunk.model import Document, Page, Section
from ragchunk.parsers._archive import open_zip, refuse_doctypes
from ragchunk.parsers._spec import Format

if TYPE_CHECKING:
    from collections.abc import Iterator

    from ragchunk.model import JSONValue, Metadata
    from ragchunk.parsers._spec import ParseRequest

_W: Final = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
_MC: Final = "{http://schemas.openxmlformats.org/markup-compatibility/2006}"
_HEADING_STYLE: Final = re.compile(r"heading ([1-9])")
BLOCK_SEPARATOR: Final = "\n\n"
"""Between paragraphs, lists and tables in ``Document.text``."""
LINE_SEPARATOR: Final = "\n"
"""Between the items of one list and the rows of one table."""
_INLINE_TEXT: Final = {
    _W + "tab": "\t",
    _W + "ptab": "\t",
    _W + "cr": "\n",
    _W + "noBreakHyphen": "-",
}
# Runs of deleted text, field instructions, drawings (text boxes would repeat as fallbacks)
# and property elements hold no reading text.
_SKIPPED: Final = frozenset(
    _W + name
    for name in ("del", "delText", "instrText", "pPr", "rPr", "drawing", "pict", "object", "sdtPr")
) | {_MC + "AlternateContent"}
_EXPLICIT: Final = "explicit"
_RENDERED: Final = "rendered"


@dataclass(frozen=True, slots=True)
class _Style:
    """What a paragraph style contributes: its name, outline level and list numbering."""

    name: str
    outline: int | None
    numbered: bool
    break_before: bool


@dataclass(slots=True)
class _Builder:
    """Accumulates the text, sections and page-break offsets while walking the body."""

    parts: list[str] = field(default_factory=list)
    length: int = 0
    sections: list[Section] = field(default_factory=list)
    breaks: list[tuple[int, str]] = field(default_factory=list)
    path: list[tuple[int, str]] = field(default_factory=list)
    items: list[tuple[int, int]] = field(default_factory=list)
    items_start: int = 0

    def append(self, text: str, separator: str) -> int:
        """Append a block's text after ``separator`` (none at the start); return its start."""
        if self.length:
            self.parts.append(separator)
            self.length += len(separator)
        start = self.length
        self.parts.append(text)
        self.length += len(text)
        return start

    def headings(self) -> tuple[str, ...]:
        return tuple(title for _, title in self.path)

    def close_list(self) -> None:
        if self.items:
            items = tuple(self.items)
            self.sections.append(
                Section(self.items_start, self.length, "list", self.headings(), parts=items)
            )
            self.items = []


def parse(data: bytes, request: ParseRequest) -> Document:
    """Return the DOCX's text, sections, pages and core properties.

    Offsets are absolute, half-open code-point indices into the built text.

    Raises:
        CorruptDocumentError: not a zip, no ``word/document.xml``, or malformed parts.
        LimitExceededError: zip or XML bomb, or more data than ``request.max_bytes``.
    """
    with open_zip(data, request, kind="DOCX") as archive:
        if "word/document.xml" not in archive.namelist():
            raise CorruptDocumentError(
                f"{request.source}: not a DOCX: the zip has no word/document.xml"
            )
        refuse_doctypes(archive, request)
    document = _open(data, request)
    body = _body(document, request)
    styles = _styles(document)
    builder = _Builder()
    for block in _blocks(body):
        if block.tag == _W + "tbl":
            _add_table(block, builder)
        else:
            _add_paragraph(block, styles, builder)
    builder.close_list()
    text = "".join(builder.parts)
    return Document(
        text=text,
        source=request.source,
        doc_id=request.doc_id,
        format="docx",
        sections=tuple(builder.sections),
        pages=_pages(text, builder.breaks),
        has_lines=False,
        metadata=_metadata(document),
    )


def _open(data: bytes, request: ParseRequest) -> Any:
    """Open the checked bytes with python-docx, wrapping its errors at the boundary."""
    try:
        return docx.Document(io.BytesIO(data))
    except (
        OpcError,
        ValueError,
        KeyError,
        SyntaxError,  # lxml's XMLSyntaxError, e.g. nesting deeper than libxml2 allows
        zipfile.BadZipFile,
        zlib.error,
        OSError,
        EOFError,
        NotImplementedError,  # an unknown zip version or compression method
    ) as exc:
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise CorruptDocumentError(f"{request.source}: corrupt DOCX: {reason}") from exc


def _body(document: Any, request: ParseRequest) -> Any:
    """Return the main part's ``w:body`` (an empty one when it has none).

    Raises:
        CorruptDocumentError: the main part is not a transitional WordprocessingML document
            (a Strict Open XML file, or another namespace: python-docx reads neither).
    """
    element = document.element
    if element.tag != _W + "document":
        raise CorruptDocumentError(
            f"{request.source}: unsupported DOCX: its main part is not a WordprocessingML "
            "document (Strict Open XML files are not read)"
        )
    body = element.find(_W + "body")
    return () if body is None else body


def _styles(document: Any) -> dict[str, _Style]:
    """Resolve every paragraph style through its ``basedOn`` chain (cycles cut)."""
    raw: dict[str, tuple[str, Any, str | None]] = {}
    default = ""
    for style in document.styles.element.findall(_W + "style"):
        if style.get(_W + "type") != "paragraph":
            continue
        style_id = style.get(_W + "styleId") or ""
        name = style.find(_W + "name")
        based = style.find(_W + "basedOn")
        raw[style_id] = (
            # core.xml spells built-in names in lower case ("heading 1"); show Word's UI name.
            BabelFish.internal2ui((name.get(_W + "val") if name is not None else "") or style_id),
            style.find(_W + "pPr"),
            based.get(_W + "val") if based is not None else None,
        )
        if style.get(_W + "default") in ("1", "true"):
            default = style_id
    resolved = {style_id: _resolve(style_id, raw) for style_id in raw}
    resolved[""] = resolved.get(default, _Style("Normal", None, numbered=False, break_before=False))
    return resolved


def _resolve(style_id: str, raw: dict[str, tuple[str, Any, str | None]]) -> _Style:
    name = raw[style_id][0]
    outline: int | None = None
    numbered = break_before = None
    seen: set[str] = set()
    current: str | None = style_id
    while current in raw and current not in seen:
        seen.add(current)
        _, properties, current_base = raw[current]
        if outline is None:
            outline = _outline_level(properties)
        if numbered is None:
            numbered = _numbering(properties)
        if break_before is None:
            break_before = _flag(properties, "pageBreakBefore")
        current = current_base
    return _Style(name, outline, bool(numbered), bool(break_before))


def _outline_level(properties: Any) -> int | None:
    if properties is None:
        return None
    element = properties.find(_W + "outlineLvl")
    value = element.get(_W + "val") if element is not None else None
    return int(value) if value is not None and value.isdigit() else None


def _numbering(properties: Any) -> bool | None:
    """Return whether numbering is on (numId 0 turns it off), or None when unset here."""
    if properties is None:
        return None
    number = properties.find(f"{_W}numPr/{_W}numId")
    return None if number is None else number.get(_W + "val") not in (None, "0")


def _flag(properties: Any, name: str) -> bool | None:
    element = properties.find(_W + name) if properties is not None else None
    if element is None:
        return None
    return element.get(_W + "val") not in ("0", "false", "off")


def _blocks(body: Any) -> Iterator[Any]:
    """Yield the body's paragraphs and tables in order, looking inside content controls."""
    stack = [iter(body)]
    while stack:
        element = next(stack[-1], None)
        if element is None:
            stack.pop()
        elif element.tag in (_W + "p", _W + "tbl"):
            yield element
        elif element.tag in (_W + "sdt", _W + "customXml", _W + "sdtContent"):
            stack.append(iter(element))


def _runs_text(paragraph: Any, breaks: list[tuple[int, str]] | None) -> str:
    """Return a paragraph's reading text; page breaks go to ``breaks`` as text offsets."""
    parts: list[str] = []
    length = 0
    stack = [iter(paragraph)]
    while stack:
        element = next(stack[-1], None)
        if element is None:
            stack.pop()
            continue
        tag = element.tag
        if tag in _SKIPPED or not isinstance(tag, str):
            continue
        piece = ""
        if tag == _W + "t":
            piece = element.text or ""
        elif tag in _INLINE_TEXT:
            piece = _INLINE_TEXT[tag]
        elif tag == _W + "br":
            if element.get(_W + "type") == "page":
                if breaks is not None:
                    breaks.append((length, _EXPLICIT))
            else:
                piece = "\n"
        elif tag == _W + "lastRenderedPageBreak":
            if breaks is not None:
                breaks.append((length, _RENDERED))
        else:
            stack.append(iter(element))
        parts.append(piece)
        length += len(piece)
    return "".join(parts)


def _paragraph_style(paragraph: Any, styles: dict[str, _Style]) -> tuple[_Style, Any]:
    properties = paragraph.find(_W + "pPr")
    style_ref = properties.find(_W + "pStyle") if properties is not None else None
    style_id = style_ref.get(_W + "val") if style_ref is not None else ""
    return styles.get(style_id or "", styles[""]), properties


def _heading_rank(style: _Style, properties: Any) -> int | None:
    """Return 0 for Title, 1–9 for headings (style name or outline level), else None."""
    name = style.name.strip().lower()
    if name == "title":
        return 0
    match = _HEADING_STYLE.fullmatch(name)
    if match:
        return int(match.group(1))
    outline = _outline_level(properties)
    outline = style.outline if outline is None else outline
    return outline + 1 if outline is not None and outline < 9 else None


def _add_paragraph(paragraph: Any, styles: dict[str, _Style], builder: _Builder) -> None:
    style, properties = _paragraph_style(paragraph, styles)
    breaks: list[tuple[int, str]] = []
    if _flag(properties, "pageBreakBefore") or (
        _flag(properties, "pageBreakBefore") is None and style.break_before
    ):
        breaks.append((0, "before"))
    text = _runs_text(paragraph, breaks)
    rank = _heading_rank(style, properties)
    numbered = _numbering(properties)
    is_item = rank is None and (style.numbered if numbered is None else numbered)
    if not text.strip():
        builder.breaks.extend((builder.length, kind) for _, kind in breaks)
    elif is_item:
        _add_item(text, builder, breaks)
    else:
        builder.close_list()
        start = builder.append(text, BLOCK_SEPARATOR)
        builder.breaks.extend((start + offset, kind) for offset, kind in breaks)
        builder.sections.append(_block_section(text, start, rank, style.name, builder))
    if properties is not None and properties.find(_W + "sectPr") is not None:
        kind = properties.find(f"{_W}sectPr/{_W}type")
        if kind is None or kind.get(_W + "val") not in ("continuous", "nextColumn"):
            builder.breaks.append((builder.length, _EXPLICIT))


def _add_item(text: str, builder: _Builder, breaks: list[tuple[int, str]]) -> None:
    separator = LINE_SEPARATOR if builder.items else BLOCK_SEPARATOR
    start = builder.append(text, separator)
    if not builder.items:
        builder.items_start = start
    builder.items.append((start, start + len(text)))
    builder.breaks.extend((start + offset, kind) for offset, kind in breaks)


def _block_section(
    text: str, start: int, rank: int | None, style: str, builder: _Builder
) -> Section:
    end = start + len(text)
    if rank is None:
        return Section(start, end, "prose", builder.headings())
    while builder.path and builder.path[-1][0] >= rank:
        builder.path.pop()
    title = " ".join(text.split())
    builder.path.append((rank, title))
    return Section(start, end, "heading", builder.headings(), max(rank, 1), {"style": style})


def _add_table(table: Any, builder: _Builder) -> None:
    builder.close_list()
    rows: list[tuple[int, int]] = []
    first = builder.length
    for row in table.iter(_W + "tr"):
        if row.getparent() is not table:
            continue  # a nested table's rows are read as part of their cell
        breaks: list[tuple[int, str]] = []
        cells = [_cell_text(cell, breaks) for cell in row.findall(_W + "tc")]
        line = "| " + " | ".join(cells) + " |"
        start = builder.append(line, LINE_SEPARATOR if rows else BLOCK_SEPARATOR)
        # A page break inside a row is placed at the row's start: row granularity is enough.
        builder.breaks.extend((start, kind) for _, kind in breaks)
        rows.append((start, start + len(line)))
        if len(rows) == 1:
            first = start
    if rows:
        builder.sections.append(
            Section(
                first,
                builder.length,
                "table",
                builder.headings(),
                header=rows[0],
                parts=tuple(rows[1:]),
            )
        )


def _cell_text(cell: Any, breaks: list[tuple[int, str]]) -> str:
    texts = [_runs_text(paragraph, breaks) for paragraph in cell.iter(_W + "p")]
    joined = " ".join(" ".join(texts).split())
    return joined.replace("|", "\\|")


def _pages(text: str, breaks: list[tuple[int, str]]) -> tuple[Page, ...]:
    """Return the page map from break offsets; empty when the file records no page breaks.

    Word writes a rendered break right after an explicit one for the same page turn, so a
    break other than an explicit page break, with only whitespace since the previous page
    start, turns no page (this also drops breaks before any text). Each page's span leaves out
    the separators around it.
    """
    if not breaks:
        return ()
    starts = [0]
    for offset, kind in sorted(breaks, key=lambda item: item[0]):
        if kind != _EXPLICIT and not text[starts[-1] : offset].strip():
            continue
        starts.append(offset)
    bounds = [*starts, len(text)]
    pages = []
    for number, (start, end) in enumerate(pairwise(bounds), start=1):
        first = _skip_space(text, start, end)
        pages.append(Page(number, first, _trim_space(text, first, end)))
    return tuple(pages)


def _skip_space(text: str, start: int, end: int) -> int:
    while start < end and text[start].isspace():
        start += 1
    return start


def _trim_space(text: str, start: int, end: int) -> int:
    while end > start and text[end - 1].isspace():
        end -= 1
    return end


def _metadata(document: Any) -> Metadata:
    properties = document.core_properties
    metadata: dict[str, JSONValue] = {}
    if properties.title:
        metadata["title"] = properties.title
    if properties.author:
        metadata["author"] = properties.author
    created = properties.created
    if isinstance(created, dt.datetime):
        if created.tzinfo is None:
            created = created.replace(tzinfo=dt.UTC)  # W3CDTF dates in core.xml are UTC
        metadata["created"] = created.isoformat()
    return metadata


FORMAT = Format(name="docx", parse=parse)
