"""Atomic output files: written beside their place under a temporary name, then moved in.

A failed or interrupted run leaves the old file (or none) and no partial file behind. Every
file ragchunk writes goes through ``atomic_writer`` (JSONL outputs, the manifest) or
``atomic_binary_writer`` (Parquet outputs). A target that exists and is not a regular file or a
directory (``/dev/null``, a FIFO, a terminal) is written in place: renaming over it would
replace the device or pipe with a file.
"""

from __future__ import annotations

import contextlib
import os
import stat
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

    A device or FIFO at ``path`` is opened and written in place instead (see the module). The
    caller closes the descriptor inside the block (its file object does), so that all is
    flushed before the rename.
    """
    if _is_special(path):
        yield os.open(path, os.O_WRONLY)  # the file object made of it closes it
        return
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


def _is_special(path: Path) -> bool:
    """Whether ``path`` (its links followed) exists and is neither a regular file nor a folder."""
    try:
        mode = path.stat().st_mode
    except OSError:  # missing (the usual case), or unreachable: the rename path says why
        return False
    return not (stat.S_ISREG(mode) or stat.S_ISDIR(mode))


def remove_temporaries() -> None:
    """Remove the temporary files of writers that an interrupt cut short.

    An interrupt can land between a writer's ``__enter__`` and the ``with`` block that would
    clean up, leaving the generator suspended; its file is removed here instead.
    """
    while _LIVE_TEMPORARIES:
        _LIVE_TEMPORARIES.pop().unlink(missing_ok=True)
