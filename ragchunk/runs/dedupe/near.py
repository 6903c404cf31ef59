"""Near-duplicate search in bulk over MinHash signatures: ``NearIndex``.

``NearIndex.match`` numbers the texts it is given, after those of earlier calls, and tells for
each the number of the earliest *kept* text before it that it nearly repeats, or None when it
is kept itself (``NO_WORDS`` for a text without words, which it leaves to its caller). A text
nearly repeats another when the Jaccard similarity of their sets of word shingles
(``ragchunk.runs.dedupe.minhash``) is at least the threshold. Only kept texts are compared with:
duplicates are never matched, so a chain of small edits cannot drift away from what was kept.

Candidates come from locality-sensitive hashing: texts that share a band key. A call finds
every candidate pair at once with numpy (sorted band keys within the batch, sorted segments of
the kept texts' keys from earlier calls), passes over pairs whose signatures agree in too few
rows (``ESTIMATE_MARGIN`` below the threshold), computes the exact similarity of the others
all together, and walks only the similar pairs, in order, in Python. A batch whose texts share
so many keys that the pairs would grow quadratically (the same boilerplate many times) is
resolved in halves, the first half's kept texts then being candidates of the second half
through the index: the answers do not depend on how the texts are cut into calls.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Final

from ragchunk.runs.dedupe.minhash import PERMUTATIONS, band_keys, choose_rows, shingle, signatures

if TYPE_CHECKING:
    from collections.abc import Sequence

    import numpy as np
    import numpy.typing as npt

    from ragchunk.runs.dedupe.minhash import Shingled

    Ints = npt.NDArray[np.int64]

NO_WORDS: Final = -1
"""``NearIndex.match``'s answer for a text without words (it has no shingles to compare)."""
ESTIMATE_MARGIN: Final = 0.25
"""A pair is checked only if its signatures estimate at least the threshold less this."""
_PAIRS_PER_TEXT: Final = 32
"""A batch with more candidate pairs per text than this (plus ``_PAIRS_SLACK``) is halved."""
_PAIRS_SLACK: Final = 1 << 14


