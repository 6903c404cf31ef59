"""Counts over chunks for the summaries: sizes, documents, pages, headings, limits, levels, drops.

Used by ``split --stats`` (over ``Chunk`` objects) and ``ragchunk stats`` (over JSONL records);
``writers/stats_tables.py`` renders what it counts.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Final, TypeVar

from ragchunk.errors import InputError

if TYPE_CHECKING:
    from ragchunk.model import Chunk, Dropped

_T = TypeVar("_T", int, str)
_KINDS: Final = {int: "a whole number", str: "a string"}
_OVER_SHOWN: Final = 10


@dataclass(slots=True)
class _Previous:
    """The last chunk seen of the document being read, to measure overlaps."""

    document: tuple[str, str]
    end: int
    index: int


@dataclass(slots=True)
class ChunkStats:
    """Running totals over chunk records, read once in order; memory grows only by numbers.

    Overlap is measured between consecutive records of the same document (as ``split`` writes
    them): ``previous.end - next.start`` characters when positive. Parent records
    (``--parents``) are counted apart, in ``parents``; every other number is the chunks'.
    """

    chars: list[int] = field(default_factory=list)
    tokens: list[int] = field(default_factory=list)
    overlaps: list[int] = field(default_factory=list)
    pairs: int = 0
    documents: dict[str, list[int]] = field(default_factory=dict)
    strategies: set[str] = field(default_factory=set)
    paged: int = 0
    multi_page: int = 0
    last_page: int = 0
    headed: int = 0
    heading_paths: set[tuple[str, ...]] = field(default_factory=set)
    deepest: int = 0
    previous: _Previous | None = None
    limit: int | None = None
    unit: str = "chars"
    over: list[tuple[str, int, int]] = field(default_factory=list)
    over_count: int = 0
    dropped: list[tuple[str, Dropped]] = field(default_factory=list)
    parents: list[tuple[int, int | None]] = field(default_factory=list)
    marked: int = 0  # --dedupe-mark: records with metadata.duplicate_of
    gaps: int = 0  # --dedupe: indices missing before a record of its document (dropped)

    def add(self, chunk: ChunkFacts) -> None:
        """Count one chunk (a parent only in ``parents``: its chars and tokens)."""
        document = (chunk.source, chunk.doc_id)
        if chunk.parent:  # its index still counts: a gap after it is a dropped child
            self.parents.append((chunk.chars, chunk.tokens))
            self.documents.setdefault(chunk.doc_id, [0, 0])
            before = self.previous
            if before is not None and before.document == document:
                self.gaps += max(0, chunk.index - before.index - 1)
                self.previous = _Previous(document, before.end, chunk.index)
            else:
                self.gaps += max(0, chunk.index)
                self.previous = _Previous(document, 0, chunk.index)
            return
        self.chars.append(chunk.chars)
        if chunk.tokens is not None:
            self.tokens.append(chunk.tokens)
        self.strategies.add(chunk.strategy)
        totals = self.documents.setdefault(chunk.doc_id, [0, 0])
        totals[0] += 1
        totals[1] += chunk.chars
        if chunk.page_start is not None and chunk.page_end is not None:
            self.paged += 1
            self.multi_page += chunk.page_end > chunk.page_start
            self.last_page = max(self.last_page, chunk.page_end)
        if chunk.headings:
            self.headed += 1
            self.heading_paths.add(chunk.headings)
            self.deepest = max(self.deepest, len(chunk.headings))
        self.marked += chunk.duplicate_of is not None
        if self.previous is not None and self.previous.document == document:
            self.pairs += 1
            if self.previous.end > chunk.start:
                self.overlaps.append(self.previous.end - chunk.start)
            self.gaps += max(0, chunk.index - self.previous.index - 1)
        else:
            self.gaps += max(0, chunk.index)
        self.previous = _Previous(document, chunk.end, chunk.index)
        size = chunk.tokens if self.unit == "tokens" else chunk.chars
        if self.limit is not None and size is not None and size > self.limit:
            self.over_count += 1
            if len(self.over) < _OVER_SHOWN:
                self.over.append((chunk.doc_id, chunk.index, size))

    @property
    def count(self) -> int:
        """Return the number of chunks counted."""
        return len(self.chars)

    def add_dropped(self, doc_id: str, span: Dropped) -> None:
        """Count a span a template left out of the chunks on purpose."""
        self.dropped.append((doc_id, span))


@dataclass(frozen=True, slots=True, kw_only=True)
class ChunkFacts:
    """What the statistics need of one chunk, from a ``Chunk`` or a JSONL record."""

    doc_id: str
    source: str
    strategy: str
    index: int
    start: int
    end: int
    chars: int
    tokens: int | None = None
    page_start: int | None = None
    page_end: int | None = None
    headings: tuple[str, ...] = ()
    parent: bool = False
    duplicate_of: str | None = None

    @classmethod
    def of(cls, chunk: Chunk) -> ChunkFacts:
        """Return the facts of a chunk record object."""
        return cls(
            doc_id=chunk.doc_id,
            source=chunk.source,
            strategy=chunk.strategy,
            index=chunk.index,
            start=chunk.start,
            end=chunk.end,
            chars=chunk.chars,
            tokens=chunk.tokens,
            page_start=chunk.page_start,
            page_end=chunk.page_end,
            headings=tuple(chunk.headings),
            parent=chunk.is_parent,
            duplicate_of=_duplicate_of(chunk.metadata),
        )

    @classmethod
    def from_record(cls, record: object) -> ChunkFacts:
        """Return the facts of a decoded JSONL record.

        Raises:
            ValueError: the record is not a chunk record (SPEC §2); the message says why.
        """
        if not isinstance(record, dict):
            raise ValueError("not a JSON object")
        headings = record.get("headings", [])
        if not isinstance(headings, list) or not all(isinstance(h, str) for h in headings):
            raise ValueError("headings is not a list of strings")
        return cls(
            doc_id=_field(record, "doc_id", str),
            source=_optional(record, "source", str) or "",
            strategy=_optional(record, "strategy", str) or "",
            index=_optional(record, "index", int) or 0,
            start=_field(record, "start", int),
            end=_field(record, "end", int),
            chars=_field(record, "chars", int),
            tokens=_optional(record, "tokens", int),
            page_start=_optional(record, "page_start", int),
            page_end=_optional(record, "page_end", int),
            headings=tuple(headings),
            parent="parent_id" not in record and _kind(record) == "parent",
            duplicate_of=_duplicate_of(record.get("metadata")),
        )


def _kind(record: dict[str, object]) -> object:
    metadata = record.get("metadata")
    return metadata.get("kind") if isinstance(metadata, dict) else None


def _duplicate_of(metadata: object) -> str | None:
    value = metadata.get("duplicate_of") if isinstance(metadata, Mapping) else None
    return str(value) if value is not None else None


def read_records(lines: Iterable[str], stats: ChunkStats, name: str) -> None:
    """Count every chunk record of a JSONL stream into ``stats``.

    Raises:
        InputError: a line is not a chunk record (``name:line: reason``).
    """
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            stats.add(ChunkFacts.from_record(json.loads(line)))
        except ValueError as exc:  # json.JSONDecodeError is a ValueError
            raise InputError(f"{name}:{number}: not a chunk record ({exc})") from None


def _field(record: dict[str, object], name: str, tp: type[_T]) -> _T:
    value = record.get(name)
    if not isinstance(value, tp) or isinstance(value, bool):
        raise ValueError(f"{name} is missing or not {_KINDS[tp]}")
    return value


def _optional(record: dict[str, object], name: str, tp: type[_T]) -> _T | None:
    return None if record.get(name) is None else _field(record, name, tp)
