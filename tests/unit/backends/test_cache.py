"""backends/cache.py: entries on disk, torn and corrupt ones, concurrent writers, the counts."""

from __future__ import annotations

import multiprocessing
import os
import stat
from array import array
from pathlib import Path

import pytest

from ragchunk.backends import EmbedderSpec
from ragchunk.backends.cache import (
    CachedEmbedder,
    DiskCache,
    cache_key,
    clear_memory,
    default_cache_dir,
)
from tests.support.scripted import EMBEDDINGS, ScriptedServer, fake_embeddings


def entry_path(cache: DiskCache, key: str) -> Path:
    return cache.directory / key[:2] / key[2:]


def test_a_stored_entry_reads_back(tmp_path: Path) -> None:
    cache = DiskCache(str(tmp_path), "embeddings-v1")
    key = cache_key("model", "text", "hello")
    assert cache.get(key) is None
    cache.put(key, b"\x01\x02\x03")
    assert cache.get(key) == b"\x01\x02\x03"
    assert entry_path(cache, key).is_file()
    assert not list(cache.directory.rglob("*.tmp"))  # the temporary file was moved, not left


@pytest.mark.parametrize("damage", ["torn", "flipped", "empty", "foreign"])
def test_a_torn_or_corrupt_entry_is_a_miss_and_is_written_again(
    tmp_path: Path, damage: str
) -> None:
    cache = DiskCache(str(tmp_path), "embeddings-v1")
    key = cache_key("model", "text", "hello")
    cache.put(key, bytes(range(200)))
    path = entry_path(cache, key)
    data = path.read_bytes()
    broken = {
        "torn": data[:-7],
        "flipped": data[:-1] + bytes([data[-1] ^ 1]),
        "empty": b"",
        "foreign": b"not a cache entry at all",
    }[damage]
    path.write_bytes(broken)
    assert cache.get(key) is None
    cache.put(key, bytes(range(200)))
    assert cache.get(key) == bytes(range(200))


def _write_many(root: str, worker: int) -> None:
    cache = DiskCache(root, "embeddings-v1")
    for n in range(200):
        key = cache_key("model", str(n % 50))
        cache.put(key, str(n % 50).encode() * 100)
        found = cache.get(key)
        assert found is None or found == str(n % 50).encode() * 100, worker


def test_concurrent_writers_never_leave_half_an_entry(tmp_path: Path) -> None:
    context = multiprocessing.get_context("spawn")
    processes = [context.Process(target=_write_many, args=(str(tmp_path), w)) for w in range(4)]
    for process in processes:
        process.start()
    for process in processes:
        process.join(timeout=60)
    assert [p.exitcode for p in processes] == [0, 0, 0, 0]
    cache = DiskCache(str(tmp_path), "embeddings-v1")
    for n in range(50):
        assert cache.get(cache_key("model", str(n))) == str(n).encode() * 100
    assert not list(cache.directory.rglob("*.tmp"))


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write anywhere")
def test_a_cache_that_cannot_be_written_stops_quietly(tmp_path: Path) -> None:
    tmp_path.chmod(stat.S_IRUSR | stat.S_IXUSR)
    try:
        cache = DiskCache(str(tmp_path), "embeddings-v1")
        cache.put(cache_key("a"), b"x")
        assert cache.broken is not None
        assert str(tmp_path) in cache.broken
    finally:
        tmp_path.chmod(stat.S_IRWXU)


def test_a_file_in_the_way_stops_the_cache_with_a_reason(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("in the way")
    cache = DiskCache(str(blocker), "embeddings-v1")
    cache.put(cache_key("a"), b"x")  # never raises
    assert cache.broken is not None
    assert cache.broken.startswith(f"cannot write the cache in {blocker}/embeddings-v1")
    assert cache.get(cache_key("a")) is None


def test_the_default_directory_follows_xdg(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", "/somewhere/cache")
    assert default_cache_dir() == "/somewhere/cache/ragchunk"


@pytest.mark.localhost
@pytest.mark.allow_hosts(["127.0.0.1"])
def test_a_rerun_is_answered_from_disk_without_a_call(
    scripted_server: ScriptedServer, tmp_path: Path
) -> None:
    scripted_server.on(EMBEDDINGS, fake_embeddings(dim=8))
    spec = EmbedderSpec(backend="openai", url=scripted_server.base_url, model="m", retries=0)
    texts = ["one", "two", "one", "three"]
    first = CachedEmbedder(spec, str(tmp_path))
    vectors = first.embed(texts)
    assert (first.embedded, first.cached) == (3, 0)  # "one" twice: embedded once
    assert [len(c.inputs) for c in scripted_server.calls()] == [3]
    clear_memory()  # a new process: nothing in memory
    second = CachedEmbedder(spec, str(tmp_path))
    again = second.embed(texts)
    assert (second.embedded, second.cached) == (0, 3)
    assert len(scripted_server.calls()) == 1  # no second call
    assert [list(v) for v in again] == [list(v) for v in vectors]
    assert second._backend is None  # not even a client was made


def test_pooled_vectors_are_cached_with_their_gaps() -> None:
    from ragchunk.backends.cache import _pack_pooled, _unpack_pooled

    pooled = [array("f", [1.0, 0.0]), None, array("f", [0.0, 1.0])]
    packed = _pack_pooled(pooled)
    assert _unpack_pooled(packed, 3) == pooled
    assert _unpack_pooled(packed, 2) is None  # another layout: not this entry
    assert _unpack_pooled(packed[:-1], 3) is None
