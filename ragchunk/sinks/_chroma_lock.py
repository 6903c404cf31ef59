"""The locks of the Chroma store: a lease record for a server, a file lock when embedded.

See ``ragchunk.sinks.chroma``'s docstring for how they behave and where the lease falls short.
"""

from __future__ import annotations

import contextlib
import os
import socket
import time
import uuid
from collections.abc import Iterator, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from ragchunk.errors import StoreError

if TYPE_CHECKING:
    from chromadb.api import ClientAPI

LEASE: Final = 120.0
"""Seconds a server lease lasts unless renewed (every write renews it)."""
SETTLE: Final = 0.5
"""Seconds between writing the lease and reading it back."""
_PLACEHOLDER: Final[list[Sequence[float] | Sequence[int]]] = [[1.0]]


class Lease:
    """The server lock: one record in ``<collection>__lock`` (module docstring)."""

    def __init__(self, url: str, client: ClientAPI, name: str) -> None:
        self._url = url
        self._collection = client.get_or_create_collection(f"{name}__lock", embedding_function=None)
        self._owner = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
        self._renewed = 0.0

    def take(self, timeout: float) -> None:
        """Take the lease, waiting up to ``timeout`` seconds while another run holds it."""
        deadline = time.monotonic() + timeout
        while True:
            holder = self._holder()
            if holder is None or _stale(holder) or holder["owner"] == self._owner:
                self._write()
                time.sleep(SETTLE)
                holder = self._holder()
                if holder is not None and holder["owner"] == self._owner:
                    return
            if time.monotonic() >= deadline:
                who = "another process" if holder is None else holder["owner"]
                since = "" if holder is None else f" since {holder['since']}"
                raise StoreError(
                    f"{self._url}: another index run holds the lock ({who}{since}); "
                    f"waited {timeout:g} s"
                )
            time.sleep(0.5)

    def renew(self) -> None:
        """Extend the lease if a quarter of it has passed; fail if another run has taken it."""
        if time.monotonic() - self._renewed < LEASE / 4:
            return
        holder = self._holder()
        if holder is None or holder["owner"] != self._owner:
            raise StoreError(f"{self._url}: the lock was lost (taken by another run)")
        self._write()

    def release(self) -> None:
        """Delete the lease if it is still this run's."""
        holder = self._holder()
        if holder is not None and holder["owner"] == self._owner:
            self._collection.delete(ids=["lease"])

    def _holder(self) -> Mapping[str, Any] | None:
        got = self._collection.get(ids=["lease"], include=["metadatas"])["metadatas"]
        return got[0] if got else None

    def _write(self) -> None:
        now = time.time()
        lease: dict[str, str | float] = {
            "owner": self._owner,
            "expires": now + LEASE,
            "since": datetime.fromtimestamp(now, UTC).isoformat(timespec="seconds"),
        }
        self._collection.upsert(ids=["lease"], embeddings=_PLACEHOLDER, metadatas=[lease])
        self._renewed = time.monotonic()


def _stale(holder: Mapping[str, Any]) -> bool:
    """Return whether a lease has expired, or its owner was a process of this host now gone."""
    if float(holder.get("expires", 0)) < time.time():
        return True
    host, _, rest = str(holder.get("owner", "")).partition(":")
    pid = rest.partition(":")[0]
    if host != socket.gethostname() or not pid.isdigit():
        return False
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return True
    except PermissionError:  # alive, another user's
        return False
    return False


@contextlib.contextmanager
def file_lock(path: Path, timeout: float, url: str) -> Iterator[None]:
    """Hold an exclusive ``flock`` on ``path`` for the block, waiting up to ``timeout`` seconds."""
    import fcntl

    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a+") as handle:
        deadline = time.monotonic() + timeout
        while True:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise StoreError(
                        f"{url}: another index run holds the lock ({path}); waited {timeout:g} s"
                    ) from None
                time.sleep(0.2)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
