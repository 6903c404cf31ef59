"""Chroma: ``chroma://host:port/collection`` (a server) or ``chroma:///path/collection`` (embedded).

The embedded form follows ``sqlite:`` URLs: ``chroma:///index/docs`` is the collection ``docs``
in the folder ``index`` (relative), ``chroma:////srv/index/docs`` an absolute folder.

Beside the chunks (the URL's collection, cosine space; ``documents`` hold the texts): the
ledger (``<collection>__ledger``, one record per document under its ``doc_id``, with a 1-number
placeholder vector since Chroma requires one), ``Store.meta`` (``<collection>__meta``, one
record) and, for a server, the lock (``<collection>__lock``). Chroma metadata values must be
scalars: a record's fields are stored as ``ragchunk.sinks._records.flat_record`` makes them
(``headings`` and ``metadata`` as JSON text, page keys only where there are pages, scalar
metadata values again as ``meta__KEY`` so that ``--filter metadata.KEY=...`` is a Chroma
``where``) and the vector as exact float32 bytes
(``vector_f32``): a cosine collection keeps its vectors normalised, a few bits off the ones
written, and a chunk that only moved must read back as the same content.

Chroma has no transactions: ``apply`` writes the new records, then deletes the vanished ones,
then writes the ledger entry, so a crash leaves the old chunks and the new ones side by side
and the ledger unchanged; the next run sees the document as changed and repairs it.

The lock (``open_store``): embedded, an exclusive ``flock`` beside the store; on a server, a
``flock`` for this user's runs on this host and a lease record for the others, written only by
a run that will write (``ragchunk.sinks._chroma_lock``). Each collection is opened when first
used: an unchanged rerun on a server is the client's set-up (``_chroma_client``), the lease
read and the ledger read.

Under the lock, what the run read stays true until it writes (a lease another run took in
between fails the first write), so a locked store reads each thing once and keeps it up to
date with its own writes: the vector size, the ledger, and whether the chunks collection was
empty when the run first looked. In a collection that was empty, a document this run has not
written yet holds no records: it is neither read nor looked up before its upsert.

A locked store told to ``gather`` (``ragchunk index`` does) keeps the documents ``apply`` is given
and writes them together at ``flush`` (``ragchunk index`` flushes after each embedding call's
documents, and ``open_store`` when the block ends), in the same order as one document: every new
record, then every deletion, then every ledger entry, so a crash still leaves each document's old
chunks beside its new ones under its old ledger entry. A first index of 30 documents makes
40 requests, not 203. A read of a gathered document, or of the ledger, flushes first.
"""

from __future__ import annotations

import contextlib
import functools
import time
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final
from urllib.parse import parse_qsl, urlsplit

from ragchunk.errors import StoreError, UsageError
from ragchunk.sinks._chroma_client import close, connect, open_collection
from ragchunk.sinks._chroma_lock import Lease, file_lock, host_lock_file
from ragchunk.sinks._embedded import store_lock
from ragchunk.sinks._records import (
    dimension_error,
    filter_terms,
    flat_ledger,
    flat_record,
    ledger_from_flat,
    mask_url,
    metadata_key,
    metadata_values,
    record_from_flat,
    store_error,
    store_path,
)
from ragchunk.sinks._spec import SinkSpec
from ragchunk.sinks._store import Counts, Hit, LedgerEntry, Scalar, StoreRecord
from ragchunk.sinks._sync import write_result

if TYPE_CHECKING:
    from chromadb.api import ClientAPI
    from chromadb.api.models.Collection import Collection

    from ragchunk.pipeline.results import FileResult
    from ragchunk.sinks._spec import Destination

LOCK_TIMEOUT: Final = 60.0
BATCH: Final = 1000
DEFAULT_PORT: Final = 8000
_PLACEHOLDER: Final = [1.0]
_SPACE: Final = {"hnsw": {"space": "cosine"}}


