"""What a worker process runs (``--jobs``): the jobs a pool sends it, one after another.

``Job`` is one input and its plan; ``work`` chunks one job (in this process or a worker);
``unchanged`` tells, in this process, a job whose file still has its known hash;
``serve`` is a worker's loop: it receives batches of jobs (``JobMessage``: a plan crosses
once per worker), answers each batch at once, each job as a flat tuple of ``FileResult``'s
fields holding the encoded records, and retires once it grew by ``RECYCLE_MIB``. The pool
itself, the parent's side, is ``ragchunk.runs.workers``.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
from collections.abc import Callable, Iterator, Mapping, MutableSequence, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from ragchunk import backends
from ragchunk.defaults import STDIN
from ragchunk.errors import RagchunkError
from ragchunk.measure import use_one_encoding_thread
from ragchunk.pipeline.engine import process
from ragchunk.pipeline.results import FileResult

if TYPE_CHECKING:
    from multiprocessing.connection import Connection
    from types import MappingProxyType

    from ragchunk.model import Chunk
    from ragchunk.pipeline.plan import Plan

RENDER_BLOCK: Final = 1000
"""Chunks rendered into one piece of ``FileResult.rendered``."""
RECYCLE_MIB: Final = 150
"""A worker that grew by this much since it started is replaced after its job (Linux)."""


@dataclass(frozen=True, slots=True, eq=False, repr=False)
class Job:
    """One input and the plan it is chunked with.

    Attributes:
        source: the path to read (``-`` for standard input).
        doc_id: the document's id in the output.
        plan: the validated plan for this input.
        known_hash: skip the input (``FileResult.unchanged``) when its content hash is this.
        render: turns the chunks into output bytes where they are made (in the worker
            process), so that only encoded records cross between processes, never pickled
            chunks; a module-level function.
    """

    source: str
    doc_id: str
    plan: Plan
    known_hash: str | None = None
    render: Callable[[Sequence[Chunk]], bytes] | None = None


def work(job: Job, *, path: str | None = None, data: bytes | None = None) -> FileResult:
    """Chunk one job; with a renderer, return its output in place of its chunks.

    ``path`` and ``data`` are ``process``'s: where to read the input, or its bytes.
    """
    result = process(
        job.source, job.doc_id, job.plan, known_hash=job.known_hash, path=path, data=data
    )
    if job.render is None or not result.chunks:
        return result
    chunks, render = result.chunks, job.render
    try:
        pieces = tuple(
            render(chunks[k : k + RENDER_BLOCK]) for k in range(0, len(chunks), RENDER_BLOCK)
        )
    except (RagchunkError, MemoryError) as exc:  # a record over the sink's cap; no memory
        return render_failed(result, exc)
    return dataclasses.replace(result, chunks=(), rendered=pieces)


def unchanged(job: Job) -> FileResult | None:
    """Return ``work``'s ``unchanged`` result for a file that still has its known hash, else None.

    Only the bytes are read and hashed, as ``work`` does before parsing; anything else (no known
    hash, standard input, a file over the size cap or unreadable, other bytes) is None and left
    to ``work``, which reports it.
    """
    import hashlib
    from pathlib import Path

    if job.known_hash is None or job.source == STDIN:
        return None
    try:
        with Path(job.source).open("rb") as handle:
            if os.fstat(handle.fileno()).st_size > job.plan.policy.max_bytes:
                return None
            digest = hashlib.file_digest(handle, "sha256").hexdigest()
    except OSError:
        return None
    if digest != job.known_hash:
        return None
    return FileResult(job.source, job.doc_id, content_hash=digest, unchanged=True)


def render_failed(result: FileResult, exc: RagchunkError | MemoryError) -> FileResult:
    """Return ``result`` failed by ``exc``, raised rendering it: no chunks, its warnings kept."""
    error = str(exc)
    if isinstance(exc, MemoryError):
        error = f"{result.source}: ran out of memory writing its records"
    return dataclasses.replace(result, chunks=(), chunk_count=0, error=error)


def serve(connection: Connection, progress: MutableSequence[float]) -> None:
    """Run in a worker process: chunk each batch of jobs received until told ``None``.

    Each batch is answered once, ``(results, retiring)``, the results a flat tuple of
    ``FileResult``'s fields per job done. ``progress`` is memory shared with the parent: the
    number of jobs of the batch begun and when the last one began (``time.monotonic``), so
    that the parent knows which job a worker is on (its deadline, and which input to fail if
    the worker dies or hangs). A worker that grew by ``RECYCLE_MIB`` since it started answers
    at once and retires, since memory freed after a large input is seldom given back to the
    system and would sit beside the next; the parent gives the rest of the batch again.
    """
    import time

    _init_worker()
    resident = _Resident()
    baseline = resident.mib()
    plans: dict[int, Plan] = {}
    with contextlib.suppress(EOFError), resident:  # EOFError: the parent went away
        while (batch := connection.recv()) is not None:
            results = []
            retiring = False
            for begun, (source, doc_id, key, plan, known_hash, render) in enumerate(batch, 1):
                progress[1] = time.monotonic()
                progress[0] = begun
                if plan is not None:
                    plans[key] = plan
                models = backends.loaded_count()
                result = work(Job(source, doc_id, plans[key], known_hash, render))
                results.append(tuple(getattr(result, name) for name in RESULT_FIELDS))
                now = resident.mib()
                if backends.loaded_count() != models:  # a model loaded once is kept, not leaked
                    baseline = now
                grown = now - baseline if now is not None and baseline is not None else 0.0
                if retiring := grown > RECYCLE_MIB:
                    break
            connection.send((results, retiring))
            if retiring:
                return


RESULT_FIELDS: Final = tuple(f.name for f in dataclasses.fields(FileResult))
"""``FileResult``'s fields in order: a result crosses from a worker as a tuple of them."""
JobMessage = tuple[
    str, str, int, "Plan | None", "str | None", "Callable[[Sequence[Chunk]], bytes] | None"
]
"""A job as sent to a worker: source, doc_id, plan key, the plan (first time only), hash, render."""


