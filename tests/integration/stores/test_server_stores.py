"""The Store contract on real servers: PostgreSQL + pgvector, Chroma's server and embedded Chroma.

Every protocol method is called directly (no ragchunk pipeline): records are built here. The
vectors are multiples of 1/8, which float32 (what both stores keep) holds exactly.
"""

from __future__ import annotations

import math
import os
import random
import signal
import struct
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

import pytest

from ragchunk import sinks
from ragchunk.errors import StoreError, UsageError
from ragchunk.sinks._store import LedgerEntry, Store, StoreRecord
from tests.integration.stores.servers import (
    PASSWORD,
    PostgresServer,
    chroma_embedded_url,
    chroma_server_url,
    pgvector_url,
)
from tests.servers import LOCALHOST
from tests.support.processes import free_port
from tests.support.requirements import require_module

pytestmark = LOCALHOST

FACTORIES = {
    "pgvector": pgvector_url,
    "chroma-server": chroma_server_url,
    "chroma-embedded": chroma_embedded_url,
}
ROOT = Path(__file__).resolve().parents[3]


def record(doc: str, n: int, text: str | None = None, **fields: Any) -> StoreRecord:
    """Chunk ``n`` of document ``doc``; its key is stable, the rest as given."""
    base: dict[str, Any] = {
        "key": f"{doc}#{n}",
        "id": f"{doc}-id-{n}",
        "doc_id": doc,
        "source": f"docs/{doc}",
        "index": n,
        "text": text if text is not None else f"chunk {n} of {doc}",
        "start": 10 * n,
        "end": 10 * n + 9,
        "strategy": "recursive",
        "vector": (1.0, n / 8, 0.5, -0.25),
    }
    base.update(fields)
    return StoreRecord(**base)


def entry(doc: str, records: list[StoreRecord], content: str = "c1") -> LedgerEntry:
    return LedgerEntry(
        doc_id=doc,
        source=f"docs/{doc}",
        content_hash=content,
        settings_hash="s1",
        keys=tuple(r.key for r in records),
    )


def module_of(url: str) -> Any:
    name = sinks.choose(url, None)
    return __import__(sinks.SINKS[name].module, fromlist=["open_store"])


def opened(url: str, **options: Any) -> AbstractContextManager[Store]:
    """Open through the sink table (``lock=False`` through the module, as queries do)."""
    if options:
        return module_of(url).open_store(url, **options)  # type: ignore[no-any-return]
    spec = sinks.get(sinks.choose(url, None))
    return spec.open(url)  # type: ignore[return-value]


@pytest.fixture(params=sorted(FACTORIES))
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    factory: Callable[[pytest.FixtureRequest, Path], str] = FACTORIES[request.param]
    return factory(request, tmp_path)


