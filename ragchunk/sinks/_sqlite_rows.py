"""The SQLite store's tables and rows: its schema, its SQL, records and ledger entries as rows.

``ragchunk.sinks.sqlite`` is the store; this is what it says to SQLite: the columns of
``chunks`` (SPEC §2's fields, ``headings`` and ``metadata`` as JSON, pages and times NULL
where a document has none; ``add_times`` gives a store made before the times their columns),
the filters of a query as SQL (``metadata.KEY`` through ``json_extract``, a number matching
the number and the same number as text), and the conversions both ways.
"""

from __future__ import annotations

import json
from array import array
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Final

from ragchunk.sinks._records import json_text, metadata_key
from ragchunk.sinks._store import LedgerEntry, Scalar, StoreRecord

if TYPE_CHECKING:
    import apsw

FIELDS: Final = (
    "key",
    "id",
    "doc_id",
    "source",
    "index",
    "text",
    "start",
    "end",
    "strategy",
    "headings",
    "page_start",
    "page_end",
    "metadata",
    "timestamp_start",
    "timestamp_end",
)
COLUMNS: Final = ", ".join(f'c."{name}"' for name in FIELDS)
NAMES: Final = ", ".join(f'"{name}"' for name in FIELDS)
INSERT: Final = f"INSERT INTO chunks ({NAMES}) VALUES ({', '.join('?' * len(FIELDS))})"
STORED: Final = (
    'SELECT c.rowid, c."text", v.embedding FROM chunks c JOIN vectors v ON v.rowid = c.rowid '
    'WHERE c."key" = ?'
)
SCHEMA: Final = """
CREATE TABLE ragchunk (name TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE meta (name TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE ledger (doc_id TEXT PRIMARY KEY, source TEXT NOT NULL, content_hash TEXT NOT NULL,
                     settings_hash TEXT NOT NULL, keys TEXT NOT NULL);
CREATE TABLE chunks (rowid INTEGER PRIMARY KEY, "key" TEXT NOT NULL UNIQUE, "id" TEXT NOT NULL,
                     "doc_id" TEXT NOT NULL, "source" TEXT NOT NULL, "index" INTEGER NOT NULL,
                     "text" TEXT NOT NULL, "start" INTEGER NOT NULL, "end" INTEGER NOT NULL,
                     "strategy" TEXT NOT NULL, "headings" TEXT NOT NULL,
                     "page_start" INTEGER, "page_end" INTEGER, "metadata" TEXT NOT NULL,
                     "timestamp_start" REAL, "timestamp_end" REAL);
CREATE INDEX chunks_doc_id ON chunks ("doc_id");
CREATE VIRTUAL TABLE words USING fts5(text, content='', contentless_delete=1);
"""


TIMES: Final = ("timestamp_start", "timestamp_end")


def add_times(db: apsw.Connection) -> None:
    """Add the time columns to the ``chunks`` of a store made before them (one transaction)."""
    if all(_has_column(db, name) for name in TIMES):
        return
    db.execute("BEGIN IMMEDIATE")  # another process may be adding them too
    try:
        for name in TIMES:
            if not _has_column(db, name):
                db.execute(f'ALTER TABLE chunks ADD COLUMN "{name}" REAL')
    except BaseException:
        db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")


def _has_column(db: apsw.Connection, name: str) -> bool:
    return any(row[1] == name for row in db.execute("PRAGMA table_info(chunks)"))


def one(db: apsw.Connection, sql: str, values: Sequence[Any] = ()) -> Any:
    row = next(iter(db.execute(sql, tuple(values))), None)
    return None if row is None else row[0]


def filter_sql(terms: Sequence[tuple[str, Scalar]]) -> tuple[str, list[Any]]:
    """Return the SQL of the filters (on ``c``, the chunks) and its values."""
    clauses: list[str] = []
    values: list[Any] = []
    for name, value in terms:
        key = metadata_key(name)
        if key is None:
            clauses.append(f'c."{name}" = ?')
            values.append(value)
            continue
        path = '$."' + key.replace("\\", "\\\\").replace('"', '\\"') + '"'
        if isinstance(value, int | float) and not isinstance(value, bool):
            # Typed: a number matches the number, and the same number written as text.
            clauses.append("json_extract(c.metadata, ?) IN (?, ?)")
            values += [path, value, str(value)]
        else:
            clauses.append("json_extract(c.metadata, ?) = ?")
            values += [path, value]
    return ("WHERE " + " AND ".join(clauses) if clauses else ""), values


def row_values(record: StoreRecord) -> tuple[Any, ...]:
    return (
        record.key,
        record.id,
        record.doc_id,
        record.source,
        record.index,
        record.text,
        record.start,
        record.end,
        record.strategy,
        json_text(list(record.headings)),
        record.page_start,
        record.page_end,
        json_text(dict(record.metadata)),
        record.timestamp_start,
        record.timestamp_end,
    )


def record_of(row: Sequence[Any]) -> StoreRecord:
    """Return the record of a row: ``FIELDS`` then the vector's bytes."""
    values = dict(zip(FIELDS, row, strict=False))
    vector = array("f")
    vector.frombytes(bytes(row[len(FIELDS)]))
    return StoreRecord(
        key=values["key"],
        id=values["id"],
        doc_id=values["doc_id"],
        source=values["source"],
        index=values["index"],
        text=values["text"],
        start=values["start"],
        end=values["end"],
        strategy=values["strategy"],
        vector=tuple(vector),
        headings=tuple(json.loads(values["headings"])),
        page_start=values["page_start"],
        page_end=values["page_end"],
        metadata=json.loads(values["metadata"]),
        timestamp_start=values["timestamp_start"],
        timestamp_end=values["timestamp_end"],
    )


def entry_of(row: Sequence[Any]) -> LedgerEntry:
    return LedgerEntry(
        doc_id=row[0],
        source=row[1],
        content_hash=row[2],
        settings_hash=row[3],
        keys=tuple(json.loads(row[4])),
    )


def entry_values(entry: LedgerEntry) -> tuple[str, ...]:
    keys = json_text(list(entry.keys))
    return (entry.doc_id, entry.source, entry.content_hash, entry.settings_hash, keys)