def missing_chromadb() -> str | None:
    """Return what to install when chromadb is missing, else None (checked without importing)."""
    import importlib.util

    if importlib.util.find_spec("chromadb") is None:
        return "the chroma:// store needs chromadb: pip install 'ragchunk[chroma]'"
    return None


def _errors() -> tuple[type[BaseException], ...]:
    """Return what the Chroma client raises when the store is down or refuses."""
    import httpx
    from chromadb.errors import ChromaError

    return (ChromaError, ValueError, OSError, httpx.HTTPError)


def _embeddings(vectors: Sequence[Sequence[float]]) -> list[Sequence[float] | Sequence[int]]:
    """Return vectors in the type Chroma's ``upsert`` and ``query`` declare."""
    return [[float(x) for x in v] for v in vectors]


class ChromaStore:
    """An open ``chroma://`` store (see the module docstring); ``open_store`` makes one."""

    transactional = False

    def __init__(self, url: str, client: ClientAPI, name: str) -> None:
        self.url = mask_url(url)
        self.counts = Counts()
        self._raw_url = url
        self._client = client
        self._name = name
        self._lease: Lease | None = None
        self.locked = False
        """Whether this run holds the store's lock (``open_store``): what it reads is kept."""
        self._size: int | None = None
        self._entries: dict[str, LedgerEntry] | None = None
        self._empty: bool | None = None  # the chunks collection was empty when first read
        self._written: set[str] = set()  # the documents this run applied
        self._pending: list[tuple[LedgerEntry, Sequence[StoreRecord], Sequence[str]]] = []
        self._gathering = False

    # Each collection is opened when first used: an unchanged rerun opens the ledger only.

    @functools.cached_property
    def _chunks(self) -> Collection:
        return self._collection(self._name, _SPACE)

    @functools.cached_property
    def _ledger(self) -> Collection:
        return self._collection(f"{self._name}__ledger", None)

    @functools.cached_property
    def _meta(self) -> Collection:
        return self._collection(f"{self._name}__meta", None)

    def _collection(self, name: str, configuration: Any) -> Collection:
        with self._refusals(f"opening collection {name}"):
            return open_collection(self._client, name, configuration)

    @contextlib.contextmanager
    def _refusals(self, doing: str) -> Iterator[None]:
        """Turn Chroma's errors into one line; after any failure, keep nothing read before."""
        try:
            yield
        except BaseException as error:
            self.locked = False  # what was read may no longer hold: read it again
            self._size, self._entries, self._empty = None, None, None
            if isinstance(error, _errors()):
                raise store_error(self._raw_url, doing, error) from None
            raise

    # -- the Store protocol -------------------------------------------------------------

    def dimension(self) -> int | None:
        """Return the size of the stored vectors, None while the collection is empty."""
        if self._size is not None or (self._empty and not self._written):
            return self._size
        self.flush()
        with self._refusals("reading the vector size"):
            got = self._chunks.get(limit=1, include=["embeddings"])
        embeddings = got["embeddings"]
        size = None if embeddings is None or len(embeddings) == 0 else len(embeddings[0])
        if self.locked:
            self._size = size
            if self._empty is None:
                self._empty = size is None
        return size

    def ledger(self) -> Mapping[str, LedgerEntry]:
        """Return every document's ledger entry, by ``doc_id``."""
        self.flush()
        if self._entries is not None:
            return dict(self._entries)
        with self._refusals("reading the ledger"):
            got = self._ledger.get(include=["metadatas"])
        entries = [ledger_from_flat(m) for m in got["metadatas"] or []]
        found = {e.doc_id: e for e in sorted(entries, key=lambda e: e.doc_id)}
        if self.locked:
            self._entries = dict(found)
        return found

    def records(self, doc_id: str) -> Mapping[str, StoreRecord]:
        """Return the chunks stored for ``doc_id``, by key, vectors included."""
        if any(entry.doc_id == doc_id for entry, _, _ in self._pending):
            self.flush()
        if self._empty is None and self.locked:
            self.dimension()  # one look tells whether the collection holds anything
        if self._empty and doc_id not in self._written:
            return {}
        with self._refusals(f"reading {doc_id}"):
            got = self._chunks.get(where={"doc_id": doc_id}, include=["metadatas", "documents"])
        records = self._records(got["metadatas"], got["documents"])
        return {r.key: r for r in sorted(records, key=lambda r: r.index)}

    def apply(
        self, entry: LedgerEntry, *, upsert: Sequence[StoreRecord], delete: Sequence[str]
    ) -> None:
        """Bring one document to ``entry``: new records, then deletions, then the ledger.

        Once told to ``gather``, a locked store writes it at ``flush`` (module docstring).
        """
        self._check_sizes(upsert)
        if any(pending.doc_id == entry.doc_id for pending, _, _ in self._pending):
            self.flush()  # one upsert may not name a key twice
        if upsert and self.locked:
            self._size = len(upsert[0].vector)
        self._pending.append((entry, upsert, delete))
        gathered = sum(len(up) for _, up, _ in self._pending)
        if not (self._gathering and self.locked) or gathered >= BATCH:
            self.flush()

    def gather(self) -> None:
        """From now on, keep what ``apply`` is given until ``flush`` (the module docstring)."""
        self._gathering = True

    def flush(self) -> None:
        """Write the gathered documents: their new records, their deletions, their ledger."""
        pending, self._pending = self._pending, []
        if not pending:
            return
        self._renew()
        names = ", ".join(entry.doc_id for entry, _, _ in pending)
        unread = {
            entry.doc_id
            for entry, _, _ in pending
            if self._empty and entry.doc_id not in self._written
        }
        with self._refusals(f"writing {names}"):
            self._upsert([r for _, upsert, _ in pending for r in upsert], unread=unread)
            gone = [
                key for entry, _, delete in pending if entry.doc_id not in unread for key in delete
            ]
            present = self._chunks.get(ids=gone, include=[])["ids"] if gone else []
            for start in range(0, len(present), BATCH):
                self._chunks.delete(ids=present[start : start + BATCH])
            self.counts.deleted += len(present)
            self._write_ledger([entry for entry, _, _ in pending])

    def meta(self) -> Mapping[str, str]:
        """Return what ``set_meta`` recorded ({} when nothing was)."""
        self.flush()
        with self._refusals("reading its meta"):
            got = self._meta.get(ids=["meta"], include=["metadatas"])["metadatas"]
        return {str(k): str(v) for k, v in sorted(got[0].items())} if got else {}

    def set_meta(self, values: Mapping[str, str]) -> None:
        """Record ``values`` in ``<collection>__meta``, over what is there."""
        self._renew()
        merged = {**self.meta(), **values}
        with self._refusals("writing its meta"):
            self._meta.upsert(
                ids=["meta"], embeddings=_embeddings([_PLACEHOLDER]), metadatas=[merged]
            )
        self.counts.ledger += 1

    def remove(self, doc_id: str) -> None:
        """Delete a document's chunks, then its ledger entry."""
        self.flush()
        self._renew()
        with self._refusals(f"removing {doc_id}"):
            present = self._chunks.get(where={"doc_id": doc_id}, include=[])["ids"]
            for start in range(0, len(present), BATCH):
                self._chunks.delete(ids=present[start : start + BATCH])
            self.counts.deleted += len(present)
            if self._entries is not None:
                listed = self._entries.pop(doc_id, None) is not None
            else:
                listed = bool(self._ledger.get(ids=[doc_id], include=[])["ids"])
            if listed:
                self._ledger.delete(ids=[doc_id])
                self.counts.ledger += 1

    def query(
        self,
        vector: Sequence[float],
        *,
        k: int,
        filters: Mapping[str, Scalar] | None = None,
        text: str | None = None,
    ) -> list[Hit]:
        """Return the ``k`` records nearest ``vector`` (score: cosine similarity), best first."""
        if text is not None:
            raise UsageError(f"{self.url}: Chroma has no keyword index here (hybrid: sqlite://)")
        self.flush()
        where = _where(filter_terms(filters))
        stored = self.dimension()
        if stored is None:
            return []
        if len(vector) != stored:
            raise dimension_error(self._raw_url, stored, len(vector))
        with self._refusals("querying"):
            got = self._chunks.query(
                query_embeddings=_embeddings([vector]),
                n_results=k,
                where=where,
                include=["metadatas", "documents", "distances"],
            )
        metadatas, documents = (got["metadatas"] or [[]])[0], (got["documents"] or [[]])[0]
        distances = (got["distances"] or [[]])[0]
        records = self._records(metadatas, documents)
        return [
            Hit(record=r, score=1.0 - float(d)) for r, d in zip(records, distances, strict=True)
        ]

    def write(self, result: FileResult) -> None:
        """Upsert one input's chunks (``split -o URL --embed``; no pruning)."""
        self.will_write()
        write_result(self, result)

    def will_write(self) -> None:
        """Write the server lock's lease now: this run will write (module docstring).

        ``ragchunk index`` calls it as soon as it knows that a document changed, so that the
        lease settles while documents are parsed and embedded; a write takes it anyway.

        Raises:
            StoreError: another run took the lease since this one opened the store.
        """
        if self._lease is not None:
            with self._refusals("taking the lock"):
                self._lease.take()

    # -- helpers -------------------------------------------------------------------------

    def _records(self, metadatas: Any, documents: Any) -> list[StoreRecord]:
        """Return records from Chroma's metadatas and documents, vectors from ``VECTOR_FIELD``.

        Not from Chroma's ``embeddings``: a cosine collection keeps its vectors normalised, a
        few bits off the ones written (``ragchunk.sinks._records``).
        """
        return [
            record_from_flat(m, text=d)
            for m, d in zip(metadatas or [], documents or [], strict=True)
        ]

    def _check_sizes(self, upsert: Sequence[StoreRecord]) -> None:
        sizes = {len(r.vector) for r in upsert}
        if len(sizes) > 1:
            raise StoreError(f"{self.url}: vectors of sizes {sorted(sizes)} in one document")
        stored = self.dimension() if sizes else None
        if stored is not None and (given := sizes.pop()) != stored:
            raise dimension_error(self._raw_url, stored, given)

    def _upsert(self, upsert: Sequence[StoreRecord], *, unread: set[str]) -> None:
        """Upsert the records, counting those written and those only moved.

        ``unread``: documents that hold no records yet (see the module docstring): nothing to
        compare their records with, so nothing is read.
        """
        for start in range(0, len(upsert), BATCH):
            batch = upsert[start : start + BATCH]
            kept: dict[str, StoreRecord] = {}
            if asked := [r.key for r in batch if r.doc_id not in unread]:
                got = self._chunks.get(ids=asked, include=["documents", "metadatas"])
                kept = {r.key: r for r in self._records(got["metadatas"], got["documents"])}
            for record in batch:
                if record.key in kept and kept[record.key].same_content(record):
                    self.counts.moved += 1
                else:
                    self.counts.written += 1
            self._chunks.upsert(
                ids=[r.key for r in batch],
                embeddings=_embeddings([r.vector for r in batch]),
                documents=[r.text for r in batch],
                metadatas=[flat_record(r, text=False, vector=True) for r in batch],
            )
            self._written.update(r.doc_id for r in batch)

    def _write_ledger(self, entries: Sequence[LedgerEntry]) -> None:
        """Write the entries that differ from the stored ones (known, or read in one call)."""
        if self._entries is not None:
            old = self._entries
        else:
            got = self._ledger.get(ids=[e.doc_id for e in entries], include=["metadatas"])
            old = {e.doc_id: e for e in map(ledger_from_flat, got["metadatas"] or [])}
        self._written.update(e.doc_id for e in entries)
        changed = [e for e in entries if old.get(e.doc_id) != e]
        for start in range(0, len(changed), BATCH):
            batch = changed[start : start + BATCH]
            self._ledger.upsert(
                ids=[e.doc_id for e in batch],
                embeddings=_embeddings([_PLACEHOLDER] * len(batch)),
                metadatas=[flat_ledger(e) for e in batch],
            )
            self.counts.ledger += len(batch)
            if self._entries is not None:
                self._entries.update((e.doc_id, e) for e in batch)

    def _renew(self) -> None:
        if self._lease is not None:
            with self._refusals("renewing the lock"):
                self._lease.renew()


