"""Bytes → text for the text-based formats: BOMs, UTF-16/32, invalid UTF-8, binary data."""

from __future__ import annotations

import codecs
from typing import TYPE_CHECKING, Final

from ragchunk.errors import InputError

if TYPE_CHECKING:
    from ragchunk.parsers._spec import ParseRequest

_BOMS: Final = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)
_SNIFF: Final = 8192
_WHITESPACE: Final = "\t\n\v\f\r"
# Text codecs that decode no document: an error by design, host names, Python literals.
_NOT_CHARSETS: Final = frozenset(
    {"undefined", "idna", "punycode", "unicode-escape", "raw-unicode-escape"}
)


def text_codec(name: str) -> str | None:
    """Return the codec of a declared charset, or None when it names none that decodes text.

    Python's codec registry also holds bytes-to-bytes codecs (``rot13``, ``base64``, ``hex``,
    ``zlib``, ``uu``, ``bz2``) and text codecs that decode no document (``undefined``,
    ``idna``): a message or page declaring one is read as if it declared none.
    """
    try:
        info = codecs.lookup(name)
    except (LookupError, ValueError):  # ValueError: a name holding a NUL
        return None
    if not getattr(info, "_is_text_encoding", True) or info.name in _NOT_CHARSETS:
        return None
    return info.name


def charset_problem(name: str) -> str:
    """Return why ``text_codec(name)`` is None, for a warning: unknown, or not text."""
    try:
        codecs.lookup(name)
    except (LookupError, ValueError):
        return f"unknown charset {name!r}"
    return f"charset {name!r} is not a text encoding"


def decode(data: bytes, request: ParseRequest) -> str:
    """Decode a text file; the BOM, if any, is not part of the text.

    Without a BOM, UTF-16 is recognised by its pattern of zero bytes; otherwise the data is
    UTF-8, and invalid bytes become U+FFFD with a warning (offsets stay exact into the result).

    Raises:
        InputError: the data is binary (zero bytes that are not UTF-16).
    """
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            return _decode_strict(data[len(bom) :], encoding, request)
    utf16 = _sniff_utf16(data[:_SNIFF])
    if utf16:
        return _decode_strict(data, utf16, request)
    if b"\x00" in data[:_SNIFF]:
        raise InputError(f"{request.source}: binary data, not text (it holds zero bytes)")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        text = data.decode("utf-8", errors="replace")
        bad = text.count("\ufffd") - data.count("\ufffd".encode())
        request.warn(
            "invalid-utf8",
            f"{request.source}: invalid UTF-8 from byte {exc.start}; "
            f"{bad} sequence(s) replaced with U+FFFD",
        )
        return text


def _decode_strict(data: bytes, encoding: str, request: ParseRequest) -> str:
    try:
        return data.decode(encoding)
    except UnicodeDecodeError as exc:
        request.warn(
            "invalid-encoding",
            f"{request.source}: invalid {encoding} from byte {exc.start}; replaced with U+FFFD",
        )
        return data.decode(encoding, errors="replace")


def _sniff_utf16(head: bytes) -> str | None:
    """Return ``utf-16-le``/``-be`` when every other byte is zero, as in ASCII-heavy text."""
    if len(head) < 4 or b"\x00" not in head:
        return None
    pairs = len(head) // 2
    even_zeros = head[0 : pairs * 2 : 2].count(0)
    odd_zeros = head[1 : pairs * 2 : 2].count(0)
    if odd_zeros > 0.4 * pairs and even_zeros < 0.05 * pairs:
        encoding = "utf-16-le"
    elif even_zeros > 0.4 * pairs and odd_zeros < 0.05 * pairs:
        encoding = "utf-16-be"
    else:
        return None
    # Text has no control characters but whitespace; binary data (``00 01 62 69 ...``) does.
    head_text = head[: pairs * 2].decode(encoding, errors="replace")
    if any(char < " " and char not in _WHITESPACE for char in head_text):
        return None
    return encoding
