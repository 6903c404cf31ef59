"""sqlite: a vector store in one SQLite file (``sqlite:///index.db``), the embedded default.

The chunks are rows of ``chunks`` (SPEC §2's fields as typed columns: ``page_start`` and
``page_end`` numbers, NULL where the document has no pages; ``headings`` and ``metadata`` as
JSON), their vectors rows of a ``vec0`` table of the sqlite-vec extension (cosine distance),
their text an FTS5 index (``query(text=...)``: keyword and vector ranks mixed by reciprocal
rank fusion). Beside them: the ledger (one row per document) and ``meta``. Filters are SQL.

Why apsw and not pysqlite3-binary: Python's own ``sqlite3`` cannot load extensions on many
builds (this one included: no ``enable_load_extension``). apsw ships wheels for every
platform and Python we support, each with a recent SQLite built in (FTS5 and
``contentless_delete`` included), loads extensions on every one, and is maintained with each
SQLite release; pysqlite3-binary has Linux x86-64 wheels only and lags SQLite. The package
is imported only when a store is opened.

Each document changes in one transaction (``apply``): a crash or kill -9 leaves it whole, in
its old state or its new one. A run that writes takes an exclusive ``flock`` on the file for
the rest of the block, at its first read of what it will change (``ledger``, ``records``) or
write; a second run waits up to ``?timeout=SECONDS`` (default 30), then fails saying why.
Queries and ``--dry-run`` never take it, and nothing creates the file before the first write.
URLs follow SQLAlchemy's: ``sqlite:///index.db`` is relative, ``sqlite:////abs/index.db``
absolute.
"""

from __future__ import annotations

import contextlib
import os
import re
import time
from array import array
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final
from urllib.parse import parse_qsl, urlsplit

from ragchunk.errors import StoreError, UsageError
from ragchunk.sinks._records import filter_terms
from ragchunk.sinks._spec import SinkSpec
from ragchunk.sinks._sqlite_rows import (
    COLUMNS,
    FIELDS,
    INSERT,
    SCHEMA,
    STORED,
    add_times,
    entry_of,
    entry_values,
    filter_sql,
    one,
    record_of,
    row_values,
)
from ragchunk.sinks._store import Counts, Hit, LedgerEntry, Scalar, StoreRecord
from ragchunk.sinks._sync import dimension_error, write_result

if TYPE_CHECKING:
    import apsw

    from ragchunk.pipeline.results import FileResult
    from ragchunk.sinks._spec import Destination

LOCK_WAIT: Final = 30.0
"""Seconds a run waits for another run's lock on the file (``?timeout=`` changes it)."""
FORMAT: Final = "ragchunk-sqlite-1"
RRF_K: Final = 60
"""Reciprocal rank fusion's constant: a hit's hybrid score is the sum of 1 / (60 + rank)."""


def missing_sqlite() -> str | None:
    """Return what to install when apsw or sqlite-vec is missing (checked without importing)."""
    import importlib.util

    if any(importlib.util.find_spec(name) is None for name in ("apsw", "sqlite_vec")):
        return "sqlite:// stores need apsw and sqlite-vec: pip install 'ragchunk[sqlite]'"
    return None


def parse_url(url: str) -> tuple[Path, float]:
    """Return the database file and the lock wait of a ``sqlite:///PATH[?timeout=S]`` URL.

    Raises:
        UsageError: not a path URL, or a bad timeout.
    """
    parts = urlsplit(url)
    if parts.scheme.lower() != "sqlite" or parts.netloc or not parts.path.startswith("/"):
        raise UsageError(f"{url}: a SQLite store is sqlite:///PATH (sqlite:////ABSOLUTE/PATH)")
    path = parts.path[1:]
    if not path or path.endswith("/"):
        raise UsageError(f"{url}: name the database file (sqlite:///index.db)")
    wait = LOCK_WAIT
    for name, value in parse_qsl(parts.query):
        if name != "timeout":
            raise UsageError(f"{url}: unknown parameter {name!r} (only timeout=SECONDS)")
        try:
            wait = float(value)
        except ValueError:
            wait = -1.0
        if not 0 <= wait < float("inf"):
            raise UsageError(f"{url}: timeout must be a number of seconds (got {value!r})")
    return Path(path), wait


