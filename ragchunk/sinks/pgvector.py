"""PostgreSQL with pgvector: ``postgresql://user:password@host:port/db`` (or ``postgres://``).

Two tables in the database the URL names: the chunks (``ragchunk_chunks``, or ``?table=NAME``)
and the ledger (``ragchunk_ledger``, or ``NAME_ledger``). The other URL parameters are libpq's
(``?host=/run/postgresql`` for a socket, ``sslmode=``...), plus ``lock_timeout=SECONDS``.

=====================  ===================  ================================================
column                 type                 holds
=====================  ===================  ================================================
``key``                text, primary key    ``StoreRecord.key``
``id`` ... ``strategy``  text, bigint       the record's fields (``idx`` for ``index``)
``page_start``/``_end``  integer NULL       NULL where the document has no pages (read back
                                            as absent)
``headings``           jsonb                the list, in order
``metadata``           json                 the JSON text as written (``json``, not
                                            ``jsonb``, keeps its key order); filters cast it
``embedding``          vector(N)            float4, as pgvector stores it
=====================  ===================  ================================================

The chunks table is made on the first write, when N is known, with ``CREATE EXTENSION IF NOT
EXISTS vector`` (which needs a role allowed to create it) and an HNSW index on cosine distance:
HNSW needs no training data (ivfflat builds its lists from the rows present when it is made,
so made on an empty table it answers badly), and queries stay fast as the table grows. An
approximate index filters *after* ranking and may return fewer than ``k`` rows for a narrow
filter (pgvector 0.6 has no iterative scan), so a filtered query is an exact scan of the rows
that pass the filter; the score is cosine similarity, ``1 - (embedding <=> q)``.

``apply`` and ``remove`` are each one transaction. ``open`` takes a session advisory lock
keyed by the chunks table's name: a second ``index`` run on the same table polls for it up to
``lock_timeout`` seconds (default 60), then fails naming the process that holds it. A crashed
run's lock goes with its connection.
"""

from __future__ import annotations

import contextlib
import hashlib
import re
import struct
import time
from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from ragchunk.errors import StoreError, UsageError
from ragchunk.sinks._records import (
    dimension_error,
    filter_terms,
    json_text,
    mask_url,
    metadata_key,
    metadata_values,
    store_error,
)
from ragchunk.sinks._spec import SinkSpec
from ragchunk.sinks._store import Counts, Hit, LedgerEntry, Scalar, StoreRecord

if TYPE_CHECKING:
    import psycopg

    from ragchunk.pipeline.results import FileResult
    from ragchunk.sinks._spec import Destination

DEFAULT_TABLE: Final = "ragchunk_chunks"
DEFAULT_LEDGER: Final = "ragchunk_ledger"
LOCK_TIMEOUT: Final = 60.0
"""Seconds a second run waits for the lock (``?lock_timeout=`` in the URL)."""
CONNECT_TIMEOUT: Final = 10
_OWN_PARAMETERS: Final = ("table", "lock_timeout")
_NAME: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,50}")
_COLUMNS: Final = (
    "key", "id", "doc_id", "source", "idx", "text", "start", "end", "strategy",
    "page_start", "page_end", "headings", "metadata",
)  # fmt: skip
_FIELD_COLUMN: Final = {"index": "idx"}


def missing_psycopg() -> str | None:
    """Return what to install when psycopg is missing, else None (checked without importing)."""
    import importlib.util

    if importlib.util.find_spec("psycopg") is None:
        return "the postgresql:// store needs psycopg 3: pip install 'ragchunk[pgvector]'"
    return None


def _vector_literal(vector: Sequence[float]) -> str:
    return "[" + ",".join(repr(float(x)) for x in vector) + "]"


def _vector(data: bytes) -> tuple[float, ...]:
    """Return a vector from pgvector's binary form: dimension, unused, float4 big-endian."""
    size = struct.unpack_from(">H", data)[0]
    return struct.unpack_from(f">{size}f", data, 4)


