"""Bringing one document of a store in step with its chunks: keys, records, what to change.

The same on every store, and below the run (``ragchunk.runs.index`` walks, skips unchanged
documents, embeds and prunes; a store's ``write`` for ``split -o URL`` calls ``write_result``):

- ``chunk_keys`` gives each chunk its ``StoreRecord.key``: a hash of the document, the
  strategy, the settings digest, the chunk's text (and ``context``, which is what is
  embedded) and which occurrence of that text in the document it is. An edit elsewhere in
  the document moves a chunk (new ``id``, ``start``, ``end``, ``index``) but keeps its key,
  so its stored vector is kept and the store rewrites nothing but those fields.
- ``make_record`` is one chunk as a store holds it: its vector as float32 values (what every
  store gives back), its metadata as JSON gives it back, the embedding model named in it as
  ``split --embed`` names it.
- ``changes`` compares the records with the stored ones: what to upsert (new, rewritten or
  moved) and which keys to delete; ``apply_changes`` applies them and the ledger entry, and
  writes nothing at all when nothing differs.
"""

from __future__ import annotations

import hashlib
import json
from array import array
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Final

from ragchunk.errors import StoreError, UsageError
from ragchunk.sinks._store import LedgerEntry, Store, StoreRecord

if TYPE_CHECKING:
    from ragchunk.model import Chunk, JSONValue
    from ragchunk.pipeline.results import FileResult

EMBEDDER: Final = "embedder"
"""The ``Store.meta`` key of the embedder that made the vectors (JSON of its settings)."""
DIMENSION: Final = "dimension"
"""The ``Store.meta`` key of the vectors' size."""
SPLIT_SETTINGS: Final = "split"
"""The settings hash of documents ``split -o URL`` wrote (``index`` rechunks them once)."""


@dataclass(frozen=True, slots=True)
class Changes:
    """What one document needs: records to upsert, keys to delete, and how many of each kind.

    Attributes:
        upsert: the records that are new, rewritten or moved, in chunk order.
        delete: the stored keys no chunk has any more, sorted.
        written: records new or rewritten (new text or vector).
        moved: records kept whose other fields changed (id, span, index, pages...).
    """

    upsert: tuple[StoreRecord, ...]
    delete: tuple[str, ...]
    written: int
    moved: int

    @property
    def empty(self) -> bool:
        """Whether the stored chunks are those already."""
        return not self.upsert and not self.delete


def chunk_keys(chunks: Sequence[Chunk], settings_hash: str) -> list[str]:
    """Return the store key of each chunk (see the module docstring), in chunk order."""
    seen: Counter[str] = Counter()
    keys = []
    for chunk in chunks:
        content = hashlib.sha256(
            f"{chunk.text}\0{chunk.context or ''}".encode("utf-8", "surrogatepass")
        ).hexdigest()
        occurrence = seen[content]
        seen[content] += 1
        parts = (chunk.doc_id, chunk.strategy, settings_hash, content, str(occurrence))
        joined = "\0".join(parts).encode("utf-8", "surrogatepass")
        keys.append(hashlib.blake2b(joined, digest_size=16).hexdigest())
    return keys


def float32(vector: Sequence[float]) -> tuple[float, ...]:
    """Return ``vector`` as the float32 values a store gives back."""
    return tuple(array("f", vector))


def make_record(chunk: Chunk, key: str, vector: Sequence[float], model: str) -> StoreRecord:
    """Return ``chunk`` as a store holds it, with ``vector`` (made by ``model``)."""
    values = float32(vector)
    metadata: dict[str, JSONValue] = {
        **chunk.metadata,
        "embedding_model": model,
        "embedding_dimensions": len(values),
    }
    return StoreRecord(
        key=key,
        id=chunk.id,
        doc_id=chunk.doc_id,
        source=chunk.source,
        index=chunk.index,
        text=chunk.text,
        start=chunk.start,
        end=chunk.end,
        strategy=chunk.strategy,
        vector=values,
        headings=tuple(chunk.headings),
        page_start=chunk.page_start,
        page_end=chunk.page_end,
        timestamp_start=chunk.timestamp_start,
        timestamp_end=chunk.timestamp_end,
        # As a store gives it back: JSON (tuples become lists, keys strings).
        metadata=json.loads(json.dumps(metadata, ensure_ascii=False)),
    )