class SqliteStore:
    """An open SQLite store (the ``Store`` protocol); see the module docstring."""

    transactional = True

    def __init__(self, url: str, path: Path, wait: float) -> None:
        self.url = url
        self.counts = Counts()
        self.path = path
        self.wait = wait
        self._db: apsw.Connection | None = None
        self._lock: int | None = None

    # Reading.

    def dimension(self) -> int | None:
        """Return the size of the stored vectors, None while the store holds none."""
        db = self._reader()
        if db is None or not one(db, "SELECT count(*) FROM chunks"):
            return None
        found = one(db, "SELECT value FROM ragchunk WHERE name = 'dimension'")
        return None if found is None else int(found)

    def ledger(self) -> Mapping[str, LedgerEntry]:
        """Return every document's ledger entry, by ``doc_id`` (takes the lock)."""
        self._take_lock()
        db = self._reader()
        if db is None:
            return {}
        rows = db.execute("SELECT doc_id, source, content_hash, settings_hash, keys FROM ledger")
        return {row[0]: entry_of(row) for row in rows}

    def records(self, doc_id: str) -> Mapping[str, StoreRecord]:
        """Return the chunks stored for ``doc_id`` by key (takes the lock)."""
        self._take_lock()
        db = self._reader()
        if db is None:
            return {}
        sql = (
            f"SELECT {COLUMNS}, v.embedding FROM chunks c JOIN vectors v ON v.rowid = c.rowid "
            'WHERE c."doc_id" = ?'
        )
        return {row[0]: record_of(row) for row in self._rows(db, sql, (doc_id,))}

    def meta(self) -> Mapping[str, str]:
        """Return the values ``set_meta`` recorded."""
        db = self._reader()
        if db is None:
            return {}
        return {str(name): str(value) for name, value in db.execute("SELECT * FROM meta")}

    # Writing.

    def apply(
        self, entry: LedgerEntry, *, upsert: Sequence[StoreRecord], delete: Sequence[str]
    ) -> None:
        """Bring one document to ``entry`` in one transaction (see ``Store.apply``)."""
        db = self._writer()
        with self._refusals("writing " + entry.doc_id), db:
            if upsert:
                self._vectors(db, len(upsert[0].vector))
            for key in delete:
                self._delete(db, key)
            for record in upsert:
                self._upsert(db, record)
            known = db.execute("SELECT * FROM ledger WHERE doc_id = ?", (entry.doc_id,))
            row = next(iter(known), None)
            if row is None or entry_of(row) != entry:
                db.execute(
                    "INSERT OR REPLACE INTO ledger VALUES (?, ?, ?, ?, ?)",
                    entry_values(entry),
                )
                self.counts.ledger += 1

    def remove(self, doc_id: str) -> None:
        """Delete a document's chunks and its ledger entry, in one transaction."""
        db = self._writer()
        with self._refusals("removing " + doc_id), db:
            found = db.execute('SELECT "key" FROM chunks WHERE "doc_id" = ?', (doc_id,))
            for key in [row[0] for row in found]:
                self._delete(db, key)
            if db.execute("DELETE FROM ledger WHERE doc_id = ? RETURNING 1", (doc_id,)).fetchall():
                self.counts.ledger += 1

    def set_meta(self, values: Mapping[str, str]) -> None:
        """Record ``values`` in ``meta``, over what is there."""
        db = self._writer()
        with self._refusals("writing its meta"), db:
            db.executemany("INSERT OR REPLACE INTO meta VALUES (?, ?)", list(values.items()))
        self.counts.ledger += 1

    def write(self, result: FileResult) -> None:
        """Upsert one input's chunks (``split -o sqlite:///...  --embed``; no pruning)."""
        write_result(self, result)

    # Querying.

    def query(
        self,
        vector: Sequence[float],
        *,
        k: int,
        filters: Mapping[str, Scalar] | None = None,
        text: str | None = None,
    ) -> list[Hit]:
        """Return the ``k`` records nearest ``vector`` (cosine), or mixed with ``text``'s ranks."""
        db = self._reader()
        terms = filter_terms(filters)  # checked even on an empty store
        if db is None or k < 1 or self.dimension() is None:
            return []
        where, values = filter_sql(terms)
        blob = array("f", vector).tobytes()
        many = k if text is None else max(4 * k, 50)
        sql = (
            f"SELECT {COLUMNS}, v.embedding, vec_distance_cosine(v.embedding, ?) AS d "
            f"FROM chunks c JOIN vectors v ON v.rowid = c.rowid {where} ORDER BY d LIMIT ?"
        )
        rows = self._rows(db, sql, (blob, *values, many))
        nearest = [(record_of(row[:-1]), 1.0 - row[-1]) for row in rows]
        if text is None:
            return [Hit(record, score) for record, score in nearest]
        return self._hybrid(db, nearest, text, where, values, k=k, many=many)

    def _hybrid(
        self,
        db: apsw.Connection,
        nearest: list[tuple[StoreRecord, float]],
        text: str,
        where: str,
        values: Sequence[Any],
        *,
        k: int,
        many: int,
    ) -> list[Hit]:
        """Return the ``k`` best by reciprocal rank fusion of vector and keyword ranks."""
        words = re.findall(r"\w+", text)
        keyword: list[StoreRecord] = []
        if words:
            match = " OR ".join('"' + word.replace('"', '""') + '"' for word in words)
            clause = f"{where} AND" if where else "WHERE"
            sql = (
                f"SELECT {COLUMNS}, v.embedding FROM words w JOIN chunks c ON c.rowid = w.rowid "
                f"JOIN vectors v ON v.rowid = c.rowid {clause} words MATCH ? "
                "ORDER BY w.rank LIMIT ?"
            )
            keyword = [record_of(row) for row in self._rows(db, sql, (*values, match, many))]
        scores: dict[str, float] = {}
        records: dict[str, StoreRecord] = {}
        for ranked in ([record for record, _ in nearest], keyword):
            for rank, record in enumerate(ranked, 1):
                scores[record.key] = scores.get(record.key, 0.0) + 1.0 / (RRF_K + rank)
                records[record.key] = record
        best = sorted(scores, key=lambda key: (-scores[key], key))[:k]
        return [Hit(records[key], scores[key]) for key in best]

    # The connection, the lock, the schema.

    def close(self) -> None:
        """Close the connection and release the lock."""
        if self._db is not None:
            self._db.close()
            self._db = None
        if self._lock is not None:
            os.close(self._lock)
            self._lock = None

    def _reader(self) -> apsw.Connection | None:
        """Return the connection, None while the file or its tables do not exist."""
        if self._db is None:
            if not self.path.is_file():
                return None
            self._db = self._connect()
        if one(self._db, "SELECT count(*) FROM sqlite_master WHERE name = 'ragchunk'"):
            return self._db
        return None

    def _writer(self) -> apsw.Connection:
        """Return the connection for writing: the lock taken, the file and tables made."""
        self._take_lock(create=True)
        if self._db is None:
            self._db = self._connect()
        db = self._db
        if not one(db, "SELECT count(*) FROM sqlite_master WHERE name = 'ragchunk'"):
            if one(db, "SELECT count(*) FROM sqlite_master"):
                raise StoreError(
                    f"{self.url}: {self.path} holds other tables, not a ragchunk store"
                )
            with self._refusals("creating its tables"), db:
                db.execute(SCHEMA)
                db.execute("INSERT INTO ragchunk VALUES ('format', ?)", (FORMAT,))
        return db

    def _connect(self) -> apsw.Connection:
        import apsw
        import sqlite_vec

        try:
            db = apsw.Connection(str(self.path))
            db.set_busy_timeout(int(self.wait * 1000))
            db.enable_load_extension(True)  # noqa: FBT003 - apsw's signature
            db.load_extension(sqlite_vec.loadable_path())
            db.enable_load_extension(False)  # noqa: FBT003 - apsw's signature
            db.execute("PRAGMA journal_mode = WAL")
            found = one(db, "SELECT count(*) FROM sqlite_master WHERE name = 'ragchunk'")
            if found and one(db, "SELECT value FROM ragchunk WHERE name = 'format'") != FORMAT:
                raise StoreError(f"{self.url}: not a store of this ragchunk ({FORMAT})")
            if found:
                add_times(db)
        except apsw.Error as exc:
            raise StoreError(f"{self.url}: cannot open {self.path}: {exc}") from None
        return db

    def _take_lock(self, *, create: bool = False) -> None:
        """Take the exclusive lock on the file, waiting up to ``wait``.

        A missing file is made only to ``create`` it (a write): reading it makes nothing.
        """
        if self._lock is not None or not (create or self.path.exists()):
            return
        import fcntl

        try:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as exc:
            raise StoreError(f"{self.url}: cannot open {self.path}: {exc.strerror}") from None
        deadline = time.monotonic() + self.wait
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    os.close(fd)
                    raise StoreError(
                        f"{self.url}: another ragchunk run is writing this store (waited "
                        f"{self.wait:g} s for its lock); run again once it is done"
                    ) from None
                time.sleep(0.05)
        self._lock = fd

    @contextlib.contextmanager
    def _refusals(self, doing: str) -> Iterator[None]:
        import apsw

        try:
            yield
        except apsw.Error as exc:
            raise StoreError(f"{self.url}: {doing}: {exc}") from None

    def _rows(self, db: apsw.Connection, sql: str, values: Sequence[Any]) -> list[Any]:
        with self._refusals("reading"):
            return db.execute(sql, tuple(values)).fetchall()

    def _vectors(self, db: apsw.Connection, size: int) -> None:
        """Make the vector table for vectors of ``size``, unless it exists (empty: remade)."""
        found = one(db, "SELECT value FROM ragchunk WHERE name = 'dimension'")
        if found is not None and int(found) == size:
            return
        if found is not None:
            if one(db, "SELECT count(*) FROM chunks"):
                raise dimension_error(self.url, int(found), size)
            db.execute("DROP TABLE vectors")
        db.execute(
            f"CREATE VIRTUAL TABLE vectors USING vec0(embedding float[{size}] "
            "distance_metric=cosine)"
        )
        db.execute("INSERT OR REPLACE INTO ragchunk VALUES ('dimension', ?)", (str(size),))

    def _delete(self, db: apsw.Connection, key: str) -> None:
        rowid = one(db, 'SELECT rowid FROM chunks WHERE "key" = ?', (key,))
        if rowid is None:
            return
        for table in ("chunks", "vectors", "words"):
            db.execute(f"DELETE FROM {table} WHERE rowid = ?", (rowid,))
        self.counts.deleted += 1

    def _upsert(self, db: apsw.Connection, record: StoreRecord) -> None:
        """Insert, rewrite or move one record (counted as ``Counts`` says)."""
        blob = array("f", record.vector).tobytes()
        old = next(iter(db.execute(STORED, (record.key,))), None)
        values = row_values(record)
        if old is None:
            db.execute(INSERT, values)
            rowid = db.last_insert_rowid()
            db.execute("INSERT INTO vectors (rowid, embedding) VALUES (?, ?)", (rowid, blob))
            db.execute("INSERT INTO words (rowid, text) VALUES (?, ?)", (rowid, record.text))
            self.counts.written += 1
            return
        rowid, text, embedding = old
        assignments = ", ".join(f'"{name}" = ?' for name in FIELDS)
        db.execute(f"UPDATE chunks SET {assignments} WHERE rowid = ?", (*values, rowid))
        if text == record.text and bytes(embedding) == blob:
            self.counts.moved += 1
            return
        db.execute("DELETE FROM vectors WHERE rowid = ?", (rowid,))
        db.execute("INSERT INTO vectors (rowid, embedding) VALUES (?, ?)", (rowid, blob))
        db.execute("DELETE FROM words WHERE rowid = ?", (rowid,))
        db.execute("INSERT INTO words (rowid, text) VALUES (?, ?)", (rowid, record.text))
        self.counts.written += 1


@contextlib.contextmanager
def open_store(to: Destination) -> Iterator[SqliteStore]:
    """Yield the store a ``sqlite:///`` URL names; closed (its lock released) at the end."""
    if not isinstance(to, str):
        raise UsageError("a SQLite store is named by a sqlite:/// URL, never a text stream")
    path, wait = parse_url(to)
    store = SqliteStore(to, path, wait)
    try:
        yield store
    finally:
        store.close()


SINK = SinkSpec(
    name="sqlite",
    summary="A vector store in one SQLite file (sqlite-vec and FTS5); needs apsw, sqlite-vec.",
    open=open_store,
    files=False,
    stream=False,
    missing=missing_sqlite,
)
