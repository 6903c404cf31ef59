"""What one embedded store does that the others do not: Milvus's VARCHAR limit, Qdrant's point
ids and the collection a user's own client sees, the server URLs, a store that is down."""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from ragchunk import sinks
from ragchunk.errors import StoreError, UsageError
from ragchunk.sinks import qdrant
from ragchunk.sinks._milvus_fields import VARCHAR_MAX
from tests.integration.stores.embedded import lancedb_url, milvus_url, qdrant_url
from tests.integration.stores.test_embedded_stores import apply, entry, opened, record


def test_milvus_refuses_a_text_longer_than_a_varchar_before_writing_anything(
    tmp_path: Path,
) -> None:
    url = milvus_url(tmp_path)
    first = [record("a.md", 0)]
    widest = record("a.md", 1, text="é" * (VARCHAR_MAX // 2))  # 65534 bytes: it fits
    too_long = record("b.md", 3, text="x" * (VARCHAR_MAX + 1))
    with opened("milvus", url) as store:
        apply(store, [*first, widest])
        with pytest.raises(StoreError) as raised:
            store.apply(entry([too_long]), upsert=[too_long], delete=[])
        assert str(raised.value) == (
            f"{url}: chunk 3 of docs/b.md holds 65536 bytes of text; a Milvus VARCHAR holds at "
            "most 65535 (use a smaller --size)"
        )
        assert store.records("a.md") == {r.key: r for r in (*first, widest)}
        assert store.records("b.md") == {}
        assert set(store.ledger()) == {"a.md"}


def test_milvus_names_a_collection_after_the_database(tmp_path: Path) -> None:
    base = milvus_url(tmp_path)
    with opened("milvus", f"{base}/manuals") as store:
        apply(store, [record("a.md", 0)])
    with opened("milvus", base) as store:
        assert store.ledger() == {}  # the default collection, "ragchunk", is another
    with opened("milvus", f"{base}/manuals") as store:
        assert set(store.ledger()) == {"a.md"}
    with pytest.raises(UsageError, match=r"name a Milvus Lite database ending in \.db"):
        sinks.get("milvus").open(f"milvus:///{tmp_path}/index/x").__enter__()


def test_a_qdrant_point_id_is_a_uuid_derived_from_the_key() -> None:
    first = qdrant.point_id("a.md|chunk 0")
    assert uuid.UUID(first).version == 5
    assert qdrant.point_id("a.md|chunk 0") == first
    assert qdrant.point_id("a.md|chunk 1") != first


def test_a_qdrant_collection_reads_as_typed_payloads_with_the_users_own_client(
    tmp_path: Path,
) -> None:
    from qdrant_client import QdrantClient

    paged, plain = record("a.pdf", 0, pages=(3, 4)), record("b.md", 0)
    with opened("qdrant", qdrant_url(tmp_path)) as store:
        apply(store, [paged])
        apply(store, [plain])
    client = QdrantClient(path=str(tmp_path / "qdrant"))
    try:
        assert sorted(c.name for c in client.get_collections().collections) == [
            "docs",
            "docs__ledger",
        ]
        points = client.retrieve("docs", [qdrant.point_id(paged.key), qdrant.point_id(plain.key)])
    finally:
        client.close()
    with_pages, without = (p.payload or {} for p in points)
    assert (with_pages["page_start"], with_pages["page_end"]) == (3, 4)
    assert "page_start" not in without
    assert "page_end" not in without
    assert json.loads(with_pages["headings"]) == ["Guide", "Install"]
    assert with_pages["meta__lang"] == "en"
    assert with_pages["text"] == paged.text


def test_lancedb_is_local_only(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match=r"lancedb://example\.com/t: name a local table"):
        sinks.get("lancedb").open("lancedb://example.com/t").__enter__()
    assert lancedb_url(tmp_path).startswith("lancedb:////")


def test_a_bad_lock_timeout_is_a_usage_error(tmp_path: Path) -> None:
    url = f"{qdrant_url(tmp_path)}?lock_timeout=soon"
    with pytest.raises(UsageError, match=r"lock_timeout is a number of seconds \(got 'soon'\)"):
        sinks.get("qdrant").open(url).__enter__()


@pytest.mark.parametrize(
    ("scheme", "url", "shown"),
    [
        (
            "qdrant",
            "qdrant://127.0.0.1:{port}/docs?api_key=sekrit",
            "qdrant://127.0.0.1:{port}/docs?api_key=***: cannot reach the Qdrant server: ",
        ),
        (
            "milvus",
            "milvus://root:sekrit@127.0.0.1:{port}/docs",
            "milvus://root:***@127.0.0.1:{port}/docs: cannot reach the Milvus server: ",
        ),
    ],
)
@pytest.mark.localhost
@pytest.mark.allow_hosts(["127.0.0.1"])
def test_a_server_that_is_down_is_one_line_without_the_secret(
    refused_url: str, scheme: str, url: str, shown: str
) -> None:
    port = urlsplit(refused_url).port
    with pytest.raises(StoreError) as raised, sinks.get(scheme).open(url.format(port=port)):
        pass
    message = str(raised.value)
    assert message.startswith(shown.format(port=port))
    assert "sekrit" not in message
    assert "\n" not in message


@pytest.mark.parametrize(
    ("name", "module", "extra"),
    [
        ("qdrant", "qdrant_client", "qdrant"),
        ("lancedb", "lancedb", "lancedb"),
        ("milvus", "pymilvus", "milvus"),
    ],
)
def test_a_missing_client_says_what_to_install(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, name: str, module: str, extra: str
) -> None:
    import importlib.util

    real = importlib.util.find_spec

    def find_spec(wanted: str, package: str | None = None) -> object:
        return None if wanted == module else real(wanted, package)

    monkeypatch.setattr(importlib.util, "find_spec", find_spec)
    with pytest.raises(UsageError, match=rf"pip install 'ragchunk\[{extra}\]'"):
        sinks.choose(f"{name}:///{tmp_path}/x.db/docs", None)


def test_each_store_class_is_a_store_to_mypy_and_at_run_time() -> None:
    from ragchunk.sinks._store import Store
    from ragchunk.sinks.lancedb import LanceStore
    from ragchunk.sinks.milvus import MilvusStore
    from ragchunk.sinks.qdrant import QdrantStore

    classes: list[type[Store]] = [QdrantStore, LanceStore, MilvusStore]  # checked by mypy
    for cls in classes:
        for method in ("write", "dimension", "ledger", "records", "apply", "remove", "query"):
            assert callable(getattr(cls, method)), (cls, method)
        assert cls.transactional is False


_HOLDER = """
import sys, time
from ragchunk import sinks
from tests.integration.stores.test_embedded_stores import apply, record
name, url = sys.argv[1], sys.argv[2]
with sinks.get(name).open(url) as store:
    apply(store, [record("a.md", 0)])
    print("ready", flush=True)
    time.sleep(120)
"""


@pytest.mark.slow
@pytest.mark.parametrize("name", ["qdrant", "lancedb", "milvus"])
def test_a_run_killed_holding_the_lock_leaves_the_store_to_the_next(
    tmp_path: Path, name: str
) -> None:
    import os
    import signal
    import subprocess
    import sys

    from tests.integration.stores.embedded import EMBEDDED

    url = EMBEDDED[name](tmp_path)
    root = Path(__file__).resolve().parents[3]
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(root), os.environ.get("PYTHONPATH", "")]),
    }
    command = [sys.executable, "-c", _HOLDER, name, url]
    with subprocess.Popen(command, stdout=subprocess.PIPE, text=True, env=env) as holder:
        try:
            assert holder.stdout is not None
            assert holder.stdout.readline().strip() == "ready"
        finally:
            holder.send_signal(signal.SIGKILL)
            holder.wait(30)
    with opened(name, f"{url}?lock_timeout=10") as store:
        assert set(store.records("a.md")) == {record("a.md", 0).key}
        apply(store, [record("b.md", 0)])
        assert set(store.ledger()) == {"a.md", "b.md"}


def test_milvus_lite_without_its_engine_says_what_to_install(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import importlib.util

    real = importlib.util.find_spec

    def find_spec(wanted: str, package: str | None = None) -> object:
        return None if wanted == "milvus_lite" else real(wanted, package)

    monkeypatch.setattr(importlib.util, "find_spec", find_spec)
    url = milvus_url(tmp_path)
    with pytest.raises(UsageError, match=r"Milvus Lite needs milvus-lite: pip install"):
        opened("milvus", url).__enter__()
