"""The locks of the Chroma store: a lease record for a server, a file lock when embedded.

``chroma.open_store`` takes them. Embedded, an exclusive ``flock`` on
``<path>/<collection>.lock``, released by the system when the process dies. On a server, this
user's runs on this host wait for each other on a ``flock`` too (a file in the temporary
directory, ``host_lock_file``, one per URL host, port and collection), and runs of different
hosts (or users) on a *lease*: a record holding its owner (host, process, a random tag) and an
expiry (``LEASE`` seconds, renewed by every write). Opening the store only reads the lease:
while it is held and unexpired, the run waits, up to ``?lock_timeout=SECONDS`` (default 60),
then fails naming the owner; a lease whose owner was a process of this host that no longer
exists is free. The lease is written only by a run that will write (``will_write``, or its
first write), so an unchanged rerun writes nothing, and only if it still is the one seen at
open: a run whose store another run took (and perhaps wrote) since it read it fails, having
written nothing. On leaving, a run marks its lease expired (kept, so that its owner is seen to
have changed). Chroma has no compare-and-set, so the lease is read back before the run's first
write, ``SETTLE`` seconds after it was written at the earliest: of two runs that wrote it at
once, the one whose lease was replaced fails there, having written nothing. Its limits: two
runs each taking more than ``SETTLE`` seconds between reading the lease and writing theirs
could both believe they hold it; a run killed on another host blocks the store until its lease
expires; clocks of different hosts are trusted to agree within seconds; and a run of an older
ragchunk (which deleted its lease on leaving) that came and went while a run read the store
goes unseen.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import socket
import tempfile
import time
import uuid
from collections.abc import Iterator, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from ragchunk.errors import StoreError
from ragchunk.sinks._chroma_client import open_collection

if TYPE_CHECKING:
    from chromadb.api import ClientAPI

LEASE: Final = 120.0
"""Seconds a server lease lasts unless renewed (every write renews it)."""
SETTLE: Final = 0.5
"""Seconds between writing the lease and reading it back (``Lease.confirm``)."""
_PLACEHOLDER: Final[list[Sequence[float] | Sequence[int]]] = [[1.0]]


class Lease:
    """The server lock: one record in ``<collection>__lock`` (module docstring)."""

    def __init__(self, url: str, client: ClientAPI, name: str) -> None:
        self._url = url
        self._collection = open_collection(client, f"{name}__lock")
        self._owner = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
        self._renewed = 0.0
        self._seen: str | None = None
        self._written = False
        self._confirmed = False

    def wait(self, timeout: float) -> None:
        """When the store is opened: wait up to ``timeout`` seconds while another run holds it.

        Nothing is written: the lease is written (``take``) only by a run that will write,
        so a run that writes nothing (an unchanged rerun) makes no write at all. The lease
        found is remembered: ``take`` checks that no run took it since.

        Raises:
            StoreError: another run held it for ``timeout`` seconds (the message names it).
        """
        deadline = time.monotonic() + timeout
        while True:
            holder = self._holder()
            if holder is None or _stale(holder) or holder["owner"] == self._owner:
                self._seen = None if holder is None else str(holder["owner"])
                return
            if time.monotonic() >= deadline:
                raise StoreError(
                    f"{self._url}: another index run holds the lock ({_who(holder)}); "
                    f"waited {timeout:g} s"
                )
            time.sleep(0.5)

    def take(self) -> None:
        """Write the lease (once), when the run knows it will write, or before its first write.

        What the run read before was read with no lease of its own: it is still what the
        store holds only if no other run took the lease since ``wait``, which is checked here.
        It is read back (``confirm``) before the run's first write.

        Raises:
            StoreError: another run took the lease since this one opened the store.
        """
        if self._written:
            return
        holder = self._holder()
        if (None if holder is None else str(holder["owner"])) not in (self._seen, self._owner):
            who = "and left" if holder is None else _who(holder)
            raise StoreError(
                f"{self._url}: another index run took the lock while this one read the store "
                f"({who}); nothing was written: run again once it is done"
            )
        self._write()
        self._written = True

    def confirm(self) -> None:
        """Before this run's first write: read the lease back, ``SETTLE`` s after writing it.

        Two runs that found the store free and wrote the lease within ``SETTLE`` seconds of
        each other both read back the later one's: the other fails here, before it writes
        anything (what it read before, it only read).

        Raises:
            StoreError: another run's lease replaced this one's.
        """
        if self._confirmed:
            return
        self.take()
        time.sleep(max(0.0, SETTLE - (time.monotonic() - self._renewed)))
        holder = self._holder()
        if holder is None or holder["owner"] != self._owner:
            who = "another process" if holder is None else _who(holder)
            raise StoreError(
                f"{self._url}: another index run took the lock as this one did ({who}); "
                "nothing was written: run again once it is done"
            )
        self._confirmed = True

    def renew(self) -> None:
        """Before a write: confirm the lease, and extend it if a quarter of it has passed.

        Raises:
            StoreError: another run has taken it.
        """
        self.confirm()
        if time.monotonic() - self._renewed < LEASE / 4:
            return
        holder = self._holder()
        if holder is None or holder["owner"] != self._owner:
            raise StoreError(f"{self._url}: the lock was lost (taken by another run)")
        self._write()

    def release(self) -> None:
        """Mark the lease expired if this run wrote it and it is still its own.

        It is kept, expired, rather than deleted: its owner tells a run that opened the
        store before this one took it that the store changed since (``take``).
        """
        if not self._written:
            return
        holder = self._holder()
        if holder is not None and holder["owner"] == self._owner:
            self._write(expires=0.0)

    def _holder(self) -> Mapping[str, Any] | None:
        got = self._collection.get(ids=["lease"], include=["metadatas"])["metadatas"]
        return got[0] if got else None

    def _write(self, expires: float | None = None) -> None:
        now = time.time()
        lease: dict[str, str | float] = {
            "owner": self._owner,
            "expires": now + LEASE if expires is None else expires,
            "since": datetime.fromtimestamp(now, UTC).isoformat(timespec="seconds"),
        }
        self._collection.upsert(ids=["lease"], embeddings=_PLACEHOLDER, metadatas=[lease])
        self._renewed = time.monotonic()


def _who(holder: Mapping[str, Any]) -> str:
    """Return a lease's owner and since when it holds the store."""
    return f"{holder['owner']} since {holder['since']}"


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


def host_lock_file(host: str, port: int, name: str) -> Path | None:
    """Return the file whose ``flock`` serialises this user's runs on one server collection.

    In a folder of the temporary directory that is this user's own; None when it cannot be
    made (the lease alone guards the store then).
    """
    folder = Path(tempfile.gettempdir()) / f"ragchunk-{os.getuid()}"
    try:
        folder.mkdir(mode=0o700, exist_ok=True)
    except OSError:
        return None
    if not folder.is_dir() or folder.is_symlink() or folder.stat().st_uid != os.getuid():
        return None
    digest = hashlib.sha256(f"{host.lower()}:{port}/{name}".encode()).hexdigest()[:24]
    return folder / f"chroma-{digest}.lock"


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
