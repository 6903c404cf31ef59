"""The Store protocol on the embedded stores: Qdrant's local mode, LanceDB, Milvus Lite.

Every method is called directly on the real engine in a temporary directory: ``apply``
(upserts by key, moves, deletes, the ledger written last), ``records``, ``remove``, ``query``
with filters, ``dimension``, the lock against a second writer, and the one-line errors.
"""

from __future__ import annotations

import importlib
import math
import os
import struct
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

import pytest

from ragchunk import sinks
from ragchunk.errors import StoreError, UsageError
from ragchunk.sinks._store import LedgerEntry, Store, StoreRecord
from tests.integration.stores.embedded import EMBEDDED

SIZE = 4
NAMES = sorted(EMBEDDED)


def f32(value: float) -> float:
    """Return ``value`` as the nearest float32 (what a store keeps), as a Python float."""
    rounded: float = struct.unpack("f", struct.pack("f", value))[0]
    return rounded


def unit(turn: float, size: int = SIZE) -> tuple[float, ...]:
    """Return a unit vector at angle ``turn`` (radians) in the first plane, float32 values."""
    return tuple(f32(x) for x in (math.cos(turn), math.sin(turn), *([0.0] * (size - 2))))


def record(
    doc_id: str,
    n: int,
    *,
    text: str | None = None,
    start: int | None = None,
    vector: tuple[float, ...] | None = None,
    pages: tuple[int, int] | None = None,
    headings: tuple[str, ...] = ("Guide", "Install"),
    metadata: Mapping[str, Any] | None = None,
) -> StoreRecord:
    """Return chunk ``n`` of ``doc_id`` as a store holds it; its key is its text."""
    text = f"chunk {n} of {doc_id}" if text is None else text
    start = n * 100 if start is None else start
    return StoreRecord(
        key=f"{doc_id}|{text}",
        id=f"{doc_id}:{start}",
        doc_id=doc_id,
        source=f"docs/{doc_id}",
        index=n,
        text=text,
        start=start,
        end=start + len(text),
        strategy="recursive",
        vector=unit(n * 0.2) if vector is None else vector,
        headings=headings,
        page_start=None if pages is None else pages[0],
        page_end=None if pages is None else pages[1],
        metadata={"lang": "en", "n": n} if metadata is None else metadata,
    )


def entry(records: Sequence[StoreRecord], *, doc_id: str = "", content: str = "c1") -> LedgerEntry:
    """Return the ledger entry of a document holding ``records``."""
    doc_id = doc_id or records[0].doc_id
    return LedgerEntry(
        doc_id=doc_id,
        source=f"docs/{doc_id}",
        content_hash=content * 8,
        settings_hash="s" * 16,
        keys=tuple(r.key for r in records),
    )


def opened(name: str, url: str) -> AbstractContextManager[Any]:
    """Open a store as a run does (its sink's ``open``)."""
    return sinks.get(name).open(url)


@pytest.fixture(params=NAMES)
def name(request: pytest.FixtureRequest) -> str:
    value: str = request.param
    return value


@pytest.fixture
def url(name: str, tmp_path: Path) -> str:
    return EMBEDDED[name](tmp_path)


@pytest.fixture
def store(name: str, url: str) -> Iterator[Store]:
    with opened(name, url) as opened_store:
        yield opened_store


def apply(store: Store, records: Sequence[StoreRecord], *, delete: Sequence[str] = ()) -> None:
    store.apply(entry(records), upsert=records, delete=delete)


def counts(store: Store) -> tuple[int, int, int, int]:
    c = store.counts
    return (c.written, c.moved, c.deleted, c.ledger)


def test_the_sink_table_chooses_each_store_by_its_scheme(name: str, url: str) -> None:
    assert sinks.choose(url, None) == name
    spec = sinks.get(name)
    assert (spec.files, spec.stream) == (False, False)
    assert spec.missing is not None
    assert spec.missing() is None  # installed here


def test_a_new_store_holds_nothing(store: Store) -> None:
    assert store.dimension() is None
    assert store.ledger() == {}
    assert store.records("a.md") == {}
    assert store.query(unit(0), k=3) == []
    assert store.transactional is False
    assert counts(store) == (0, 0, 0, 0)


def test_records_and_the_ledger_read_back_exactly_as_written(store: Store) -> None:
    metadata = {
        "lang": "fr",
        "n": 2,
        "ratio": 0.25,
        "ok": True,
        "tags": ["x", "é"],
        "deep": {"a": [1, {"b": None}]},
    }
    paged = [record("a.pdf", n, pages=(n + 1, n + 2), metadata=metadata) for n in range(3)]
    plain = [record("b.md", n, headings=()) for n in range(2)]
    apply(store, paged)
    apply(store, plain)
    assert store.records("a.pdf") == {r.key: r for r in paged}
    assert store.records("b.md") == {r.key: r for r in plain}
    assert store.records("b.md")[plain[0].key].page_start is None
    assert store.records("a.pdf")[paged[1].key].headings == ("Guide", "Install")
    assert store.ledger() == {"a.pdf": entry(paged), "b.md": entry(plain)}
    assert store.dimension() == SIZE
    assert counts(store) == (5, 0, 0, 2)


def test_an_unchanged_entry_with_nothing_to_do_writes_nothing(store: Store) -> None:
    records = [record("a.md", n) for n in range(3)]
    apply(store, records)
    before = counts(store)
    store.apply(entry(records), upsert=[], delete=[])
    assert counts(store) == before
    store.apply(entry(records, content="c2"), upsert=[], delete=[])
    assert counts(store) == (before[0], 0, 0, before[3] + 1)
    assert store.ledger()["a.md"].content_hash == "c2" * 8


def test_a_moved_chunk_keeps_its_key_and_a_rewritten_one_is_written(store: Store) -> None:
    old = [record("a.md", n) for n in range(3)]
    apply(store, old)
    moved = record("a.md", 2, start=250)  # same text and vector, another offset and id
    rewritten = record("a.md", 1, vector=unit(2.0))  # same key, another vector
    assert moved.key == old[2].key
    assert moved.id != old[2].id
    new = [old[0], rewritten, moved]
    store.apply(entry(new, content="c2"), upsert=[rewritten, moved], delete=[])
    assert counts(store) == (4, 1, 0, 2)
    held = store.records("a.md")
    assert held[moved.key] == moved
    assert held[rewritten.key].vector == unit(2.0)
    assert store.ledger()["a.md"] == entry(new, content="c2")


def test_vanished_keys_are_deleted_and_other_documents_stay(store: Store) -> None:
    a = [record("a.md", n) for n in range(4)]
    b = [record("b.md", n) for n in range(2)]
    apply(store, a)
    apply(store, b)
    fresh = record("a.md", 9, text="a new closing chunk")
    kept = [a[0], a[1], fresh]
    store.apply(entry(kept, content="c2"), upsert=[fresh], delete=[a[2].key, a[3].key])
    assert set(store.records("a.md")) == {r.key for r in kept}
    assert store.records("b.md") == {r.key: r for r in b}
    assert store.ledger()["a.md"].keys == tuple(r.key for r in kept)
    assert counts(store) == (7, 0, 2, 3)


def test_remove_deletes_a_document_and_its_ledger_entry_only(store: Store) -> None:
    a = [record("a.md", n) for n in range(3)]
    b = [record("b.md", n) for n in range(2)]
    apply(store, a)
    apply(store, b)
    store.remove("a.md")
    assert store.records("a.md") == {}
    assert set(store.ledger()) == {"b.md"}
    assert store.records("b.md") == {r.key: r for r in b}
    assert counts(store) == (5, 0, 3, 3)
    assert [h.record.doc_id for h in store.query(unit(0), k=10)] == ["b.md", "b.md"]
    store.remove("never.md")  # nothing there: nothing happens
    assert counts(store) == (5, 0, 3, 3)


def test_a_query_ranks_nearest_first_and_returns_records_unchanged(store: Store) -> None:
    records = [record("a.md", n, pages=(n, n)) for n in range(5)]
    apply(store, records)
    hits = store.query(unit(0.85), k=3)  # nearest n=4 (at 0.8), then n=3 (0.6), n=2 (0.4)
    assert [h.record for h in hits] == [records[4], records[3], records[2]]
    assert hits[0].score > hits[1].score > hits[2].score
    assert hits[0].score == pytest.approx(math.cos(0.05), abs=1e-5)


def test_filters_are_applied_by_the_store(store: Store) -> None:
    paged = [record("a.pdf", n, pages=(n + 1, n + 1)) for n in range(5)]
    plain = [record("b.md", n, metadata={"lang": "de", "n": n}) for n in range(3)]
    apply(store, paged)
    apply(store, plain)

    def keys(**filters: Any) -> set[str]:
        return {h.record.key for h in store.query(unit(0), k=20, filters=filters)}

    assert keys(page_start=3) == {paged[2].key}
    assert keys(page_start="3") == {paged[2].key}  # typed as a number, as from --filter
    assert keys(doc_id="b.md") == {r.key for r in plain}
    assert keys(source="docs/a.pdf", index=0) == {paged[0].key}
    assert keys(**{"metadata.lang": "de"}) == {r.key for r in plain}
    assert keys(**{"metadata.n": 1}) == {paged[1].key, plain[1].key}
    assert keys(**{"metadata.n": "1"}) == {paged[1].key, plain[1].key}  # as --filter gives it
    assert keys(**{"metadata.lang": "de", "doc_id": "a.pdf"}) == set()
    assert keys(strategy="recursive", page_end=99) == set()


def test_a_bad_filter_and_a_hybrid_query_are_usage_errors(store: Store) -> None:
    apply(store, [record("a.md", 0)])
    with pytest.raises(UsageError, match=r"--filter colour: not a field"):
        store.query(unit(0), k=1, filters={"colour": "red"})
    with pytest.raises(UsageError, match=r"--filter page_start=three: page_start is a whole"):
        store.query(unit(0), k=1, filters={"page_start": "three"})
    with pytest.raises(UsageError, match=r"--hybrid needs a keyword index"):
        store.query(unit(0), k=1, text="install")


def test_vectors_of_another_size_are_refused_before_any_write(store: Store, url: str) -> None:
    first = [record("a.md", n) for n in range(2)]
    apply(store, first)
    other = [record("b.md", 0, vector=unit(0, size=6)), record("a.md", 7, vector=unit(0, 6))]
    with pytest.raises(StoreError) as raised:
        store.apply(entry(other), upsert=other, delete=[first[0].key])
    message = str(raised.value)
    assert "\n" not in message
    assert "holds vectors of size 4, these are of size 6" in message
    assert message.startswith(url)
    assert store.records("a.md") == {r.key: r for r in first}
    assert store.records("b.md") == {}
    assert set(store.ledger()) == {"a.md"}
    with pytest.raises(StoreError, match="size 4, these are of size 6"):
        store.query(unit(0, size=6), k=1)


def test_everything_is_there_when_the_store_is_opened_again(name: str, url: str) -> None:
    records = [record("a.md", n, pages=(1, 2)) for n in range(3)]
    with opened(name, url) as store:
        apply(store, records)
    with opened(name, url) as store:
        assert store.records("a.md") == {r.key: r for r in records}
        assert store.ledger() == {"a.md": entry(records)}
        assert store.dimension() == SIZE
        assert [h.record for h in store.query(unit(0), k=1)] == [records[0]]