@pytest.fixture(params=["chroma-server", "chroma-embedded"])
def chroma_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A fresh Chroma store's URL, on the session's server and embedded (``store_url``'s)."""
    factory: Callable[[pytest.FixtureRequest, Path], str] = FACTORIES[request.param]
    return factory(request, tmp_path)


@pytest.fixture
def store(store_url: str) -> Iterator[Store]:
    with opened(store_url) as opened_store:
        yield opened_store


def test_an_empty_store_holds_nothing(store: Store) -> None:
    assert store.dimension() is None
    assert store.ledger() == {}
    assert store.records("a.md") == {}
    assert store.query((1.0, 0.0, 0.0, 0.0), k=3) == []
    assert PASSWORD not in store.url


def test_a_reader_of_a_store_never_written_finds_it_empty(store_url: str) -> None:
    with opened(store_url, lock=False) as reader:
        assert reader.ledger() == {}
        assert reader.dimension() is None
        assert reader.query((1.0, 0.0), k=2, filters={"page_start": 1}) == []


def test_apply_writes_records_and_ledger_that_read_back_unchanged(store: Store) -> None:
    metadata = {"title": "Ünïcode “quotes”", "z": 1, "a": 2.5, "flag": True, "none": None,
                "list": [1, "two", None], "nested": {"b": 1, "a": [2]}}  # fmt: skip
    paged = record("a.md", 0, headings=("Intro", "Scope"), page_start=3, page_end=4,
                   metadata=metadata)  # fmt: skip
    plain = record("a.md", 1, text="line\ttab\nnewline ✓ 日本")
    store.apply(entry("a.md", [paged, plain]), upsert=[paged, plain], delete=[])

    assert store.dimension() == 4
    assert store.ledger() == {"a.md": entry("a.md", [paged, plain])}
    got = store.records("a.md")
    assert got == {paged.key: paged, plain.key: plain}
    assert list(got[paged.key].metadata) == list(metadata)  # key order kept too
    assert got[paged.key].headings == ("Intro", "Scope")
    assert got[plain.key].page_start is None
    assert got[plain.key].page_end is None
    assert (store.counts.written, store.counts.moved, store.counts.ledger) == (2, 0, 1)


def unit_float32(seed: int, size: int = 32) -> tuple[float, ...]:
    """A unit vector of float32 values, as ragchunk's embedders make them."""
    rng = random.Random(seed)
    raw = [rng.gauss(0.0, 1.0) for _ in range(size)]
    norm = math.sqrt(sum(x * x for x in raw))
    return struct.unpack(f"{size}f", struct.pack(f"{size}f", *(x / norm for x in raw)))


def test_model_vectors_read_back_bit_for_bit_so_a_move_is_not_a_rewrite(store: Store) -> None:
    records = [record("a.md", n, vector=unit_float32(n)) for n in range(40)]
    store.apply(entry("a.md", records), upsert=records, delete=[])
    assert store.records("a.md") == {r.key: r for r in records}
    assert store.query(records[7].vector, k=1)[0].record == records[7]
    moved = [record("a.md", n, vector=unit_float32(n), start=10 * n + 1) for n in range(40)]
    store.apply(entry("a.md", moved, "c2"), upsert=moved, delete=[])
    assert (store.counts.written, store.counts.moved) == (40, 40)


def test_meta_is_recorded_beside_the_ledger_and_merged(store_url: str) -> None:
    with opened(store_url, lock=False) as reader:
        assert reader.meta() == {}  # nothing made yet
    with opened(store_url) as store:
        assert store.meta() == {}
        store.set_meta({"embedder": '{"model": "minilm"}', "dimension": "384"})
        store.set_meta({"dimension": "4"})
        assert store.counts.ledger == 2
        assert store.ledger() == {}
    with opened(store_url, lock=False) as reader:
        assert reader.meta() == {"dimension": "4", "embedder": '{"model": "minilm"}'}


def test_an_unchanged_document_writes_nothing(store: Store) -> None:
    records = [record("a.md", n) for n in range(3)]
    store.apply(entry("a.md", records), upsert=records, delete=[])
    before = (store.counts.written, store.counts.moved, store.counts.deleted, store.counts.ledger)
    store.apply(entry("a.md", records), upsert=[], delete=[])
    after = (store.counts.written, store.counts.moved, store.counts.deleted, store.counts.ledger)
    assert after == before


def test_upsert_by_key_moves_rewrites_adds_and_deletes(store: Store) -> None:
    old = [record("a.md", n) for n in range(3)]
    store.apply(entry("a.md", old), upsert=old, delete=[])
    moved = record("a.md", 0, text=old[0].text, id="a.md-id-moved", start=5, end=14, index=1)
    rewritten = record("a.md", 1, text="a new text", vector=(0.5, 0.5, 0.5, 0.5))
    added = record("a.md", 7)
    new = [moved, rewritten, added]
    store.counts.written = store.counts.moved = store.counts.deleted = store.counts.ledger = 0

    store.apply(entry("a.md", new, "c2"), upsert=new, delete=[old[2].key])

    assert store.records("a.md") == {r.key: r for r in new}
    assert store.ledger()["a.md"] == entry("a.md", new, "c2")
    assert (store.counts.written, store.counts.moved, store.counts.deleted) == (2, 1, 1)
    assert store.counts.ledger == 1


def test_the_same_key_twice_is_one_record(store: Store) -> None:
    first = record("a.md", 0)
    store.apply(entry("a.md", [first]), upsert=[first], delete=[])
    again = record("a.md", 0, text="replaced")
    store.apply(entry("a.md", [again], "c2"), upsert=[again], delete=[])
    assert store.records("a.md") == {again.key: again}
    assert [h.record for h in store.query(again.vector, k=10)] == [again]


def test_remove_deletes_one_document_and_nothing_else(store: Store) -> None:
    a = [record("a.md", n) for n in range(2)]
    b = [record("b.md", n) for n in range(2)]
    store.apply(entry("a.md", a), upsert=a, delete=[])
    store.apply(entry("b.md", b), upsert=b, delete=[])
    store.remove("a.md")
    assert store.records("a.md") == {}
    assert set(store.ledger()) == {"b.md"}
    assert store.records("b.md") == {r.key: r for r in b}
    assert store.counts.deleted == 2


def test_query_ranks_by_cosine_similarity(store: Store) -> None:
    near = record("a.md", 0, vector=(1.0, 0.0, 0.0, 0.0))
    middle = record("a.md", 1, vector=(1.0, 1.0, 0.0, 0.0))
    far = record("a.md", 2, vector=(0.0, 0.0, 1.0, 0.0))
    store.apply(entry("a.md", [near, middle, far]), upsert=[near, middle, far], delete=[])
    hits = store.query((2.0, 0.0, 0.0, 0.0), k=2)
    assert [h.record.key for h in hits] == [near.key, middle.key]
    assert hits[0].score == pytest.approx(1.0, abs=1e-6)
    assert hits[1].score == pytest.approx(0.5**0.5, abs=1e-6)
    assert hits[0].record == near


def test_filters_are_applied_by_the_store(store: Store) -> None:
    pages = [record("a.pdf", n, page_start=n + 2, page_end=n + 2) for n in range(3)]
    meta = record("b.md", 0, metadata={"lang": "en", "year": 2024})
    other = record("b.md", 1, metadata={"lang": "fr", "year": 2023}, strategy="markdown")
    store.apply(entry("a.pdf", pages), upsert=pages, delete=[])
    store.apply(entry("b.md", [meta, other]), upsert=[meta, other], delete=[])
    vector = (1.0, 0.0, 0.5, -0.25)

    def keys(**filters: Any) -> set[str]:
        return {h.record.key for h in store.query(vector, k=10, filters=filters)}

    assert keys(page_start=3) == {pages[1].key}  # a number...
    assert keys(page_start="3") == {pages[1].key}  # ...and as a command line gives it
    assert keys(page_end=2, doc_id="a.pdf") == {pages[0].key}
    assert keys(doc_id="b.md") == {meta.key, other.key}
    assert keys(source="docs/a.pdf", index=2) == {pages[2].key}
    assert keys(strategy="markdown") == {other.key}
    assert keys(**{"metadata.lang": "en"}) == {meta.key}
    assert keys(**{"metadata.year": "2023"}) == {other.key}
    assert keys(**{"metadata.year": 2024}) == {meta.key}
    assert keys(page_start=99) == set()
    with pytest.raises(UsageError, match="headings"):
        keys(headings="Intro")


def test_hybrid_queries_are_refused_here(store: Store) -> None:
    with pytest.raises(UsageError, match="keyword"):
        store.query((1.0, 0.0, 0.0, 0.0), k=1, text="words")


def test_a_vector_of_another_size_is_refused_before_any_write(store: Store) -> None:
    first = record("a.md", 0)
    store.apply(entry("a.md", [first]), upsert=[first], delete=[])
    wrong = record("b.md", 0, vector=(1.0, 0.0, 0.0))
    with pytest.raises(StoreError) as refused:
        store.apply(entry("b.md", [wrong]), upsert=[wrong], delete=[])
    message = str(refused.value)
    assert "size 4" in message
    assert "size 3" in message
    assert "\n" not in message
    assert store.records("b.md") == {}
    assert set(store.ledger()) == {"a.md"}
    with pytest.raises(StoreError, match="size 4"):
        store.query((1.0, 0.0, 0.0), k=1)


def test_a_second_writer_waits_then_fails_saying_who_holds_the_lock(store_url: str) -> None:
    with opened(store_url):
        started = time.monotonic()
        with pytest.raises(StoreError) as refused, opened(_with(store_url, "lock_timeout=1")):
            pass
        assert time.monotonic() - started >= 1.0
        message = str(refused.value)
        assert "another index run holds the lock" in message
        assert PASSWORD not in message
        assert "\n" not in message
        with opened(store_url, lock=False) as reader:  # a query takes no lock
            assert reader.ledger() == {}
    with opened(_with(store_url, "lock_timeout=1")):
        pass


def test_a_second_writer_gets_the_lock_once_the_first_is_done(store_url: str) -> None:
    first = opened(store_url)
    first.__enter__()
    releaser = threading.Timer(1.0, first.__exit__, (None, None, None))
    releaser.start()
    try:
        started = time.monotonic()
        with opened(_with(store_url, "lock_timeout=30")) as second:
            assert second.dimension() is None
        assert time.monotonic() - started >= 0.9
    finally:
        releaser.join()


def test_a_writer_killed_holding_the_lock_does_not_block_the_next(store_url: str) -> None:
    module = sinks.SINKS[sinks.choose(store_url, None)].module
    code = (
        f"import sys, time\nfrom {module} import open_store\n"
        f"with open_store({store_url!r}):\n    print('held', flush=True)\n    time.sleep(120)\n"
    )
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
    }
    holder = subprocess.Popen(
        [sys.executable, "-c", code], stdout=subprocess.PIPE, text=True, env=env
    )
    try:
        assert holder.stdout is not None
        assert holder.stdout.readline().strip() == "held"
        os.kill(holder.pid, signal.SIGKILL)
        holder.wait(timeout=10)
        with opened(_with(store_url, "lock_timeout=10")) as store:
            assert store.ledger() == {}
    finally:
        if holder.poll() is None:
            holder.kill()
            holder.wait()
        if holder.stdout is not None:
            holder.stdout.close()


