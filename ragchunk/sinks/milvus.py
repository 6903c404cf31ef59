"""Milvus: chunks as entities of a collection, through pymilvus (the ``Store`` protocol).

``milvus:///path.db`` is Milvus Lite, the engine the ``milvus-lite`` package runs beside this
process over the database ``path.db`` (relative; ``milvus:////abs/path.db`` for an absolute
one); ``milvus://[user:password@]host:port`` is a Milvus server (``?db=NAME`` for a database
other than the default, ``?token=TOKEN`` instead of a user and password). The collection is
``ragchunk`` unless the URL names one after the database: ``milvus:///path.db/docs``,
``milvus://host:19530/docs``.

A chunk is an entity with typed fields: ``key`` (the primary key, what entities are upserted
by), ``id``, ``doc_id``, ``source``, ``strategy``, ``text`` (VARCHAR), ``index``, ``start``,
``end`` (INT64), ``page_start``/``page_end`` (nullable INT64: null where the document has no
pages, read back as absent), ``headings`` and ``metadata`` (JSON: a list, the record's
metadata as it is), ``vector`` (FLOAT_VECTOR, searched exactly by cosine). ``metadata.lang=en``
is the filter ``metadata["lang"] == "en"``. A VARCHAR holds at most ``VARCHAR_MAX`` bytes:
``apply`` refuses a chunk whose text is longer, before writing anything, saying which and
what to do (a smaller ``--size``).

The ledger is a second collection, ``<collection>__ledger`` (Milvus wants a vector in every
collection: it has an unused one of two zeros). Milvus has no transactions: ``apply`` writes
the new entities, then deletes the vanished ones, then writes the ledger entry. Milvus Lite is
locked by ``_embedded.store_lock`` on ``path.db.ragchunk.lock``; a server has no lock.
"""

from __future__ import annotations

import contextlib
import importlib.util
import logging
from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final
from urllib.parse import parse_qsl, unquote, urlsplit

