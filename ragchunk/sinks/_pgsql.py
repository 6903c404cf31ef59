"""The SQL the ``postgresql://`` store sends, and how its URL becomes a libpq connection.

Kept apart from ``ragchunk.sinks.pgvector`` (the store itself): the statements that make the
tables, upsert the chunks and the ledger, and turn query filters into a ``WHERE`` clause, and
the binary and text forms of pgvector's ``vector`` type. Table names go through
``psycopg.sql.Identifier``, values always as parameters.
"""

from __future__ import annotations

import hashlib
import re
import struct
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Final
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from ragchunk.errors import UsageError
from ragchunk.sinks._records import json_text, mask_url, metadata_key, metadata_values

if TYPE_CHECKING:
    from psycopg import sql

    from ragchunk.sinks._store import LedgerEntry, Scalar, StoreRecord

DEFAULT_TABLE: Final = "ragchunk_chunks"
DEFAULT_LEDGER: Final = "ragchunk_ledger"
LOCK_TIMEOUT: Final = 60.0
"""Seconds a second run waits for the lock (``?lock_timeout=`` in the URL)."""
CONNECT_TIMEOUT: Final = 10
_OWN_PARAMETERS: Final = ("table", "lock_timeout")
_NAME: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,50}")
COLUMNS: Final = (
    "key", "id", "doc_id", "source", "idx", "text", "start", "end", "strategy",
    "page_start", "page_end", "headings", "metadata",
)  # fmt: skip
"""The chunks table's columns but ``embedding``, in the order rows are read and written."""
_FIELD_COLUMN: Final = {"index": "idx"}
LOCK_HOLDER: Final = (
    "SELECT a.pid, a.backend_start FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid "
    "WHERE l.locktype = 'advisory' AND l.granted "
    "AND ((l.classid::bigint << 32) | l.objid::bigint) = %s"
)
"""Who holds an advisory lock (its key as an unsigned 64-bit number)."""
VECTOR_SIZE: Final = (
    "SELECT a.atttypmod FROM pg_attribute a WHERE a.attrelid = to_regclass(%s) "
    "AND a.attname = 'embedding' AND NOT a.attisdropped"
)


def connection_info(url: str) -> tuple[str, str, float]:
    """Return (libpq URL, chunks table, lock timeout) from a store URL.

    Raises:
        UsageError: ``table`` is not a plain SQL name, or ``lock_timeout`` not a number.
    """
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


def ledger_name(table: str) -> str:
    """Return the ledger table beside chunks table ``table``."""
    return DEFAULT_LEDGER if table == DEFAULT_TABLE else f"{table}_ledger"


def lock_key(table: str) -> int:
    """Return the advisory lock key of chunks table ``table`` (a signed 64-bit number)."""
    digest = hashlib.sha256(f"ragchunk:{table}".encode()).digest()
    return int.from_bytes(digest[:8], "big", signed=True)


def vector_literal(vector: Sequence[float]) -> str:
    """Return pgvector's text form of ``vector`` (``[1.0,0.5]``)."""
    return "[" + ",".join(repr(float(x)) for x in vector) + "]"


def vector_from_binary(data: bytes) -> tuple[float, ...]:
    """Return a vector from pgvector's binary form: dimension, unused, float4 big-endian."""
    size = struct.unpack_from(">H", data)[0]
    return struct.unpack_from(f">{size}f", data, 4)


def chunks_schema(table: str, size: int) -> list[sql.Composed]:
    """Return the statements that make the chunks table of ``size``-number vectors."""
    from psycopg import sql

    name = sql.Identifier(table)
    return [
        sql.SQL("CREATE EXTENSION IF NOT EXISTS vector").format(),
        sql.SQL(
            "CREATE TABLE IF NOT EXISTS {} (key text PRIMARY KEY, id text NOT NULL, "
            "doc_id text NOT NULL, source text NOT NULL, idx integer NOT NULL, "
            'text text NOT NULL, start bigint NOT NULL, "end" bigint NOT NULL, '
            "strategy text NOT NULL, page_start integer, page_end integer, "
            "headings jsonb NOT NULL, metadata json NOT NULL, embedding vector({}) NOT NULL)"
        ).format(name, sql.Literal(size)),
        sql.SQL("CREATE INDEX IF NOT EXISTS {} ON {} (doc_id)").format(
            sql.Identifier(f"{table}_doc_id"), name
        ),
    ]


def vector_index_name(table: str) -> str:
    """Return the name of the chunks table's HNSW index."""
    return f"{table}_embedding_hnsw"


def vector_index(table: str) -> sql.Composed:
    """Return the statement that makes the chunks table's HNSW index (if it is missing)."""
    from psycopg import sql

    return sql.SQL(
        "CREATE INDEX IF NOT EXISTS {} ON {} USING hnsw (embedding vector_cosine_ops)"
    ).format(sql.Identifier(vector_index_name(table)), sql.Identifier(table))


