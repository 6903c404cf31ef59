"""Store URLs of the embedded stores, each in a temporary directory, for the store tests.

The shared sync suite registers each with one line (``"qdrant": qdrant_url``...). The URLs
name absolute paths, so they have four slashes (``qdrant:////tmp/.../docs``): three name a
path under the working directory, like SQLAlchemy's ``sqlite:///index.db``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Final


def qdrant_url(tmp_path: Path) -> str:
    """Return a collection of qdrant-client's local mode (no Qdrant engine runs here)."""
    return f"qdrant:///{tmp_path / 'qdrant' / 'docs'}"


def lancedb_url(tmp_path: Path) -> str:
    """Return a LanceDB table in a database directory."""
    return f"lancedb:///{tmp_path / 'lance' / 'docs'}"


def milvus_url(tmp_path: Path) -> str:
    """Return the default collection of a Milvus Lite database."""
    return f"milvus:///{tmp_path / 'index.db'}"


EMBEDDED: Final[dict[str, Callable[[Path], str]]] = {
    "qdrant": qdrant_url,
    "lancedb": lancedb_url,
    "milvus": milvus_url,
}
"""Each embedded store's name (its sink) and the URL of a fresh store under a directory."""