class NearIndex:
    """The texts seen so far, to find which later texts nearly repeat a kept one.

    It holds every text's shingle hashes and signature, and the band keys of the kept texts
    (about 4 bytes per word and 128 bytes per text, and 16 bytes per band key of a kept text).
    """

    def __init__(self, threshold: float) -> None:
        """Start with no texts, finding pairs of at least ``threshold`` similarity."""
        import numpy as np

        self.threshold = threshold
        self._rows = choose_rows(threshold)
        self._least = max(0, math.ceil((threshold - ESTIMATE_MARGIN) * PERMUTATIONS))
        self._count = 0
        self._bases: list[int] = []  # each call's first number, and its shingles
        self._blocks: list[tuple[npt.NDArray[np.uint32], Ints]] = []
        self._signatures = np.zeros((1024, PERMUTATIONS), dtype=np.uint32)  # grows by doubling
        self._keys = _KeyIndex()

    def match(self, texts: Sequence[str]) -> list[int | None]:
        """Return, per text, the number of the kept text it nearly repeats, None, or NO_WORDS.

        The texts get the numbers after those of earlier calls, in order; those that are
        kept are candidates of the later ones, in this call and the next.
        """
        import numpy as np

        shingled = shingle(texts)
        rows = signatures(shingled)
        keys = band_keys(rows, self._rows)
        base = self._count
        self._remember(shingled, rows)
        sizes = shingled.bounds[1:] - shingled.bounds[:-1]
        answer: list[int | None] = [None] * len(texts)
        for k in np.flatnonzero(sizes == 0).tolist():
            answer[k] = NO_WORDS
        members = np.flatnonzero(sizes > 0)
        if members.size:
            self._resolve(members, keys, base, answer)
        return answer

    def _remember(self, shingled: Shingled, rows: npt.NDArray[np.uint32]) -> None:
        import numpy as np

        end = self._count + rows.shape[0]
        if end > self._signatures.shape[0]:
            grown = np.zeros((max(end, 2 * self._signatures.shape[0]), PERMUTATIONS), np.uint32)
            grown[: self._count] = self._signatures[: self._count]
            self._signatures = grown
        self._signatures[self._count : end] = rows
        self._bases.append(self._count)
        self._blocks.append((shingled.hashes, shingled.bounds))
        self._count = end

    def _resolve(
        self,
        members: Ints,
        keys: npt.NDArray[np.uint64],
        base: int,
        answer: list[int | None],
    ) -> None:
        """Answer for ``members`` (indexes into the call's texts, ascending), and index them."""
        import numpy as np

        bands = keys.shape[1]
        flat = keys[members].ravel()
        owners = np.repeat(members, bands)
        order = np.argsort(flat, kind="stable")  # owners stay ascending within a key
        ordered, by = flat[order], owners[order]
        starts = np.ones(ordered.size, dtype=bool)
        starts[1:] = ordered[1:] != ordered[:-1]
        first = np.flatnonzero(starts)[np.cumsum(starts) - 1]
        earlier = np.arange(ordered.size) - first  # members before each in its key's run
        total = int(earlier.sum())
        if total > _PAIRS_PER_TEXT * members.size + _PAIRS_SLACK and members.size > 1:
            half = members.size // 2
            self._resolve(members[:half], keys, base, answer)
            self._resolve(members[half:], keys, base, answer)
            return
        later = np.repeat(by, earlier)
        before = by[np.repeat(first, earlier) + _ragged(earlier)]
        held_by, held = self._keys.find(flat)
        later = np.concatenate((later, owners[held_by])) + base
        candidates = np.concatenate((before + base, held))
        span = np.int64(self._count)
        pairs = np.sort(later * span + candidates)  # not np.unique: it imports numpy.ma
        distinct = np.ones(pairs.size, dtype=bool)
        distinct[1:] = pairs[1:] != pairs[:-1]
        pairs = pairs[distinct]
        later, candidates = pairs // span, pairs % span
        agree = self._signatures[later] == self._signatures[candidates]
        strong = (np.count_nonzero(agree, axis=1) >= self._least) & (later != candidates)
        later, candidates = later[strong], candidates[strong]
        alike = self._similar(later, candidates)
        for number, candidate in zip(
            later[alike].tolist(), candidates[alike].tolist(), strict=True
        ):
            if answer[number - base] is not None:  # matched already (pairs are in order)
                continue
            if candidate < base or answer[candidate - base] is None:  # a kept text
                answer[number - base] = candidate
        kept = np.fromiter((answer[k] is None for k in members.tolist()), bool, members.size)
        self._keys.add(keys[members[kept]].ravel(), np.repeat(members[kept] + base, bands))

    def _similar(self, left: Ints, right: Ints) -> npt.NDArray[np.bool_]:
        """Return, per pair, whether texts ``left[i]`` and ``right[i]`` are similar enough.

        The Jaccard similarity of their sets of shingle hashes, for every pair at once: each
        text's hashes tagged with its rank among the texts of the pairs, sorted into sets, and
        those of a pair's left text looked up in its right text's set.
        """
        import numpy as np

        texts = np.concatenate((left, right))
        order = np.argsort(texts, kind="stable")
        ordered = texts[order]
        new = np.ones(texts.size, dtype=bool)
        new[1:] = ordered[1:] != ordered[:-1]
        rank = np.empty(texts.size, dtype=np.int64)
        rank[order] = np.cumsum(new) - 1
        tagged = np.sort(self._tagged_hashes(ordered[new]))
        distinct = np.ones(tagged.size, dtype=bool)
        distinct[1:] = tagged[1:] != tagged[:-1]
        tagged = tagged[distinct]  # the sets, by rank
        sizes = np.bincount((tagged >> np.uint64(32)).astype(np.int64), minlength=int(new.sum()))
        starts = np.cumsum(sizes) - sizes
        one, other = rank[: left.size], rank[left.size :]
        counts = sizes[one]
        own = tagged[np.repeat(starts[one], counts) + _ragged(counts)] & np.uint64(0xFFFFFFFF)
        wanted = (np.repeat(other, counts).astype(np.uint64) << np.uint64(32)) | own
        at = np.minimum(np.searchsorted(tagged, wanted), tagged.size - 1)
        found = np.repeat(np.arange(left.size), counts)[tagged[at] == wanted]
        shared = np.bincount(found, minlength=left.size)
        # As minhash.jaccard computes it, so that the same pairs pass.
        similarity = shared / (sizes[one] + sizes[other] - shared)
        return similarity >= self.threshold

    def _tagged_hashes(self, numbers: Ints) -> npt.NDArray[np.uint64]:
        """Return the shingle hashes of texts ``numbers`` (ascending), as ``rank << 32 | hash``."""
        import numpy as np

        pieces = []
        calls = np.searchsorted(self._bases, numbers, side="right") - 1
        for call in sorted(set(calls.tolist())):
            which = np.flatnonzero(calls == call)
            hashes, bounds = self._blocks[call]
            local = numbers[which] - self._bases[call]
            counts = bounds[local + 1] - bounds[local]
            at = np.repeat(bounds[local], counts) + _ragged(counts)
            ranks = np.repeat(which.astype(np.uint64), counts) << np.uint64(32)
            pieces.append(ranks | hashes[at])
        return np.concatenate(pieces) if pieces else np.zeros(0, dtype=np.uint64)


