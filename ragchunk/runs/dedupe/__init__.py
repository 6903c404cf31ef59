"""Near-duplicate removal across a run (``--dedupe exact|near[:THRESHOLD]``, ``--dedupe-mark``).

A ``Deduper`` sees chunks in input order and keeps the first of each group of duplicates: a later
chunk is a duplicate when it matches a chunk kept before it. It is then dropped or, with
``mark``, kept with ``metadata.duplicate_of`` (the id of the kept chunk). Duplicates are never
compared with each other, only with kept chunks.

- ``exact``: the chunk texts are equal once every run of whitespace is one space and the ends are
  stripped (the same paragraph wrapped differently, or with CRLF, is the same text); compared by
  a BLAKE2b digest.
- ``near``: a Jaccard similarity of at least ``threshold`` between the sets of word 3-shingles
  (``ragchunk.runs.dedupe.minhash``). MinHash signatures and locality-sensitive hashing find the
  candidates, in bulk (``ragchunk.runs.dedupe.near``); each candidate's similarity is then computed
  exactly, so the decision is the threshold's, not an estimate's (only a candidate whose
  signature agrees far too little, ``ESTIMATE_MARGIN`` below the threshold, is passed over
  unchecked). A chunk without words is matched exactly only.

Deduplication is a pass over the run's results in input order, in the parent process (the same
with any ``--jobs``): ``Deduper.apply`` (``apply_all`` for several) takes a ``FileResult`` with
chunk objects or with the JSONL its worker rendered, and gives it back without the duplicates
(or marked); ``dedupe_chunks`` does the same for a list of chunks. Parent records of
``--parents`` are never compared (a parent holding one child has its text): children are
compared with children. Kept chunks keep their record byte for byte, ``index`` included: a
dropped chunk leaves a gap in its document's indices. ``--check`` checks every input before this
pass (SPEC §3.2 counts what it drops).
"""

from __future__ import annotations

import dataclasses
import hashlib
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Final, Literal

from ragchunk.errors import OptionError, UsageError
from ragchunk.pipeline.results import FileResult

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    from ragchunk.model import Chunk
    from ragchunk.runs.dedupe.near import NearIndex

Method = Literal["exact", "near"]
DEFAULT_THRESHOLD: Final = 0.7
"""``--dedupe near``'s Jaccard similarity of word 3-shingles."""
DUPLICATE_OF: Final = "duplicate_of"
"""The metadata key of a marked duplicate: the id of the chunk it repeats."""


@dataclass(frozen=True, slots=True, kw_only=True)
class DedupeOptions:
    """How a run removes duplicate chunks.

    Attributes:
        method: ``exact`` (equal text up to whitespace) or ``near`` (MinHash over shingles).
        threshold: ``near``: the least Jaccard similarity of a duplicate, above 0, at most 1.
        mark: keep duplicates, with ``metadata.duplicate_of``, instead of dropping them.
    """

    method: Method = "near"
    threshold: float = DEFAULT_THRESHOLD
    mark: bool = False

    def __post_init__(self) -> None:
        if self.method not in ("exact", "near"):
            raise OptionError(
                "--dedupe", f"must be exact or near[:THRESHOLD] (got {self.method!r})"
            )
        if not 0 < self.threshold <= 1:
            message = f"near's threshold must be above 0 and at most 1 (got {self.threshold:g})"
            raise OptionError("--dedupe", message)

    def describe(self) -> str:
        """Return the method as the user would write it (``exact``, ``near:0.8``)."""
        return "exact" if self.method == "exact" else f"near:{self.threshold:g}"


def parse_dedupe(value: str, *, mark: bool = False) -> DedupeOptions:
    """Return the options of ``--dedupe VALUE``: ``exact``, ``near`` or ``near:THRESHOLD``.

    Raises:
        OptionError: an unknown method, a threshold that is not a number in (0, 1], or a
            threshold given to ``exact``.
        UsageError: ``near`` without numpy installed.
    """
    method, _, threshold = value.strip().partition(":")
    if method not in ("exact", "near"):
        raise OptionError("--dedupe", f"must be exact or near[:THRESHOLD] (got {value!r})")
    if method == "exact":
        if threshold:
            raise OptionError("--dedupe", f"exact takes no threshold (got {value!r})")
        return DedupeOptions(method="exact", mark=mark)
    try:
        number = float(threshold) if threshold else DEFAULT_THRESHOLD
    except ValueError:
        message = f"near's threshold must be a number above 0, at most 1 (got {threshold!r})"
        raise OptionError("--dedupe", message) from None
    options = DedupeOptions(method="near", threshold=number, mark=mark)
    _check_numpy()
    return options


