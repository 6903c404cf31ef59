"""Resource caps for PDF parsing (``--max-bytes``), on top of pypdf's own limits.

pypdf caps each stream it decompresses (75 MB); a hostile file repeats such streams, one per page
or per form XObject, so that their sum (and pypdf's cache of every decoded stream) exhausts
memory. Here every stream is capped at ``max_bytes`` too, the decoded content streams of the
whole document (page contents and the forms they draw) count against ``max_bytes`` before a
page's text is extracted, and each page's decoded copies are dropped once its text is out.

The text is capped too: a font's ToUnicode map may turn each byte shown into 256 characters (a
2 KB file held 100 million). Real text takes at least a byte of content per few characters, so
the text may not outgrow ``TEXT_PER_BYTE`` characters per byte of decoded content (plus
``TEXT_FLOOR``), nor ``max_bytes``. That is checked each time pypdf hands over a piece of text,
which it does at every line, move or font change; since a piece may gather many strings first,
the strings shown between two pieces may not exceed ``MAX_SHOWN_BYTES`` (at most 256 characters
each: 16 M characters). pypdf is also told never to run the external ``jbig2dec`` program.

PDFium (the ``pdfium`` engine) has no caps of its own to set: before it reads a file, every page's
content streams are counted here as for pypdf, and every font's ToUnicode map is read (capped
like any stream): a map giving one code more than ``MAX_MAPPED`` characters is refused, so the
text PDFium builds stays within what the content can show. Its text is then counted page by page.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, Final

from ragchunk.errors import LimitExceededError

if TYPE_CHECKING:
    from contextlib import AbstractContextManager

MAX_FORMS: Final = 10_000
"""Form XObjects looked at per page; past this many a page is refused."""
TEXT_PER_BYTE: Final = 4
TEXT_FLOOR: Final = 1024 * 1024
MAX_SHOWN_BYTES: Final = 64 * 1024
"""The most bytes of strings shown in a row, without a line or move between (a line is less)."""
MAX_MAPPED: Final = 32
"""The most characters a font's ToUnicode map may give one code (ligatures give two or three)."""
_SHOWING: Final = frozenset({b"Tj", b"TJ", b"'", b'"'})
_HEX_STRING: Final = re.compile(rb"<([0-9A-Fa-f\s]*)>")
_HEX_SPACE: Final = b" \t\r\n"
"""The white space between the digits of a hex string, which ``longest_destination`` skips."""


class OverBudget(BaseException):
    """The text grew past its cap inside pypdf's extraction; ``str()`` is the message.

    A ``BaseException``: pypdf catches ``Exception`` around form XObjects and would carry on.
    """


def configuration(max_bytes: int) -> AbstractContextManager[Any]:
    """Return a context in which pypdf caps every stream at ``max_bytes`` and runs no program."""
    import pypdf  # here: the pdfium engine reads sound files without pypdf (``precheck``)

    base = pypdf.get_configuration()
    caps = {
        f.name: min(getattr(base, f.name), max_bytes)
        for f in dataclasses.fields(base)
        if f.name.endswith("_output_length") or f.name == "maximum_declared_stream_length"
    }
    return pypdf.apply_configuration(jbig2dec_binary=None, **caps)


