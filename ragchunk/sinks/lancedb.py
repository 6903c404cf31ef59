"""LanceDB: chunks as rows of a Lance table in a local database directory (the ``Store`` protocol).

``lancedb:///path/table`` is the table ``table`` of the database directory ``path`` (relative;
``lancedb:////abs/path/table`` for an absolute one), made on the first write. Its columns are
typed: ``key`` (what rows are upserted by), ``id``, ``doc_id``, ``source``, ``strategy`` and
``text`` strings; ``index``, ``start``, ``end`` and the nullable ``page_start``/``page_end``
int64s (null where the document has no pages, read back as absent); ``headings`` a list of
strings; ``metadata`` the record's metadata as JSON text, and ``metadata_terms`` each scalar
top-level metadata value as the JSON text of ``[key, value]``, so that ``metadata.lang=en`` is
``array_has(metadata_terms, '["lang","en"]')``; ``vector`` a fixed-size list of float32.
Filters are SQL predicates with every string literal escaped. Queries rank by cosine distance
(``score = 1 - distance``), searching the table exactly.

The ledger is a second table, ``<table>__ledger``. Lance has no transactions over two tables:
``apply`` merges the new rows in by key, then deletes the vanished keys, then merges the ledger
entry. ``_embedded.store_lock`` serialises runs with ``path/<table>.ragchunk.lock``.
"""

from __future__ import annotations

import contextlib
import importlib.util
from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final, cast

