"""pptx: one page per slide, its title the heading, its text in reading order.

``page_start``/``page_end`` are slide numbers (a skipped hidden slide leaves its number out). A
slide's visible title is a level-1 heading: its title placeholder (TITLE, CENTER_TITLE,
VERTICAL_TITLE) when that holds at most three lines, never a content placeholder python-pptx
reports as the title (``<p:ph/>`` is OBJECT in the title's idx 0); its other shapes are read top
to bottom, then left to right (groups at their place, their shapes in the same order): a text
frame is a block of its paragraphs (one line each, indented two spaces per outline level;
several paragraphs make a ``list`` whose parts are the lines), a table reads ``| a | b |`` per
row (the first row its header). With ``notes`` the speaker notes follow the slide's text as a
``notes`` section (``metadata.notes``); without, their size is counted in ``metadata.left_out``.
Hidden slides are skipped and named in ``metadata.hidden_slides`` unless ``hidden_slides``.
Pictures, charts and other graphics have no text: each is named in ``extraction.left_out``
(``inspect`` lists them, slide by slide). A slide id naming a slide already read is left out
with a warning (each slide is read once); a shape without geometry or a readable position is
read at the top of its slide. The zip and XML bomb checks (``_archive``) run before python-pptx
opens the file; a part it cannot read is named. The text counts against the input's
``--max-text``.
"""

from __future__ import annotations

import io
import zipfile
import zlib
from typing import TYPE_CHECKING, Any, Final

from ragchunk.errors import CorruptDocumentError
from ragchunk.model import Document
from ragchunk.parsers._archive import open_zip, refuse_doctypes
from ragchunk.parsers._builder import TextBuilder
from ragchunk.parsers._extras import need
from ragchunk.parsers._spec import Format

if TYPE_CHECKING:
    from collections.abc import Iterator

    from ragchunk.model import JSONValue
    from ragchunk.parsers._builder import Span
    from ragchunk.parsers._spec import ParseRequest

_MAIN: Final = "ppt/presentation.xml"


def parse(data: bytes, request: ParseRequest) -> Document:
    """Return the deck's text: slides as pages, titles as headings, notes when asked.

    Raises:
        CorruptDocumentError: not a zip, no ``ppt/presentation.xml``, or a damaged part.
        LimitExceededError: zip or XML bomb, or more data than ``request.max_bytes``.
    """
    with open_zip(data, request, kind="PPTX") as archive:
        if _MAIN not in archive.namelist():
            raise CorruptDocumentError(f"{request.source}: not a PPTX: the zip has no {_MAIN}")
        refuse_doctypes(archive, request)
    deck = _open(data, request)
    builder = TextBuilder(spend=request.spend_text)
    hidden: list[JSONValue] = []
    notes_left = 0
    shapes_left: list[JSONValue] = []
    read: set[str] = set()
    repeated: list[int] = []
    for number, slide in enumerate(deck.slides, start=1):
        if slide._element.get("show") in ("0", "false") and not request.options.hidden_slides:
            hidden.append(number)
            continue
        if slide.part.partname in read:  # a slide id naming a slide already read: read once
            repeated.append(number)
            continue
        read.add(slide.part.partname)
        try:
            notes_left += _add_slide(builder, number, slide, request, shapes_left)
        except (AttributeError, KeyError, ValueError, TypeError) as exc:
            raise CorruptDocumentError(
                f"{request.source}: corrupt PPTX: slide {number} cannot be read ({exc})"
            ) from exc
    if repeated:
        request.warn(
            "repeated-part",
            f"{request.source}: {len(repeated)} slide id(s) name a slide already read (the "
            f"first: slide {repeated[0]}); each slide is read once",
        )
    metadata = _metadata(deck)
    if hidden:
        metadata["hidden_slides"] = hidden
    if notes_left:
        metadata["left_out"] = {"notes": notes_left}
    extraction: dict[str, JSONValue] = {"left_out": shapes_left} if shapes_left else {}
    return builder.document(request, "pptx", metadata, extraction=extraction)


def _open(data: bytes, request: ParseRequest) -> Any:
    pptx = need("pptx", extra="pptx", what="PPTX", request=request)
    try:
        return pptx.Presentation(io.BytesIO(data))
    except (
        KeyError,
        ValueError,
        TypeError,
        AttributeError,
        SyntaxError,  # lxml's XMLSyntaxError
        zipfile.BadZipFile,
        zlib.error,
        OSError,
        EOFError,
        NotImplementedError,
    ) as exc:
        part = _broken_part(data, request)
        where = f"{part} cannot be read" if part else "damaged package"
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise CorruptDocumentError(f"{request.source}: corrupt PPTX: {where} ({reason})") from exc


def _broken_part(data: bytes, request: ParseRequest) -> str | None:
    """Return the first XML part that does not parse, to name it in the error."""
    from lxml import etree

    parser = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=False)
    with open_zip(data, request, kind="PPTX") as archive:
        for name in sorted(archive.namelist()):
            if not name.endswith((".xml", ".rels")):
                continue
            try:
                etree.fromstring(archive.read(name), parser)
            except etree.XMLSyntaxError:
                return name
    return None