def test_pgvector_applies_a_document_in_one_transaction(pg_server: PostgresServer) -> None:
    url = pg_server.store_url()
    with opened(url) as store:
        good = record("a.md", 0)
        bad = record("a.md", 1, text="a NUL \x00 PostgreSQL text cannot hold")
        with pytest.raises(StoreError) as refused:
            store.apply(entry("a.md", [good, bad]), upsert=[good, bad], delete=[])
        assert "writing a.md" in str(refused.value)
        assert store.records("a.md") == {}
        assert store.ledger() == {}


def test_pgvector_tables_come_from_the_url(pg_server: PostgresServer) -> None:
    import psycopg

    url = pg_server.store_url(table="my_docs")
    with opened(url) as store:
        one = record("a.md", 0)
        store.apply(entry("a.md", [one]), upsert=[one], delete=[])
    with psycopg.connect(host=str(pg_server.socket_dir), port=pg_server.port,
                         user="postgres", dbname="postgres") as connection:  # fmt: skip
        names = {row[0] for row in connection.execute(
            "SELECT tablename FROM pg_tables WHERE tablename LIKE 'my_docs%'")}  # fmt: skip
    assert names == {"my_docs", "my_docs_ledger", "my_docs_ledger_meta"}


def test_pgvector_indexes_the_vectors_at_the_end_of_the_run_that_made_the_table(
    pg_server: PostgresServer,
) -> None:
    """Built once over the rows, not row by row; a run that failed leaves it to the next."""
    import psycopg

    def indexes(table: str) -> set[str]:
        with psycopg.connect(host=str(pg_server.socket_dir), port=pg_server.port,
                             user="postgres", dbname="postgres") as connection:  # fmt: skip
            return {row[0] for row in connection.execute(
                "SELECT indexname FROM pg_indexes WHERE tablename = %s", (table,))}  # fmt: skip

    one = record("a.md", 0)
    with opened(pg_server.store_url(table="made")) as store:
        store.apply(entry("a.md", [one]), upsert=[one], delete=[])
        assert indexes("made") == {"made_pkey", "made_doc_id"}
    assert indexes("made") == {"made_pkey", "made_doc_id", "made_embedding_hnsw"}

    def interrupted() -> None:
        with opened(pg_server.store_url(table="cut")) as store:
            store.apply(entry("a.md", [one]), upsert=[one], delete=[])
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        interrupted()
    assert indexes("cut") == {"cut_pkey", "cut_doc_id"}
    with opened(pg_server.store_url(table="cut")) as store:
        assert indexes("cut") == {"cut_pkey", "cut_doc_id", "cut_embedding_hnsw"}
        assert [hit.record.key for hit in store.query(one.vector, k=1)] == [one.key]


