"""What a vector store is: the ``Store`` protocol each store module implements.

A store module (``sinks/sqlite.py``, ``sinks/pgvector.py`` ...) exposes ``SINK`` (a
``SinkSpec`` whose ``open`` yields an open ``Store``, which is also a ``Sink``) and has one
line in the table of ``ragchunk.sinks`` with its URL schemes. The sync logic that is the same
on every store (what to skip, upsert, delete, prune; ``ragchunk index``) lives in
``ragchunk.runs.index`` and calls only the methods below, so a store module holds nothing but
its own client's calls.

Records are keyed by ``StoreRecord.key``, a stable identity of a chunk *within its document*
(its document, its text, its strategy and which occurrence of that text it is), not by the
chunk id of SPEC §2, which depends on the offsets: after a one-line edit, a chunk whose text is
unchanged keeps its key (and its vector); only its ``id``, ``start``, ``end`` and ``index``
fields are updated (a *move*, not a rewrite).

Every store holds, beside the chunks, its **ledger**: one ``LedgerEntry`` per document, written
only after the document's chunks are, so a half-applied document is seen as changed by the next
run and repaired. Where the store has transactions (SQLite, PostgreSQL) ``apply`` changes a
document's chunks and its ledger entry in one transaction; elsewhere it writes the new records,
then deletes the vanished ones, then writes the ledger entry, so a crash never leaves a
document without chunks.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from ragchunk.sinks._spec import Sink

if TYPE_CHECKING:
    from ragchunk.model import JSONValue

Scalar = str | int | float | bool


@dataclass(frozen=True, slots=True, kw_only=True)
class LedgerEntry:
    """What the store remembers of one document.

    Attributes:
        doc_id: the document's ``doc_id`` (SPEC §2), the ledger's key.
        source: its ``source`` (the path as given, or under a walked root).
        content_hash: SHA-256 of its bytes.
        settings_hash: the digest of what shapes its chunks (``runs.manifest.settings_digest``).
        keys: the ``StoreRecord.key`` of each of its chunks, in chunk order.
    """

    doc_id: str
    source: str
    content_hash: str
    settings_hash: str
    keys: tuple[str, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class StoreRecord:
    """One chunk as a store holds it: SPEC §2's fields as typed columns or metadata.

    ``page_start``/``page_end`` are numbers, or absent (never stored as null) where the
    document has no pages; so are ``timestamp_start``/``timestamp_end`` (seconds, a
    transcript's) where it has no times. ``headings`` is a list; ``metadata`` is the record's
    own metadata (JSON), stored so that a query returns it unchanged.
    """

    key: str
    id: str
    doc_id: str
    source: str
    index: int
    text: str
    start: int
    end: int
    strategy: str
    vector: tuple[float, ...]
    headings: tuple[str, ...] = ()
    page_start: int | None = None
    page_end: int | None = None
    metadata: Mapping[str, JSONValue] = field(default_factory=dict)
    timestamp_start: float | None = None
    timestamp_end: float | None = None

    def same_content(self, other: StoreRecord) -> bool:
        """Whether ``other`` has this record's text and vector (a move at most, no rewrite)."""
        return self.text == other.text and self.vector == other.vector


@dataclass(frozen=True, slots=True)
class Hit:
    """A query's answer: a record and its score (higher is nearer)."""

    record: StoreRecord
    score: float


@dataclass(slots=True)
class Counts:
    """What an open store wrote, for the run's report and the tests ("no write" is counted).

    Attributes:
        written: records inserted or rewritten (new text or vector).
        moved: records whose text and vector were kept and whose id, span or index changed.
        deleted: records deleted.
        ledger: ledger entries written or deleted.
    """

    written: int = 0
    moved: int = 0
    deleted: int = 0
    ledger: int = 0


class Store(Sink, Protocol):
    """An open vector store: the ``Sink`` that ``ragchunk index`` and ``split -o URL`` write.

    ``open`` (the ``SinkSpec``'s) takes the store's lock for the life of the block (a second
    ``index`` run waits for it, then fails saying who holds it; a store may write its lock
    only once the run will write: ``index`` calls its ``will_write()``, if it has one, as
    soon as it knows, as Chroma's server store does) and raises ``UsageError`` with
    one line naming the store (never its password) when the store is down or refuses
    credentials; a missing client library is ``SinkSpec.missing``.

    A store without transactions may gather documents and write them together: ``index``
    calls its ``gather()``, if it has one, before the first document, and its ``flush()``
    after the documents of each embedding call; such a store writes what it gathered before
    any read of it and when its block ends, in the order ``apply`` promises (Chroma does).

    ``write(result)`` (the ``Sink`` method) is ``ragchunk.sinks._sync.write_result(self,
    result)``: ``split -o URL --embed`` upserts like ``index`` does, without pruning.
    """

    url: str
    """The store's URL with any password masked (``postgresql://user:***@host/db``)."""
    counts: Counts
    transactional: bool
    """Whether ``apply`` is one transaction (SQLite, PostgreSQL)."""

    def dimension(self) -> int | None:
        """Return the vector size of the stored chunks, None while the store holds none."""
        ...

    def ledger(self) -> Mapping[str, LedgerEntry]:
        """Return the ledger: every document's entry, by ``doc_id``."""
        ...

    def records(self, doc_id: str) -> Mapping[str, StoreRecord]:
        """Return the chunks stored for ``doc_id``, by key (vectors included).

        Read from the chunks themselves, not the ledger: after a crash they may differ.
        """
        ...

    def apply(
        self,
        entry: LedgerEntry,
        *,
        upsert: Sequence[StoreRecord],
        delete: Sequence[str],
    ) -> None:
        """Bring one document to ``entry``: upsert records by key, delete keys, write the ledger.

        ``upsert`` holds only records that are new, rewritten or moved; an empty ``upsert``
        and ``delete`` with an unchanged entry writes nothing. Counts go to ``counts``.

        Raises:
            StoreError: the store refused (one line, the store named).
        """
        ...

    def meta(self) -> Mapping[str, str]:
        """Return what ``set_meta`` recorded beside the ledger ({} when nothing was).

        ``ragchunk index`` records there the embedder that made the vectors
        (``ragchunk.sinks._sync.EMBEDDER``), so that ``ragchunk query`` uses the same one.
        """
        ...

    def set_meta(self, values: Mapping[str, str]) -> None:
        """Record ``values`` beside the ledger, over what is there (one ledger write)."""
        ...

    def remove(self, doc_id: str) -> None:
        """Delete a document: its chunks, then its ledger entry."""
        ...

    def query(
        self,
        vector: Sequence[float],
        *,
        k: int,
        filters: Mapping[str, Scalar] | None = None,
        text: str | None = None,
    ) -> list[Hit]:
        """Return the ``k`` records nearest ``vector``, best first.

        ``filters`` are equality tests on the record's fields (``page_start=3``, ``doc_id``,
        ``source``, ``strategy``) or on top-level ``metadata`` keys (``metadata.lang=en``),
        applied by the store itself. ``text`` asks for a hybrid ranking (keyword and vector
        scores mixed) from stores that have a keyword index; others raise ``UsageError``.
        """
        ...