def _where(terms: Sequence[tuple[str, Scalar]]) -> dict[str, Any] | None:
    """Return a Chroma ``where`` for the filter terms (``_records.filter_terms``)."""
    conditions: list[dict[str, Any]] = []
    for name, value in terms:
        values = metadata_values(value) if metadata_key(name) is not None else [value]
        either = [{name: {"$eq": v}} for v in values]
        conditions.append(either[0] if len(either) == 1 else {"$or": either})
    if not conditions:
        return None
    return conditions[0] if len(conditions) == 1 else {"$and": conditions}


def _parse(url: str) -> tuple[str | None, int, Path | None, str, float]:
    """Return (host, port, folder, collection, lock timeout) of a ``chroma://`` URL."""
    parts = urlsplit(url)
    params = dict(parse_qsl(parts.query))
    try:
        timeout = float(params.get("lock_timeout", LOCK_TIMEOUT))
    except ValueError:
        raise UsageError(f"{mask_url(url)}: lock_timeout is a number of seconds") from None
    if parts.netloc:
        collection = parts.path.strip("/")
        if not collection or "/" in collection:
            raise UsageError(
                f"{mask_url(url)}: a Chroma server URL is chroma://HOST:PORT/COLLECTION"
            )
        try:
            port = parts.port or DEFAULT_PORT
        except ValueError:
            raise UsageError(f"{mask_url(url)}: the port is not a number") from None
        return parts.hostname, port, None, collection, timeout
    path = store_path(url)
    return None, 0, path.parent, path.name, timeout


