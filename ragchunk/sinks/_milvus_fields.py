"""Milvus's side of a record: the collections' schemas, entities as records, expressions.

See ``sinks/milvus.py`` for the fields and what each holds.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final

from ragchunk.sinks._records import metadata_key, metadata_values
from ragchunk.sinks._store import LedgerEntry, Scalar, StoreRecord

if TYPE_CHECKING:
    from pymilvus import CollectionSchema

VARCHAR_MAX: Final = 65535
"""The longest VARCHAR Milvus holds, in bytes of UTF-8: the schema's ``max_length``."""
STRINGS: Final = ("id", "doc_id", "source", "strategy", "text")
INTEGERS: Final = ("index", "start", "end")
PAGES: Final = ("page_start", "page_end")
FIELDS: Final = ("key", *STRINGS, *INTEGERS, *PAGES, "headings", "metadata")
LEDGER_FIELDS: Final = ("doc_id", "source", "content_hash", "settings_hash", "keys")
UNUSED: Final = "unused"


def chunk_schema(size: int) -> CollectionSchema:
    """Return the schema of the chunk collection for vectors of ``size`` (``sinks/milvus.py``)."""
    from pymilvus import DataType, MilvusClient

    schema = MilvusClient.create_schema(auto_id=False, enable_dynamic_field=False)
    schema.add_field("key", DataType.VARCHAR, is_primary=True, max_length=VARCHAR_MAX)
    for name in STRINGS:
        schema.add_field(name, DataType.VARCHAR, max_length=VARCHAR_MAX)
    for name in INTEGERS:
        schema.add_field(name, DataType.INT64)
    for name in PAGES:
        schema.add_field(name, DataType.INT64, nullable=True)
    schema.add_field("headings", DataType.JSON)
    schema.add_field("metadata", DataType.JSON)
    schema.add_field("vector", DataType.FLOAT_VECTOR, dim=size)
    return schema


def ledger_schema() -> CollectionSchema:
    """Return the schema of the ledger collection."""
    from pymilvus import DataType, MilvusClient

    schema = MilvusClient.create_schema(auto_id=False, enable_dynamic_field=False)
    schema.add_field("doc_id", DataType.VARCHAR, is_primary=True, max_length=VARCHAR_MAX)
    for name in ("source", "content_hash", "settings_hash"):
        schema.add_field(name, DataType.VARCHAR, max_length=VARCHAR_MAX)
    schema.add_field("keys", DataType.JSON)
    schema.add_field(UNUSED, DataType.FLOAT_VECTOR, dim=2)
    return schema


def entity_row(record: StoreRecord) -> dict[str, Any]:
    row: dict[str, Any] = {name: getattr(record, name) for name in ("key", *STRINGS)}
    row.update({name: getattr(record, name) for name in (*INTEGERS, *PAGES)})
    row.update(headings=list(record.headings), metadata=dict(record.metadata))
    row["vector"] = list(record.vector)
    return row


def entity_record(row: Mapping[str, Any]) -> StoreRecord:
    """Return the record an entity holds (null page keys read back as absent)."""
    return StoreRecord(
        key=row["key"],
        id=row["id"],
        doc_id=row["doc_id"],
        source=row["source"],
        index=int(row["index"]),
        text=row["text"],
        start=int(row["start"]),
        end=int(row["end"]),
        strategy=row["strategy"],
        vector=tuple(float(x) for x in row["vector"]),
        headings=tuple(row["headings"]),
        page_start=row.get("page_start"),
        page_end=row.get("page_end"),
        metadata=row["metadata"],
    )


def ledger_entry(row: Mapping[str, Any]) -> LedgerEntry:
    return LedgerEntry(
        doc_id=row["doc_id"],
        source=row["source"],
        content_hash=row["content_hash"],
        settings_hash=row["settings_hash"],
        keys=tuple(row["keys"]),
    )


def filter_expression(terms: Sequence[tuple[str, Scalar]]) -> str:
    """Return the Milvus boolean expression of equality ``terms``.

    A metadata term matches any of ``metadata_values`` (``"2024"`` matches 2024 too).
    """
    clauses = []
    for name, value in terms:
        key = metadata_key(name)
        if key is None:
            clauses.append(f"{name} == {literal(value)}")
            continue
        field = f"metadata[{literal(key)}]"
        either = [f"{field} == {literal(v)}" for v in metadata_values(value)]
        clauses.append(f"({' or '.join(either)})")
    return " and ".join(clauses)


def keys_expression(keys: Sequence[str]) -> str:
    """Return the expression of the entities keyed by one of ``keys``.

    Not pymilvus's ``ids=``: it leaves the quotes in string keys unescaped.
    """
    return f"key in [{', '.join(literal(key) for key in keys)}]"


def literal(value: Scalar) -> str:
    """Return ``value`` as a literal of Milvus expressions (a string in escaped double quotes)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    return json.dumps(value, ensure_ascii=False)
