"""PostgreSQL with pgvector: ``postgresql://user:password@host:port/db`` (or ``postgres://``).

Tables in the database the URL names: the chunks (``ragchunk_chunks``, or ``?table=NAME``)
and the ledger (``ragchunk_ledger``, or ``NAME_ledger``), with ``Store.meta`` in
``<ledger>_meta`` (name, value). The other URL parameters are libpq's
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
EXISTS vector`` (which needs a role allowed to create it), and an HNSW index on cosine distance
at the end of the run that made it (built once over the rows, as pgvector advises, rather than
grown row by row while the model needs the cores; a run that ended before leaves it to the
next run's start): HNSW needs no training data (ivfflat builds its lists from the rows present
when it is made, so made on an empty table it answers badly), and queries stay fast as the
table grows. An
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
import time
from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ragchunk.errors import StoreError, UsageError
from ragchunk.sinks import _pgsql as q
from ragchunk.sinks._records import dimension_error, filter_terms, mask_url, store_error
from ragchunk.sinks._spec import SinkSpec
from ragchunk.sinks._store import Counts, Hit, LedgerEntry, Scalar, StoreRecord
from ragchunk.sinks._sync import write_result

if TYPE_CHECKING:
    import psycopg

    from ragchunk.pipeline.results import FileResult
    from ragchunk.sinks._spec import Destination


def missing_psycopg() -> str | None:
    """Return what to install when psycopg is missing, else None (checked without importing)."""
    import importlib.util

    if importlib.util.find_spec("psycopg") is None:
        return "the postgresql:// store needs psycopg 3: pip install 'ragchunk[pgvector]'"
    return None


class PgvectorStore:
    """An open ``postgresql://`` store (see the module docstring); ``open_store`` makes one."""

    transactional = True

    def __init__(self, url: str, connection: psycopg.Connection[Any], *, table: str) -> None:
        self.url = mask_url(url)
        self.counts = Counts()
        self._raw_url = url
        self._db = connection
        self._table = table
        self._ledger = q.ledger_name(table)
        self._unindexed = False  # the chunks table was made by this run: index it at the end

    # -- the Store protocol -------------------------------------------------------------

    def dimension(self) -> int | None:
        """Return N of the chunks table's ``vector(N)`` column, None before the first write."""
        rows = self._run(q.VECTOR_SIZE, (f'"{self._table}"',), doing="reading the vector size")
        return int(rows[0][0]) if rows else None

    def ledger(self) -> Mapping[str, LedgerEntry]:
        """Return every document's ledger entry, by ``doc_id``."""
        from psycopg import sql

        exists = self._run("SELECT to_regclass(%s)", (f'"{self._ledger}"',), doing="reading")
        if not exists or exists[0][0] is None:  # a reader (lock=False) on a store never written
            return {}
        query = sql.SQL(
            "SELECT doc_id, source, content_hash, settings_hash, keys FROM {} ORDER BY doc_id"
        ).format(sql.Identifier(self._ledger))
        rows = self._run(query, (), doing="reading the ledger")
        return {
            r[0]: LedgerEntry(
                doc_id=r[0], source=r[1], content_hash=r[2], settings_hash=r[3], keys=tuple(r[4])
            )
            for r in rows
        }

    def records(self, doc_id: str) -> Mapping[str, StoreRecord]:
        """Return the chunks stored for ``doc_id``, by key, vectors included."""
        if self.dimension() is None:
            return {}
        query = q.select_chunks(self._table, "WHERE doc_id = %s ORDER BY idx")
        rows = self._run(query, (doc_id,), doing=f"reading {doc_id}", binary=True)
        return {row[0]: _record(row) for row in rows}

    def apply(
        self, entry: LedgerEntry, *, upsert: Sequence[StoreRecord], delete: Sequence[str]
    ) -> None:
        """Bring one document to ``entry`` in one transaction (records, deletions, ledger)."""
        import psycopg

        self._check_sizes(upsert)
        made = False
        try:
            with self._db.transaction(), self._db.cursor() as cursor:
                if upsert:
                    if self.dimension() is None:
                        for statement in q.chunks_schema(self._table, len(upsert[0].vector)):
                            cursor.execute(statement)
                        made = True
                    self._count(upsert)
                    rows = [q.chunk_row(r) for r in upsert]
                    cursor.executemany(q.upsert_chunks(self._table), rows)
                if delete and self.dimension() is not None:
                    self.counts.deleted += self._delete(cursor, "key = ANY(%s)", list(delete))
                ledger_query, values = q.upsert_ledger(self._ledger, entry)
                cursor.execute(ledger_query, values)
                self.counts.ledger += max(cursor.rowcount, 0)
        except (psycopg.Error, UnicodeEncodeError) as error:  # a lone surrogate, a NUL
            raise store_error(self._raw_url, f"writing {entry.doc_id}", error) from None
        self._unindexed = self._unindexed or made  # committed: the table is there

    def meta(self) -> Mapping[str, str]:
        """Return what ``set_meta`` recorded ({} when nothing was)."""
        from psycopg import sql

        table = q.meta_name(self._ledger)
        exists = self._run("SELECT to_regclass(%s)", (f'"{table}"',), doing="reading its meta")
        if not exists or exists[0][0] is None:
            return {}
        query = sql.SQL("SELECT name, value FROM {} ORDER BY name").format(sql.Identifier(table))
        return dict(self._run(query, (), doing="reading its meta"))

    def set_meta(self, values: Mapping[str, str]) -> None:
        """Record ``values`` beside the ledger, over what is there (one transaction)."""
        import psycopg
        from psycopg import sql

        query = sql.SQL(
            "INSERT INTO {} (name, value) VALUES (%s, %s) "
            "ON CONFLICT (name) DO UPDATE SET value = EXCLUDED.value"
        ).format(sql.Identifier(q.meta_name(self._ledger)))
        try:
            with self._db.transaction(), self._db.cursor() as cursor:
                cursor.executemany(query, list(values.items()))
        except psycopg.Error as error:
            raise store_error(self._raw_url, "writing its meta", error) from None
        self.counts.ledger += 1

    def remove(self, doc_id: str) -> None:
        """Delete a document's chunks, then its ledger entry, in one transaction."""
        import psycopg
        from psycopg import sql

        try:
            with self._db.transaction(), self._db.cursor() as cursor:
                if self.dimension() is not None:
                    self.counts.deleted += self._delete(cursor, "doc_id = %s", doc_id)
                query = sql.SQL("DELETE FROM {} WHERE doc_id = %s")
                cursor.execute(query.format(sql.Identifier(self._ledger)), (doc_id,))
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
        if text is not None:
            raise UsageError(
                f"{self.url}: PostgreSQL has no keyword index here (hybrid: sqlite://)"
            )
        terms = filter_terms(filters)
        stored = self.dimension()
        if stored is None:
            return []
        if len(vector) != stored:
            raise dimension_error(self._raw_url, stored, len(vector))
        clause, params = q.where(terms)
        target = q.vector_literal(vector)
        query = q.select_chunks(self._table, "", score=True) + clause
        query += q.sql_text(" ORDER BY embedding <=> %s::vector LIMIT %s")
        rows = self._run(
            query, (target, *params, target, k), doing="querying", binary=True, exact=bool(terms)
        )
        return [Hit(record=_record(row), score=float(row[-1])) for row in rows]

    def write(self, result: FileResult) -> None:
        """Upsert one input's chunks (``split -o URL --embed``; no pruning)."""
        write_result(self, result)

    # -- the lock and the rest -----------------------------------------------------------

    def lock(self, timeout: float) -> None:
        """Take the table's advisory lock, polling up to ``timeout`` seconds.

        Raises:
            StoreError: another run holds it (its server process and start named).
        """
        key = q.lock_key(self._table)
        deadline = time.monotonic() + timeout
        while True:
            rows = self._run("SELECT pg_try_advisory_lock(%s)", (key,), doing="taking the lock")
            if rows and rows[0][0]:
                return
            if time.monotonic() >= deadline:
                break
            time.sleep(0.2)
        holder = self._run(q.LOCK_HOLDER, (key & (2**64 - 1),), doing="naming the lock's holder")
        who = f" (server process {holder[0][0]}, since {holder[0][1]:%c})" if holder else ""
        raise StoreError(
            f"{self.url}: another index run holds the lock on table {self._table}{who}; "
            f"waited {timeout:g} s"
        )

    def create_ledger(self) -> None:
        """Make the ledger table if it is missing (``open_store`` does)."""
        self._run(q.ledger_schema(self._ledger), (), doing="making the ledger table", rows=False)

    def index_vectors(self, *, made_here: bool) -> None:
        """Make the HNSW index of a chunks table that lacks it (``made_here``: this run's).

        ``open_store`` calls it at the start of a run (a run that ended before making it
        leaves the table without), and at the end of one that made the table.
        """
        if made_here and not self._unindexed:
            return
        if not made_here:
            names = (f'"{self._table}"', f'"{q.vector_index_name(self._table)}"')
            found = self._run(
                "SELECT to_regclass(%s) IS NOT NULL, to_regclass(%s) IS NOT NULL",
                names,
                doing="reading its indexes",
            )
            table, indexed = found[0]
            if not table or indexed:
                return
        self._run(q.vector_index(self._table), (), doing="indexing the vectors", rows=False)
        self._unindexed = False

    def _run(
        self,
        query: Any,
        params: Sequence[Any],
        *,
        doing: str,
        binary: bool = False,
        exact: bool = False,
        rows: bool = True,
    ) -> list[Any]:
        import psycopg

        try:
            with self._db.transaction(), self._db.cursor(binary=binary) as cursor:
                if exact:  # the filter first, then the ranking (module docstring)
                    cursor.execute("SET LOCAL enable_indexscan = off")
                cursor.execute(query, params)
                return cursor.fetchall() if rows else []
        except psycopg.Error as error:
            raise store_error(self._raw_url, doing, error) from None

    def _check_sizes(self, upsert: Sequence[StoreRecord]) -> None:
        sizes = {len(r.vector) for r in upsert}
        if len(sizes) > 1:
            raise StoreError(f"{self.url}: vectors of sizes {sorted(sizes)} in one document")
        stored = self.dimension() if sizes else None
        if stored is not None and (given := sizes.pop()) != stored:
            raise dimension_error(self._raw_url, stored, given)

    def _count(self, upsert: Sequence[StoreRecord]) -> None:
        """Count each record as moved (same text and vector stored under its key) or written."""
        if self.dimension() is None:
            self.counts.written += len(upsert)
            return
        query = q.select_chunks(self._table, "WHERE key = ANY(%s)")
        rows = self._run(query, ([r.key for r in upsert],), doing="reading", binary=True)
        old = {row[0]: _record(row) for row in rows}
        for record in upsert:
            kept = old.get(record.key)
            if kept is not None and kept.same_content(record):
                self.counts.moved += 1
            else:
                self.counts.written += 1

    def _delete(self, cursor: psycopg.Cursor[Any], test: str, value: object) -> int:
        from psycopg import sql

        query = sql.SQL("DELETE FROM {} WHERE ").format(sql.Identifier(self._table))
        cursor.execute(query + q.sql_text(test), (value,))
        return max(cursor.rowcount, 0)


