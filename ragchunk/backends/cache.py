"""A cache of model answers on disk, and the embedder that reads through it.

``DiskCache`` is generic: bytes stored under a key (a hex digest) in a directory of its own
kind (``embeddings-v1``; a chat client keeps its answers beside it). Each entry is one file,
written to a temporary name in its directory and moved into place, so concurrent writers
(``--jobs``) never see half an entry; each holds a checksum of its payload, so a torn or
corrupt entry reads as a miss and is written again. Failing to write (a read-only or full
disk) never fails a run: the cache is then off for the rest of it, with one warning.

``CachedEmbedder`` wraps a backend: a text's key is a hash of the model's identity and the
text, looked up in this process's memory, then on disk; only the misses reach the model, once
each, in one call. It counts what was embedded and what was found, for progress and tests.

Vectors have one size per model identity, and the cache checks it: beside the vectors it keeps
the size the model last answered (an entry of its own), and a cached vector of another size is
a miss. An endpoint fixed after answering vectors of the wrong size (same URL, same model name)
is so believed over its old vectors: when the first answer of a run has another size than the
cached vectors of the same call, those are asked again. Within one process every vector has one
size: once vectors were returned, an answer of another size is a ``BackendError`` naming the
endpoint, and the next run uses the new size throughout.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import struct
from array import array
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Final

from ragchunk.backends import identity_of, load_backend
from ragchunk.defaults import default_cache_dir as default_cache_dir  # defined there: light
from ragchunk.errors import BackendError

if TYPE_CHECKING:
    from ragchunk.backends import Embedder, EmbedderSpec, Vector

_MAGIC: Final = b"RCC1"
_CHECKSUM: Final = 16
MEMORY_BYTES: Final = 64 * 1024 * 1024
"""The most vector bytes kept in this process's memory between inputs."""


def cache_key(*parts: str) -> str:
    """Return the hex key of an entry made of ``parts`` (model identity, kind, text...)."""
    digest = hashlib.blake2b(digest_size=20)
    for part in parts:
        digest.update(part.encode("utf-8", "surrogatepass"))
        digest.update(b"\0")
    return digest.hexdigest()


class DiskCache:
    """Entries of one kind under ``root/kind`` (see the module docstring)."""

    def __init__(self, root: str, kind: str) -> None:
        self.directory = Path(root) / kind
        self.broken: str | None = None  # why writing stopped, once it did

    def get(self, key: str) -> bytes | None:
        """Return the payload stored under ``key``, or None (missing, torn or corrupt)."""
        try:
            data = (self.directory / key[:2] / key[2:]).read_bytes()
        except OSError:
            return None
        head = len(_MAGIC) + _CHECKSUM
        if len(data) < head or not data.startswith(_MAGIC):
            return None
        payload = data[head:]
        if hashlib.blake2b(payload, digest_size=_CHECKSUM).digest() != data[len(_MAGIC) : head]:
            return None
        return payload

    def put(self, key: str, payload: bytes) -> None:
        """Store ``payload`` under ``key`` atomically; on failure stop writing (``broken``)."""
        if self.broken is not None:
            return
        folder = self.directory / key[:2]
        checksum = hashlib.blake2b(payload, digest_size=_CHECKSUM).digest()
        temporary = folder / f".{key[2:]}.{os.getpid()}.{os.urandom(4).hex()}.tmp"
        try:
            folder.mkdir(parents=True, exist_ok=True)
            with temporary.open("xb") as handle:
                handle.write(_MAGIC + checksum + payload)
            temporary.replace(folder / key[2:])
        except OSError as exc:
            self.broken = f"cannot write the cache in {self.directory} ({exc.strerror or exc})"
            with contextlib.suppress(OSError):  # never made, or its folder is a file
                temporary.unlink()