def _check_numpy() -> None:
    import importlib.util

    if importlib.util.find_spec("numpy") is None:
        raise UsageError("--dedupe near needs numpy: pip install 'ragchunk[dedupe]'")


def _normalised_digest(text: str) -> bytes:
    return hashlib.blake2b(
        " ".join(text.split()).encode("utf-8", "surrogatepass"), digest_size=16
    ).digest()


class Deduper:
    """The chunks a run kept so far, to find later duplicates of them (see the module docstring).

    Feed it inputs in order (``duplicates`` or ``apply``); the same order gives the same
    answers. It holds a digest per kept chunk and, for ``near``, a ``NearIndex`` (about 4 bytes
    per word of text seen).
    """

    def __init__(self, options: DedupeOptions) -> None:
        """Start with no chunks kept."""
        self.options = options
        self.checked = 0
        self.found = 0
        self._exact: dict[bytes, str] = {}
        self._index: NearIndex | None = None  # near: the chunks seen, by number
        self._numbered: list[str] = []  # their ids
        if options.method == "near":
            from ragchunk.runs.dedupe.near import NearIndex

            self._index = NearIndex(options.threshold)

    def duplicates(self, ids: Sequence[str], texts: Sequence[str]) -> list[str | None]:
        """Return, per chunk in order, the id of the kept chunk it duplicates, or None.

        Chunks that are not duplicates are kept: later chunks (of this call too) are compared
        with them.
        """
        if self._index is None:
            answer = [
                self._exact_match(chunk_id, text) for chunk_id, text in zip(ids, texts, strict=True)
            ]
        else:
            answer = self._near(self._index, ids, texts)
        self.checked += len(texts)
        self.found += sum(kept is not None for kept in answer)
        return answer

    def _exact_match(self, chunk_id: str, text: str) -> str | None:
        """Return the kept chunk ``text`` repeats exactly, or None (and keep it)."""
        kept = self._exact.setdefault(_normalised_digest(text), chunk_id)
        return None if kept == chunk_id else kept

    def _near(self, index: NearIndex, ids: Sequence[str], texts: Sequence[str]) -> list[str | None]:
        from ragchunk.runs.dedupe.near import NO_WORDS

        found = index.match(texts)
        self._numbered.extend(ids)
        answer: list[str | None] = []
        for chunk_id, text, kept in zip(ids, texts, found, strict=True):
            if kept is None:
                answer.append(None)
            elif kept == NO_WORDS:
                answer.append(self._exact_match(chunk_id, text))
            else:
                answer.append(self._numbered[kept])
        return answer

    def apply(self, result: FileResult) -> FileResult:
        """Return ``result`` without the chunks that duplicate earlier ones (or with them marked).

        ``result.duplicates`` counts them; ``chunk_count`` counts the chunks written. Results
        without chunks (failed, unchanged, empty) come back as they are.
        """
        return self.apply_all([result])[0]

    def apply_all(self, results: Sequence[FileResult]) -> list[FileResult]:
        """Return ``apply`` of each result, in order, checked as one batch (cheaper)."""
        pieces = [_Pieces.of(result) for result in results]
        ids = [chunk_id for piece in pieces for chunk_id in piece.ids]
        texts = [text for piece in pieces for text in piece.texts]
        found = self.duplicates(ids, texts)
        done, begin = [], 0
        for result, piece in zip(results, pieces, strict=True):
            end = begin + len(piece.ids)
            done.append(piece.rebuild(result, found[begin:end], mark=self.options.mark))
            begin = end
        return done