@pytest.mark.parametrize("scheme", ["postgresql", "postgres"])
def test_pgvector_down_or_refusing_is_one_line_without_the_password(
    pg_server: PostgresServer, scheme: str
) -> None:
    wrong = f"{scheme}://postgres:wrong-{PASSWORD}@127.0.0.1:{pg_server.port}/postgres"
    down = f"{scheme}://postgres:{PASSWORD}@127.0.0.1:{free_port()}/postgres"
    for url, reason in [(wrong, "password authentication failed"), (down, "refused")]:
        with pytest.raises(StoreError) as failed, opened(url):
            pass
        message = str(failed.value)
        assert message.startswith(f"{scheme}://postgres:***@127.0.0.1:")
        assert "cannot connect" in message
        assert reason in message
        assert PASSWORD not in message
        assert "\n" not in message


def test_chroma_server_down_is_one_line() -> None:
    require_module("chromadb", "pip install 'ragchunk[chroma]'")
    url = f"chroma://127.0.0.1:{free_port()}/docs-1"
    with pytest.raises(StoreError) as failed, opened(url):
        pass
    assert str(failed.value).startswith(f"{url}: cannot connect")
    assert "\n" not in str(failed.value)


@pytest.mark.parametrize(
    ("url", "name"),
    [
        ("postgresql://u:p@h/db", "pgvector"),
        ("postgres://h/db", "pgvector"),
        ("chroma://h:8000/docs", "chroma"),
        ("chroma:///index/docs", "chroma"),
    ],
)
def test_the_sink_table_chooses_the_store_by_scheme(url: str, name: str) -> None:
    require_module("psycopg" if name == "pgvector" else "chromadb", "pip install 'ragchunk[dev]'")
    assert sinks.choose(url, None) == name
    spec = sinks.get(name)
    assert (spec.files, spec.stream) == (False, False)
    assert spec.missing is not None
    assert spec.missing() is None


@pytest.mark.parametrize(
    ("module", "library", "extra"),
    [
        ("ragchunk.sinks.pgvector", "psycopg", "pgvector"),
        ("ragchunk.sinks.chroma", "chromadb", "chroma"),
    ],
)
def test_a_missing_client_library_says_what_to_install(
    monkeypatch: pytest.MonkeyPatch, module: str, library: str, extra: str
) -> None:
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == library else real(name, *a)
    )
    message = __import__(module, fromlist=["SINK"]).SINK.missing()
    assert library in message
    assert f"pip install 'ragchunk[{extra}]'" in message


def _with(url: str, parameter: str) -> str:
    return f"{url}{'&' if '?' in url else '?'}{parameter}"


def test_of_two_chroma_runs_that_took_the_lease_at_once_the_replaced_one_writes_nothing(
    request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    from ragchunk.sinks._chroma_lock import Lease

    url = chroma_server_url(request, tmp_path)
    name = url.rsplit("/", 1)[1]
    with module_of(url).open_store(url) as first:
        # A second run found the store free as the first did and wrote its lease just after.
        second = Lease(first.url, first._client, name)
        second.wait(0)
        first.will_write()  # it knows it will write: its lease is written
        second._write()  # found no lease a moment before, as the first did
        records = [record("a.md", 0)]
        with pytest.raises(StoreError) as refused:
            first.apply(entry("a.md", records), upsert=records, delete=[])
        message = str(refused.value)
        assert message.startswith(f"{url}: another index run took the lock as this one did (")
        assert "nothing was written" in message
        assert (first.records("a.md"), first.ledger(), first.counts.written) == ({}, {}, 0)
        second.confirm()  # the later lease is the one that holds the store
        owner = second._owner
    with module_of(url).open_store(url, lock=False) as reader:
        held = Lease(reader.url, reader._client, name)._holder()
        assert held is not None
        assert held["owner"] == owner  # the first left it on leaving


def test_a_chroma_run_that_writes_nothing_never_waits_to_read_its_lease_back(
    request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from ragchunk.sinks import _chroma_lock

    url = chroma_server_url(request, tmp_path)
    slept: list[float] = []
    monkeypatch.setattr("ragchunk.sinks._chroma_lock.time.sleep", slept.append)
    with module_of(url).open_store(url) as store:  # an unchanged rerun only reads
        assert (store.ledger(), store.dimension(), store.meta()) == ({}, None, {})
    assert slept == []
    with module_of(url).open_store(url) as store:
        records = [record("a.md", 0)]
        store.apply(entry("a.md", records), upsert=records, delete=[])
    assert len(slept) == 1  # read back before writing, SETTLE s after the lease at the earliest
    assert 0 <= slept[0] <= _chroma_lock.SETTLE


def test_a_chroma_run_that_writes_nothing_writes_no_lease(
    request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    from ragchunk.sinks._chroma_lock import Lease

    url = chroma_server_url(request, tmp_path)
    name = url.rsplit("/", 1)[1]
    with module_of(url).open_store(url) as store:  # an unchanged rerun only reads
        assert (store.ledger(), store.dimension(), store.meta()) == ({}, None, {})
        with module_of(url).open_store(url, lock=False) as reader:
            assert Lease(reader.url, reader._client, name)._holder() is None


def test_a_chroma_run_whose_store_another_run_wrote_since_it_opened_it_writes_nothing(
    request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Runs on two hosts: the first read the store, the other wrote it meanwhile and left."""
    from ragchunk.sinks import chroma

    url = chroma_server_url(request, tmp_path)
    records = [record("a.md", 0)]
    with module_of(url).open_store(url) as first:
        assert first.ledger() == {}  # what it decides from, read with no lease of its own
        with monkeypatch.context() as other_host:  # no lock of this host's: only the lease
            other_host.setattr(chroma, "host_lock_file", lambda *_: None)
            with module_of(url).open_store(url) as other:
                other.apply(entry("a.md", records), upsert=records, delete=[])
        with pytest.raises(StoreError) as refused:
            first.apply(entry("a.md", records, content="c0"), upsert=records, delete=[])
        message = str(refused.value)
        assert message.startswith(f"{url}: another index run took the lock while this one read")
        assert "nothing was written" in message
        assert (first.counts.written, first.counts.ledger) == (0, 0)
        assert first.ledger()["a.md"].content_hash == "c1"  # the other's, not replaced


def chroma_calls(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str, int]]:
    """Record each read, upsert and delete of a Chroma collection: its kind, the call, its ids."""
    from chromadb.api.models.Collection import Collection

    calls: list[tuple[str, str, int]] = []
    for method in ("get", "upsert", "delete"):
        real = getattr(Collection, method)

        def spy(self: Any, *args: Any, _real: Any = real, _method: str = method, **kw: Any) -> Any:
            kind = self.name.rsplit("__", 1)[1] if "__" in self.name else "chunks"
            calls.append((kind, _method, len(kw.get("ids") or [])))
            return _real(self, *args, **kw)

        monkeypatch.setattr(Collection, method, spy)
    return calls


def test_a_first_chroma_index_writes_each_document_in_two_calls_and_reads_nothing_back(
    chroma_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Under its lock a run keeps what it read: an empty collection is not read per document.

    A later run reads again: what it finds is compared and counted as before (moved, deleted).
    """
    calls = chroma_calls(monkeypatch)
    documents = {doc: [record(doc, n) for n in range(3)] for doc in ("a.md", "b.md", "c.md")}
    with module_of(chroma_url).open_store(chroma_url) as store:
        assert store.ledger() == {}
        calls.clear()  # what index reads first; then, per document:
        for doc, records in documents.items():
            assert store.records(doc) == {}
            store.apply(entry(doc, records), upsert=records, delete=[])
        assert store.dimension() == 4
        assert store.ledger() == {doc: entry(doc, rs) for doc, rs in documents.items()}
        ours = [call for call in calls if call[0] != "lock"]  # a server's lease: its own test
        # One look at the collection (empty), then each document's two writes.
        writes = [("chunks", "upsert", 3), ("ledger", "upsert", 1)] * 3
        assert ours == [("chunks", "get", 0), *writes]
        assert (store.counts.written, store.counts.moved, store.counts.ledger) == (9, 0, 3)
    with module_of(chroma_url).open_store(chroma_url) as again:  # a new run reads the store
        assert again.records("a.md") == {r.key: r for r in documents["a.md"]}
        moved = [record("a.md", 0, start=500, end=509), record("a.md", 1)]
        again.apply(entry("a.md", moved, "c2"), upsert=moved[:1], delete=["a.md#2"])
        assert (again.counts.written, again.counts.moved, again.counts.deleted) == (0, 1, 1)
        assert again.records("a.md") == {r.key: r for r in moved}
        assert again.ledger()["a.md"] == entry("a.md", moved, "c2")


def test_a_gathering_chroma_store_writes_its_documents_together_at_flush(
    chroma_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``index`` tells Chroma to gather: documents are written together, chunks before ledger."""
    calls = chroma_calls(monkeypatch)
    documents = {doc: [record(doc, n) for n in range(3)] for doc in ("a.md", "b.md", "c.md")}
    with module_of(chroma_url).open_store(chroma_url) as store:
        assert (store.dimension(), store.ledger()) == (None, {})
        store.gather()
        calls.clear()
        for doc, records in documents.items():
            store.apply(entry(doc, records), upsert=records, delete=[])
        assert [call for call in calls if call[0] != "lock"] == []  # nothing written yet
        store.flush()
        ours = [call for call in calls if call[0] != "lock"]
        assert ours == [("chunks", "upsert", 9), ("ledger", "upsert", 3)]
        assert (store.counts.written, store.counts.ledger) == (9, 3)
        edited = [record("a.md", 0, start=500, end=509), record("a.md", 5)]
        store.apply(entry("a.md", edited, "c2"), upsert=edited, delete=["a.md#1", "a.md#2"])
        assert store.records("a.md") == {r.key: r for r in edited}  # a read flushes it first
        assert (store.counts.written, store.counts.moved, store.counts.deleted) == (10, 1, 2)
        last = [record("b.md", 0, text="rewritten")]
        store.apply(entry("b.md", last, "c2"), upsert=last, delete=["b.md#1", "b.md#2"])
    # The first block's end wrote what was gathered.
    with module_of(chroma_url).open_store(chroma_url) as again:
        assert again.records("b.md") == {r.key: r for r in last}
        assert again.ledger() == {
            "a.md": entry("a.md", edited, "c2"),
            "b.md": entry("b.md", last, "c2"),
            "c.md": entry("c.md", documents["c.md"]),
        }


def test_a_gathering_chroma_run_tells_a_document_only_once_the_store_holds_it(
    chroma_url: str, scripted_server: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Chroma writes documents together: each progress line waits for its document's write."""
    import ragchunk
    from ragchunk.settings import scope
    from tests.support.scripted import EMBEDDINGS, fake_embeddings

    scripted_server.on(EMBEDDINGS, fake_embeddings(dim=8))
    docs = tmp_path / "docs"
    docs.mkdir()
    for name in ("a", "b", "c"):
        (docs / f"{name}.md").write_text(f"# {name}\n\nThe note called {name}.\n", "utf-8")
    events: list[tuple[str, ...]] = []
    from chromadb.api.models.Collection import Collection

    real = Collection.upsert

    def upsert(self: Any, *args: Any, **kw: Any) -> Any:
        if self.name.endswith("__ledger"):
            events.append(("wrote", *kw["ids"]))
        return real(self, *args, **kw)

    monkeypatch.setattr(Collection, "upsert", upsert)
    settings = scope(
        {"embedder": "openai", "embed_url": scripted_server.base_url, "embed_model": "m"}
        | {"no_cache": True, "jobs": 1}
    )
    report = ragchunk.index(
        [str(docs)],
        chroma_url,
        settings=settings,
        on_document=lambda source, status: events.append((status, Path(source).stem)),
    )
    assert report.added == 3
    written: set[str] = set()
    for event in events:
        if event[0] == "wrote":
            written.update(doc_id.rsplit("/", 1)[-1].removesuffix(".md") for doc_id in event[1:])
        else:
            assert event[0] == "added"
            assert event[1] in written, events  # told before its ledger entry was written
    assert [event[1] for event in events if event[0] == "added"] == ["a", "b", "c"]
