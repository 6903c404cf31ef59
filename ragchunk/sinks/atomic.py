"""Atomic output files: written beside their place under a temporary name, then moved in.

A failed or interrupted run leaves the old file (or none) and no partial file behind. Every
file ragchunk writes goes through ``atomic_writer`` (JSONL outputs, the manifest) or
``atomic_binary_writer`` (Parquet outputs).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path
from typing import IO

_LIVE_TEMPORARIES: set[Path] = set()
"""Temporary files of writers still open, for ``remove_temporaries`` to find."""


@contextlib.contextmanager
def atomic_writer(path: Path) -> Iterator[IO[str]]:
    """Open a temporary file beside ``path``; move it into place only if the block succeeds.

    It is a UTF-8 text file. A failed or interrupted run leaves the old file (or none) and no
    partial file behind.
    """
    with _replacing(path) as fd, os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
        yield handle


@contextlib.contextmanager
def atomic_binary_writer(path: Path) -> Iterator[IO[bytes]]:
    """Open a temporary binary file beside ``path``, as ``atomic_writer`` does (Parquet)."""
    with _replacing(path) as fd, os.fdopen(fd, "wb") as handle:
        yield handle


@contextlib.contextmanager
def _replacing(path: Path) -> Iterator[int]:
    """Yield the descriptor of a new temporary file beside ``path``; then move it into place.

    The caller closes the descriptor inside the block (its file object does), so that all is
    flushed before the rename.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    # The name is chosen and registered before the file exists, so that an interrupt arriving
    # at any moment, even while the file is being created, still finds it to remove (mkstemp
    # would give the name only once the file exists).
    temp = path.parent / f".{path.name}.{os.urandom(6).hex()}.tmp"
    _LIVE_TEMPORARIES.add(temp)
    opened = False
    try:
        # 0o666 and O_EXCL: the mode open() would give (the umask applies), never an old file.
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        opened = True
        yield fd
        temp.replace(path)
    except BaseException as exc:
        if opened or not isinstance(exc, FileExistsError):  # else the file is not ours
            temp.unlink(missing_ok=True)
        raise
    finally:
        _LIVE_TEMPORARIES.discard(temp)


def remove_temporaries() -> None:
    """Remove the temporary files of writers that an interrupt cut short.

    An interrupt can land between a writer's ``__enter__`` and the ``with`` block that would
    clean up, leaving the generator suspended; its file is removed here instead.
    """
    while _LIVE_TEMPORARIES:
        _LIVE_TEMPORARIES.pop().unlink(missing_ok=True)
