"""Qdrant: chunks as points of a collection, through ``qdrant-client`` (the ``Store`` protocol).

``qdrant://host:port/collection`` is a Qdrant server (``?api_key=KEY`` if it asks for one,
``?https=true`` for TLS); ``qdrant:///path/collection`` is qdrant-client's *local mode*, the
client's own engine over files in ``path`` (relative; ``qdrant:////abs/path/collection`` for an
absolute one): the same API and filters, searched exactly, for one process at a time.

Each chunk is a point whose id is a UUID derived from its key (``point_id``), whose vector is
the chunk's, and whose payload is the record as ``_records.flat_record`` has it (``page_start``
and ``page_end`` numbers only where the document has pages; ``meta__KEY`` for the metadata
filters). The collection scores by dot product and keeps each vector as it was given, so that
``records`` returns it unchanged: for normalised embeddings (all-MiniLM-L6-v2's, OpenAI's) it is
the cosine. A server gets payload indexes on the filter fields; local mode has none (nor needs
them). The ledger is a second collection, ``<collection>__ledger``, of points without vectors.

Qdrant has no transactions: ``apply`` writes the new points, then deletes the vanished ones,
then writes the ledger entry. Local mode is locked by ``_embedded.store_lock`` on
``path/ragchunk.lock``; a server has no lock (two runs on one collection are the user's to
avoid).
"""

from __future__ import annotations

import contextlib
import importlib.util
import uuid
import warnings
from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final
from urllib.parse import parse_qsl, urlsplit

from ragchunk.errors import StoreError, UsageError
from ragchunk.sinks._embedded import (
    is_local,
    require_parent,
    store_lock,
    store_url,
)
from ragchunk.sinks._qdrant_fields import (
    document_filter,
    equality_filter,
    point_record,
)
from ragchunk.sinks._records import (
    INTEGER_FIELDS,
    META_DOC,
    STRING_FIELDS,
    dimension_error,
    filter_terms,
    flat_ledger,
    flat_record,
    ledger_from_flat,
    mask_url,
    meta_entry,
    meta_of,
    store_error,
    store_path,
)
from ragchunk.sinks._spec import SinkSpec
from ragchunk.sinks._store import Counts, Hit, LedgerEntry, Scalar, StoreRecord
from ragchunk.sinks._sync import write_result

if TYPE_CHECKING:
    from qdrant_client import QdrantClient, models

    from ragchunk.pipeline.results import FileResult
    from ragchunk.sinks._spec import Destination

LEDGER_SUFFIX: Final = "__ledger"
BATCH: Final = 256
"""Points per upsert or scroll request."""
_NAMESPACE: Final = uuid.uuid5(uuid.NAMESPACE_URL, "ragchunk:store-key")
_TIMEOUT: Final = 30


def missing_client() -> str | None:
    """Return what to install when qdrant-client is missing, else None (nothing imported)."""
    if importlib.util.find_spec("qdrant_client") is None:
        return "the Qdrant store needs qdrant-client: pip install 'ragchunk[qdrant]'"
    return None


def point_id(key: str) -> str:
    """Return the point id of the record keyed ``key``: a UUID derived from the key.

    Qdrant's ids are UUIDs or integers; the same key always gives the same point.
    """
    return str(uuid.uuid5(_NAMESPACE, key))


@contextlib.contextmanager
def open_store(destination: Destination) -> Iterator[QdrantStore]:
    """Open the Qdrant collection ``destination`` names, locked for the block if local.

    Raises:
        UsageError: the URL names no collection.
        StoreError: the server cannot be reached, or the local files cannot be opened.
    """
    url = store_url(destination)
    if is_local(url):
        path = store_path(url)
        require_parent(url, path.parent)
        storage, collection = path.parent, path.name
        with _refusal(url, "cannot create its directory"):
            storage.mkdir(exist_ok=True)
        with store_lock(storage / "ragchunk.lock", url=url):
            with _refusal(url, "cannot open the local Qdrant files"):
                client = _client(path=str(storage))
            with contextlib.closing(client):
                yield QdrantStore(client, url=url, collection=collection, local=True)
        return
    client = _server_client(url)
    with contextlib.closing(client):
        with _refusal(url, "cannot reach the Qdrant server"):
            client.get_collections()
        yield QdrantStore(client, url=url, collection=_server_collection(url), local=False)


