"""pdf: the pages' cleaned text joined with ``PAGE_SEPARATOR``, with pages, paragraphs and headings.

With ``--pdf-engine pdfium`` (the default) PDFium alone opens a sound file (``native``: password,
outline, metadata) once ``precheck`` has read its bytes within the caps of ``budget``; a file
``precheck`` doubts, an encrypted one, one PDFium cannot open, and every file of ``--pdf-engine
pypdf``, are opened by pypdf (``reader``: passwords, repairs, errors, outline, metadata) and
checked page by page by ``budget`` before either engine reads the text (PDFium, or pypdf's
``lines``): a doubtful file gets the messages pypdf always gave. With ``--ocr``, pages without
a text layer (or all) are recognised by Tesseract (``ocr``). Cleaning (``clean``, ``hyphens``)
normalises characters, removes running headers, footers and watermarks, and undoes end-of-line
hyphenation; ``--keep`` turns each part off. What it changed is in ``Document.extraction``:
the removed lines per page, the joins, the characters replaced, OCR confidence. Headings come
from the outline (``outline``), and from font sizes and weights (``fonts``) where there is
none or it is sparse; ``layout`` builds the text,
one ``prose`` section per paragraph, and ``Document.wraps``. With PDFium, a ruled table
(``tables``, ``rulings``, ``cells``) reads as rows ``| a | b |`` in a ``table`` section with
its header rows; ``boxes`` places the text on the pages PDFium read (``Document.boxes``).
Offsets index the cleaned text.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ragchunk.model import Document
from ragchunk.parsers._spec import Format
from ragchunk.parsers.pdf.boxes import place
from ragchunk.parsers.pdf.budget import Budget
from ragchunk.parsers.pdf.clean import (
    CharacterCounts,
    normalise,
    remove_repeated,
    removed_report,
)
from ragchunk.parsers.pdf.fonts import font_headings, with_sparse_outline
from ragchunk.parsers.pdf.hyphens import HyphenCounts, join_hyphenated
from ragchunk.parsers.pdf.info import check_header, parse_pdf_date
from ragchunk.parsers.pdf.layout import build
from ragchunk.parsers.pdf.outline import place_outline

if TYPE_CHECKING:
    from ragchunk.model import JSONValue, Metadata
    from ragchunk.parsers._spec import ParseRequest
    from ragchunk.parsers.pdf.info import OutlineEntry
    from ragchunk.parsers.pdf.lines import PageLines

__all__ = ["FORMAT", "parse", "parse_pdf_date"]

_LISTED: int = 20
"""Pages named in a warning before ``...``."""


def parse(data: bytes, request: ParseRequest) -> Document:
    """Return the PDF's cleaned text (pages joined by ``PAGE_SEPARATOR``) and its structure.

    Offsets are absolute, half-open code-point indices into the cleaned text.

    Raises:
        CorruptDocumentError: empty, not a PDF, damaged, or encrypted without a right password.
        LimitExceededError: a stream exceeds the decompression limits, or the decoded content,
            a font map or the text exceeds ``request.max_bytes`` or its caps.
        InputError: OCR was asked for and Tesseract failed.
    """
    check_header(data, request)
    options = request.options
    read = _pdfium_alone(data, request) if options.pdf_engine == "pdfium" else None
    pages, entries, info, password = read or _with_pypdf(data, request)
    extraction: dict[str, JSONValue] = {"engine": options.pdf_engine}
    if options.ocr != "off":
        from ragchunk.parsers.pdf.ocr import recognise_pages

        pages = recognise_pages(data, password, pages, request, extraction)
    return _document(pages, entries, info, request, extraction)


_Read = tuple[list["PageLines"], list["OutlineEntry"], "Metadata", str | None]
"""A file's pages, outline entries, metadata, and the password that opened it."""


def _pdfium_alone(data: bytes, request: ParseRequest) -> _Read | None:
    """Read a file ``precheck`` finds sound with PDFium alone; None: pypdf is to judge it."""
    from ragchunk.errors import LimitExceededError
    from ragchunk.parsers.pdf import native
    from ragchunk.parsers.pdf.budget import OverBudget
    from ragchunk.parsers.pdf.pdfium import pdfium_pages
    from ragchunk.parsers.pdf.precheck import DoubtError, scan

    try:
        found = scan(data, request.max_bytes)
    except DoubtError:
        return None
    opened = native.open_checked(data, request)
    if opened is None:
        return None
    document, password = opened
    try:
        if found.encrypted or password is not None or len(document) != found.pages:
            return None  # pypdf checks what PDFium decrypts, and a page tree in doubt
        budget = Budget(request.source, request.max_bytes)
        budget.content = found.content
        reading = native.PageTops(document)
        try:
            pages = pdfium_pages(reading, budget, request)
        except OverBudget as exc:
            raise LimitExceededError(str(exc)) from None
        entries = native.outline(document, len(pages), reading.tops)
        if entries is None:
            return None  # a loop: pypdf reports it (and reads the file again)
        return pages, entries, native.metadata(document), None
    finally:
        document.close()


