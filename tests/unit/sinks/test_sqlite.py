"""The SQLite store on its own: records as typed columns, counts, filters, hybrid, lock, URLs."""

from __future__ import annotations

import math
from array import array
from pathlib import Path

import pytest

from ragchunk.errors import StoreError, UsageError
from ragchunk.sinks._store import Counts, LedgerEntry, StoreRecord

pytest.importorskip("apsw")
pytest.importorskip("sqlite_vec")

from ragchunk.sinks.sqlite import open_store, parse_url


def unit(*values: float) -> tuple[float, ...]:
    norm = math.sqrt(sum(v * v for v in values))
    return tuple(v / norm for v in values)


def record(key: str, text: str, vector: tuple[float, ...], **fields: object) -> StoreRecord:
    values: dict[str, object] = {
        "key": key,
        "id": f"id-{key}",
        "doc_id": "a.md",
        "source": "docs/a.md",
        "index": 0,
        "text": text,
        "start": 0,
        "end": len(text),
        "strategy": "recursive",
        "vector": tuple(array("f", vector)),
        **fields,
    }
    return StoreRecord(**values)  # type: ignore[arg-type]


def entry(*keys: str, doc_id: str = "a.md") -> LedgerEntry:
    return LedgerEntry(
        doc_id=doc_id, source=f"docs/{doc_id}", content_hash="c", settings_hash="s", keys=keys
    )


def test_records_come_back_as_written_with_typed_pages_and_counts(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path}/index.db"
    paged = record(
        "k1",
        "Harbour cranes",
        unit(1, 0, 0),
        page_start=3,
        page_end=4,
        headings=("Guide", "Cranes"),
        metadata={"lang": "en", "level": 2},
    )
    plain = record("k2", "Tide tables", unit(0, 1, 0), index=1, start=20, end=31)
    with open_store(url) as store:
        store.apply(entry("k1", "k2"), upsert=[paged, plain], delete=[])
        assert store.records("a.md") == {"k1": paged, "k2": plain}
        assert store.records("a.md")["k2"].page_start is None
        assert store.ledger() == {"a.md": entry("k1", "k2")}
        assert store.dimension() == 3
        moved = record("k2", "Tide tables", unit(0, 1, 0), index=1, start=25, end=36)
        store.apply(entry("k1", "k2"), upsert=[moved], delete=[])
        store.apply(entry("k1"), upsert=[], delete=["k2"])
        store.apply(entry("k1"), upsert=[], delete=[])  # nothing differs: nothing written
        assert store.counts == Counts(written=2, moved=1, deleted=1, ledger=2)
        store.remove("a.md")
        assert (store.ledger(), store.records("a.md"), store.dimension()) == ({}, {}, None)


def test_query_filters_are_typed_and_hybrid_mixes_keywords(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path}/index.db"
    first = record("k1", "crane maintenance log", unit(1, 0.1, 0), page_start=3, page_end=3)
    second = record(
        "k2", "tide tables for the berth", unit(1, 0.3, 0), index=1, metadata={"year": 2024}
    )
    third = record("k3", "a note on cranes", unit(0, 0, 1), index=2, metadata={"year": "2024"})
    with open_store(url) as store:
        store.apply(entry("k1", "k2", "k3"), upsert=[first, second, third], delete=[])
        nearest = store.query(unit(1, 0, 0), k=2)
        assert [hit.record.key for hit in nearest] == ["k1", "k2"]
        assert nearest[0].score == pytest.approx(math.cos(math.atan(0.1)), abs=1e-5)
        assert [
            h.record.key for h in store.query(unit(1, 0, 0), k=3, filters={"page_start": "3"})
        ] == ["k1"]
        by_year = store.query(unit(1, 0, 0), k=3, filters={"metadata.year": 2024})
        assert [hit.record.key for hit in by_year] == ["k2", "k3"]  # the number, and as text
        hybrid = store.query(unit(0, 1, 0), k=3, text="crane log")
        assert hybrid[0].record.key == "k1"  # both keywords and near enough
        with pytest.raises(UsageError, match="--filter colour: not a field"):
            store.query(unit(1, 0, 0), k=1, filters={"colour": "red"})


