"""docx: the body in document order, then notes; heading paths, lists, tables, pages.

``Document.text`` joins the blocks with a blank line; list items and table rows with a line
feed; a table row reads ``| a | b |`` (empty rows and tables are left out). Runs are read inside
hyperlinks, content controls, fields and tracked insertions; Office Math reads as linear text;
text boxes and shapes follow their paragraph; footnotes and endnotes (and comments with
``--comments``) follow the body as sections linked to their reference marks (``runs``,
``body``, ``notes``). List and heading numbers are printed as Word shows them (``numbering``);
a chart reads as its title and a table of its cached data where it is drawn (``charts``).
Tracked deletions, placeholders, headers and footers are left out and
counted in ``Document.extraction``, and a coverage check (``coverage``) warns of any text run
not read. Headings come from the styles Title and Heading 1–9 and from outline levels
(``styles``); Title is the root of the heading path (level 1, like Heading 1, but Heading 1
stays under it). Pages come from rendered page breaks (``w:lastRenderedPageBreak``) and
explicit ones (page breaks, page-break-before, section breaks); without any, the document has
no pages rather than guessed ones. Before python-docx opens the file, zip and XML bomb checks
run (``_archive``); a Strict Open XML file is then rewritten with Transitional names
(``strict``). Core properties (title, author, created) become document metadata.
"""

from __future__ import annotations

import datetime as dt
import io
import zipfile
import zlib
from typing import TYPE_CHECKING, Any, Final

import docx
from docx.opc.constants import RELATIONSHIP_TYPE as RT
from docx.opc.exceptions import OpcError

from ragchunk.errors import CorruptDocumentError
from ragchunk.model import Document
from ragchunk.parsers._archive import open_zip, refuse_doctypes
from ragchunk.parsers._builder import BLOCK_SEPARATOR, LINE_SEPARATOR
from ragchunk.parsers._spec import Format
from ragchunk.parsers.docx.body import Builder, add_blocks, pages
from ragchunk.parsers.docx.charts import chart_parts
from ragchunk.parsers.docx.coverage import unread_runs
from ragchunk.parsers.docx.notes import add_notes, left_out_parts, related_parts
from ragchunk.parsers.docx.numbering import read_numbering
from ragchunk.parsers.docx.runs import Reading
from ragchunk.parsers.docx.strict import is_strict, transitional
from ragchunk.parsers.docx.styles import W, read_styles

if TYPE_CHECKING:
    from ragchunk.model import JSONValue, Metadata
    from ragchunk.parsers._spec import ParseRequest

__all__ = ["BLOCK_SEPARATOR", "FORMAT", "LINE_SEPARATOR", "parse"]

_READ: Final = frozenset({"footnotes", "endnotes"})
_SHOWN: Final = 60
"""Characters of the first unread run a warning quotes."""


def parse(data: bytes, request: ParseRequest) -> Document:
    """Return the DOCX's text, sections, pages, core properties and what was left out.

    Offsets are absolute, half-open code-point indices into the built text.

    Raises:
        CorruptDocumentError: not a zip, no ``word/document.xml``, or malformed parts.
        LimitExceededError: zip or XML bomb, or more data than ``request.max_bytes``.
    """
    original = data
    with open_zip(data, request, kind="DOCX") as archive:
        if "word/document.xml" not in archive.namelist():
            raise CorruptDocumentError(
                f"{request.source}: not a DOCX: the zip has no word/document.xml"
            )
        refuse_doctypes(archive, request)
        if is_strict(archive):
            data = transitional(archive)
    if data is not original:
        open_zip(data, request, kind="DOCX").close()  # the rewritten archive, checked again
    document = _open(data, request)
    body = _body(document, request)
    comments = request.options.comments
    builder = Builder(
        styles=read_styles(document),
        reading=Reading(),
        spend=request.spend_text,
        lists=read_numbering(_numbering(document)),
        charts=chart_parts(document),
    )
    add_blocks(body, builder)
    parts = _related(document, request)
    add_notes(parts, builder, comments=comments)
    read = [
        body,
        *(p.element for p in parts if p.kind in _READ or (comments and p.kind == "comments")),
    ]
    extraction = _extraction(builder, parts, comments=comments)
    _check_coverage(read, builder.reading.seen, request, extraction)
    return builder.document(
        request,
        "docx",
        _metadata(document),
        pages=pages(builder.text(), builder.breaks),
        extraction=extraction,
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
        CorruptDocumentError: the main part is not a WordprocessingML document (another
            namespace; Strict Open XML is translated to Transitional before, ``strict``).
    """
    element = document.element
    if element.tag != W + "document":
        raise CorruptDocumentError(
            f"{request.source}: unsupported DOCX: its main part is not a WordprocessingML document"
        )
    body = element.find(W + "body")
    return () if body is None else body


def _numbering(document: Any) -> Any:
    """Return the ``w:numbering`` element, or None when the document has no numbering part."""
    try:
        part = document.part.part_related_by(RT.NUMBERING)
    except KeyError:
        return None
    return getattr(part, "element", None)


def _related(document: Any, request: ParseRequest) -> list[Any]:
    """Return the notes, comments, header and footer parts, wrapping python-docx's errors."""
    try:
        return related_parts(document)
    except (OpcError, ValueError, KeyError, SyntaxError) as exc:
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise CorruptDocumentError(f"{request.source}: corrupt DOCX: {reason}") from exc


def _extraction(builder: Builder, parts: list[Any], *, comments: bool) -> dict[str, JSONValue]:
    """Return what was read besides paragraphs, and what was left out on purpose."""
    reading = builder.reading
    left_out: list[JSONValue] = left_out_parts(parts, comments=comments)
    left_out += [
        {"kind": reason, "part": "word/document.xml", "count": count}
        for reason, count in sorted(reading.left_out.items())
    ]
    kinds = [section.kind for section in builder.sections]
    return {
        "left_out": left_out,
        "footnotes": len({s.metadata.get("id") for s in builder.sections if s.kind == "footnote"}),
        "endnotes": len({s.metadata.get("id") for s in builder.sections if s.kind == "endnote"}),
        "comments": len({s.metadata.get("id") for s in builder.sections if s.kind == "comment"}),
        "text_boxes": reading.boxes,
        "equations": reading.equations,
        "tables": kinds.count("table"),
    }


def _check_coverage(
    roots: list[Any], seen: set[Any], request: ParseRequest, extraction: dict[str, JSONValue]
) -> None:
    """Warn when a text run of a part read was not read (see ``coverage``)."""
    missed = unread_runs(roots, seen)
    extraction["unread"] = len(missed)
    if missed:
        first = " ".join(missed[0].split())
        shown = first if len(first) <= _SHOWN else first[: _SHOWN - 1] + "…"
        request.warn(
            "docx-unread",
            f"{request.source}: {len(missed)} text run(s) of the document were not read "
            f"(first: {shown!r}); please report it",
        )


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
