"""Tokens of a tiktoken encoding: exact sizes of spans from one encoding of the whole text.

The encoding itself comes from ``encoding_files`` (local files only, never a download); the
tiktoken library is imported only when an encoding is loaded.
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import operator
import os
import re
from array import array
from bisect import bisect_right
from collections.abc import Iterator
from itertools import accumulate
from typing import Final

from ragchunk.text.bytemap import ByteMap

_CL100K: Final = r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s"""  # noqa: E501
_CL100K_GREEDY: Final = r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s+$|\s*[\r\n]|\s+(?!\S)|\s"""  # noqa: E501
FASTER_PATTERNS: Final = {_CL100K: _CL100K_GREEDY}
"""Pre-tokenizer patterns, each with an equivalent one that tiktoken runs faster.

In cl100k's pattern every possessive quantifier either ends its alternative or is followed only
by ``[\r\n]*`` (which also matches nothing), an alternative's optional first character can
never be the character that follows it, and ``$`` holds only at the end of the text: giving
characters back never completes a match the possessive form misses, so the greedy pattern cuts
the same pieces. fancy-regex then runs those alternatives on the regex crate's automata instead
of its backtracking machine: encoding 1 MB of prose takes about a quarter less time. Encodings
are built with the faster pattern (``encoding_files``); a test compares their tokens with
tiktoken's own encoding on adversarial text.
"""

# Encodings whose pre-tokenizer never joins a non-space character with a following space or tab
# into one piece, and has no look-behind: there, a position p with text[p-1] not whitespace and
# text[p] == " " is a piece boundary in the whole text *and* in every substring containing it, so
# the tokens between two such positions are the same whether the span is encoded alone or in
# context. Only the edges need re-encoding (see TiktokenSizer.size).
_PIECE_STABLE_PATTERNS: Final = frozenset(
    {
        _CL100K,
        _CL100K_GREEDY,
        # r50k_base, p50k_base, gpt2
        r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}++| ?\p{N}++| ?[^\s\p{L}\p{N}]++|\s++$|\s+(?!\S)|\s""",
        r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+""",
    }
)
_STABLE_POINT: Final = re.compile(r"(?<=\S) ")
_TAIL_WINDOW: Final = 64  # characters before a span's end searched first for its last point


_CHECKPOINT: Final = 64  # tokens between stored byte offsets (a lookup sums at most this many)
_MEMO: Final = 4096  # token indexes of offsets, or counts of short texts, remembered at most
_BLOCKS: Final = 64  # blocks whose token ends are remembered (lookups cluster: a few per chunk)
_SHORT: Final = 32  # characters: the token counts of texts this short are remembered


class TiktokenSizer:
    """Exact token sizes for spans of one text, from a single encoding of the whole text.

    Token boundaries are kept as the byte length of every token (one byte each) and the byte
    offset of every ``_CHECKPOINT``-th boundary: about a seventh of the memory of one offset per
    token, and cheaper to build; a boundary's offset is a checkpoint plus a short sum.
    """

    __slots__ = (
        "_blocks",
        "_bytemap",
        "_checkpoints",
        "_counts",
        "_encode",
        "_forced",
        "_heads",
        "_indexes",
        "_lengths",
        "_offsets",
        "_sizes",
        "_stable",
        "_tails",
        "_text",
        "total",
    )
    unit: Final = "tokens"
    is_length: Final = False

    def __init__(self, encoding: object, text: str, *, stable: bool) -> None:
        self._text = text
        self._encode = encoding.encode_ordinary  # type: ignore[attr-defined]
        self._forced: list[int] = []
        segments = _encode_segments(encoding, text, self._forced)
        self._lengths = _byte_lengths(encoding, segments)
        self.total = len(self._lengths)
        step, lengths = _CHECKPOINT, self._lengths
        block_sums = (sum(lengths[k : k + step]) for k in range(0, self.total, step))
        self._checkpoints = array("q", accumulate(block_sums, initial=0))
        self._bytemap = None if text.isascii() else ByteMap(text)
        self._stable = stable
        self._blocks: dict[int, list[int]] = {}  # see _block_ends()
        self._indexes: dict[int, int] = {}  # token index of a character offset, as index() finds
        self._offsets: dict[int, int] = {}  # character offset of a token index, as offset() finds
        self._counts: dict[str, int] = {}
        self._heads: dict[int, tuple[int, int, int]] = {}  # see _head()
        self._tails: dict[int, tuple[int, int, int]] = {}  # see _tail()
        # The last span measured from each start: assemble re-measures the spans pack fitted.
        self._sizes: dict[int, tuple[int, int]] = {}

    def offset(self, index: int) -> int:
        """Return the character offset where token ``index`` starts (floored to a code point)."""
        char = self._offsets.get(index)
        if char is not None:
            return char
        block, within = divmod(index, _CHECKPOINT)
        byte = self._checkpoints[block]
        if within:
            byte += self._block_ends(block)[within - 1]
        bytemap = self._bytemap
        char = byte if bytemap is None else bytemap.char_of(byte)
        if len(self._offsets) >= _MEMO:
            self._offsets.clear()
        self._offsets[index] = char
        if bytemap is None or bytemap.starts_char(byte):  # not floored: index(char) is index
            self._remember(char, index)
        return char

    def index(self, offset: int) -> int:
        """Return the index of the token containing character ``offset``."""
        index = self._indexes.get(offset)
        if index is None:
            index = self._find(offset if self._bytemap is None else self._bytemap.byte_of(offset))
            self._remember(offset, index)
        return index

    def _find(self, byte: int) -> int:
        """Return the index of the token containing ``byte``."""
        block = bisect_right(self._checkpoints, byte) - 1
        # The tokens of the block that end at or before ``byte``: one bisection of their
        # running byte offsets, not a Python loop over up to 64 lengths.
        within = bisect_right(self._block_ends(block), byte - self._checkpoints[block])
        return min(block * _CHECKPOINT + within, self.total)

    def _block_ends(self, block: int) -> list[int]:
        """Return where each token of ``block`` ends, in bytes from the block's checkpoint.

        Built in C from the lengths and remembered: the offsets a chunk looks up (its start,
        its first and last piece-stable points, a guess of its end) share a few blocks.
        """
        ends = self._blocks.get(block)
        if ends is None:
            first = block * _CHECKPOINT
            ends = list(accumulate(self._lengths[first : first + _CHECKPOINT]))
            if len(self._blocks) >= _BLOCKS:
                self._blocks.clear()
            self._blocks[block] = ends
        return ends

    def _remember(self, offset: int, index: int) -> None:
        if len(self._indexes) >= _MEMO:
            self._indexes.clear()
        self._indexes[offset] = index

    def size(self, start: int, end: int) -> int:
        """Return ``len(encode(text[start:end]))``, re-encoding only the span's edges.

        Between the first and last piece-stable positions inside the span, the token count is
        read off the whole-text encoding; the edges are encoded alone.
        """
        known = self._sizes.get(start)
        if known is not None and known[0] == end:
            return known[1]
        size = self._measure(start, end)
        self._sizes[start] = (end, size)
        return size

    def _measure(self, start: int, end: int) -> int:
        if end <= start:
            return 0
        if not self._stable or end - start < 64:
            return self._count(start, end)
        found = self._head(start, end)
        if found is None:  # no piece-stable point inside the span
            return len(self._encode(self._text[start:end]))
        a, head, index_a = found
        b, tail, index_b = self._tail(end)
        if b <= a:  # none after the first one: the last is the first
            b, tail, index_b = a, self._count(a, end), index_a
        if self._forced and bisect_right(self._forced, a) != bisect_right(self._forced, b):
            return len(self._encode(self._text[start:end]))  # the middle crosses an inexact cut
        return head + (index_b - index_a) + tail

    def _head(self, start: int, end: int) -> tuple[int, int, int] | None:
        """Return ``(a, tokens of text[start:a] alone, token index of a)``, or None.

        ``a`` is the first piece-stable point at or after ``start`` and before ``end``. The
        point found is a function of ``start`` alone (a later end finds the same one), so it
        is remembered: packing measures many spans from one start (and many to one end, see
        ``_tail``), and each edge is then encoded once.
        """
        known = self._heads.get(start)
        if known is not None:
            return known if known[0] < end else None
        first = _STABLE_POINT.search(self._text, max(start, 1), end)
        if first is None:
            return None  # not remembered: a search bounded by this end says nothing past it
        a = first.start()
        known = (a, self._count(start, a) if a > start else 0, self.index(a))
        if len(self._heads) >= _MEMO:
            self._heads.clear()
        self._heads[start] = known
        return known

    def _tail(self, end: int) -> tuple[int, int, int]:
        """Return ``(b, tokens of text[b:end] alone, token index of b)``.

        ``b`` is the last piece-stable point at or before ``end`` (0: none was found). A
        function of ``end`` alone (remembered, as ``_head``); a span whose first stable point
        is at or after ``b`` has no other, and ``_measure`` then uses its first.
        """
        known = self._tails.get(end)
        if known is not None:
            return known
        b = self._last_stable_point(0, end)
        known = (b, 0, 0) if b <= 0 else (b, self._count(b, end) if b < end else 0, self.index(b))
        if len(self._tails) >= _MEMO:
            self._tails.clear()
        self._tails[end] = known
        return known

    def _count(self, start: int, end: int) -> int:
        """Return the number of tokens of ``text[start:end]`` alone; short texts are remembered.

        Span edges repeat (a space, a newline, a common word) and each encode call costs far
        more than its few characters.
        """
        piece = self._text[start:end]
        if end - start > _SHORT:
            return len(self._encode(piece))
        count = self._counts.get(piece)
        if count is None:
            if len(self._counts) >= _MEMO:
                self._counts.clear()
            count = self._counts[piece] = len(self._encode(piece))
        return count

    def _last_stable_point(self, lo: int, end: int) -> int:
        """Return the last piece-stable point in ``(lo, end]``, or ``lo`` when there is none.

        It is usually the span's last space, a word from its end; where that space follows
        white space (indented columns), the search goes on in windows that double as they go
        back, so the tail encoded alone stays short.
        """
        text = self._text
        hi = min(end + 1, len(text))
        space = text.rfind(" ", lo + 1, hi)
        if space < 0:
            return lo
        if not text[space - 1].isspace():  # as ``_STABLE_POINT``'s ``\S`` (the same test)
            return space
        hi, width = space, _TAIL_WINDOW
        while hi > lo + 1:
            start = max(lo + 1, hi - width)
            last = -1
            for point in _STABLE_POINT.finditer(text, start, hi):
                last = point.start()
            if last >= 0:
                return last
            hi, width = start, width * 2
        return lo


_encoding_threads = 0  # 0: one per core; see use_one_encoding_thread()


def use_one_encoding_thread() -> None:
    """Encode on this process's thread only: for worker processes that already fill the cores."""
    global _encoding_threads  # a process-wide setting, made once per worker
    _encoding_threads = 1