@dataclass(frozen=True, slots=True)
class _Pieces:
    """One result's chunks as ``Deduper.apply_all`` sees them: ids and texts, and their form."""

    ids: list[str]
    texts: list[str]
    at: list[int]  # their positions among the result's chunks (parents are not compared)
    lines: list[bytes] | None = None  # the JSONL lines of a rendered result
    records: list[dict[str, Any]] | None = None  # those lines decoded

    @classmethod
    def of(cls, result: FileResult) -> _Pieces:
        if result.error is not None or result.unchanged or not result.chunk_count:
            return cls([], [], [])
        if result.rendered is None:
            at = [k for k, c in enumerate(result.chunks) if not c.is_parent]
            chunks = [result.chunks[k] for k in at]
            return cls([c.id for c in chunks], [c.text for c in chunks], at)
        lines = [line for piece in result.rendered for line in piece.split(b"\n") if line]
        records = _load_records(lines)
        at = [k for k, r in enumerate(records) if not _is_parent(r)]
        ids = [records[k]["id"] for k in at]
        return cls(ids, [records[k]["text"] for k in at], at, lines, records)

    def rebuild(
        self, result: FileResult, compared: Sequence[str | None], *, mark: bool
    ) -> FileResult:
        """Return ``result`` without its duplicates (``compared``), or with them marked."""
        if not self.ids:
            return result
        duplicates = sum(of is not None for of in compared)
        found: list[str | None] = [None] * (len(self.records or ()) or len(result.chunks))
        for k, of in zip(self.at, compared, strict=True):
            found[k] = of
        if self.lines is None or self.records is None:
            kept = tuple(
                _marked(c, of) if of else c
                for c, of in zip(result.chunks, found, strict=True)
                if mark or of is None
            )
            return dataclasses.replace(
                result,
                chunks=kept,
                chunk_count=len(kept),
                duplicates=duplicates,
                compared=len(self.ids),
            )
        from ragchunk.sinks.jsonl import record_bytes_of

        out: list[bytes] = []
        for line, record, of in zip(self.lines, self.records, found, strict=True):
            if of is None:
                out.append(line + b"\n")
            elif mark:
                record["metadata"] = {**record["metadata"], DUPLICATE_OF: of}
                out.append(record_bytes_of(record))
        rendered = (b"".join(out),) if out else ()
        return dataclasses.replace(
            result,
            rendered=rendered,
            chunk_count=len(out),
            duplicates=duplicates,
            compared=len(self.ids),
        )


def dedupe_chunks(chunks: Iterable[Chunk], options: DedupeOptions | None = None) -> list[Chunk]:
    """Return ``chunks`` without those that repeat an earlier one (or marked, with ``mark``).

    The library's ``--dedupe`` over chunks already made, of one document or many, in the order
    given (``options`` defaults to ``near`` at 0.7)::

        chunks = [c for path in paths for c in chunk_file(path)]
        unique = dedupe_chunks(chunks, DedupeOptions(method="exact"))

    Raises:
        ModuleNotFoundError: ``near`` without numpy installed (``ragchunk[dedupe]``).
    """
    made = tuple(chunks)
    result = Deduper(options or DedupeOptions()).apply(
        FileResult("-", "-", chunks=made, chunk_count=len(made))
    )
    return list(result.chunks)


def _is_parent(record: dict[str, Any]) -> bool:
    """``Chunk.is_parent`` of a decoded record: parents and children are never compared."""
    return "parent_id" not in record and record["metadata"].get("kind") == "parent"


def _marked(chunk: Chunk, of: str) -> Chunk:
    metadata = MappingProxyType({**chunk.metadata, DUPLICATE_OF: of})
    return dataclasses.replace(chunk, metadata=metadata)


def _load_records(lines: list[bytes]) -> list[dict[str, Any]]:
    """Return the decoded records of JSONL lines: orjson's, else the standard library's.

    The standard library reads what only it writes: integers past 64 bits, lone surrogates.
    """
    import json

    try:
        import orjson
    except ImportError:  # pragma: no cover - orjson is a core dependency
        return [json.loads(line) for line in lines]
    records = []
    for line in lines:
        try:
            records.append(orjson.loads(line))
        except orjson.JSONDecodeError:
            records.append(json.loads(line))
    return records