from ragchunk.errors import StoreError, UsageError
from ragchunk.sinks._embedded import (
    is_local,
    require_parent,
    store_lock,
    store_url,
)
from ragchunk.sinks._lance_fields import (
    VECTOR,
    chunk_schema,
    chunk_table,
    key_predicates,
    ledger_entry,
    ledger_schema,
    literal,
    row_record,
    sql_predicate,
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
    from lancedb.db import DBConnection
    from lancedb.query import LanceVectorQueryBuilder
    from lancedb.table import Table

    from ragchunk.pipeline.results import FileResult
    from ragchunk.sinks._spec import Destination

LEDGER_SUFFIX: Final = "__ledger"


def missing_client() -> str | None:
    """Return what to install when lancedb is missing, else None (nothing imported)."""
    if importlib.util.find_spec("lancedb") is None:
        return "the LanceDB store needs lancedb: pip install 'ragchunk[lancedb]'"
    return None


@contextlib.contextmanager
def open_store(destination: Destination) -> Iterator[LanceStore]:
    """Open the LanceDB table ``destination`` names, locked for the block.

    Raises:
        UsageError: the URL names no table, or a host (LanceDB here is local).
        StoreError: the database directory cannot be made or opened.
    """
    import lancedb

    url = store_url(destination)
    if not is_local(url):
        raise UsageError(f"{mask_url(url)}: name a local table (lancedb:///path/table)")
    path = store_path(url)
    require_parent(url, path.parent)
    with _refusal(url, "cannot create its directory"):
        path.parent.mkdir(exist_ok=True)
    with store_lock(path.parent / f"{path.name}.ragchunk.lock", url=url):
        with _refusal(url, "cannot open the database"):
            db = lancedb.connect(str(path.parent))
        yield LanceStore(db, url=url, table=path.name)


class LanceStore:
    """An open LanceDB table and its ledger table (see the module docstring)."""

    transactional = False

    def __init__(self, db: DBConnection, *, url: str, table: str) -> None:
        self._db = db
        self._raw_url = url
        self.url = mask_url(url)
        self.counts = Counts()
        self._names = (table, table + LEDGER_SUFFIX)
        self._tables: dict[str, Table] = {}

    def write(self, result: FileResult) -> None:
        """Bring the store in step with one input (``ragchunk.runs.index.sync_document``)."""
        write_result(self, result)

    def dimension(self) -> int | None:
        """Return the vector size of the table, None while there is no table."""
        table = self._table(self._names[0])
        if table is None:
            return None
        kind = table.schema.field(VECTOR).type
        return int(kind.list_size)

    def ledger(self) -> Mapping[str, LedgerEntry]:
        """Return every document's ledger entry, by ``doc_id``."""
        rows = self._rows(self._names[1], None)
        entries = (ledger_entry(row) for row in rows)
        return {entry.doc_id: entry for entry in entries if entry.doc_id != META_DOC}

    def meta(self) -> Mapping[str, str]:
        """Return what ``set_meta`` recorded ({} when nothing was)."""
        if self._table(self._names[1]) is None:
            return {}
        rows = self._rows(self._names[1], f"doc_id = {literal(META_DOC)}")
        return meta_of({META_DOC: ledger_entry(rows[0])}) if rows else {}

    def set_meta(self, values: Mapping[str, str]) -> None:
        """Record ``values`` over what ``meta`` holds, in the ledger's reserved row."""
        self._write_entry(meta_entry({**self.meta(), **values}))

    def records(self, doc_id: str) -> Mapping[str, StoreRecord]:
        """Return the chunks stored for ``doc_id``, by key, with their vectors."""
        rows = self._rows(self._names[0], f"doc_id = {literal(doc_id)}")
        return {row["key"]: row_record(row) for row in rows}

    def apply(
        self, entry: LedgerEntry, *, upsert: Sequence[StoreRecord], delete: Sequence[str]
    ) -> None:
        """Merge ``upsert`` in by key, then delete ``delete``, then merge the ledger entry.

        Raises:
            StoreError: vectors of another size than the table's (before any write), or the
                store refused.
        """
        if upsert:
            self._upsert(upsert)
        if delete:
            table = self._table(self._names[0])
            if table is not None:
                for predicate in key_predicates(delete):
                    with _refusal(self._raw_url, "cannot delete rows"):
                        table.delete(predicate)
            self.counts.deleted += len(delete)
        self._write_entry(entry)

    def remove(self, doc_id: str) -> None:
        """Delete a document's chunks, then its ledger entry."""
        predicate = f"doc_id = {literal(doc_id)}"
        chunks, ledger = (self._table(name) for name in self._names)
        if chunks is not None:
            with _refusal(self._raw_url, "cannot delete rows"):
                found = chunks.count_rows(predicate)
                if found:
                    chunks.delete(predicate)
            self.counts.deleted += found
        if ledger is not None:
            with _refusal(self._raw_url, "cannot delete a ledger entry"):
                if ledger.count_rows(predicate):
                    ledger.delete(predicate)
                    self.counts.ledger += 1

    def query(
        self,
        vector: Sequence[float],
        *,
        k: int,
        filters: Mapping[str, Scalar] | None = None,
        text: str | None = None,
    ) -> list[Hit]:
        """Return the ``k`` rows nearest ``vector`` (cosine), best first.

        Raises:
            UsageError: a hybrid query (this store has no keyword index), or a bad filter.
            StoreError: a vector of another size than the table's, or the store refused.
        """
        if text is not None:
            raise UsageError(f"{self.url}: --hybrid needs a keyword index, which this store lacks")
        predicate = sql_predicate(filter_terms(filters))
        table = self._table(self._names[0])
        if table is None:
            return []
        stored = self.dimension()
        if stored is not None and len(vector) != stored:
            raise dimension_error(self._raw_url, stored, len(vector))
        with _refusal(self._raw_url, "cannot search"):
            found = cast("LanceVectorQueryBuilder", table.search(list(vector), VECTOR))
            search = found.distance_type("cosine")
            if predicate:
                search = search.where(predicate, prefilter=True)
            rows = search.limit(k).to_arrow().to_pylist()
        return [Hit(row_record(row), 1.0 - float(row["_distance"])) for row in rows]

    def _upsert(self, upsert: Sequence[StoreRecord]) -> None:
        sizes = {len(record.vector) for record in upsert}
        if len(sizes) > 1:
            raise StoreError(f"{self.url}: vectors of different sizes {sorted(sizes)} in one batch")
        size = sizes.pop()
        stored = self.dimension()
        if stored is not None and stored != size:
            raise dimension_error(self._raw_url, stored, size)
        before = self._stored([record.key for record in upsert])
        data = chunk_table(upsert, size)
        table = self._table(self._names[0])
        with _refusal(self._raw_url, "cannot write rows"):
            if table is None:
                table = self._db.create_table(self._names[0], schema=chunk_schema(size))
                self._tables[self._names[0]] = table
            table.merge_insert(
                "key"
            ).when_matched_update_all().when_not_matched_insert_all().execute(data)
        moved = sum(1 for r in upsert if r.key in before and r.same_content(before[r.key]))
        self.counts.moved += moved
        self.counts.written += len(upsert) - moved

    def _stored(self, keys: Sequence[str]) -> dict[str, StoreRecord]:
        """Return the stored records of ``keys`` that exist (to tell a move from a rewrite)."""
        found: dict[str, StoreRecord] = {}
        for predicate in key_predicates(keys):
            found.update(
                (row["key"], row_record(row)) for row in self._rows(self._names[0], predicate)
            )
        return found

    def _write_entry(self, entry: LedgerEntry) -> None:
        import pyarrow as pa

        name = self._names[1]
        table = self._table(name)
        if table is not None:
            old = self._rows(name, f"doc_id = {literal(entry.doc_id)}")
            if old and ledger_entry(old[0]) == entry:
                return
        row = {
            "doc_id": entry.doc_id,
            "source": entry.source,
            "content_hash": entry.content_hash,
            "settings_hash": entry.settings_hash,
            "keys": list(entry.keys),
        }
        data = pa.Table.from_pylist([row], schema=ledger_schema())
        with _refusal(self._raw_url, "cannot write the ledger"):
            if table is None:
                table = self._db.create_table(name, schema=ledger_schema())
                self._tables[name] = table
            table.merge_insert(
                "doc_id"
            ).when_matched_update_all().when_not_matched_insert_all().execute(data)
        self.counts.ledger += 1

    def _table(self, name: str) -> Table | None:
        """Return the table ``name``, None while it does not exist."""
        if name not in self._tables:
            try:
                self._tables[name] = self._db.open_table(name)
            except ValueError:  # lancedb: "Table '...' was not found"
                return None
            except OSError as exc:
                raise store_error(self._raw_url, f"cannot open the table {name}", exc) from None
        return self._tables[name]

    def _rows(self, name: str, predicate: str | None) -> list[dict[str, Any]]:
        table = self._table(name)
        if table is None:
            return []
        with _refusal(self._raw_url, f"cannot read the table {name}"):
            scan = table.search()
            if predicate:
                scan = scan.where(predicate)
            rows: list[dict[str, Any]] = scan.limit(None).to_arrow().to_pylist()
        return rows


@contextlib.contextmanager
def _refusal(url: str, doing: str) -> Iterator[None]:
    """Turn what LanceDB raises into one ``StoreError`` line naming the store."""
    try:
        yield
    except (ValueError, RuntimeError, OSError) as exc:
        raise store_error(url, doing, exc) from None


SINK = SinkSpec(
    name="lancedb",
    summary="A LanceDB table in a local directory (ragchunk index).",
    open=open_store,
    files=False,
    stream=False,
    missing=missing_client,
)
