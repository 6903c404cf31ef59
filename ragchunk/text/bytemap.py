"""Code point offsets of a text to UTF-8 byte offsets and back, without encoding it whole.

Token sizers (tiktoken counts bytes) and tree-sitter (it reports byte offsets) both need this
map; every offset leaving them is a code point offset into ``Document.text``.
"""

from __future__ import annotations

from bisect import bisect_right
from typing import Final

_BLOCK: Final = 512  # code points between stored byte offsets
_CONTINUATION: Final = bytes(range(0x80, 0xC0))  # bytes that do not start a code point


class ByteMap:
    """Maps code point offsets of a text to UTF-8 byte offsets and back.

    Checkpoints every ``_BLOCK`` code points hold the byte offset there; a lookup encodes (or
    decodes) at most one block, and all-ASCII blocks need no coding at all. The text is never
    encoded as a whole: a sizer looks up a few offsets per chunk. Lone surrogates count as the
    three bytes ``surrogatepass`` gives them.
    """

    __slots__ = ("_ascii", "_byte_starts", "_text")

    def __init__(self, text: str) -> None:
        self._text = text
        self._byte_starts: list[int] = []
        self._ascii: list[bool] = []
        position = 0
        for start in range(0, len(text), _BLOCK):
            block = text[start : start + _BLOCK]
            is_ascii = block.isascii()
            self._byte_starts.append(position)
            self._ascii.append(is_ascii)
            position += len(block) if is_ascii else len(block.encode("utf-8", "surrogatepass"))
        self._byte_starts.append(position)

    def byte_of(self, char: int) -> int:
        """Return the byte offset where code point ``char`` starts."""
        k, within = divmod(char, _BLOCK)
        if k >= len(self._ascii):
            return self._byte_starts[-1]
        if self._ascii[k] or within == 0:
            return self._byte_starts[k] + within
        start = char - within
        return self._byte_starts[k] + len(self._text[start:char].encode("utf-8", "surrogatepass"))

    def starts_char(self, byte: int) -> bool:
        """Return whether ``byte`` is the first byte of a code point (or the end of the text)."""
        k = bisect_right(self._byte_starts, byte) - 1
        if k >= len(self._ascii) or self._ascii[k]:
            return True
        return self._block_bytes(k)[byte - self._byte_starts[k]] & 0xC0 != 0x80  # no continuation

    def char_of(self, byte: int) -> int:
        """Return the code point containing ``byte`` (its start, for a byte inside a character)."""
        k = bisect_right(self._byte_starts, byte) - 1
        if k >= len(self._ascii):
            return len(self._text)
        base = self._byte_starts[k]
        if self._ascii[k]:
            return k * _BLOCK + (byte - base)
        # Code points starting up to and including ``byte``, counted by deleting the bytes that
        # continue one (a lone surrogate's three bytes count once, as ``surrogatepass`` wrote).
        head = self._block_bytes(k)[: byte - base + 1]
        return k * _BLOCK + len(head.translate(None, _CONTINUATION)) - 1

    def _block_bytes(self, k: int) -> bytes:
        return self._text[k * _BLOCK : (k + 1) * _BLOCK].encode("utf-8", "surrogatepass")
