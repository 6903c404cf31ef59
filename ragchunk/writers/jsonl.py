"""JSONL: one chunk record per line (SPEC §2), and atomic output files."""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, TYPE_CHECKING

if TYPE_CHECKING:
    from ragchunk.model import Chunk

_dumps = json.JSONEncoder(ensure_ascii=False, check_circular=False).encode


def lines(chunks: Iterable[Chunk]) -> str:
    """Return the JSONL text of ``chunks``: one object per line, each line ending in a newline."""
    return "".join(_dumps(chunk.to_record()) + "\n" for chunk in chunks)


@contextlib.contextmanager
def atomic_writer(path: Path) -> Iterator[IO[str]]:
    """Open a temporary file beside ``path``; move it into place only if the block succeeds.

    A failed or interrupted run leaves the old file (or none) and no partial file behind.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            yield handle
            # mkstemp makes the file private (0600); give it the mode open() would have.
            os.fchmod(handle.fileno(), 0o666 & ~_umask())
        Path(temp).replace(path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


def _umask() -> int:
    """Return the process umask (reading it means setting it; it is restored at once)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask
