"""``-o DIR/``: one output file per input, mirroring the input tree (``DIR/a/b.pdf.jsonl``).

Nothing is ever written outside ``DIR``: a ``doc_id`` that is absolute or climbs with ``..``
(an input named as ``/data/a.txt`` or ``../a.txt``) loses its leading ``/`` and ``..`` parts, as
tar does with member names, and a path that would still leave ``DIR`` through a symbolic link is
refused. Files are written atomically (``atomic.atomic_writer``).
"""

from __future__ import annotations

import os
import posixpath
from pathlib import Path
from typing import Final

from ragchunk.errors import InputError

SUFFIX: Final = ".jsonl"
"""The suffix of JSONL outputs; Parquet outputs end in ``.parquet``."""
STDIN_NAME: Final = "stdin"
"""The file name standard input (``doc_id`` ``-``) is written under."""


def mirror_path(directory: Path, doc_id: str, suffix: str = SUFFIX) -> Path:
    """Return where the chunks of ``doc_id`` go under ``directory``: ``directory/doc_id.jsonl``.

    ``suffix`` replaces ``.jsonl`` for other formats.

    Raises:
        InputError: the path would lie outside ``directory`` (through a symbolic link); the
            message does not name the input, the caller does.
    """
    relative = relative_output(doc_id, suffix)
    target = directory.joinpath(*relative.split("/"))
    base = os.path.realpath(directory)
    if os.path.commonpath([os.path.realpath(target.parent), base]) != base:
        raise InputError(f"its output {target} would lie outside {directory}")
    return target


def relative_output(doc_id: str, suffix: str = SUFFIX) -> str:
    """Return the output file's path relative to the output directory, ``/``-separated."""
    if doc_id == "-":
        return STDIN_NAME + suffix
    parts = [p for p in posixpath.normpath(doc_id.replace(os.sep, "/")).split("/") if p]
    while parts and parts[0] in ("..", "."):
        parts.pop(0)
    if not parts:
        raise InputError(f"cannot name an output file after {doc_id!r}")
    return "/".join(parts) + suffix