class PgvectorStore:
    """An open ``postgresql://`` store (see the module docstring); ``open_store`` makes one."""

    transactional = True

    def __init__(self, url: str, connection: psycopg.Connection[Any], *, table: str) -> None:
        from psycopg import sql

        self.url = mask_url(url)
        self.counts = Counts()
        self._raw_url = url
        self._db = connection
        self._table = table
        ledger = DEFAULT_LEDGER if table == DEFAULT_TABLE else f"{table}_ledger"
        self._chunks = sql.Identifier(table)
        self._ledger = sql.Identifier(ledger)

    # -- the Store protocol -------------------------------------------------------------

    def dimension(self) -> int | None:
        """Return N of the chunks table's ``vector(N)`` column, None before the first write."""
        row = self._one(
            "SELECT a.atttypmod FROM pg_attribute a WHERE a.attrelid = to_regclass(%s) "
            "AND a.attname = 'embedding' AND NOT a.attisdropped",
            (self._qualified(),),
            doing="reading the vector size",
        )
        return None if row is None else int(row[0])

    def ledger(self) -> Mapping[str, LedgerEntry]:
        """Return every document's ledger entry, by ``doc_id``."""
        from psycopg import sql

        query = sql.SQL(
            "SELECT doc_id, source, content_hash, settings_hash, keys FROM {} ORDER BY doc_id"
        ).format(self._ledger)
        rows = self._all(query, (), doing="reading the ledger")
        return {
            r[0]: LedgerEntry(
                doc_id=r[0], source=r[1], content_hash=r[2], settings_hash=r[3], keys=tuple(r[4])
            )
            for r in rows
        }

    def records(self, doc_id: str) -> Mapping[str, StoreRecord]:
        """Return the chunks stored for ``doc_id``, by key, vectors included."""
        from psycopg import sql

        if self.dimension() is None:
            return {}
        query = sql.SQL("SELECT {}, embedding FROM {} WHERE doc_id = %s ORDER BY idx").format(
            sql.SQL(", ").join(map(sql.Identifier, _COLUMNS)), self._chunks
        )
        rows = self._all(query, (doc_id,), doing="reading records", binary=True)
        return {row[0]: self._record(row) for row in rows}

    def apply(
        self, entry: LedgerEntry, *, upsert: Sequence[StoreRecord], delete: Sequence[str]
    ) -> None:
        """Bring one document to ``entry`` in one transaction (records, deletions, ledger)."""
        import psycopg

        self._check_sizes(upsert)
        try:
            with self._db.transaction():
                if upsert:
                    self._ensure_chunks(len(upsert[0].vector))
                    self._upsert(upsert)
                if delete and self.dimension() is not None:
                    self.counts.deleted += self._delete_keys(delete)
                self._write_ledger(entry)
        except psycopg.Error as error:
            raise store_error(self._raw_url, f"writing {entry.doc_id}", error) from None
        except UnicodeEncodeError as error:  # a lone surrogate, which PostgreSQL cannot hold
            raise store_error(self._raw_url, f"writing {entry.doc_id}", error) from None

    def remove(self, doc_id: str) -> None:
        """Delete a document's chunks, then its ledger entry, in one transaction."""
        import psycopg
        from psycopg import sql

        try:
            with self._db.transaction(), self._db.cursor() as cursor:
                if self.dimension() is not None:
                    query = sql.SQL("DELETE FROM {} WHERE doc_id = %s").format(self._chunks)
                    cursor.execute(query, (doc_id,))
                    self.counts.deleted += max(cursor.rowcount, 0)
                query = sql.SQL("DELETE FROM {} WHERE doc_id = %s").format(self._ledger)
                cursor.execute(query, (doc_id,))
                self.counts.ledger += max(cursor.rowcount, 0)
        except psycopg.Error as error:
            raise store_error(self._raw_url, f"removing {doc_id}", error) from None

    def query(
        self,
        vector: Sequence[float],
        *,
        k: int,
        filters: Mapping[str, Scalar] | None = None,
        text: str | None = None,
    ) -> list[Hit]:
        """Return the ``k`` records nearest ``vector`` by cosine similarity, best first."""
        from psycopg import sql

        if text is not None:
            raise UsageError(f"{self.url}: PostgreSQL has no keyword index here (hybrid: sqlite://)")
        terms = filter_terms(filters)
        stored = self.dimension()
        if stored is None:
            return []
        if len(vector) != stored:
            raise dimension_error(self._raw_url, stored, len(vector))
        where, params = self._where(terms)
        target = _vector_literal(vector)
        query = sql.SQL(
            "SELECT {}, embedding, 1 - (embedding <=> %s::vector) FROM {} {} "
            "ORDER BY embedding <=> %s::vector LIMIT %s"
        ).format(sql.SQL(", ").join(map(sql.Identifier, _COLUMNS)), self._chunks, where)
        rows = self._all(
            query, (target, *params, target, k), doing="querying", binary=True, exact=bool(terms)
        )
        return [Hit(record=self._record(row), score=float(row[-1])) for row in rows]

    def write(self, result: FileResult) -> None:
        """``split -o URL`` (the ``Sink`` method): the index run syncs, a store cannot embed."""
        raise UsageError(f"{self.url}: write to a store with `ragchunk index --store URL`")

    # -- the lock -------------------------------------------------------------------------

    def lock(self, timeout: float) -> None:
        """Take the table's advisory lock, polling up to ``timeout`` seconds.

        Raises:
            StoreError: another run holds it (its process and start named).
        """
        key = self._lock_key()
        deadline = time.monotonic() + timeout
        while True:
            row = self._one("SELECT pg_try_advisory_lock(%s)", (key,), doing="taking the lock")
            if row is not None and row[0]:
                return
            if time.monotonic() >= deadline:
                break
            time.sleep(0.2)
        holder = self._one(
            "SELECT a.pid, a.client_addr::text, a.backend_start FROM pg_locks l "
            "JOIN pg_stat_activity a ON a.pid = l.pid WHERE l.locktype = 'advisory' "
            "AND l.granted AND ((l.classid::bigint << 32) | l.objid::bigint) = %s",
            (key & 0xFFFFFFFFFFFFFFFF,),
            doing="naming the lock's holder",
        )
        who = "" if holder is None else f" (server process {holder[0]}, since {holder[2]:%c})"
        raise StoreError(
            f"{self.url}: another index run holds the lock on table {self._table}{who}; "
            f"waited {timeout:g} s"
        )

    def _lock_key(self) -> int:
        digest = hashlib.sha256(f"ragchunk:{self._table}".encode()).digest()
        return int.from_bytes(digest[:8], "big", signed=True)

    # -- helpers -------------------------------------------------------------------------

    def _qualified(self) -> str:
        return '"' + self._table + '"'

    def _one(self, query: Any, params: Sequence[Any], *, doing: str) -> Any:
        rows = self._all(query, params, doing=doing)
        return rows[0] if rows else None

    def _all(
        self,
        query: Any,
        params: Sequence[Any],
        *,
        doing: str,
        binary: bool = False,
        exact: bool = False,
    ) -> list[Any]:
        import psycopg

        try:
            with self._db.transaction(), self._db.cursor(binary=binary) as cursor:
                if exact:  # the filter first, then the ranking (module docstring)
                    cursor.execute("SET LOCAL enable_indexscan = off")
                cursor.execute(query, params)
                return cursor.fetchall()
        except psycopg.Error as error:
            raise store_error(self._raw_url, doing, error) from None

    def _record(self, row: Sequence[Any]) -> StoreRecord:
        values = dict(zip(_COLUMNS, row, strict=False))
        return StoreRecord(
            key=values["key"],
            id=values["id"],
            doc_id=values["doc_id"],
            source=values["source"],
            index=values["idx"],
            text=values["text"],
            start=values["start"],
            end=values["end"],
            strategy=values["strategy"],
            vector=_vector(row[len(_COLUMNS)]),
            headings=tuple(values["headings"]),
            page_start=values["page_start"],
            page_end=values["page_end"],
            metadata=values["metadata"],
        )

    def _check_sizes(self, upsert: Sequence[StoreRecord]) -> None:
        sizes = {len(r.vector) for r in upsert}
        if len(sizes) > 1:
            raise StoreError(f"{self.url}: vectors of sizes {sorted(sizes)} in one document")
        stored = self.dimension() if sizes else None
        if stored is not None and sizes and (given := sizes.pop()) != stored:
            raise dimension_error(self._raw_url, stored, given)

    def _ensure_chunks(self, size: int) -> None:
        from psycopg import sql

        if self.dimension() is not None:
            return
        index = sql.Identifier(f"{self._table}_embedding_hnsw")
        by_doc = sql.Identifier(f"{self._table}_doc_id")
        statements = [
            sql.SQL("CREATE EXTENSION IF NOT EXISTS vector"),
            sql.SQL(
                "CREATE TABLE IF NOT EXISTS {} (key text PRIMARY KEY, id text NOT NULL, "
                "doc_id text NOT NULL, source text NOT NULL, idx integer NOT NULL, "
                "text text NOT NULL, start bigint NOT NULL, \"end\" bigint NOT NULL, "
                "strategy text NOT NULL, page_start integer, page_end integer, "
                "headings jsonb NOT NULL, metadata json NOT NULL, embedding vector({}) NOT NULL)"
            ).format(self._chunks, sql.Literal(size)),
            sql.SQL("CREATE INDEX IF NOT EXISTS {} ON {} (doc_id)").format(by_doc, self._chunks),
            sql.SQL(
                "CREATE INDEX IF NOT EXISTS {} ON {} USING hnsw (embedding vector_cosine_ops)"
            ).format(index, self._chunks),
        ]
        with self._db.cursor() as cursor:
            for statement in statements:
                cursor.execute(statement)

    def _upsert(self, upsert: Sequence[StoreRecord]) -> None:
        from psycopg import sql
        from psycopg.types.json import Json, Jsonb

        old = self._contents([r.key for r in upsert])
        for record in upsert:
            kept = old.get(record.key)
            if kept is not None and kept == (record.text, tuple(record.vector)):
                self.counts.moved += 1
            else:
                self.counts.written += 1
        names = sql.SQL(", ").join(map(sql.Identifier, (*_COLUMNS, "embedding")))
        holes = sql.SQL(", ").join([sql.Placeholder()] * len(_COLUMNS) + [sql.SQL("%s::vector")])
        updates = sql.SQL(", ").join(
            sql.SQL("{0} = EXCLUDED.{0}").format(sql.Identifier(c))
            for c in (*_COLUMNS[1:], "embedding")
        )
        query = sql.SQL("INSERT INTO {} ({}) VALUES ({}) ON CONFLICT (key) DO UPDATE SET {}")
        rows = [
            (
                r.key, r.id, r.doc_id, r.source, r.index, r.text, r.start, r.end, r.strategy,
                r.page_start, r.page_end, Jsonb(list(r.headings)),
                Json(dict(r.metadata), dumps=json_text), _vector_literal(r.vector),
            )
            for r in upsert
        ]  # fmt: skip
        with self._db.cursor() as cursor:
            cursor.executemany(query.format(self._chunks, names, holes, updates), rows)

    def _contents(self, keys: Sequence[str]) -> dict[str, tuple[str, tuple[float, ...]]]:
        from psycopg import sql

        if self.dimension() is None:
            return {}
        query = sql.SQL("SELECT key, text, embedding FROM {} WHERE key = ANY(%s)")
        with self._db.cursor(binary=True) as cursor:
            cursor.execute(query.format(self._chunks), (list(keys),))
            return {key: (text, _vector(data)) for key, text, data in cursor.fetchall()}

    def _delete_keys(self, keys: Sequence[str]) -> int:
        from psycopg import sql

        query = sql.SQL("DELETE FROM {} WHERE key = ANY(%s)").format(self._chunks)
        with self._db.cursor() as cursor:
            cursor.execute(query, (list(keys),))
            return max(cursor.rowcount, 0)

    def _write_ledger(self, entry: LedgerEntry) -> None:
        from psycopg import sql

        values = (entry.doc_id, entry.source, entry.content_hash, entry.settings_hash)
        query = sql.SQL(
            "INSERT INTO {0} (doc_id, source, content_hash, settings_hash, keys) "
            "VALUES (%s, %s, %s, %s, %s) ON CONFLICT (doc_id) DO UPDATE SET "
            "source = EXCLUDED.source, content_hash = EXCLUDED.content_hash, "
            "settings_hash = EXCLUDED.settings_hash, keys = EXCLUDED.keys "
            "WHERE ({0}.source, {0}.content_hash, {0}.settings_hash, {0}.keys) "
            "IS DISTINCT FROM (EXCLUDED.source, EXCLUDED.content_hash, "
            "EXCLUDED.settings_hash, EXCLUDED.keys)"
        ).format(self._ledger)
        with self._db.cursor() as cursor:
            cursor.execute(query, (*values, list(entry.keys)))
            self.counts.ledger += max(cursor.rowcount, 0)

    def create_ledger(self) -> None:
        """Make the ledger table if it is missing (``open_store`` does)."""
        import psycopg
        from psycopg import sql

        query = sql.SQL(
            "CREATE TABLE IF NOT EXISTS {} (doc_id text PRIMARY KEY, source text NOT NULL, "
            "content_hash text NOT NULL, settings_hash text NOT NULL, keys text[] NOT NULL)"
        ).format(self._ledger)
        try:
            with self._db.transaction(), self._db.cursor() as cursor:
                cursor.execute(query)
        except psycopg.Error as error:
            raise store_error(self._raw_url, "making the ledger table", error) from None

    def _where(self, terms: Sequence[tuple[str, Scalar]]) -> tuple[Any, list[Any]]:
        from psycopg import sql

        clauses, params = [], []
        for name, value in terms:
            key = metadata_key(name)
            if key is None:
                column = sql.Identifier(_FIELD_COLUMN.get(name, name))
                clauses.append(sql.SQL("{} = %s").format(column))
                params.append(value)
            else:
                candidates = [json_text(v) for v in metadata_values(value)]
                clauses.append(sql.SQL("(metadata::jsonb) -> %s = ANY(%s::jsonb[])"))
                params += [key, candidates]
        if not clauses:
            return sql.SQL(""), params
        return sql.SQL("WHERE ") + sql.SQL(" AND ").join(clauses), params