@contextlib.contextmanager
def open_store(url: str, *, lock: bool = True) -> Iterator[ChromaStore]:
    """Yield the store at ``url``, its lock taken for the block unless ``lock=False`` (queries).

    Raises:
        StoreError: the server is down or refuses, or another run holds the lock.
        UsageError: the URL is not a Chroma store's.
    """
    host, port, folder, name, timeout = _parse(url)
    host = host or "localhost"
    with contextlib.ExitStack() as stack:
        if folder is not None and lock:
            stack.enter_context(file_lock(folder / f"{name}.lock", timeout, mask_url(url)))
        deadline = time.monotonic() + timeout
        if folder is None and lock and (same_host := host_lock_file(host, port, name)):
            stack.enter_context(store_lock(same_host, url=url))
        try:
            client = connect(host, port, folder)
        except _errors() as error:
            raise store_error(url, "cannot connect", error) from None
        stack.callback(close, client)
        store = ChromaStore(url, client, name)
        store.locked = lock
        if folder is None and lock:
            with store._refusals("taking the lock"):
                lease = Lease(store.url, client, name)
                lease.wait(max(0.0, deadline - time.monotonic()))
            store._lease = lease
            stack.callback(_release, store, lease)
        yield store
        store.flush()  # what was gathered, once the block ends without an error


def _release(store: ChromaStore, lease: Lease) -> None:
    with store._refusals("releasing the lock"):
        lease.release()


def open_sink(to: Destination) -> contextlib.AbstractContextManager[ChromaStore]:
    """Open the store that ``-o``/``--store`` names (the ``SinkSpec`` hook)."""
    if not isinstance(to, str):
        raise UsageError("the chroma store is named by a URL, not a stream")
    return open_store(to)


SINK = SinkSpec(
    name="chroma",
    summary="Chroma, a server or embedded: chunks, vectors and the ledger in collections.",
    open=open_sink,
    files=False,
    stream=False,
    missing=missing_chromadb,
)
