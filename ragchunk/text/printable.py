"""Text shown to people on one line: file names and messages with their controls escaped."""

from __future__ import annotations

import re
from typing import Final

# Line breaks, other control characters, and the lone surrogates standing for the bytes of a
# file name that is not UTF-8 (os.fsdecode's surrogateescape). A pattern string: ``re`` compiles
# it on first use and caches it, so start-up (every command imports this) compiles nothing.
_UNPRINTABLE: Final = "[\x00-\x08\x0a-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff]"
_ESCAPES: Final = {"\n": "\\n", "\r": "\\r"}


def one_line(message: str) -> str:
    r"""Return ``message`` on one printable line: control characters and stray bytes escaped.

    A file name may hold a line feed or bytes that are not UTF-8 (``\xff``, as the name's
    byte); messages name files, and each must stay one line (SPEC §6).
    """
    return re.sub(_UNPRINTABLE, _escape, message)


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    code = ord(char)
    if char in _ESCAPES:
        return _ESCAPES[char]
    if 0xDC80 <= code <= 0xDCFF:  # surrogateescape: the undecodable byte itself
        return f"\\x{code - 0xDC00:02x}"
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"