def _connection_info(url: str) -> tuple[str, str, float]:
    """Return (libpq URL, chunks table, lock timeout) from a store URL."""
    parts = urlsplit(url)
    pairs = parse_qsl(parts.query, keep_blank_values=True)
    own = {k: v for k, v in pairs if k in _OWN_PARAMETERS}
    table = own.get("table", DEFAULT_TABLE)
    if not _NAME.fullmatch(table):
        raise UsageError(f"{mask_url(url)}: table={table!r} is not a plain SQL name")
    try:
        timeout = float(own.get("lock_timeout", LOCK_TIMEOUT))
    except ValueError:
        raise UsageError(f"{mask_url(url)}: lock_timeout is a number of seconds") from None
    rest = [(k, v) for k, v in pairs if k not in _OWN_PARAMETERS]
    if not any(k == "connect_timeout" for k, _ in rest):
        rest.append(("connect_timeout", str(CONNECT_TIMEOUT)))
    libpq = urlunsplit(("postgresql", parts.netloc, parts.path, urlencode(rest), ""))
    return libpq, table, timeout


@contextlib.contextmanager
def open_store(url: str, *, lock: bool = True) -> Iterator[PgvectorStore]:
    """Yield the store at ``url``, its lock taken for the block unless ``lock=False`` (queries).

    Raises:
        StoreError: the server is down, refuses the credentials, or another run holds the lock.
        UsageError: the URL's own parameters are wrong.
    """
    import psycopg

    libpq, table, timeout = _connection_info(url)
    try:
        connection = psycopg.connect(libpq, autocommit=True, application_name="ragchunk")
    except psycopg.Error as error:
        raise store_error(url, "cannot connect", error) from None
    with connection:
        store = PgvectorStore(url, connection, table=table)
        if lock:
            store.lock(timeout)
        store.create_ledger()
        yield store


def open_sink(to: Destination) -> contextlib.AbstractContextManager[PgvectorStore]:
    """Open the store that ``-o``/``--store`` names (the ``SinkSpec`` hook)."""
    if not isinstance(to, str):
        raise UsageError("the postgresql store is named by a URL, not a stream")
    return open_store(to)


SINK = SinkSpec(
    name="pgvector",
    summary="PostgreSQL with pgvector: chunks, vectors and the ledger in two tables.",
    open=open_sink,
    files=False,
    stream=False,
    missing=missing_psycopg,
)
