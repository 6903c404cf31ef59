"""The stores the shared sync suite runs on: one entry each (a store's helper adds one line).

Each entry makes a fresh, empty store for one test and returns its URL; ``needs`` names the
modules it cannot run without (the test is skipped, naming them, when one is missing; CI sets
``RAGCHUNK_REQUIRE_INTEGRATION=1``, which turns that skip into a failure). A store behind a
server reaches its session fixture with ``request.getfixturevalue``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.integration.stores.embedded import lancedb_url, milvus_url, qdrant_url
from tests.integration.stores.servers import chroma_embedded_url, chroma_server_url, pgvector_url


@dataclass(frozen=True)
class Backend:
    """How to make an empty store: ``url(tmp_path, request)``, and the modules it needs."""

    url: Callable[[Path, pytest.FixtureRequest], str]
    needs: tuple[str, ...] = ()


STORES: dict[str, Backend] = {
    "sqlite": Backend(lambda tmp, _: f"sqlite:///{tmp}/index.db", needs=("apsw", "sqlite_vec")),
    "pgvector": Backend(
        lambda tmp, request: pgvector_url(request, tmp), needs=("psycopg", "pgserver")
    ),
    "chroma-server": Backend(lambda tmp, r: chroma_server_url(r, tmp), needs=("chromadb",)),
    "chroma-embedded": Backend(lambda tmp, r: chroma_embedded_url(r, tmp), needs=("chromadb",)),
    "qdrant-local": Backend(lambda tmp, _: qdrant_url(tmp), needs=("qdrant_client",)),
    "lancedb": Backend(lambda tmp, _: lancedb_url(tmp), needs=("lancedb",)),
    "milvus-lite": Backend(lambda tmp, _: milvus_url(tmp), needs=("pymilvus", "milvus_lite")),
}