def _with_pypdf(data: bytes, request: ParseRequest) -> _Read:
    """Open the file with pypdf, check every page's content and fonts, read the text."""
    from ragchunk.parsers.pdf.lines import pypdf_pages
    from ragchunk.parsers.pdf.reader import guarded, metadata, open_reader, outline, password_of

    budget = Budget(request.source, request.max_bytes)
    with guarded(request):
        reader = open_reader(data, request)
        if request.options.pdf_engine == "pypdf":
            pages = pypdf_pages(reader, budget)
        else:
            pages = _pdfium_pages(data, reader, budget, request)
        entries = [entry for entry in outline(reader) if entry.page < len(pages)]
        info = metadata(reader)
        password = password_of(reader, request)
    return pages, entries, info, password


def _pdfium_pages(data: bytes, reader: Any, budget: Budget, request: ParseRequest) -> list[Any]:
    """Check every page within the budget, then read the text with PDFium."""
    from ragchunk.parsers.pdf.budget import forget_decoded
    from ragchunk.parsers.pdf.pdfium import open_document, pdfium_pages
    from ragchunk.parsers.pdf.reader import password_of

    for page in reader.pages:
        forget_decoded(budget.count_page(page))
        budget.check_fonts(page)
    document = open_document(data, password_of(reader, request), request)
    try:
        return pdfium_pages(document, budget, request)
    finally:
        document.close()


def _document(
    pages: list[PageLines],
    entries: list[OutlineEntry],
    info: Metadata,
    request: ParseRequest,
    extraction: dict[str, JSONValue],
) -> Document:
    options = request.options
    counts = CharacterCounts()
    pages = normalise(pages, ligatures=options.cleans("ligatures"), counts=counts)
    _warn_surrogates(counts, request)
    _warn_empty_pages(pages, request, extraction)
    pages, removed = remove_repeated(
        pages, headers=options.cleans("headers"), watermarks=options.cleans("watermarks")
    )
    hyphens = HyphenCounts()
    if options.cleans("hyphens"):
        pages = join_hyphenated(pages, hyphens)
    if entries:
        headings, missing = place_outline(entries, pages)
        if missing:
            extraction["outline_not_found"] = list(missing)
        headings = with_sparse_outline(headings, font_headings(pages))
    else:
        headings = font_headings(pages)
    layout = build(pages, headings, reflow=options.cleans("linebreaks"))
    boxes = place(layout.text, layout.pages, [page.glyphs for page in pages])
    extraction.update(
        removed=removed_report(removed),
        hyphens_joined=hyphens.joined,
        hyphens_kept=hyphens.kept,
        ligatures=counts.ligatures,
        control_characters=counts.controls,
        symbol_bullets=counts.bullets,
    )
    return Document(
        text=layout.text,
        source=request.source,
        doc_id=request.doc_id,
        format="pdf",
        sections=layout.sections,
        pages=layout.pages,
        has_lines=False,
        metadata={**info, **_ocr_metadata(extraction)},
        wraps=layout.wraps,
        extraction=extraction,
        boxes=boxes,
        page_sizes=tuple((round(page.shown[0], 1), round(page.shown[1], 1)) for page in pages),
    )


def _ocr_metadata(extraction: dict[str, JSONValue]) -> dict[str, JSONValue]:
    """Return what every chunk says of recognised text: the engine and its mean confidence."""
    confidence = extraction.get("ocr_confidence")
    if confidence is None:
        return {}
    return {"ocr": "tesseract", "ocr_confidence": confidence}


def _warn_surrogates(counts: CharacterCounts, request: ParseRequest) -> None:
    if counts.surrogates:
        request.warn(
            "pdf-surrogates",
            f"{request.source}: {counts.surrogates} invalid character(s) (lone surrogates) in "
            "the text replaced with U+FFFD",
        )


def _warn_empty_pages(
    pages: list[PageLines], request: ParseRequest, extraction: dict[str, JSONValue]
) -> None:
    empty = [number for number, page in enumerate(pages, start=1) if not page.has_text]
    if not empty:
        return
    extraction["no_text_pages"] = list(empty)
    listed = ", ".join(str(n) for n in empty[:_LISTED]) + (", ..." if len(empty) > _LISTED else "")
    request.warn(
        "pdf-no-text",
        f"{request.source}: {len(empty)} of {len(pages)} page(s) have no text layer "
        f"(scanned images?): page {listed}",
    )


FORMAT = Format(name="pdf", parse=parse)