def changes(records: Sequence[StoreRecord], stored: Mapping[str, StoreRecord]) -> Changes:
    """Return what turns the ``stored`` records of a document into ``records``."""
    upsert: list[StoreRecord] = []
    written = moved = 0
    for record in records:
        old = stored.get(record.key)
        if old is not None and _same(old, record):
            continue
        upsert.append(record)
        if old is not None and old.same_content(record):
            moved += 1
        else:
            written += 1
    keep = {record.key for record in records}
    delete = tuple(sorted(key for key in stored if key not in keep))
    return Changes(tuple(upsert), delete, written, moved)


def apply_changes(
    store: Store, entry: LedgerEntry, found: Changes, known: LedgerEntry | None
) -> bool:
    """Apply ``found`` and ``entry`` to ``store``; return whether anything was written.

    Nothing is written when the records are stored already and the ledger entry is ``known``.
    """
    if found.empty and known == entry:
        return False
    store.apply(entry, upsert=found.upsert, delete=found.delete)
    return True


def check_dimension(store: Store, stored: int | None, size: int) -> None:
    """Raise ``StoreError`` when the store holds vectors of another size than ``size``."""
    if stored is not None and stored != size:
        raise dimension_error(store.url, stored, size)


def dimension_error(url: str, stored: int, size: int) -> StoreError:
    """Return the error for vectors of ``size`` in a store of ``stored`` (``url`` masked)."""
    return StoreError(
        f"{url}: the store holds vectors of size {stored}, these are of size {size} "
        "(a different model? index into another store)"
    )


def write_result(store: Store, result: FileResult) -> None:
    """Upsert one input's chunks as ``split -o URL --embed`` writes them (no pruning).

    The chunks' own vectors (``--embed``) are stored. Keys use ``SPLIT_SETTINGS`` for the
    settings hash, so that ``ragchunk index`` over the same store later rewrites these
    documents once.

    Raises:
        UsageError: the chunks have no vectors (``--embed`` was not given).
        StoreError: the vectors' size differs from the store's, or the store refused.
    """
    chunks = [chunk for chunk in result.chunks if not chunk.is_parent]
    missing = next((chunk for chunk in chunks if chunk.embedding is None), None)
    if missing is not None:
        raise UsageError(f"{store.url} stores vectors: add --embed (or use index)")
    keys = chunk_keys(chunks, SPLIT_SETTINGS)
    records = []
    for chunk, key in zip(chunks, keys, strict=True):
        vector = chunk.embedding or ()
        model = str(chunk.metadata.get("embedding_model", ""))
        records.append(make_record(chunk, key, vector, model))
    if records:
        check_dimension(store, store.dimension(), len(records[0].vector))
    entry = LedgerEntry(
        doc_id=result.doc_id,
        source=result.source,
        content_hash=result.content_hash or "",
        settings_hash=SPLIT_SETTINGS,
        keys=tuple(keys),
    )
    found = changes(records, store.records(result.doc_id))
    apply_changes(store, entry, found, store.ledger().get(result.doc_id))


def _same(old: StoreRecord, new: StoreRecord) -> bool:
    """Whether a stored record needs no write: every field equal (metadata as JSON).

    Times a store gives back as absent are no change: a store whose schema has no timestamp
    columns (pgvector, LanceDB, Milvus) or that was written before them keeps what it has.
    """
    if old.timestamp_start is None and old.timestamp_end is None:
        new = replace(new, timestamp_start=None, timestamp_end=None)
    return old == new
