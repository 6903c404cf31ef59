"""OCR for PDF pages (``--ocr``): PDFium renders a page, Tesseract recognises its words.

``auto`` recognises the pages without a text layer, ``all`` every page (its text layer is
replaced). A page is rendered at ``DPI`` in grey, handed to the ``tesseract`` program as a PGM
image on standard input, and its TSV answer becomes lines (Tesseract's own lines, with their
boxes in points and the page's median line height as their size) that go through the same
cleaning as any page.
Each recognised page's mean word confidence (0-100) is kept; ``Document.extraction`` lists
them and ``Document.metadata`` gives every chunk the mean (``ocr_confidence``). Tesseract runs
with one thread unless ``OMP_THREAD_LIMIT`` says otherwise (several threads per page only
contend with ``--jobs``), and never longer than ``PAGE_TIMEOUT`` per page.
"""

from __future__ import annotations

import functools
import os
import shutil
import statistics
import subprocess
from collections import defaultdict
from typing import TYPE_CHECKING, Any, Final

from ragchunk.errors import InputError, OptionError
from ragchunk.parsers.pdf.lines import Line, PageLines

if TYPE_CHECKING:
    from ragchunk.model import JSONValue
    from ragchunk.parsers._spec import ParseRequest

DPI: Final = 300
PAGE_TIMEOUT: Final = 120.0
"""Seconds Tesseract may take over one page."""
PROGRAM: Final = "tesseract"


def check_ocr(language: str) -> None:
    """Raise ``OptionError`` unless Tesseract is installed with every language asked for."""
    if shutil.which(PROGRAM) is None:
        raise OptionError(
            "--ocr",
            "needs the tesseract program, which is not installed "
            "(Debian and Ubuntu: apt-get install tesseract-ocr)",
        )
    missing = [name for name in language.split("+") if name not in installed_languages()]
    if missing:
        raise OptionError(
            "--ocr-language",
            f"Tesseract has no {missing[0]!r} data installed "
            f"(installed: {', '.join(installed_languages()) or 'none'})",
        )


@functools.cache
def installed_languages() -> tuple[str, ...]:
    """Return the languages Tesseract has data for (``tesseract --list-langs``)."""
    try:
        listing = subprocess.run(
            [PROGRAM, "--list-langs"], capture_output=True, text=True, timeout=30, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return ()
    lines = (listing.stdout or listing.stderr).splitlines()
    return tuple(line.strip() for line in lines[1:] if line.strip())


def recognise_pages(
    data: bytes,
    password: str | None,
    pages: list[PageLines],
    request: ParseRequest,
    extraction: dict[str, JSONValue],
) -> list[PageLines]:
    """Return ``pages`` with those ``--ocr`` asks for recognised; record it in ``extraction``.

    Raises:
        InputError: Tesseract failed on a page.
    """
    import pypdfium2

    from ragchunk.parsers.pdf.pdfium import open_document

    wanted = [
        index
        for index, page in enumerate(pages)
        if request.options.ocr == "all" or not page.has_text
    ]
    if not wanted:
        return pages
    document = open_document(data, password, request)
    recognised: list[JSONValue] = []
    try:
        for index in wanted:
            try:
                page = document[index]
            except pypdfium2.PdfiumError:
                continue  # PDFium cannot draw it: the page keeps what it had
            try:
                pages[index] = _recognise(page, request, index + 1)
            finally:
                page.close()
            confidence = pages[index].confidence
            recognised.append({"page": index + 1, "confidence": confidence})
    finally:
        document.close()
    extraction["ocr_pages"] = recognised
    found = [page.confidence for page in pages if page.confidence is not None and page.lines]
    if found:
        extraction["ocr_confidence"] = round(sum(found) / len(found), 1)
    return pages


def _recognise(page: Any, request: ParseRequest, number: int) -> PageLines:
    width, height = page.get_size()
    bitmap = page.render(scale=DPI / 72, grayscale=True)
    try:
        image = _pgm(bitmap)
    finally:
        bitmap.close()
    tsv = _tesseract(image, request, number)
    lines, confidences = _lines(tsv, 72 / DPI)
    confidence = round(sum(confidences) / len(confidences), 1) if confidences else 0.0
    return PageLines(tuple(lines), width, height, confidence)


def _pgm(bitmap: Any) -> bytes:
    """Return a grey PDFium bitmap as a binary PGM image."""
    width, height, stride = bitmap.width, bitmap.height, bitmap.stride
    buffer = bytes(bitmap.buffer)
    rows = b"".join(buffer[row * stride : row * stride + width] for row in range(height))
    return b"P5\n%d %d\n255\n" % (width, height) + rows


def _tesseract(image: bytes, request: ParseRequest, number: int) -> str:
    environment = {"OMP_THREAD_LIMIT": "1", **os.environ}
    command = [PROGRAM, "stdin", "stdout", "-l", request.options.ocr_language, "tsv"]
    try:
        done = subprocess.run(
            command,
            input=image,
            capture_output=True,
            timeout=PAGE_TIMEOUT,
            env=environment,
            check=False,
        )
    except subprocess.TimeoutExpired:
        raise InputError(
            f"{request.source}: OCR of page {number} took longer than {PAGE_TIMEOUT:.0f} s"
        ) from None
    except OSError as exc:
        raise InputError(f"{request.source}: cannot run {PROGRAM}: {exc.strerror}") from None
    if done.returncode != 0:
        reason = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise InputError(
            f"{request.source}: OCR of page {number} failed: {reason[-1] if reason else 'error'}"
        )
    return done.stdout.decode("utf-8", "replace")


def _lines(tsv: str, scale: float) -> tuple[list[Line], list[float]]:
    """Return Tesseract's lines (block, paragraph, line) and its word confidences."""
    words: dict[tuple[str, str, str], list[tuple[int, int, int, int, str]]] = defaultdict(list)
    confidences: list[float] = []
    for row in tsv.splitlines()[1:]:
        fields = row.split("\t")
        if len(fields) != 12 or fields[0] != "5" or not fields[11].strip():
            continue
        left, top, width, height = (int(value) for value in fields[6:10])
        words[(fields[2], fields[3], fields[4])].append(
            (left, top, left + width, top + height, fields[11].strip())
        )
        if float(fields[10]) >= 0:
            confidences.append(float(fields[10]))
    boxes = [
        (
            " ".join(word[4] for word in found),
            min(word[0] for word in found) * scale,
            max(word[2] for word in found) * scale,
            min(word[1] for word in found) * scale,
            max(word[3] for word in found) * scale,
        )
        for found in words.values()
    ]
    # One size for the page: a line's height varies with its letters (capitals, descenders),
    # and sizes that differ would read as changes of font between the lines of a paragraph.
    size = round(statistics.median(box[4] - box[3] for box in boxes), 1) if boxes else 0.0
    lines = [Line(text, size, left, right, top, bottom) for text, left, right, top, bottom in boxes]
    return lines, confidences
