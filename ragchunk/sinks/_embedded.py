"""What the stores that run in this process share: the lock beside their files.

An embedded store (Qdrant's local mode, LanceDB, Milvus Lite) is files on this machine, named
the way SQLAlchemy names an SQLite file (``_records.store_path``): ``scheme:///data/docs`` is
``data/docs`` under the working directory, ``scheme:////srv/data/docs`` the absolute
``/srv/data/docs``. Its engine does not serialise ``ragchunk index`` runs, so ``store_lock``
does: an exclusive ``fcntl`` lock on a file beside the store, held while the store is open
(the system releases it when the process dies). A second run waits for it up to ``LOCK_WAIT``
seconds (``?lock_timeout=SECONDS`` in the URL), then fails saying which process holds it.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import IO, TYPE_CHECKING, Final
from urllib.parse import parse_qsl, urlsplit

from ragchunk.errors import StoreError, UsageError
from ragchunk.sinks._records import mask_url, store_error

if TYPE_CHECKING:
    from ragchunk.sinks._spec import Destination

LOCK_WAIT: Final = 60.0
"""How long a second ``ragchunk index`` run waits for a store's lock, in seconds."""
_POLL: Final = 0.05


def store_url(destination: Destination) -> str:
    """Return the URL a store is opened with (a store is never standard output).

    Raises:
        UsageError: the destination is a stream.
    """
    if not isinstance(destination, str):
        raise UsageError("a vector store is named by a URL (--store URL), not standard output")
    return destination


def is_local(url: str) -> bool:
    """Return whether ``url`` names files on this machine (no host: ``scheme:///path``)."""
    return not urlsplit(url).netloc


def lock_timeout(url: str, default: float) -> float:
    """Return the seconds to wait for the lock: ``?lock_timeout=SECONDS``, else ``default``.

    Raises:
        UsageError: the parameter is not a number of seconds.
    """
    given = dict(parse_qsl(urlsplit(url).query)).get("lock_timeout")
    if given is None:
        return default
    try:
        seconds = float(given)
    except ValueError:
        seconds = -1.0
    if not seconds >= 0:
        raise UsageError(f"{mask_url(url)}: lock_timeout is a number of seconds (got {given!r})")
    return seconds


def require_parent(url: str, path: Path) -> None:
    """Check that the directory holding ``path`` exists (a store makes only its own files).

    Raises:
        StoreError: it does not, or it is not a directory.
    """
    parent = path.parent
    if not parent.is_dir():
        raise StoreError(f"{mask_url(url)}: {parent} is not a directory (create it first)")


@contextlib.contextmanager
def store_lock(lock_file: Path, *, url: str) -> Iterator[None]:
    """Hold the exclusive lock on ``lock_file`` (created if missing) for the block.

    Raises:
        UsageError: a bad ``?lock_timeout=``.
        StoreError: the file cannot be opened, or another process held the lock for the
            ``lock_timeout`` (the message names it).
    """
    import fcntl

    wait = lock_timeout(url, LOCK_WAIT)
    try:
        handle = lock_file.open("a+", encoding="utf-8")
    except OSError as exc:
        raise store_error(url, f"cannot open its lock file {lock_file}", exc) from None
    with handle:
        deadline = time.monotonic() + wait
        while True:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise _busy(url, lock_file, handle, wait) from None
                time.sleep(_POLL)
        try:
            handle.seek(0)
            handle.truncate()
            handle.write(f"{os.getpid()}\n")
            handle.flush()
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _busy(url: str, lock_file: Path, handle: IO[str], wait: float) -> StoreError:
    handle.seek(0)
    holder = handle.read().strip()
    who = f"process {holder}: " if holder.isdigit() else ""
    return StoreError(
        f"{mask_url(url)}: another index run holds the lock ({who}{lock_file}); waited {wait:g} s"
    )