class QdrantStore:
    """An open Qdrant collection and its ledger collection (see the module docstring)."""

    transactional = False

    def __init__(self, client: QdrantClient, *, url: str, collection: str, local: bool) -> None:
        self._client = client
        self._raw_url = url
        self.url = mask_url(url)
        self.counts = Counts()
        self._chunks = collection
        self._ledger = collection + LEDGER_SUFFIX
        self._local = local

    def write(self, result: FileResult) -> None:
        """Bring the store in step with one input (``ragchunk.runs.index.sync_document``)."""
        write_result(self, result)

    def dimension(self) -> int | None:
        """Return the collection's vector size, None while there is no collection."""
        with _refusal(self._raw_url, "cannot read the collection"):
            if not self._client.collection_exists(self._chunks):
                return None
            vectors = self._client.get_collection(self._chunks).config.params.vectors
        size = getattr(vectors, "size", None)
        if not isinstance(size, int):
            raise StoreError(f"{self.url}: the collection does not hold one unnamed vector")
        return size

    def ledger(self) -> Mapping[str, LedgerEntry]:
        """Return every document's ledger entry, by ``doc_id``."""
        entries = (ledger_from_flat(p.payload or {}) for p in self._scroll(self._ledger))
        return {entry.doc_id: entry for entry in entries if entry.doc_id != META_DOC}

    def meta(self) -> Mapping[str, str]:
        """Return what ``set_meta`` recorded ({} when nothing was)."""
        if not self._has(self._ledger):
            return {}
        with _refusal(self._raw_url, "cannot read the ledger"):
            found = self._client.retrieve(self._ledger, [point_id(META_DOC)])
        return meta_of({META_DOC: ledger_from_flat(found[0].payload or {})}) if found else {}

    def set_meta(self, values: Mapping[str, str]) -> None:
        """Record ``values`` over what ``meta`` holds, in the ledger's reserved row."""
        self._write_entry(meta_entry({**self.meta(), **values}))

    def records(self, doc_id: str) -> Mapping[str, StoreRecord]:
        """Return the chunks stored for ``doc_id``, by key, with their vectors."""
        points = self._scroll(self._chunks, document_filter(doc_id), vectors=True)
        records = (point_record(p.payload or {}, p.vector) for p in points)
        return {record.key: record for record in records}

    def apply(
        self, entry: LedgerEntry, *, upsert: Sequence[StoreRecord], delete: Sequence[str]
    ) -> None:
        """Write ``upsert``, then delete ``delete``, then the ledger entry (no transaction).

        Raises:
            StoreError: vectors of another size than the collection's (before any write), or
                the store refused.
        """
        if upsert:
            self._prepare(upsert)
            self._upsert(upsert)
        if delete:
            from qdrant_client import models

            with _refusal(self._raw_url, "cannot delete points"):
                ids: list[models.ExtendedPointId] = [point_id(key) for key in delete]
                self._client.delete(self._chunks, models.PointIdsList(points=ids), wait=True)
            self.counts.deleted += len(delete)
        self._write_entry(entry)

    def remove(self, doc_id: str) -> None:
        """Delete a document's chunks, then its ledger entry."""
        from qdrant_client import models

        if self._has(self._chunks):
            ids = [p.id for p in self._scroll(self._chunks, document_filter(doc_id), payload=False)]
            for start in range(0, len(ids), BATCH):
                with _refusal(self._raw_url, "cannot delete points"):
                    batch = models.PointIdsList(points=ids[start : start + BATCH])
                    self._client.delete(self._chunks, batch, wait=True)
            self.counts.deleted += len(ids)
        if self._has(self._ledger):
            ledger_ids: list[models.ExtendedPointId] = [point_id(doc_id)]
            with _refusal(self._raw_url, "cannot delete a ledger entry"):
                if self._client.retrieve(self._ledger, ledger_ids, with_payload=False):
                    points = models.PointIdsList(points=ledger_ids)
                    self._client.delete(self._ledger, points, wait=True)
                    self.counts.ledger += 1

    def query(
        self,
        vector: Sequence[float],
        *,
        k: int,
        filters: Mapping[str, Scalar] | None = None,
        text: str | None = None,
    ) -> list[Hit]:
        """Return the ``k`` points nearest ``vector`` (dot product), best first.

        Raises:
            UsageError: a hybrid query (Qdrant here has no keyword index), or a bad filter.
            StoreError: vectors of another size than the collection's, or the store refused.
        """
        if text is not None:
            raise UsageError(f"{self.url}: --hybrid needs a keyword index, which this store lacks")
        terms = filter_terms(filters)
        query_filter = equality_filter(terms) if terms else None
        stored = self.dimension()
        if stored is None:
            return []
        if len(vector) != stored:
            raise dimension_error(self._raw_url, stored, len(vector))
        with _refusal(self._raw_url, "cannot search"):
            points = self._client.query_points(
                self._chunks,
                query=list(vector),
                query_filter=query_filter,
                limit=k,
                with_payload=True,
                with_vectors=True,
            ).points
        return [Hit(point_record(p.payload or {}, p.vector), float(p.score)) for p in points]

    def _prepare(self, upsert: Sequence[StoreRecord]) -> None:
        """Check the vectors' size against the collection's; make the collections if new."""
        sizes = {len(record.vector) for record in upsert}
        if len(sizes) > 1:
            raise StoreError(f"{self.url}: vectors of different sizes {sorted(sizes)} in one batch")
        size = sizes.pop()
        stored = self.dimension()
        if stored is not None and stored != size:
            raise dimension_error(self._raw_url, stored, size)
        if stored is None:
            self._create(size)

    def _create(self, size: int) -> None:
        from qdrant_client import models

        with _refusal(self._raw_url, "cannot create the collection"):
            vectors = models.VectorParams(size=size, distance=models.Distance.DOT)
            self._client.create_collection(self._chunks, vectors_config=vectors)
            if not self._has(self._ledger):
                self._client.create_collection(self._ledger, vectors_config={})
            if self._local:  # local mode has no payload indexes (and warns when asked)
                return
            for name in STRING_FIELDS:
                self._client.create_payload_index(
                    self._chunks, name, models.PayloadSchemaType.KEYWORD
                )
            for name in INTEGER_FIELDS:
                self._client.create_payload_index(
                    self._chunks, name, models.PayloadSchemaType.INTEGER
                )

    def _upsert(self, upsert: Sequence[StoreRecord]) -> None:
        from qdrant_client import models

        before = self._stored([record.key for record in upsert])
        for start in range(0, len(upsert), BATCH):
            batch = upsert[start : start + BATCH]
            points = [
                models.PointStruct(
                    id=point_id(r.key), vector=list(r.vector), payload=dict(flat_record(r))
                )
                for r in batch
            ]
            with _refusal(self._raw_url, "cannot write points"):
                self._client.upsert(self._chunks, points, wait=True)
        moved = sum(1 for r in upsert if r.key in before and r.same_content(before[r.key]))
        self.counts.moved += moved
        self.counts.written += len(upsert) - moved

    def _stored(self, keys: Sequence[str]) -> dict[str, StoreRecord]:
        """Return the stored records of ``keys`` that exist (to tell a move from a rewrite)."""
        found: dict[str, StoreRecord] = {}
        for start in range(0, len(keys), BATCH):
            ids: list[Any] = [point_id(key) for key in keys[start : start + BATCH]]
            with _refusal(self._raw_url, "cannot read points"):
                points = self._client.retrieve(self._chunks, ids, with_vectors=True)
            found.update(
                (r.key, r) for r in (point_record(p.payload or {}, p.vector) for p in points)
            )
        return found

    def _write_entry(self, entry: LedgerEntry) -> None:
        from qdrant_client import models

        if not self._has(self._ledger):
            with _refusal(self._raw_url, "cannot create the ledger collection"):
                self._client.create_collection(self._ledger, vectors_config={})
        identity = point_id(entry.doc_id)
        with _refusal(self._raw_url, "cannot read the ledger"):
            old = self._client.retrieve(self._ledger, [identity])
        if old and ledger_from_flat(old[0].payload or {}) == entry:
            return
        point = models.PointStruct(id=identity, vector={}, payload=dict(flat_ledger(entry)))
        with _refusal(self._raw_url, "cannot write the ledger"):
            self._client.upsert(self._ledger, [point], wait=True)
        self.counts.ledger += 1

    def _has(self, collection: str) -> bool:
        with _refusal(self._raw_url, "cannot list collections"):
            return self._client.collection_exists(collection)

    def _scroll(
        self,
        collection: str,
        scroll_filter: models.Filter | None = None,
        *,
        vectors: bool = False,
        payload: bool = True,
    ) -> Iterator[models.Record]:
        if not self._has(collection):
            return
        offset: Any = None
        while True:
            with _refusal(self._raw_url, "cannot read points"):
                points, offset = self._client.scroll(
                    collection,
                    scroll_filter=scroll_filter,
                    limit=BATCH,
                    offset=offset,
                    with_payload=payload,
                    with_vectors=vectors,
                )
            yield from points
            if offset is None:
                return