def _add_slide(
    builder: TextBuilder, number: int, slide: Any, request: ParseRequest, left: list[JSONValue]
) -> int:
    """Add one slide as a page; return the characters of speaker notes left out.

    Shapes of no text (pictures, charts) are named in ``left``.
    """
    builder.open_page()
    title_shape = _title(slide)
    title = " ".join(title_shape.text_frame.text.split()) if title_shape is not None else ""
    builder.path.clear()  # a slide is headed by its own title only
    if title:
        builder.add_heading(title, 1)
    for shape in _reading_order(slide.shapes):
        if title_shape is not None and shape.shape_id == title_shape.shape_id:
            continue
        kind = _no_text(shape)
        if kind:
            left.append({"kind": kind, "page": number, "name": str(shape.name)})
            continue
        _add_shape(builder, shape)
    notes = _notes(slide)
    left_out = 0
    if notes and request.options.notes:
        _add_lines(builder, notes.split("\n"), "notes", {"notes": True})
    elif notes:
        left_out = len(notes)
    builder.close_page(number)
    return left_out


_TITLES: Final = (1, 3, 5)
"""The placeholder types of a title: TITLE, CENTER_TITLE, VERTICAL_TITLE (``PP_PLACEHOLDER``)."""
_TITLE_LINES: Final = 3
_TITLE_CHARS: Final = 200


def _title(slide: Any) -> Any:
    """Return the slide's visible title: a title placeholder holding a short text, or None.

    python-pptx's ``shapes.title`` is the first placeholder of idx 0, which may be a content
    placeholder (``<p:ph/>`` is type OBJECT, idx 0) before the title in the shape tree; and a
    title placeholder used as a text box (many lines) heads nothing.
    """
    for shape in slide.placeholders:
        try:
            kind = shape.placeholder_format.type
        except (ValueError, KeyError, AttributeError):
            continue
        if kind not in _TITLES or not shape.has_text_frame:
            continue
        lines = [p.text for p in shape.text_frame.paragraphs if p.text.strip()]
        if len(lines) <= _TITLE_LINES and len(shape.text_frame.text) <= _TITLE_CHARS:
            return shape
    return None


_PICTURE: Final = "{http://schemas.openxmlformats.org/presentationml/2006/main}pic"
_FRAME: Final = "{http://schemas.openxmlformats.org/presentationml/2006/main}graphicFrame"


def _no_text(shape: Any) -> str:
    """Return what a shape of no text is (``picture``, ``chart``, ``graphic``), or ``""``."""
    tag = shape.element.tag
    if tag == _PICTURE:
        return "picture"
    if tag != _FRAME or getattr(shape, "has_table", False):
        return ""
    return "chart" if getattr(shape, "has_chart", False) else "graphic"


def _reading_order(shapes: Any) -> Iterator[Any]:
    """Yield shapes top to bottom, then left to right; a group's shapes in its place."""
    stack = [iter(sorted(shapes, key=_position))]
    while stack:
        shape = next(stack[-1], None)
        if shape is None:
            stack.pop()
        elif shape.element.tag == _GROUP:  # not shape_type: it raises for a shape without
            stack.append(iter(sorted(shape.shapes, key=_position)))  # geometry
        else:
            yield shape


_GROUP: Final = "{http://schemas.openxmlformats.org/presentationml/2006/main}grpSp"


def _position(shape: Any) -> tuple[int, int]:
    """Return where a shape is, top then left; one without a readable position is at the top."""
    try:
        return (shape.top or 0, shape.left or 0)
    except (ValueError, TypeError, AttributeError):  # a damaged offset ("12pt", "x")
        return (0, 0)


def _add_shape(builder: TextBuilder, shape: Any) -> None:
    if getattr(shape, "has_table", False) and shape.has_table:
        _add_table(builder, shape.table)
    elif shape.has_text_frame:
        lines = []
        for paragraph in shape.text_frame.paragraphs:
            indent = "  " * (paragraph.level or 0)
            # A soft line break (<a:br/>) reads "\v" in python-pptx.
            pieces = [" ".join(piece.split()) for piece in paragraph.text.split("\v")]
            lines.append(indent + ("\n" + indent).join(piece for piece in pieces if piece))
        _add_lines(builder, lines, "prose", {})


def _add_lines(
    builder: TextBuilder, lines: list[str], kind: str, metadata: dict[str, JSONValue]
) -> None:
    """Add a block of lines: one line is ``kind``; several are a list of them."""
    spans: list[Span] = []
    for line in lines:
        if line.strip():
            builder.line(line, spans)
    if not spans:
        return
    is_list = len(spans) > 1 and kind == "prose"
    builder.record(
        spans[0][0],
        "list" if is_list else kind,
        metadata=metadata,
        parts=tuple(spans) if is_list else (),
    )


def _add_table(builder: TextBuilder, table: Any) -> None:
    """Add a table's rows that hold text, ``| a | b |`` each, the first its header."""
    spans: list[Span] = []
    for row in table.rows:
        cells = [" ".join(cell.text.split()).replace("|", "\\|") for cell in row.cells]
        if any(cells):
            builder.line("| " + " | ".join(cells) + " |", spans)
    if spans:
        builder.add_table(spans)


def _notes(slide: Any) -> str:
    if not slide.has_notes_slide:
        return ""
    frame = slide.notes_slide.notes_text_frame
    if frame is None:
        return ""
    return "\n".join(line.strip() for line in frame.text.splitlines() if line.strip())


def _metadata(deck: Any) -> dict[str, JSONValue]:
    properties = deck.core_properties
    metadata: dict[str, JSONValue] = {"slides": len(deck.slides)}
    if properties.title:
        metadata["title"] = properties.title
    if properties.author:
        metadata["author"] = properties.author
    return metadata


FORMAT = Format(name="pptx", parse=parse)