class _Resident:
    """This process's resident memory (Linux), read after every job: kept cheap.

    ``/proc/self/statm`` stays open and is read again from its start (``pread``), a tenth of
    the cost of opening it each time, which on small files was a tenth of a worker's time.
    """

    def __init__(self) -> None:
        try:
            self._fd: int | None = os.open("/proc/self/statm", os.O_RDONLY)
        except OSError:  # not Linux
            self._fd = None
        self._page_mib = os.sysconf("SC_PAGE_SIZE") / (1024 * 1024) if self._fd is not None else 0

    def mib(self) -> float | None:
        """Return the resident memory in MiB, or None where it cannot be read."""
        if self._fd is None:
            return None
        try:
            return int(os.pread(self._fd, 128, 0).split()[1]) * self._page_mib
        except (OSError, IndexError, ValueError):
            return None

    def __enter__(self) -> _Resident:
        return self

    def __exit__(self, *exc: object) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None


_STOP_SIGNALS: Final = ("SIGINT", "SIGTERM")


@contextlib.contextmanager
def stop_signals_blocked() -> Iterator[None]:
    """Hold back SIGINT and SIGTERM: a worker must not get them before it set its handlers."""
    import signal

    if not hasattr(signal, "pthread_sigmask"):  # not POSIX: nothing to hold back
        yield
        return
    stops = {getattr(signal, name) for name in _STOP_SIGNALS}
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, stops)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def _init_worker() -> None:
    """Prepare a worker process: Ctrl-C is the parent's to handle, results must pickle."""
    import copyreg
    import signal
    import types

    # The terminal sends SIGINT to the whole process group; the parent stops the workers, with
    # SIGTERM, whose default action is wanted even if the parent handled it otherwise. Both
    # were blocked across the fork (see _Worker._start); pending ones arrive on unblocking.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if hasattr(signal, "pthread_sigmask"):
        stops = {getattr(signal, name) for name in _STOP_SIGNALS}
        signal.pthread_sigmask(signal.SIG_UNBLOCK, stops)
    copyreg.pickle(types.MappingProxyType, _reduce_mapping)
    use_one_encoding_thread()  # the workers already use every core
    backends.use_one_thread()
    _die_with_parent()


_PR_SET_PDEATHSIG: Final = 1
_WATCH_SECONDS: Final = 0.5
"""How often a worker's watchdog thread checks that the process that started it lives."""


def _die_with_parent() -> None:
    """End this worker with the process that started it, and let go of its standard output.

    A parent killed with SIGKILL stops nothing: its workers lived on, holding standard output,
    so that ``ragchunk split … | consumer`` never ended. Now a worker's standard output is
    /dev/null (what it makes goes through its pipe), and it exits once the parent is gone:
    on Linux the kernel tells it at once (``PR_SET_PDEATHSIG``, SIGHUP, whose handler checks
    that the parent process, not only the thread that started it, is gone); everywhere a
    thread checks every ``_WATCH_SECONDS``.
    """
    import multiprocessing
    import signal
    import sys
    import threading

    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.close(devnull)
    parent = multiprocessing.parent_process()
    parent_pid = parent.pid if parent is not None and parent.pid else os.getppid()
    started_by = os.getppid()  # the parent, or a fork server that dies with it

    def orphaned() -> bool:
        return os.getppid() != started_by or not _alive(parent_pid)

    if sys.platform.startswith("linux"):
        signal.signal(signal.SIGHUP, lambda _n, _f: os._exit(1) if orphaned() else None)
        with contextlib.suppress(OSError, AttributeError):
            import ctypes

            ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGHUP)
    if orphaned():  # gone before the kernel was asked
        os._exit(1)

    def watch() -> None:
        import time

        while not orphaned():
            time.sleep(_WATCH_SECONDS)
        os._exit(1)

    threading.Thread(target=watch, name="ragchunk-parent-watch", daemon=True).start()


def _alive(pid: int) -> bool:
    """Return whether process ``pid`` exists (on POSIX; elsewhere ``os.kill`` would end it)."""
    if os.name != "posix":
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):
        return True
    return True


def _reduce_mapping(mapping: MappingProxyType[str, Any]) -> tuple[Any, tuple[Any, ...]]:
    # Chunk metadata is a read-only mapping proxy, which pickle cannot handle by itself.
    return _restore_mapping, (dict(mapping),)


def _restore_mapping(values: dict[str, Any]) -> Mapping[str, Any]:
    from types import MappingProxyType

    from ragchunk.model import EMPTY_METADATA

    return MappingProxyType(values) if values else EMPTY_METADATA