def _record(row: Sequence[Any]) -> StoreRecord:
    """Return the record of a row of ``q.select_chunks`` (its columns, then the vector)."""
    values = dict(zip(q.COLUMNS, row, strict=False))
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
        vector=q.vector_from_binary(row[len(q.COLUMNS)]),
        headings=tuple(values["headings"]),
        page_start=values["page_start"],
        page_end=values["page_end"],
        metadata=values["metadata"],
    )


@contextlib.contextmanager
def open_store(url: str, *, lock: bool = True) -> Iterator[PgvectorStore]:
    """Yield the store at ``url``, its lock taken for the block unless ``lock=False`` (queries).

    Raises:
        StoreError: the server is down, refuses the credentials, or another run holds the lock.
        UsageError: the URL's own parameters are wrong.
    """
    import psycopg

    libpq, table, timeout = q.connection_info(url)
    try:
        connection = psycopg.connect(libpq, autocommit=True, application_name="ragchunk")
    except psycopg.Error as error:
        raise store_error(url, "cannot connect", error) from None
    with connection:
        store = PgvectorStore(url, connection, table=table)
        if lock:  # a writer: a reader needs no lock, nor the right to create tables
            store.lock(timeout)
            store.create_ledger()
            store.index_vectors(made_here=False)
        yield store
        if lock:
            store.index_vectors(made_here=True)


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