class _KeyIndex:
    """Band keys of kept texts by number, in sorted numpy segments (no object per key)."""

    def __init__(self) -> None:
        self._segments: list[tuple[npt.NDArray[np.uint64], Ints]] = []
        self._pending: list[tuple[npt.NDArray[np.uint64], Ints]] = []

    def add(self, keys: npt.NDArray[np.uint64], numbers: Ints) -> None:
        """Hold each of ``keys`` for the text of the same place in ``numbers`` (ascending)."""
        if keys.size:
            self._pending.append((keys, numbers))  # sorted when first searched

    def find(self, needles: npt.NDArray[np.uint64]) -> tuple[Ints, Ints]:
        """Return every (needle's index, number) whose key the index holds."""
        import numpy as np

        self._settle()
        which, numbers = [np.zeros(0, np.int64)], [np.zeros(0, np.int64)]
        for held, held_numbers in self._segments:
            left = np.searchsorted(held, needles, side="left")
            counts = np.searchsorted(held, needles, side="right") - left
            if counts.any():
                which.append(np.repeat(np.arange(needles.size), counts))
                numbers.append(held_numbers[np.repeat(left, counts) + _ragged(counts)])
        return np.concatenate(which), np.concatenate(numbers)

    def _settle(self) -> None:
        """Sort what was added; merge segments of like size (a few to search, not one per add)."""
        import numpy as np

        for keys, numbers in self._pending:
            order = np.argsort(keys, kind="stable")
            self._segments.append((keys[order], numbers[order]))
            while len(self._segments) > 1 and (
                self._segments[-2][0].size <= 2 * self._segments[-1][0].size
            ):
                (left, left_numbers), (right, right_numbers) = self._segments[-2:]
                both = np.concatenate((left, right))
                order = np.argsort(both, kind="stable")  # earlier numbers first within a key
                merged = np.concatenate((left_numbers, right_numbers))[order]
                self._segments[-2:] = [(both[order], merged)]
        self._pending.clear()


def _ragged(counts: Ints) -> Ints:
    """Return ``0..count-1`` for each of ``counts``, one after the other."""
    import numpy as np

    ends = np.cumsum(counts)
    return np.arange(int(ends[-1]) if ends.size else 0) - np.repeat(ends - counts, counts)