_SEGMENT: Final = 1 << 16  # characters encoded in one call at most (BPE is superlinear)
_PARALLEL_FROM: Final = 1 << 20  # characters; below this, threads cost more than they save


def _encode_segments(encoding: object, text: str, forced: list[int]) -> Iterator[list[int]]:
    """Yield the tokens of ``text`` segment by segment; append forced cuts to ``forced``.

    Segments end at piece-stable points (``text[p-1]`` not whitespace, ``text[p] == " "``),
    where cutting changes no token, so their encodings concatenate to the single encoding. A
    run with no such point for a whole segment (a minified line, a long unspaced script) is cut
    where it must be: BPE on one huge piece is superlinear in time and memory. Those forced
    cuts are recorded so that sizes never read token counts across them. Large texts are
    encoded on all cores by tiktoken's batch call, which runs without the GIL, a batch at a
    time so that memory stays bounded.
    """
    cuts = [0]
    while len(text) - cuts[-1] > _SEGMENT:
        target = cuts[-1] + _SEGMENT
        point = _STABLE_POINT.search(text, target - _SEGMENT // 2, target)
        if point is None:
            forced.append(target)
        cuts.append(target if point is None else point.start())
    cuts.append(len(text))
    threads = _encoding_threads or os.cpu_count() or 1
    if len(text) < _PARALLEL_FROM or threads < 2:
        for a, b in itertools.pairwise(cuts):
            yield encoding.encode_ordinary(text[a:b])  # type: ignore[attr-defined]
        return
    batch = threads * 4
    for first in range(0, len(cuts) - 1, batch):
        bounds = cuts[first : first + batch + 1]
        segments = [text[a:b] for a, b in itertools.pairwise(bounds)]
        yield from encoding.encode_ordinary_batch(segments, num_threads=threads)  # type: ignore[attr-defined]


def _byte_lengths(encoding: object, segments: Iterator[list[int]]) -> bytes | array[int]:
    """Return the byte length of every token in ``segments``: one byte each where they fit."""
    narrow = _narrow_byte_lengths(encoding)
    if narrow is not None:
        return b"".join(_look_up(narrow, tokens) for tokens in segments)
    lengths = _token_byte_lengths(encoding).__getitem__
    wide = array("I")
    for tokens in segments:
        wide.extend(map(lengths, tokens))
    return wide


def _look_up(table: bytes, tokens: list[int]) -> bytes:
    """Return ``bytes(table[t] for t in tokens)``."""
    if len(tokens) < 2:  # itemgetter of one key returns the value itself, not a tuple
        return bytes(table[t] for t in tokens)
    # One C call for all lookups: ~40 % faster than map() over the tokens.
    return bytes(operator.itemgetter(*tokens)(table))


@functools.cache
def _token_byte_lengths(encoding: object) -> list[int]:
    """Return the byte length of every token, indexed by token id."""
    lengths = [0] * (encoding.max_token_value + 1)  # type: ignore[attr-defined]
    # The rank table is the fast source; decoding each token is the public, slower one.
    ranks = getattr(encoding, "_mergeable_ranks", None)
    if isinstance(ranks, dict):
        for value, rank in ranks.items():
            lengths[rank] = len(value)
    else:
        for rank in range(encoding.n_vocab):  # type: ignore[attr-defined]
            with contextlib.suppress(KeyError):
                lengths[rank] = len(encoding.decode_single_token_bytes(rank))  # type: ignore[attr-defined]
    return lengths


@functools.cache
def _narrow_byte_lengths(encoding: object) -> bytes | None:
    """Return the byte length of every token as one byte each, or None if one has 256 or more."""
    lengths = _token_byte_lengths(encoding)
    return bytes(lengths) if max(lengths) < 256 else None  # cl100k's longest token has 128


class TiktokenMeasure:
    """Tokens of a tiktoken encoding."""

    unit: Final = "tokens"
    is_length: Final = False

    def __init__(self, name: str, encoding: object) -> None:
        self.name = name
        self._encoding = encoding
        self._stable = encoding._pat_str in _PIECE_STABLE_PATTERNS  # type: ignore[attr-defined]

    def count(self, text: str) -> int:
        """Return the number of tokens of ``text`` encoded alone (special tokens as text)."""
        return len(self._encoding.encode_ordinary(text))  # type: ignore[attr-defined]

    def prepare(self, text: str) -> TiktokenSizer:
        """Encode ``text`` once and return a sizer for its spans."""
        return TiktokenSizer(self._encoding, text, stable=self._stable)