def ledger_schema(ledger: str) -> sql.Composed:
    """Return the statement that makes the ledger table and its ``meta`` table beside it."""
    from psycopg import sql

    return sql.SQL(
        "CREATE TABLE IF NOT EXISTS {} (doc_id text PRIMARY KEY, source text NOT NULL, "
        "content_hash text NOT NULL, settings_hash text NOT NULL, keys text[] NOT NULL); "
        "CREATE TABLE IF NOT EXISTS {} (name text PRIMARY KEY, value text NOT NULL)"
    ).format(sql.Identifier(ledger), sql.Identifier(meta_name(ledger)))


def meta_name(ledger: str) -> str:
    """Return the table of ``Store.meta`` beside ledger table ``ledger``."""
    return f"{ledger}_meta"


def select_chunks(table: str, tail: str, *, score: bool = False) -> sql.Composed:
    """Return ``SELECT <columns>, embedding[, score] FROM table <tail>``."""
    from psycopg import sql

    columns = sql.SQL(", ").join(map(sql.Identifier, COLUMNS))
    scored = sql.SQL(", 1 - (embedding <=> %s::vector)") if score else sql.SQL("")
    return sql.SQL("SELECT {}, embedding{} FROM {} ").format(
        columns, scored, sql.Identifier(table)
    ) + sql_text(tail)


def upsert_chunks(table: str) -> sql.Composed:
    """Return the statement that inserts or replaces one chunk by key (``chunk_row``)."""
    from psycopg import sql

    names = sql.SQL(", ").join(map(sql.Identifier, (*COLUMNS, "embedding")))
    holes = sql.SQL(", ").join([sql.Placeholder()] * len(COLUMNS) + [sql.SQL("%s::vector")])
    updates = sql.SQL(", ").join(
        sql.SQL("{0} = EXCLUDED.{0}").format(sql.Identifier(c)) for c in (*COLUMNS[1:], "embedding")
    )
    return sql.SQL("INSERT INTO {} ({}) VALUES ({}) ON CONFLICT (key) DO UPDATE SET {}").format(
        sql.Identifier(table), names, holes, updates
    )


def chunk_row(r: StoreRecord) -> tuple[Any, ...]:
    """Return the parameters of ``upsert_chunks`` for one record."""
    from psycopg.types.json import Json, Jsonb

    return (
        r.key, r.id, r.doc_id, r.source, r.index, r.text, r.start, r.end, r.strategy,
        r.page_start, r.page_end, Jsonb(list(r.headings)),
        Json(dict(r.metadata), dumps=json_text), vector_literal(r.vector),
    )  # fmt: skip


def upsert_ledger(ledger: str, entry: LedgerEntry) -> tuple[sql.Composed, tuple[Any, ...]]:
    """Return the statement (and parameters) writing ``entry``; it changes no row if equal."""
    from psycopg import sql

    query = sql.SQL(
        "INSERT INTO {0} (doc_id, source, content_hash, settings_hash, keys) "
        "VALUES (%s, %s, %s, %s, %s) ON CONFLICT (doc_id) DO UPDATE SET "
        "source = EXCLUDED.source, content_hash = EXCLUDED.content_hash, "
        "settings_hash = EXCLUDED.settings_hash, keys = EXCLUDED.keys "
        "WHERE ({0}.source, {0}.content_hash, {0}.settings_hash, {0}.keys) "
        "IS DISTINCT FROM (EXCLUDED.source, EXCLUDED.content_hash, "
        "EXCLUDED.settings_hash, EXCLUDED.keys)"
    ).format(sql.Identifier(ledger))
    values = (entry.doc_id, entry.source, entry.content_hash, entry.settings_hash)
    return query, (*values, list(entry.keys))


def where(terms: Sequence[tuple[str, Scalar]]) -> tuple[sql.Composable, list[Any]]:
    """Return the ``WHERE`` clause (or nothing) and its parameters for the filter terms.

    A record field is a column test; ``metadata.KEY`` compares the JSON value (as ``jsonb``,
    so ``2024`` matches ``2024.0``) with each value the filter may mean (``metadata_values``).
    """
    from psycopg import sql

    clauses: list[sql.Composable] = []
    params: list[Any] = []
    for name, value in terms:
        key = metadata_key(name)
        if key is None:
            column = sql.Identifier(_FIELD_COLUMN.get(name, name))
            clauses.append(sql.SQL("{} = %s").format(column))
            params.append(value)
        else:
            clauses.append(sql.SQL("(metadata::jsonb) -> %s = ANY(%s::jsonb[])"))
            params += [key, [json_text(v) for v in metadata_values(value)]]
    if not clauses:
        return sql.SQL(""), params
    return sql.SQL("WHERE ") + sql.SQL(" AND ").join(clauses), params


def sql_text(text: str) -> sql.SQL:
    """Return ``text`` as a piece of SQL (fixed text of this module's callers, never a value)."""
    from psycopg import sql

    return sql.SQL(text)