from ragchunk.errors import StoreError, UsageError
from ragchunk.sinks._embedded import (
    is_local,
    require_parent,
    store_lock,
    store_url,
)
from ragchunk.sinks._milvus_fields import (
    FIELDS,
    LEDGER_FIELDS,
    UNUSED,
    VARCHAR_MAX,
    chunk_schema,
    entity_record,
    entity_row,
    filter_expression,
    keys_expression,
    ledger_entry,
    ledger_schema,
    literal,
)
from ragchunk.sinks._records import (
    META_DOC,
    dimension_error,
    filter_terms,
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
    from pathlib import Path

    from pymilvus import CollectionSchema, MilvusClient

    from ragchunk.pipeline.results import FileResult
    from ragchunk.sinks._spec import Destination

DEFAULT_COLLECTION: Final = "ragchunk"
LEDGER_SUFFIX: Final = "__ledger"
BATCH: Final = 1000
_TIMEOUT: Final = 10.0


def missing_client() -> str | None:
    """Return what to install when pymilvus is missing, else None (nothing imported)."""
    if importlib.util.find_spec("pymilvus") is None:
        return "the Milvus store needs pymilvus (and milvus-lite): pip install 'ragchunk[milvus]'"
    return None


@contextlib.contextmanager
def open_store(destination: Destination) -> Iterator[MilvusStore]:
    """Open the Milvus collection ``destination`` names (Milvus Lite locked for the block).

    Raises:
        UsageError: the URL names no database file.
        StoreError: the server cannot be reached, or Milvus Lite cannot open the database.
    """
    url = store_url(destination)
    if not is_local(url):
        client = _server_client(url)
        with contextlib.closing(client):
            collection = _collection(urlsplit(url).path)
            yield MilvusStore(client, url=url, collection=collection, lite=False)
        return
    database, collection = _lite_location(url)
    if importlib.util.find_spec("milvus_lite") is None:
        raise UsageError(f"{url}: Milvus Lite needs milvus-lite: pip install 'ragchunk[milvus]'")
    require_parent(url, database)
    with store_lock(database.with_name(database.name + ".ragchunk.lock"), url=url):
        with _refusal(url, "Milvus Lite cannot open the database"):
            client = _lite_client(str(database))
        try:
            with contextlib.closing(client):
                yield MilvusStore(client, url=url, collection=collection, lite=True)
        finally:
            _release_lite(database)


def _release_lite(database: Path) -> None:
    """Stop the Milvus Lite engine pymilvus started in this process for ``database``.

    It holds the database's own lock until stopped: left running, another process (the next
    ``ragchunk index`` from a long-lived library caller) could not open the file.
    """
    from milvus_lite.server_manager import server_manager_instance

    server_manager_instance.release_server(str(database))


class MilvusStore:
    """An open Milvus collection and its ledger collection (see the module docstring)."""

    transactional = False

    def __init__(self, client: MilvusClient, *, url: str, collection: str, lite: bool) -> None:
        self._client = client
        self._lite = lite
        self._raw_url = url
        self.url = mask_url(url)
        self.counts = Counts()
        self._chunks = collection
        self._ledger = collection + LEDGER_SUFFIX
        self._loaded: set[str] = set()

    def write(self, result: FileResult) -> None:
        """Bring the store in step with one input (``ragchunk.runs.index.sync_document``)."""
        write_result(self, result)

    def dimension(self) -> int | None:
        """Return the collection's vector size, None while there is no collection."""
        if not self._has(self._chunks):
            return None
        with _refusal(self._raw_url, "cannot read the collection"):
            fields = self._client.describe_collection(self._chunks)["fields"]
        sizes = [f["params"]["dim"] for f in fields if f["name"] == "vector"]
        if not sizes:
            raise StoreError(f"{self.url}: the collection {self._chunks} has no field 'vector'")
        return int(sizes[0])

    def ledger(self) -> Mapping[str, LedgerEntry]:
        """Return every document's ledger entry, by ``doc_id``."""
        rows = self._query(self._ledger, 'doc_id != ""', LEDGER_FIELDS)
        entries = (ledger_entry(row) for row in rows)
        return {entry.doc_id: entry for entry in entries}

    def meta(self) -> Mapping[str, str]:
        """Return what ``set_meta`` recorded ({} when nothing was; ``ledger`` skips its row)."""
        if not self._has(self._ledger):
            return {}
        rows = self._query(self._ledger, f"doc_id == {literal(META_DOC)}", LEDGER_FIELDS)
        return meta_of({META_DOC: ledger_entry(rows[0])}) if rows else {}

    def set_meta(self, values: Mapping[str, str]) -> None:
        """Record ``values`` over what ``meta`` holds, in the ledger's reserved row."""
        self._write_entry(meta_entry({**self.meta(), **values}))

    def records(self, doc_id: str) -> Mapping[str, StoreRecord]:
        """Return the chunks stored for ``doc_id``, by key, with their vectors."""
        rows = self._query(self._chunks, f"doc_id == {literal(doc_id)}", (*FIELDS, "vector"))
        return {row["key"]: entity_record(row) for row in rows}

    def apply(
        self, entry: LedgerEntry, *, upsert: Sequence[StoreRecord], delete: Sequence[str]
    ) -> None:
        """Write ``upsert``, then delete ``delete``, then the ledger entry (no transaction).

        Raises:
            StoreError: vectors of another size than the collection's, or a text longer than a
                VARCHAR holds (both before any write), or the store refused.
        """
        if upsert:
            self._prepare(upsert)
            before = self._stored([record.key for record in upsert])
            for start in range(0, len(upsert), BATCH):
                rows = [entity_row(record) for record in upsert[start : start + BATCH]]
                with _refusal(self._raw_url, "cannot write entities"):
                    self._client.upsert(self._chunks, rows)
            moved = sum(1 for r in upsert if r.key in before and r.same_content(before[r.key]))
            self.counts.moved += moved
            self.counts.written += len(upsert) - moved
        if delete and self._has(self._chunks):
            for start in range(0, len(delete), BATCH):
                with _refusal(self._raw_url, "cannot delete entities"):
                    self._client.delete(
                        self._chunks, filter=keys_expression(delete[start : start + BATCH])
                    )
            self.counts.deleted += len(delete)
        self._write_entry(entry)

    def remove(self, doc_id: str) -> None:
        """Delete a document's chunks, then its ledger entry."""
        predicate = f"doc_id == {literal(doc_id)}"
        keys = [row["key"] for row in self._query(self._chunks, predicate, ("key",))]
        for start in range(0, len(keys), BATCH):
            with _refusal(self._raw_url, "cannot delete entities"):
                self._client.delete(
                    self._chunks, filter=keys_expression(keys[start : start + BATCH])
                )
        self.counts.deleted += len(keys)
        if self._query(self._ledger, predicate, ("doc_id",)):
            with _refusal(self._raw_url, "cannot delete a ledger entry"):
                self._client.delete(self._ledger, filter=predicate)
            self.counts.ledger += 1

    def query(
        self,
        vector: Sequence[float],
        *,
        k: int,
        filters: Mapping[str, Scalar] | None = None,
        text: str | None = None,
    ) -> list[Hit]:
        """Return the ``k`` entities nearest ``vector`` (cosine), best first.

        Raises:
            UsageError: a hybrid query (this store has no keyword index), or a bad filter.
            StoreError: a vector of another size than the collection's, or the store refused.
        """
        if text is not None:
            raise UsageError(f"{self.url}: --hybrid needs a keyword index, which this store lacks")
        expression = filter_expression(filter_terms(filters))
        stored = self.dimension()
        if stored is None:
            return []
        if len(vector) != stored:
            raise dimension_error(self._raw_url, stored, len(vector))
        self._load(self._chunks)
        with _refusal(self._raw_url, "cannot search"):
            found = self._client.search(
                self._chunks,
                data=[list(vector)],
                filter=expression,
                limit=k,
                output_fields=[*FIELDS, "vector"],
            )
        return [Hit(entity_record(hit["entity"]), float(hit["distance"])) for hit in found[0]]

    def _prepare(self, upsert: Sequence[StoreRecord]) -> None:
        """Refuse what Milvus cannot hold, before any write; make the collections if new."""
        for record in upsert:
            size = len(record.text.encode("utf-8", "surrogatepass"))
            if size > VARCHAR_MAX:
                raise StoreError(
                    f"{self.url}: chunk {record.index} of {record.source} holds {size} bytes of "
                    f"text; a Milvus VARCHAR holds at most {VARCHAR_MAX} (use a smaller --size)"
                )
        sizes = {len(record.vector) for record in upsert}
        if len(sizes) > 1:
            raise StoreError(f"{self.url}: vectors of different sizes {sorted(sizes)} in one batch")
        size = sizes.pop()
        stored = self.dimension()
        if stored is not None and stored != size:
            raise dimension_error(self._raw_url, stored, size)
        if stored is None:
            self._create(self._chunks, chunk_schema(size), metric="COSINE")

    def _create(self, name: str, schema: CollectionSchema, *, metric: str) -> None:
        vector = "vector" if name == self._chunks else UNUSED
        with _refusal(self._raw_url, f"cannot create the collection {name}"):
            index = self._client.prepare_index_params()
            index.add_index(field_name=vector, index_type="FLAT", metric_type=metric)
            self._client.create_collection(
                name, schema=schema, index_params=index, consistency_level="Strong"
            )
        self._loaded.add(name)

    def _stored(self, keys: Sequence[str]) -> dict[str, StoreRecord]:
        """Return the stored records of ``keys`` that exist (to tell a move from a rewrite)."""
        found: dict[str, StoreRecord] = {}
        for start in range(0, len(keys), BATCH):
            batch = keys_expression(keys[start : start + BATCH])
            rows = self._query(self._chunks, batch, (*FIELDS, "vector"))
            found.update((row["key"], entity_record(row)) for row in rows)
        return found

    def _write_entry(self, entry: LedgerEntry) -> None:
        if not self._has(self._ledger):
            self._create(self._ledger, ledger_schema(), metric="L2")
        old = self._query(self._ledger, f"doc_id == {literal(entry.doc_id)}", LEDGER_FIELDS)
        if old and ledger_entry(old[0]) == entry:
            return
        row = {
            "doc_id": entry.doc_id,
            "source": entry.source,
            "content_hash": entry.content_hash,
            "settings_hash": entry.settings_hash,
            "keys": list(entry.keys),
            UNUSED: [0.0, 0.0],
        }
        with _refusal(self._raw_url, "cannot write the ledger"):
            self._client.upsert(self._ledger, [row])
        self.counts.ledger += 1

    def _has(self, name: str) -> bool:
        with _refusal(self._raw_url, "cannot list collections"):
            return bool(self._client.has_collection(name))

    def _load(self, name: str) -> None:
        """Load a collection into memory once (Milvus answers queries only on loaded ones)."""
        if name not in self._loaded:
            with _refusal(self._raw_url, f"cannot load the collection {name}"):
                self._client.load_collection(name)
            self._loaded.add(name)

    def _query(self, name: str, expression: str, fields: Sequence[str]) -> list[dict[str, Any]]:
        """Return every entity of ``name`` that ``expression`` matches.

        Milvus Lite answers a query without a limit in full; a server caps its answers
        (16384 entities), so there the query iterator reads them a batch at a time (Milvus Lite
        has no such iterator: it unescapes the expression twice).
        """
        if not self._has(name):
            return []
        self._load(name)
        with _refusal(self._raw_url, f"cannot read the collection {name}"):
            if self._lite:
                found: list[dict[str, Any]] = self._client.query(
                    name, filter=expression, output_fields=list(fields)
                )
                return found
            rows: list[dict[str, Any]] = []
            pages = self._client.query_iterator(
                name, filter=expression, output_fields=list(fields), batch_size=BATCH
            )
            while batch := pages.next():
                rows.extend(batch)
            pages.close()
        return rows


def _lite_location(url: str) -> tuple[Path, str]:
    """Return the Milvus Lite database path and the collection ``url`` names."""
    path = store_path(url)
    if path.suffix == ".db":
        return path, DEFAULT_COLLECTION
    if path.parent.suffix == ".db":
        return path.parent, _collection(path.name)
    raise UsageError(f"{mask_url(url)}: name a Milvus Lite database ending in .db")


def _collection(path: str) -> str:
    name = unquote(path).strip("/")
    if "/" in name:
        raise UsageError(f"a Milvus collection name has no '/' (got {name!r})")
    return name or DEFAULT_COLLECTION


def _lite_client(path: str) -> MilvusClient:
    from pymilvus import MilvusClient

    with _quiet():
        return MilvusClient(path)


def _server_client(url: str) -> MilvusClient:
    from pymilvus import MilvusClient

    parts = urlsplit(url)
    params = dict(parse_qsl(parts.query))
    try:
        address = f"http://{parts.hostname}:{parts.port or 19530}"
    except ValueError as exc:
        raise UsageError(f"{mask_url(url)}: {exc}") from None
    user = unquote(parts.username or "")
    secret = unquote(parts.password or "")
    token = params.get("token") or (f"{user}:{secret}" if user else "")
    with _refusal(url, "cannot reach the Milvus server"):
        return MilvusClient(
            uri=address, token=token, db_name=params.get("db", ""), timeout=_TIMEOUT
        )


@contextlib.contextmanager
def _quiet() -> Iterator[None]:
    """Keep pymilvus's log lines (it logs each failed call, then raises) off the terminal."""
    logger = logging.getLogger("pymilvus")
    level = logger.level
    logger.setLevel(logging.CRITICAL + 1)
    try:
        yield
    finally:
        logger.setLevel(level)


@contextlib.contextmanager
def _refusal(url: str, doing: str) -> Iterator[None]:
    """Turn what pymilvus raises into one ``StoreError`` line naming the store."""
    from pymilvus.exceptions import MilvusException

    try:
        with _quiet():
            yield
    except (MilvusException, OSError) as exc:
        message = getattr(exc, "message", None) or str(exc)
        raise store_error(url, doing, RuntimeError(message)) from None


SINK = SinkSpec(
    name="milvus",
    summary="A Milvus collection: Milvus Lite in a local file, or a server (ragchunk index).",
    open=open_store,
    files=False,
    stream=False,
    missing=missing_client,
)
