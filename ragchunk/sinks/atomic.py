"""Atomic output files: written beside their place under a temporary name, then moved in.

A failed or interrupted run leaves the old file (or none) and no partial file behind. Every
file ragchunk writes goes through ``atomic_writer`` (JSONL outputs, the manifest) or
``atomic_binary_writer`` (Parquet outputs). Only ragchunk's own outputs are ever created,
replaced or removed:

- a target that exists and is not a regular file or a directory (``/dev/null``, a FIFO, a
  terminal) is written in place: renaming over it would replace the device or pipe with a file;
- a symbolic link to a regular file (``out.jsonl -> data/out.jsonl``) keeps its link: the file
  it names is replaced, atomically. A link the kernel makes up (``/dev/stdout`` through
  ``/proc/self/fd/1``), whose text names no file that is the one opened (a deleted file), is
  written in place;
- a temporary file is named ``.NAME.PID.HOSTTAG+NONCE.tmp``: a run killed before it could clean
  up (``kill -9``) leaves one, and a later run writing the same output removes it, once the
  process named by PID on this host is gone and the file is the user's own. Nothing else is
  ever removed.

Every ``OSError`` of an output (no space left, a read-only folder, a file-size limit) names the
output, never its temporary file: ``error.filename`` is the path the caller gave, so that the
command line prints one line naming it (``describe``).
"""

from __future__ import annotations

import contextlib
import errno
import io
import os
import re
import stat
import time
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Final, NoReturn

_LIVE_TEMPORARIES: set[Path] = set()
"""Temporary files of writers still open, for ``remove_temporaries`` to find."""
_TEMPORARY: Final = re.compile(r"\.(?P<name>.+)\.(?P<pid>[0-9]+)\.(?P<tag>[0-9a-f]{12})\.tmp")
"""A temporary file's name: the output's name, the writer's pid, its host's tag and a nonce."""
_RESCAN_SECONDS: Final = 30.0
"""A folder's stale temporaries are looked for at most this often (a run writes many files)."""
_SCANNED: dict[str, tuple[float, dict[str, list[str]]]] = {}
"""Per folder: when it was scanned, and the stale temporaries found, by output name."""


@contextlib.contextmanager
def atomic_writer(path: Path) -> Iterator[IO[str]]:
    """Open a temporary file beside ``path``; move it into place only if the block succeeds.

    It is a UTF-8 text file. A failed or interrupted run leaves the old file (or none) and no
    partial file behind.

    Raises:
        OSError: the output cannot be written; ``filename`` is ``path``.
    """
    with (
        _replacing(path) as raw,
        io.TextIOWrapper(io.BufferedWriter(raw), encoding="utf-8", newline="\n") as handle,
    ):
        yield handle


@contextlib.contextmanager
def atomic_binary_writer(path: Path) -> Iterator[IO[bytes]]:
    """Open a temporary binary file beside ``path``, as ``atomic_writer`` does (Parquet)."""
    with _replacing(path) as raw, io.BufferedWriter(raw) as handle:
        yield handle


def describe(error: OSError) -> str:
    """Return one line for an output's ``OSError``: the path it names, and what went wrong."""
    reason = error.strerror or str(error) or type(error).__name__
    if error.filename is None:
        return f"cannot write the output ({reason})"
    return f"{os.fsdecode(error.filename)}: cannot write the output ({reason})"


class _Output(io.FileIO):
    """The raw file under an output's buffers: its errors name the output, not the temporary."""

    def __init__(self, fd: int, path: Path) -> None:
        super().__init__(fd, "w")
        self.output = path

    def write(self, data: object) -> int | None:  # type: ignore[override]
        try:
            return super().write(data)  # type: ignore[arg-type]
        except OSError as exc:
            _raise_named(exc, self.output)

    def close(self) -> None:
        try:
            super().close()
        except OSError as exc:
            _raise_named(exc, self.output)


def _raise_named(error: OSError, path: Path) -> NoReturn:
    """Raise ``error`` again, of its kind (``OSError`` picks it by errno), naming ``path``."""
    if error.errno is None:
        raise error
    raise OSError(error.errno, error.strerror, str(path)) from None