@pytest.mark.slow  # qdrant-client's local mode commits each point on its own (~30 ms here)
def test_more_chunks_than_a_batch_go_in_batches(name: str, store: Store) -> None:
    where = {"lancedb": "ragchunk.sinks._lance_fields"}.get(name, f"ragchunk.sinks.{name}")
    batch: int = importlib.import_module(where).BATCH
    count = batch + 7
    records = [record("big.md", n, vector=unit(n / count)) for n in range(count)]
    apply(store, records)
    assert len(store.records("big.md")) == count
    assert len(store.ledger()["big.md"].keys) == count
    kept = records[:3]
    store.apply(entry(kept, content="c2"), upsert=[], delete=[r.key for r in records[3:]])
    assert set(store.records("big.md")) == {r.key for r in kept}
    store.remove("big.md")
    assert store.records("big.md") == {}
    assert counts(store) == (count, 0, count, 3)


@pytest.mark.parametrize(
    "doc_id", ["it's.md", 'say "hi".md', "back\\slash.md", "ünï cödé 文档.md", "a' OR '1'='1.md"]
)
def test_names_that_need_escaping_stay_names(store: Store, doc_id: str) -> None:
    records = [record(doc_id, n) for n in range(2)]
    apply(store, records)
    apply(store, [record("other.md", 0)])
    assert store.records(doc_id) == {r.key: r for r in records}
    assert {h.record.doc_id for h in store.query(unit(0), k=5, filters={"doc_id": doc_id})} == {
        doc_id
    }
    store.remove(doc_id)
    assert store.records(doc_id) == {}
    assert set(store.ledger()) == {"other.md"}
    assert len(store.records("other.md")) == 1


def test_a_second_writer_waits_for_the_lock_then_fails_saying_who_holds_it(
    name: str, url: str
) -> None:
    with opened(name, url) as store:
        apply(store, [record("a.md", 0)])
        began = time.monotonic()
        busy = f"{url}?lock_timeout=0.5"
        with pytest.raises(StoreError) as raised, opened(name, busy):
            pass
        assert time.monotonic() - began >= 0.5
    message = str(raised.value)
    assert message.startswith(f"{busy}: another index run holds the lock (process {os.getpid()}: ")
    assert message.endswith("; waited 0.5 s")


def test_a_second_writer_gets_the_store_once_the_first_lets_go(name: str, url: str) -> None:
    entered = threading.Event()

    def first() -> None:
        with opened(name, url) as store:
            apply(store, [record("a.md", 0)])
            entered.set()
            time.sleep(0.5)

    worker = threading.Thread(target=first)
    worker.start()
    assert entered.wait(60)
    with opened(name, url) as store:
        assert set(store.records("a.md")) == {record("a.md", 0).key}
    worker.join()


def test_a_store_under_a_missing_directory_is_one_line_naming_it(name: str, tmp_path: Path) -> None:
    url = EMBEDDED[name](tmp_path / "nowhere" / "deeper")
    with pytest.raises(StoreError) as raised, opened(name, url):
        pass
    message = str(raised.value)
    assert message.startswith(url)
    assert "is not a directory" in message
    assert "\n" not in message
    assert not (tmp_path / "nowhere").exists()


def test_a_store_where_a_file_is_is_one_line_naming_it(name: str, url: str) -> None:
    target = Path(url.partition(":///")[2])
    blocker = target if name == "milvus" else target.parent  # the database file; the directory
    blocker.write_text("not a store\n")
    with pytest.raises(StoreError) as raised, opened(name, url) as store:
        apply(store, [record("a.md", 0)])
    message = str(raised.value)
    assert message.startswith(f"{url}: ")
    assert "\n" not in message
    assert blocker.read_text() == "not a store\n"


def test_a_url_without_a_path_is_a_usage_error(name: str) -> None:
    with pytest.raises(UsageError, match=rf"{name}:///: a local store is {name}:///PATH"):
        opened(name, f"{name}:///").__enter__()