class Budget:
    """What one document has used of ``max_bytes``: decoded content and extracted text."""

    def __init__(self, source: str, max_bytes: int) -> None:
        self.source = source
        self.limit = max_bytes
        self.content = 0
        self.text = 0
        self.shown = 0
        self._counted: set[int] = set()
        self._maps: set[int] = set()

    def count_page(self, page: Any) -> list[Any]:
        """Count the page's content streams not counted yet; return all of them, decoded-free.

        Raises:
            LimitExceededError: the document's decoded content passes ``max_bytes``.
        """
        streams = list(_content_streams(page, self.source))
        for stream in streams:
            if id(stream) in self._counted:
                continue
            self._counted.add(id(stream))
            self.content += len(stream.get_data())
            forget_decoded([stream])
            if self.content > self.limit:
                raise LimitExceededError(
                    f"{self.source}: refused: its content streams expand past "
                    f"--max-bytes {self.limit} (a decompression bomb?)"
                )
        return streams

    def check_fonts(self, page: Any) -> None:
        """Read the ToUnicode map of every font the page (or a form on it) uses, once each.

        Raises:
            LimitExceededError: a map gives one code more than ``MAX_MAPPED`` characters.
        """
        for resources in (
            page.get("/Resources"),
            *(f.get("/Resources") for f in _forms(page.get("/Resources"), self.source)),
        ):
            for cmap in _unicode_maps(resources):
                if id(cmap) in self._maps:
                    continue
                self._maps.add(id(cmap))
                longest = longest_destination(cmap.get_data())
                forget_decoded([cmap])
                if longest > MAX_MAPPED:
                    raise LimitExceededError(
                        f"{self.source}: refused: a font maps one code to {longest} characters "
                        "(a font map expanding each byte?)"
                    )

    def count_text(self, piece: str) -> None:
        """Count a piece of extracted text (pypdf's ``visitor_text``).

        Raises:
            OverBudget: the text outgrew the content it comes from, or ``max_bytes``.
        """
        self.text += len(piece)
        self.shown = 0
        cap = min(self.limit, TEXT_PER_BYTE * self.content + TEXT_FLOOR)
        if self.text > cap:
            raise OverBudget(
                f"{self.source}: refused: its text grows past {cap} characters, more than its "
                "content streams can hold (a font map expanding each byte?)"
            )

    def check_operation(self, operator: bytes, operands: Any) -> None:
        """Count the bytes a text-showing operator shows (``visitor_operand_before``).

        Raises:
            OverBudget: more than ``MAX_SHOWN_BYTES`` shown since pypdf's last piece of text.
        """
        if operator not in _SHOWING:
            return
        self.shown += sum(_string_length(operand) for operand in operands)
        if self.shown > MAX_SHOWN_BYTES:
            raise OverBudget(
                f"{self.source}: refused: {self.shown} bytes of text shown in a row, without a "
                f"line break or move (limit {MAX_SHOWN_BYTES})"
            )


def _string_length(operand: Any) -> int:
    if isinstance(operand, list):  # TJ: an array of strings and spacings
        return sum(_string_length(item) for item in operand)
    return len(operand) if isinstance(operand, str | bytes) else 0


def forget_decoded(streams: list[Any]) -> None:
    """Drop pypdf's cached decoded copies of ``streams`` (kept for the reader's lifetime)."""
    for stream in streams:
        if getattr(stream, "decoded_self", None) is not None:
            stream.decoded_self = None


def _content_streams(page: Any, source: str) -> Iterator[Any]:
    """Yield the streams text extraction decodes for a page: its contents and its forms."""
    from pypdf.generic import ArrayObject

    contents = page.get("/Contents")
    contents = contents.get_object() if contents is not None else None
    items = contents if isinstance(contents, ArrayObject) else [contents]
    for item in items:
        stream = item.get_object() if item is not None else None
        if hasattr(stream, "get_data"):
            yield stream
    yield from _forms(page.get("/Resources"), source)


def _forms(resources: Any, source: str) -> Iterator[Any]:
    """Yield the form XObjects reachable from ``resources``, each once (breadth first)."""
    from pypdf.generic import DictionaryObject

    pending = [resources]
    seen: set[int] = set()
    while pending:
        current = pending.pop()
        current = current.get_object() if current is not None else None
        if not isinstance(current, DictionaryObject):
            continue
        xobjects = current.get("/XObject")
        xobjects = xobjects.get_object() if xobjects is not None else None
        if not isinstance(xobjects, DictionaryObject):
            continue
        for value in xobjects.values():
            form = value.get_object()
            if id(form) in seen or not hasattr(form, "get_data"):
                continue
            if form.get("/Subtype") != "/Form":
                continue
            seen.add(id(form))
            if len(seen) > MAX_FORMS:
                raise LimitExceededError(
                    f"{source}: refused: a page draws more than {MAX_FORMS} form XObjects"
                )
            yield form
            pending.append(form.get("/Resources"))


def _unicode_maps(resources: Any) -> Iterator[Any]:
    """Yield the ToUnicode streams of the fonts in ``resources``."""
    from pypdf.generic import DictionaryObject

    current = resources.get_object() if resources is not None else None
    if not isinstance(current, DictionaryObject):
        return
    fonts = current.get("/Font")
    fonts = fonts.get_object() if fonts is not None else None
    if not isinstance(fonts, DictionaryObject):
        return
    for value in fonts.values():
        font = value.get_object()
        cmap = font.get("/ToUnicode") if isinstance(font, DictionaryObject) else None
        cmap = cmap.get_object() if cmap is not None else None
        if hasattr(cmap, "get_data"):
            yield cmap


def longest_destination(cmap: bytes) -> int:
    """Return the most UTF-16 code units any hex string of a CMap holds (its destinations)."""
    # The most hex digits of any string, the white space between them deleted in C.
    digits = (len(found.translate(None, _HEX_SPACE)) for found in _HEX_STRING.findall(cmap))
    return max(digits, default=0) // 4