@contextlib.contextmanager
def _replacing(path: Path) -> Iterator[_Output]:
    """Yield the raw file of a new temporary file beside ``path``; then move it into place.

    A device or FIFO at ``path`` is opened and written in place instead (see the module). The
    caller closes the file inside the block (its buffers do), so that all is flushed before
    the rename.
    """
    target, in_place = _place(path)
    if in_place:
        try:
            flags = os.O_WRONLY | (os.O_TRUNC if stat.S_ISREG(path.stat().st_mode) else 0)
            fd = os.open(path, flags)
        except OSError as exc:
            _raise_named(exc, path)
        yield _Output(fd, path)  # the caller's buffers close it
        return
    if target == path:  # a symbolic link's folder is the link's business, never made here
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except FileExistsError:  # a file where a folder should be: mkdir says "File exists"
            _raise_named(NotADirectoryError(errno.ENOTDIR, os.strerror(errno.ENOTDIR)), path)
        except OSError as exc:
            _raise_named(exc, path)
    _remove_stale(target)
    # The name is chosen and registered before the file exists, so that an interrupt arriving
    # at any moment, even while the file is being created, still finds it to remove (mkstemp
    # would give the name only once the file exists).
    temp = target.parent / f".{target.name}.{os.getpid()}.{_host_tag()}{os.urandom(4).hex()}.tmp"
    _LIVE_TEMPORARIES.add(temp)
    opened = False
    try:
        try:
            # 0o666 and O_EXCL: the mode open() would give (the umask applies), never an old file.
            fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        except OSError as exc:
            _raise_named(exc, path)
        opened = True
        yield _Output(fd, path)
        try:
            temp.replace(target)
        except OSError as exc:
            _raise_named(exc, path)
    except BaseException as exc:
        if opened or not isinstance(exc, FileExistsError):  # else the file is not ours
            # A read-only folder refuses the removal too: the error that matters is the first.
            with contextlib.suppress(OSError):
                temp.unlink(missing_ok=True)
        raise
    finally:
        _LIVE_TEMPORARIES.discard(temp)


def _place(path: Path) -> tuple[Path, bool]:
    """Return the file to replace for ``path``, and whether to write ``path`` in place instead.

    In place: a device, FIFO or socket (its links followed), or a link whose text does not
    name the file it opens (``/proc/self/fd/1`` to a deleted file). A symbolic link to a
    regular file gives that file, so the link stays; a dangling link gives the file it names.
    """
    try:
        opened: os.stat_result | None = path.stat()
    except OSError:  # missing (the usual case), or unreachable: the rename path says why
        opened = None
    if opened is not None and not (stat.S_ISREG(opened.st_mode) or stat.S_ISDIR(opened.st_mode)):
        return path, True
    if not path.is_symlink():
        return path, False
    named = Path(os.path.realpath(path))
    if opened is None:
        return named, False
    try:
        same = os.path.samestat(named.stat(), opened)
    except OSError:
        same = False
    return (named, False) if same else (path, True)


_HOST_TAG: list[str] = []


def _host_tag() -> str:
    """Return 4 hex digits naming this host: a pid means something only on its own host."""
    if not _HOST_TAG:
        import hashlib
        import socket

        _HOST_TAG.append(hashlib.sha256(socket.gethostname().encode()).hexdigest()[:4])
    return _HOST_TAG[0]


def _remove_stale(target: Path) -> None:
    """Remove the temporaries of ``target`` that killed runs left (see the module); never fail.

    A folder is scanned once per ``_RESCAN_SECONDS``, not once per output written into it.
    """
    if os.name != "posix":  # whether a process lives cannot be asked harmlessly elsewhere
        return
    folder = target.parent
    now = time.monotonic()
    scanned = _SCANNED.get(str(folder))
    if scanned is None or now - scanned[0] > _RESCAN_SECONDS:
        scanned = _SCANNED[str(folder)] = (now, _stale_in(folder))
    for name in scanned[1].pop(target.name, ()):
        with contextlib.suppress(OSError):
            (folder / name).unlink()


def _stale_in(folder: Path) -> dict[str, list[str]]:
    """Return the stale temporaries in ``folder``, by the name of the output each was for."""
    stale: dict[str, list[str]] = {}
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return stale
    tag, me, uid = _host_tag(), os.getpid(), os.geteuid()
    for entry in entries:
        match = _TEMPORARY.fullmatch(entry.name)
        if match is None or not match["tag"].startswith(tag) or int(match["pid"]) == me:
            continue
        try:
            info = entry.stat(follow_symlinks=False)
        except OSError:
            continue
        if stat.S_ISREG(info.st_mode) and info.st_uid == uid and not _alive(int(match["pid"])):
            stale.setdefault(match["name"], []).append(entry.name)
    return stale


def _alive(pid: int) -> bool:
    """Return whether process ``pid`` exists (someone else's counts: it is not ours to judge)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):
        return True
    return True


def remove_temporaries() -> None:
    """Remove the temporary files of writers that an interrupt cut short.

    An interrupt can land between a writer's ``__enter__`` and the ``with`` block that would
    clean up, leaving the generator suspended; its file is removed here instead.
    """
    while _LIVE_TEMPORARIES:
        with contextlib.suppress(OSError):
            _LIVE_TEMPORARIES.pop().unlink(missing_ok=True)
