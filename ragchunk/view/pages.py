"""A PDF's pages as images for the viewer, which draws a chunk's boxes over them.

Each page is rendered by PDFium in grey (the boxes are the page's only colour) at
``SCALE`` pixels per point and written as a PNG ``data:`` URI, so the page stays one file that
fetches nothing. Only the first ``MAX_PAGES`` pages are rendered (a long book would make the page
huge); the viewer draws the others as blank pages of their size, boxes included. A document
read from standard input, or a file that no longer opens, gets no images.
"""

from __future__ import annotations

import base64
import struct
import zlib
from pathlib import Path
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from ragchunk.model import Document

SCALE: Final = 1.25
"""Pixels per point: a page 612 points wide is 765 pixels wide."""
MAX_PAGES: Final = 40
"""Pages rendered at most; the rest are drawn blank."""


def page_images(doc: Document, password: str | None = None) -> tuple[str, ...]:
    """Return the pages of a PDF document as PNG ``data:`` URIs (none for other formats)."""
    if doc.format != "pdf" or not doc.page_sizes or doc.source == "-":
        return ()
    import pypdfium2
    import pypdfium2.raw as pdfium_c

    try:
        pdf = pypdfium2.PdfDocument(Path(doc.source), password=password)
    except (OSError, pypdfium2.PdfiumError):
        return ()
    images = []
    try:
        for index in range(min(len(pdf), MAX_PAGES)):
            page = pdf[index]
            try:
                bitmap = page.render(scale=SCALE, grayscale=True)
            finally:
                page.close()
            if bitmap.format != pdfium_c.FPDFBitmap_Gray:
                return ()
            png = grey_png(bitmap.buffer, bitmap.width, bitmap.height, bitmap.stride)
            images.append("data:image/png;base64," + base64.b64encode(png).decode("ascii"))
    except pypdfium2.PdfiumError:
        return ()
    finally:
        pdf.close()
    return tuple(images)


def grey_png(pixels: memoryview, width: int, height: int, stride: int) -> bytes:
    """Return an 8-bit greyscale PNG of ``height`` rows of ``width`` bytes, ``stride`` apart."""
    data = bytes(pixels)
    rows = b"".join(b"\x00" + data[y * stride : y * stride + width] for y in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + b"".join(
        _chunk(kind, body)
        for kind, body in ((b"IHDR", header), (b"IDAT", zlib.compress(rows, 6)), (b"IEND", b""))
    )


def _chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