def test_vectors_of_another_size_are_refused(tmp_path: Path) -> None:
    with open_store(f"sqlite:///{tmp_path}/index.db") as store:
        store.apply(entry("k1"), upsert=[record("k1", "a", unit(1, 0, 0))], delete=[])
        with pytest.raises(StoreError, match="size 3, these are of size 2"):
            store.apply(entry("k2"), upsert=[record("k2", "b", unit(1, 1))], delete=[])
        assert list(store.records("a.md")) == ["k1"]


def test_a_second_writer_waits_for_the_lock_then_fails_saying_why(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path}/index.db"
    with open_store(url) as first, open_store(url + "?timeout=0.2") as second:
        first.apply(entry("k1"), upsert=[record("k1", "a", unit(1, 0))], delete=[])
        assert second.query(unit(1, 0), k=1)[0].record.key == "k1"  # a query takes no lock
        with pytest.raises(StoreError, match="another ragchunk run is writing this store"):
            second.ledger()
    with open_store(url + "?timeout=0.2") as third:
        assert list(third.ledger()) == ["a.md"]


def test_reading_creates_nothing_and_foreign_files_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "missing.db"
    with open_store(f"sqlite:///{path}") as store:
        assert (store.dimension(), store.meta()) == (None, {})
        assert store.query(unit(1, 0), k=1) == []
    assert not path.exists()
    foreign = tmp_path / "notes.txt"
    foreign.write_text("not a database at all, just some text\n" * 100, encoding="utf-8")
    refused = pytest.raises(StoreError, match=r"notes\.txt")
    with refused, open_store(f"sqlite:///{foreign}") as store:
        store.apply(entry("k1"), upsert=[], delete=[])


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("sqlite://host/index.db", "a SQLite store is sqlite:///PATH"),
        ("sqlite:///", "name the database file"),
        ("sqlite:///x.db?timeout=soon", "timeout must be a number of seconds"),
        ("sqlite:///x.db?mode=ro", "unknown parameter 'mode'"),
    ],
)
def test_bad_urls_are_one_line_usage_errors(url: str, message: str) -> None:
    with pytest.raises(UsageError, match=message):
        parse_url(url)


def test_urls_follow_sqlalchemy() -> None:
    assert parse_url("sqlite:///index.db") == (Path("index.db"), 30.0)
    assert parse_url("sqlite:////abs/index.db?timeout=2") == (Path("/abs/index.db"), 2.0)


def test_times_are_typed_columns_filtered_and_added_to_an_older_store(tmp_path: Path) -> None:
    import apsw

    url = f"sqlite:///{tmp_path}/index.db"
    timed = record("k1", "Welcome to the harbour", unit(1, 0, 0), timestamp_start=0.5,
                   timestamp_end=4.25)  # fmt: skip
    plain = record("k2", "Tide tables", unit(0, 1, 0), index=1)
    with open_store(url) as store:
        store.apply(entry("k1"), upsert=[plain], delete=[])
    db = apsw.Connection(str(tmp_path / "index.db"))  # a store made before the time columns
    db.execute('ALTER TABLE chunks DROP COLUMN "timestamp_start"')
    db.execute('ALTER TABLE chunks DROP COLUMN "timestamp_end"')
    db.close()
    with open_store(url) as store:
        assert store.records("a.md") == {"k2": plain}
        store.apply(entry("k1", "k2"), upsert=[timed], delete=[])
        assert store.records("a.md")["k1"] == timed
        hits = store.query(unit(1, 0, 0), k=2, filters={"timestamp_start": "0.5"})
        assert [hit.record.key for hit in hits] == ["k1"]