def _server_client(url: str) -> QdrantClient:
    from qdrant_client import QdrantClient

    parts = urlsplit(url)
    params = dict(parse_qsl(parts.query))
    try:
        port = parts.port or 6333
    except ValueError as exc:
        raise UsageError(f"{mask_url(url)}: {exc}") from None
    https = params.get("https", "").lower() in {"1", "true", "yes"}
    with warnings.catch_warnings():
        # The user chose plain HTTP with a key (a server on this machine, most likely).
        warnings.filterwarnings("ignore", "Api key is used with an insecure connection")
        return QdrantClient(
            host=parts.hostname,
            port=port,
            https=https,
            api_key=params.get("api_key") or parts.password or None,
            timeout=_TIMEOUT,
            check_compatibility=False,  # its failure is a warning on the terminal, not an error
        )


def _client(*, path: str) -> QdrantClient:
    from qdrant_client import QdrantClient

    return QdrantClient(path=path)


def _server_collection(url: str) -> str:
    collection = urlsplit(url).path.strip("/")
    if not collection or "/" in collection:
        raise UsageError(f"{mask_url(url)}: name one collection (qdrant://host:port/collection)")
    return collection


@contextlib.contextmanager
def _refusal(url: str, doing: str) -> Iterator[None]:
    """Turn what the client raises into one ``StoreError`` line naming the store."""
    from qdrant_client.http.exceptions import ApiException

    try:
        yield
    except (ApiException, ValueError, RuntimeError, OSError) as exc:
        raise store_error(url, doing, exc) from None


SINK = SinkSpec(
    name="qdrant",
    summary="A Qdrant collection: a server, or qdrant-client's local mode (ragchunk index).",
    open=open_store,
    files=False,
    stream=False,
    missing=missing_client,
)
