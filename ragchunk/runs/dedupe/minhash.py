"""MinHash over word shingles, vectorised with numpy: the near-duplicate signatures of ``--dedupe``.

A *word* is a run of letters, digits or ``_`` (any code point past the Basic Multilingual Plane
counts as a letter), compared in lower case. A chunk's *shingles* are its runs of ``SHINGLE``
consecutive words (a chunk with fewer words has one shingle of them all; one without words has
none), each hashed to 32 bits. Its *signature* holds, for each of ``PERMUTATIONS`` fixed
permutations of the 32-bit hashes (``x → a·x + b mod 2³²``, ``a`` odd), the least permuted
shingle hash; two signatures agree in a row with probability about the Jaccard similarity of the
shingle sets. ``band_keys`` cuts a signature into bands for locality-sensitive hashing.

Everything here is deterministic (fixed constants, no ``hash()``), and works on a batch of texts
at once: a whole input's chunks cost a few passes of numpy over their characters, never a Python
step per word. numpy is imported inside the functions (STYLE §2.5).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from collections.abc import Sequence

    import numpy as np
    import numpy.typing as npt

SHINGLE: Final = 3
"""Words per shingle."""
PERMUTATIONS: Final = 32
"""Rows of a signature."""
_MATRIX_SHINGLES: Final = 1 << 15
"""Batches of at most this many shingles are permuted as one matrix."""
_SEED: Final = 0x5EED_D0D0
_POLYNOMIAL: Final = 0x100000001B3
"""The base of the polynomial word hash (odd: FNV-1a's 64-bit prime)."""
_BLOCK_CHARS: Final = 1 << 16
"""Characters of text hashed at once."""


@dataclass(frozen=True, slots=True)
class Shingled:
    """The shingles of a batch of texts.

    Attributes:
        hashes: every text's shingle hashes (uint32), text after text, in text order.
        bounds: ``bounds[i]:bounds[i + 1]`` is text ``i``'s slice of ``hashes`` (int64,
            one more entry than there are texts).
    """

    hashes: npt.NDArray[np.uint32]
    bounds: npt.NDArray[np.int64]

    def set_of(self, index: int) -> frozenset[int]:
        """Return the set of shingle hashes of text ``index``."""
        return frozenset(self.hashes[self.bounds[index] : self.bounds[index + 1]].tolist())


@functools.cache
def _word_table() -> npt.NDArray[np.int8]:
    """Return, per code point, 1 for a word character, else 0 (-1: not known yet).

    Only ASCII is known at first; ``_word_flags`` learns the others as texts bring them, so a
    run does not pay for a ``str.isalnum`` call per code point of Unicode.
    """
    import numpy as np

    table = np.full(0x110000, -1, dtype=np.int8)
    table[:128] = [c.isalnum() or c == "_" for c in map(chr, range(128))]
    return table


def _word_flags(codes: npt.NDArray[np.uint32], out: npt.NDArray[np.int8]) -> None:
    """Set ``out`` to 1 where ``codes`` holds a word character, else 0."""
    import numpy as np

    table = _word_table()
    np.take(table, codes, out=out)
    if out.size and out.min() < 0:
        unknown = sorted(set(codes[out < 0].tolist()))
        table[unknown] = [c > 0xFFFF or chr(c).isalnum() for c in unknown]
        np.take(table, codes, out=out)


@functools.cache
def _constants() -> tuple[npt.NDArray[np.uint32], npt.NDArray[np.uint32]]:
    """Return the permutations' ``a`` (odd) and ``b``: SplitMix64 from a fixed seed."""
    import numpy as np

    mask, state, values = (1 << 64) - 1, _SEED, []
    for _ in range(PERMUTATIONS):
        state = (state + 0x9E3779B97F4A7C15) & mask
        value = ((state ^ (state >> 30)) * 0xBF58476D1CE4E5B9) & mask
        value = ((value ^ (value >> 27)) * 0x94D049BB133111EB) & mask
        values.append(value ^ (value >> 31))
    a = np.array([(value & 0xFFFFFFFF) | 1 for value in values], dtype=np.uint32)
    return a, np.array([value >> 32 for value in values], dtype=np.uint32)


def _mix(values: npt.NDArray[np.uint64]) -> npt.NDArray[np.uint64]:
    """Return the 64-bit finaliser of MurmurHash3 applied to ``values`` (a new array)."""
    import numpy as np

    values = values ^ (values >> np.uint64(33))
    values *= np.uint64(0xFF51AFD7ED558CCD)
    values ^= values >> np.uint64(33)
    values *= np.uint64(0xC4CEB9FE1A85EC53)
    values ^= values >> np.uint64(33)
    return values


def shingle(texts: Sequence[str]) -> Shingled:
    """Return the shingle hashes of every text of ``texts`` (see the module docstring)."""
    import numpy as np

    pieces: list[npt.NDArray[np.uint32]] = []
    counts: list[npt.NDArray[np.int64]] = []
    begin = 0
    while begin < len(texts):
        # A block of texts at a time: numpy's temporaries then stay in the processor's cache.
        end, chars = begin, 0
        while end < len(texts) and (chars < _BLOCK_CHARS or end == begin):
            chars += len(texts[end]) + 1
            end += 1
        hashes, count = _shingle_block(texts[begin:end])
        pieces.append(hashes)
        counts.append(count)
        begin = end
    bounds = np.zeros(len(texts) + 1, dtype=np.int64)
    if counts:
        np.cumsum(np.concatenate(counts), out=bounds[1:])
    hashes = np.concatenate(pieces) if pieces else np.zeros(0, np.uint32)
    return Shingled(hashes, bounds)


def _shingle_block(texts: Sequence[str]) -> tuple[npt.NDArray[np.uint32], npt.NDArray[np.int64]]:
    """Return the shingle hashes of ``texts``, text after text, and how many each text has."""
    import numpy as np

    lowered = [text.lower() for text in texts]
    lengths = np.fromiter(map(len, lowered), dtype=np.int64, count=len(lowered))
    # One separator between texts: it is no word character, so no word spans two texts.
    joined = "\0".join(lowered).encode("utf-32-le", "surrogatepass")  # a lone one is no letter
    codes = np.frombuffer(joined, dtype=np.uint32)
    padded = np.zeros(codes.size + 2, dtype=np.int8)  # no word before the first character
    _word_flags(codes, padded[1:-1])
    edges = np.flatnonzero(padded[1:] != padded[:-1])
    starts, ends = edges[0::2], edges[1::2]
    if starts.size == 0:
        return np.zeros(0, np.uint32), np.zeros(len(texts), np.int64)
    words = _word_hashes(codes, starts, ends)
    text_starts = np.zeros(len(texts), dtype=np.int64)
    np.cumsum(lengths[:-1] + 1, out=text_starts[1:])
    owner = np.searchsorted(text_starts, starts, side="right") - 1
    hashes, owners = _shingles(words, owner)
    return hashes, np.bincount(owners, minlength=len(texts)).astype(np.int64)


def _word_hashes(
    codes: npt.NDArray[np.uint32], starts: npt.NDArray[np.intp], ends: npt.NDArray[np.intp]
) -> npt.NDArray[np.uint64]:
    """Return a 64-bit hash per word ``codes[start:end]``: a polynomial hash, mixed.

    Prefix sums of ``code * P**position`` (modulo 2**64) give every word's sum at once; times
    ``P**-start`` (P is odd, so invertible) it no longer depends on where the word stands.
    """
    import numpy as np

    powers, inverses = _powers(codes.size)
    prefix = np.zeros(codes.size + 1, dtype=np.int64)
    # int64's cumsum is many times faster than uint64's, and wraps to the same bits.
    np.cumsum((codes * powers).view(np.int64), out=prefix[1:])
    unsigned = prefix.view(np.uint64)
    sums = (unsigned[ends] - unsigned[starts]) * inverses[starts]
    return _mix(sums + (ends - starts).astype(np.uint64))


def _powers(count: int) -> tuple[npt.NDArray[np.uint64], npt.NDArray[np.uint64]]:
    """Return ``P**i`` and ``P**-i`` modulo 2**64 for ``i < count``."""
    cached, cached_inverses = _cached_powers()
    if count <= cached.size:
        return cached[:count], cached_inverses[:count]
    return _make_powers(count)


@functools.cache
def _cached_powers() -> tuple[npt.NDArray[np.uint64], npt.NDArray[np.uint64]]:
    return _make_powers(_BLOCK_CHARS * 4)


def _make_powers(count: int) -> tuple[npt.NDArray[np.uint64], npt.NDArray[np.uint64]]:
    import numpy as np

    powers = np.full(count, _POLYNOMIAL, dtype=np.uint64)
    powers[0] = 1
    inverses = np.full(count, pow(_POLYNOMIAL, -1, 2**64), dtype=np.uint64)
    inverses[0] = 1
    return np.multiply.accumulate(powers), np.multiply.accumulate(inverses)


def _shingles(
    words: npt.NDArray[np.uint64], owner: npt.NDArray[np.intp]
) -> tuple[npt.NDArray[np.uint32], npt.NDArray[np.intp]]:
    """Return the shingle hashes of consecutive words of one text, and the text of each."""
    import numpy as np

    count = words.size
    combined = words.copy()
    full = np.ones(count, dtype=bool)
    for step in range(1, SHINGLE):
        following = np.zeros(count, dtype=np.uint64)
        same = np.zeros(count, dtype=bool)
        same[: count - step] = owner[step:] == owner[: count - step]
        following[: count - step] = words[step:]
        following[~same] = 0
        full &= same
        combined = _mix(combined * np.uint64(0x9E3779B97F4A7C15) + following)
    first = np.ones(count, dtype=bool)
    first[1:] = owner[1:] != owner[:-1]
    keep = full | first  # a text shorter than a shingle still has one, of all its words
    hashes = (combined[keep] >> np.uint64(32)).astype(np.uint32)
    return hashes, owner[keep]


def signatures(shingled: Shingled) -> npt.NDArray[np.uint32]:
    """Return one signature row per text (``PERMUTATIONS`` columns); zeros for no shingles."""
    import numpy as np

    a, b = _constants()
    sizes = shingled.bounds[1:] - shingled.bounds[:-1]
    result = np.zeros((sizes.size, PERMUTATIONS), dtype=np.uint32)
    has = np.flatnonzero(sizes > 0)
    if has.size == 0:
        return result
    segments = shingled.bounds[has]
    hashes = shingled.hashes
    if hashes.size <= _MATRIX_SHINGLES:  # small batches: one call each, not one per row
        permuted = hashes[:, None] * a
        permuted += b
        result[has] = np.minimum.reduceat(permuted, segments, axis=0)
        return result
    row_values = np.empty(hashes.size, dtype=np.uint32)
    for row in range(PERMUTATIONS):
        np.multiply(hashes, a[row], out=row_values)
        row_values += b[row]
        result[has, row] = np.minimum.reduceat(row_values, segments)
    return result


def band_keys(signatures_: npt.NDArray[np.uint32], rows: int) -> npt.NDArray[np.uint64]:
    """Return, per signature, one key per band of ``rows`` rows (the band's number mixed in)."""
    import numpy as np

    bands = PERMUTATIONS // rows
    used = signatures_[:, : bands * rows].astype(np.uint64).reshape(-1, bands, rows)
    weights = _mix(np.arange(1, rows + 1, dtype=np.uint64))
    keys = (used * weights).sum(axis=2, dtype=np.uint64)
    keys += _mix(np.arange(bands, dtype=np.uint64) + np.uint64(rows << 8))
    return _mix(keys)


def choose_rows(threshold: float, *, miss: float = 0.02) -> int:
    """Return the rows per band: the most that still find a pair at ``threshold`` but ``miss``.

    More rows per band make fewer chance candidates (cheaper); fewer rows find more of the
    pairs near the threshold. A pair of similarity ``s`` shares a band with probability
    ``1 - (1 - s**rows) ** bands``.
    """
    for rows in (8, 6, 5, 4, 3, 2):
        bands = PERMUTATIONS // rows
        if (1 - threshold**rows) ** bands <= miss:
            return rows
    return 1


def jaccard(left: frozenset[int], right: frozenset[int]) -> float:
    """Return the Jaccard similarity of two sets of shingle hashes (1.0 when both are empty)."""
    union = len(left) + len(right)
    if union == 0:
        return 1.0
    shared = len(left & right)
    return shared / (union - shared)