class _Memory:
    """Payloads kept in this process, least recently used dropped past ``MEMORY_BYTES``."""

    def __init__(self) -> None:
        self.entries: OrderedDict[str, bytes] = OrderedDict()
        self.size = 0

    def get(self, key: str) -> bytes | None:
        found = self.entries.get(key)
        if found is not None:
            self.entries.move_to_end(key)
        return found

    def put(self, key: str, payload: bytes) -> None:
        if key in self.entries:
            return
        self.entries[key] = payload
        self.size += len(payload)
        while self.size > MEMORY_BYTES and self.entries:
            _, dropped = self.entries.popitem(last=False)
            self.size -= len(dropped)


_MEMORY: Final = _Memory()
_SIZES: dict[str, int] = {}
"""Identity → the size of the vectors this process returned (one per model, see above)."""


def clear_memory() -> None:
    """Forget the vectors kept in this process (as a new process starts: disk only)."""
    _MEMORY.entries.clear()
    _MEMORY.size = 0
    _SIZES.clear()


class CachedEmbedder:
    """An embedder that answers from the cache when it can (see the module docstring).

    The backend is made on first need: a run answered wholly from the cache loads no model
    and opens no connection.

    Attributes:
        embedded: texts (and pooled texts) this embedder sent to the model.
        cached: texts found in memory or on disk instead.
    """

    def __init__(self, spec: EmbedderSpec, cache_dir: str | None) -> None:
        self.spec = spec
        self.identity = identity_of(spec)
        self.disk = None if cache_dir is None else DiskCache(cache_dir, "embeddings-v1")
        self.embedded = 0
        self.cached = 0
        self._backend: Embedder | None = None

    @property
    def backend(self) -> Embedder:
        """The model or client, made on first use."""
        if self._backend is None:
            self._backend = load_backend(self.spec)
        return self._backend

    @property
    def model(self) -> str:
        """The model's name as records show it (known without loading it)."""
        return self.spec.options.model_name()

    @property
    def has_tokens(self) -> bool:
        """Whether the backend gives token vectors."""
        return self.spec.kind.tokens

    @property
    def problem(self) -> str | None:
        """Why the disk cache stopped being written, if it did (one warning's worth)."""
        return None if self.disk is None else self.disk.broken

    def embed(self, texts: Sequence[str]) -> list[Vector]:
        """Return a unit vector per text; only texts found nowhere reach the backend.

        Raises:
            BackendError: the backend failed, or answered vectors of another size than those
                this process returned before (the message names it).
        """
        keys = [cache_key(self.identity, "text", text) for text in texts]
        text_of = dict(zip(keys, texts, strict=True))
        size = _SIZES.get(self.identity) or self._stored_size()
        found: dict[str, Vector] = {}
        missing: dict[str, str] = {}
        for key, text in text_of.items():
            payload = self._read(key)
            vector = None if payload is None else _vector(payload)
            size = size or (None if vector is None else len(vector))  # entries of old versions
            if vector is None or len(vector) != size:
                missing[key] = text
            else:
                found[key] = vector
        fresh: dict[str, Vector] = {}
        if missing:
            fresh = self._ask(missing)
            answered = len(next(iter(fresh.values())))
            if answered != size and found:  # the cache's are of another size: stale
                fresh |= self._ask({key: text_of[key] for key in found})
                found.clear()
            self._sized(answered)
        elif found and size is not None:
            _SIZES.setdefault(self.identity, size)
        self.cached += len(found)
        found |= fresh
        return [found[key] for key in keys]

    def unseen(self, texts: Sequence[str]) -> list[str]:
        """Return the texts, once each, that ``embed`` would send to the model (a dry run's).

        A cached vector of another size than the model's last answer counts as unseen, as
        ``embed`` asks for it again.
        """
        size = _SIZES.get(self.identity) or self._stored_size()
        keys = {cache_key(self.identity, "text", text): text for text in texts}
        unseen = []
        for key, text in keys.items():
            payload = self._read(key)
            if payload is None or (size is not None and len(_vector(payload)) != size):
                unseen.append(text)
        return unseen

    def _ask(self, texts: dict[str, str]) -> dict[str, Vector]:
        """Embed ``texts`` (key → text) with the backend; keep and return the vectors by key."""
        vectors = self.backend.embed(list(texts.values()))
        self.embedded += len(texts)
        for key, vector in zip(texts, vectors, strict=True):
            self._write(key, vector.tobytes())
        return dict(zip(texts, vectors, strict=True))

    def _stored_size(self) -> int | None:
        """Return the size of vectors the model last answered, as the disk cache keeps it."""
        payload = None if self.disk is None else self.disk.get(self._size_key)
        text = b"" if payload is None else payload
        return int(text) if text.isdigit() else None

    def _sized(self, size: int) -> None:
        """Record ``size`` as the model's; refuse it after vectors of another size were returned.

        Raises:
            BackendError: this process returned vectors of another size before.
        """
        before = _SIZES.get(self.identity)
        if self.disk is not None and self._stored_size() != size:
            self.disk.put(self._size_key, str(size).encode("ascii"))
        if before is not None and before != size:
            where = f"the embedder {self.spec.label}"
            where += f" at {self.spec.url}" if self.spec.url else ""
            raise BackendError(
                f"{where} answered vectors of {size} dimensions after {before} in this run "
                "(cached ones included); the cache now expects "
                f"{size}: run again for vectors of one size"
            )
        _SIZES[self.identity] = size

    @property
    def _size_key(self) -> str:
        return cache_key(self.identity, "dimensions")

    def token_offsets(self, text: str) -> list[tuple[int, int]]:
        """Return the backend's token offsets (never cached: tokenizing is cheap)."""
        return self.backend.token_offsets(text)

    def pool(self, text: str, spans: Sequence[tuple[int, int]]) -> list[Vector | None]:
        """Return pooled token vectors per span, from the cache when this was done before."""
        layout = ";".join(f"{start},{end}" for start, end in spans)
        key = cache_key(self.identity, "pool", layout, text)
        payload = self._read(key)
        if payload is not None:
            pooled = _unpack_pooled(payload, len(spans))
            if pooled is not None:
                self.cached += 1
                return pooled
        pooled = self.backend.pool(text, spans)
        self.embedded += 1
        self._write(key, _pack_pooled(pooled))
        return pooled

    def _read(self, key: str) -> bytes | None:
        payload = _MEMORY.get(key)
        if payload is None and self.disk is not None:
            payload = self.disk.get(key)
            if payload is not None:
                _MEMORY.put(key, payload)
        return payload

    def _write(self, key: str, payload: bytes) -> None:
        _MEMORY.put(key, payload)
        if self.disk is not None:
            self.disk.put(key, payload)


def _vector(payload: bytes) -> Vector:
    vector = array("f")
    vector.frombytes(payload)
    return vector


def _pack_pooled(pooled: Sequence[Vector | None]) -> bytes:
    present = bytes(vector is not None for vector in pooled)
    dimensions = next((len(v) for v in pooled if v is not None), 0)
    body = b"".join(v.tobytes() for v in pooled if v is not None)
    return struct.pack("<II", len(pooled), dimensions) + present + body


def _unpack_pooled(payload: bytes, count: int) -> list[Vector | None] | None:
    """Return the pooled vectors in ``payload``, or None when it does not hold ``count``."""
    if len(payload) < 8:
        return None
    stored, dimensions = struct.unpack_from("<II", payload)
    present = payload[8 : 8 + stored]
    width = 4 * dimensions
    if stored != count or len(payload) != 8 + stored + width * sum(present):
        return None
    pooled: list[Vector | None] = []
    at = 8 + stored
    for flag in present:
        if flag:
            pooled.append(_vector(payload[at : at + width]))
            at += width
        else:
            pooled.append(None)
    return pooled
