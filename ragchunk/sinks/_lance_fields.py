"""LanceDB's side of a record: the tables' schemas, rows as records, SQL predicates.

See ``sinks/lancedb.py`` for the columns and what each holds.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final

from ragchunk.sinks._records import flat_record, json_text, metadata_key, metadata_values
from ragchunk.sinks._store import LedgerEntry, Scalar, StoreRecord

if TYPE_CHECKING:
    import pyarrow as pa

STRINGS: Final = ("key", "id", "doc_id", "source", "strategy", "text")
INTEGERS: Final = ("index", "start", "end")
PAGES: Final = ("page_start", "page_end")
VECTOR: Final = "vector"
TERMS: Final = "metadata_terms"
BATCH: Final = 500
"""Keys per ``IN (...)`` predicate."""


def chunk_schema(size: int) -> pa.Schema:
    """Return the schema of the chunk table for vectors of ``size`` (``sinks/lancedb.py``)."""
    import pyarrow as pa

    fields = [pa.field(name, pa.string(), nullable=False) for name in STRINGS]
    fields += [pa.field(name, pa.int64(), nullable=False) for name in INTEGERS]
    fields += [pa.field(name, pa.int64(), nullable=True) for name in PAGES]
    fields += [
        pa.field("headings", pa.list_(pa.string()), nullable=False),
        pa.field("metadata", pa.string(), nullable=False),
        pa.field(TERMS, pa.list_(pa.string()), nullable=False),
        pa.field(VECTOR, pa.list_(pa.float32(), size), nullable=False),
    ]
    return pa.schema(fields)


def ledger_schema() -> pa.Schema:
    """Return the schema of the ledger table."""
    import pyarrow as pa

    names = ("doc_id", "source", "content_hash", "settings_hash")
    fields = [pa.field(name, pa.string(), nullable=False) for name in names]
    return pa.schema([*fields, pa.field("keys", pa.list_(pa.string()), nullable=False)])


def chunk_table(records: Sequence[StoreRecord], size: int) -> pa.Table:
    """Return ``records`` as rows of the chunk table."""
    import pyarrow as pa

    return pa.Table.from_pylist(
        [chunk_row(record) for record in records], schema=chunk_schema(size)
    )


def chunk_row(record: StoreRecord) -> dict[str, Any]:
    flat = flat_record(record)
    terms = [
        json_text([key, value])
        for name, value in flat.items()
        if (key := metadata_key(name)) is not None
    ]
    row: dict[str, Any] = {name: flat[name] for name in (*STRINGS, *INTEGERS)}
    row.update({name: flat.get(name) for name in PAGES})
    row.update(headings=list(record.headings), metadata=flat["metadata"], vector=record.vector)
    row[TERMS] = terms
    return row


def row_record(row: Mapping[str, Any]) -> StoreRecord:
    """Return the record a chunk row holds (null page keys read back as absent)."""
    return StoreRecord(
        key=row["key"],
        id=row["id"],
        doc_id=row["doc_id"],
        source=row["source"],
        index=row["index"],
        text=row["text"],
        start=row["start"],
        end=row["end"],
        strategy=row["strategy"],
        vector=tuple(row[VECTOR]),
        headings=tuple(row["headings"]),
        page_start=row["page_start"],
        page_end=row["page_end"],
        metadata=json.loads(row["metadata"]),
    )


def ledger_entry(row: Mapping[str, Any]) -> LedgerEntry:
    return LedgerEntry(
        doc_id=row["doc_id"],
        source=row["source"],
        content_hash=row["content_hash"],
        settings_hash=row["settings_hash"],
        keys=tuple(row["keys"]),
    )


def sql_predicate(terms: Sequence[tuple[str, Scalar]]) -> str:
    """Return the SQL predicate of equality ``terms``.

    A metadata term is looked up among ``metadata_terms``, as any of ``metadata_values``
    (``"2024"`` matches 2024 too).
    """
    clauses = []
    for name, value in terms:
        key = metadata_key(name)
        if key is None:
            clauses.append(f"`{name}` = {literal(value)}")
        else:
            either = [
                f"array_has({TERMS}, {literal(json_text([key, v]))})"
                for v in metadata_values(value)
            ]
            clauses.append(f"({' OR '.join(either)})")
    return " AND ".join(clauses)


def key_predicates(keys: Sequence[str]) -> Iterator[str]:
    for start in range(0, len(keys), BATCH):
        batch = keys[start : start + BATCH]
        yield f"`key` IN ({', '.join(literal(key) for key in batch)})"


def literal(value: Scalar) -> str:
    """Return ``value`` as an SQL literal: a string quoted with its quotes doubled."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    return "'" + value.replace("'", "''") + "'"
