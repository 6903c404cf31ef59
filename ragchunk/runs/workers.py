"""Running many inputs: in this process, or in a pool of worker processes (``--jobs``).

``run_jobs`` yields one ``FileResult`` per job, in job order, as soon as each is ready. The only
concurrency in ragchunk lives here (STYLE §2.9). Each worker has a pipe of its own; small
inputs go to a worker a batch at a time and each result comes back as a tuple holding the
encoded records (so a thousand small files are not a thousand round trips of pickled chunks);
at most a few batches per worker wait in memory, a worker stuck past its deadline is killed and
replaced, and a worker that grew large on one input retires after it.
"""

from __future__ import annotations

import contextlib
import math
import os
from collections import deque
from collections.abc import Generator, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Final

from ragchunk.defaults import STDIN
from ragchunk.errors import UsageError
from ragchunk.pipeline.deadline import timeout_message
from ragchunk.pipeline.results import FileResult
from ragchunk.runs.inputs import find_inputs
from ragchunk.runs.worker import (
    RECYCLE_MIB,
    RENDER_BLOCK,
    Job,
    JobMessage,
    serve,
    stop_signals_blocked,
    work,
)

if TYPE_CHECKING:
    from ragchunk.pipeline.plan import Plan
    from ragchunk.pipeline.scopes import Plans
    from ragchunk.runs.inputs import Input

__all__ = [
    "BATCH_BYTES",
    "BATCH_MOST",
    "KILL_GRACE",
    "RECYCLE_MIB",
    "RENDER_BLOCK",
    "Job",
    "check_workers",
    "default_jobs",
    "expand",
    "make_jobs",
    "run",
    "run_jobs",
]

_IN_FLIGHT_PER_WORKER: Final = 4
"""Batches a worker may have ready ahead of the reader: bounds memory, keeps workers busy."""
BATCH_MOST: Final = 16
"""Most jobs given to a worker at once: small files cost one round trip per batch, not each."""
BATCH_BYTES: Final = 256 * 1024
"""A batch takes no more input bytes than this (a larger input goes alone)."""
KILL_GRACE: Final = 2.0
"""Seconds past its deadline before a worker that has not answered is killed."""


def expand(paths: Sequence[str]) -> list[tuple[str, str]]:
    """Return ``(source, doc_id)`` for every input: files as given, directories walked.

    The walk uses the defaults of ``ragchunk.runs.inputs.find_inputs`` (hidden, ignored and binary
    files skipped); ``doc_id`` is the path relative to the walked directory.
    """
    return [(item.source, item.doc_id) for item in find_inputs(paths).inputs]


def run(paths: Sequence[str], plan: Plan) -> Iterator[FileResult]:
    """Yield one result per input, in input order, in this process."""
    return run_jobs([Job(source, doc_id, plan) for source, doc_id in expand(paths)])


def make_jobs(inputs: Iterable[Input], plans: Plans) -> list[Job]:
    """Return one job per input, each with the plan its configuration scope gives it."""
    return [Job(i.source, i.doc_id, plans.for_input(i.source, i.doc_id)) for i in inputs]


def default_jobs() -> int:
    """Return the number of CPU cores this process may use (the default of ``--jobs``)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def check_workers(workers: int) -> None:
    """Raise ``UsageError`` unless ``workers`` (``--jobs``) is at least 1."""
    if workers < 1:
        raise UsageError(f"--jobs must be at least 1 (got {workers})")


def run_jobs(jobs: Sequence[Job], *, workers: int = 1) -> Generator[FileResult, None, None]:
    """Yield one result per job, in job order, as soon as each is ready.

    With ``workers`` > 1 and more than one job, jobs run in worker processes (standard input
    in this one: a worker's is /dev/null); at most a few batches per worker wait in memory, so
    memory does not grow with the number of files, and the output is the same as with one
    worker. A worker that dies (killed, out of memory) fails only the input it was working on.
    Closing the iterator early (``--fail-fast``, a closed pipe, Ctrl-C) stops the workers at
    once. With ``debug`` plans everything runs in this process, so that an unexpected
    exception arrives with its traceback.

    Raises:
        UsageError: ``workers`` is below 1.
    """
    check_workers(workers)
    count = min(workers, len(jobs))
    if count <= 1 or any(job.plan.policy.debug for job in jobs):
        return (work(job) for job in jobs)
    return _run_pool(jobs, count)


def _run_pool(jobs: Sequence[Job], workers: int) -> Generator[FileResult, None, None]:
    """Feed jobs to worker processes, a few small ones at a time, and yield results in order."""
    import collections
    import gc

    # What exists now is shared with the workers, copy-on-write: frozen, the collector never
    # touches it, in here or in them, so its pages are not copied into every worker.
    gc.freeze()
    pool = [_Worker() for _ in range(workers)]
    waiter = _Waiter()
    window = workers * _IN_FLIGHT_PER_WORKER * BATCH_MOST
    todo = collections.deque(range(len(jobs)))
    ready: dict[int, FileResult] = {}
    yielded = 0
    finished = False
    try:
        while yielded < len(jobs):
            if todo and jobs[todo[0]].source == STDIN:  # a worker's standard input is not ours
                index = todo.popleft()
                ready[index] = work(jobs[index])
            for worker in pool:
                if worker.idle and todo and todo[0] < yielded + window:
                    batch = _batch(jobs, todo, workers, yielded + window)
                    if batch:
                        worker.give(batch)
            if yielded in ready:
                yield ready.pop(yielded)
                yielded += 1
                continue
            busy = [worker for worker in pool if not worker.idle]
            if not busy:
                raise RuntimeError("no result to wait for")  # a bug in _run_pool, not bad input
            answered = waiter.wait(busy, _time_to_deadline(busy))
            for worker in busy:
                if worker in answered:
                    done, undone = worker.take()
                elif worker.is_overdue():
                    done, undone = worker.kill_overdue()
                else:
                    continue
                ready.update(done)
                if undone:  # a worker that died or retired leaves the rest of its batch
                    todo = collections.deque(sorted([*undone, *todo]))
        finished = True
    finally:
        for worker in pool:
            worker.stop(gracefully=finished)
        gc.unfreeze()


def _batch(
    jobs: Sequence[Job], todo: deque[int], workers: int, limit: int
) -> list[tuple[int, Job]]:
    """Take the next jobs for one worker from ``todo``: several small inputs, or one large.

    Batches shrink as the work left does, so that the workers finish together; no job past
    ``limit`` (the in-order window) is taken.
    """
    most = max(1, min(BATCH_MOST, len(todo) // (workers * _IN_FLIGHT_PER_WORKER)))
    batch: list[tuple[int, Job]] = []
    total = 0
    while todo and len(batch) < most and todo[0] < limit:
        job = jobs[todo[0]]
        if job.source == STDIN:  # chunked by the parent, when its turn comes
            break
        try:
            size = os.stat(job.source).st_size  # noqa: PTH116 - a Path per input costs more
        except (OSError, ValueError):  # gone, or no file: alone, the worker will say
            size = BATCH_BYTES
        if batch and total + size > BATCH_BYTES:
            break
        batch.append((todo.popleft(), job))
        total += size
    return batch


class _Worker:
    """One worker process and the pipe to it; it chunks the jobs given, one after another.

    Each worker has a pipe of its own, read only by this process, so a worker that is killed
    (by us on Ctrl-C, or by the system) can never leave a shared queue half-written. A worker
    is given a batch of jobs and answers it once; which job it is on, and since when, it
    writes to memory shared with this process (``progress``): the deadline is that job's, and
    that job alone fails if the worker dies or is killed (the others of the batch are given
    again).
    """

    def __init__(self) -> None:
        self.given: list[tuple[int, Job]] = []
        self.plans: dict[int, Plan] = {}
        self._start()

    @property
    def idle(self) -> bool:
        """Whether the worker has no batch to answer."""
        return not self.given

    def _start(self) -> None:
        import multiprocessing

        ours, theirs = multiprocessing.Pipe()
        self.progress = multiprocessing.RawArray("d", 2)  # jobs begun, when the last began
        self.process = multiprocessing.Process(
            target=serve, args=(theirs, self.progress), daemon=True
        )
        with stop_signals_blocked():  # until the worker has set its own handlers
            self.process.start()
        theirs.close()
        self.connection = ours
        self.plans = {}  # the plans this process was sent, by id: a fresh process has none

    def give(self, batch: list[tuple[int, Job]]) -> None:
        """Send a batch of jobs; a worker found dead on the way is replaced first.

        With a timeout, the worker stops a job itself at the deadline (``time_limit``);
        ``KILL_GRACE`` later the parent kills it, in case it is stuck where no signal reaches.
        """
        import time

        self.given = batch
        try:
            self._send(batch, time.monotonic())
        except OSError:
            self._restart()
            self._send(batch, time.monotonic())

    def _send(self, batch: list[tuple[int, Job]], now: float) -> None:
        self.progress[0], self.progress[1] = 0, now  # not begun: the deadline runs from now
        self.connection.send([self._message(job) for _, job in batch])

    def _message(self, job: Job) -> JobMessage:
        """Return what is sent for ``job``: its plan only the first time this worker sees it.

        Every input of a run usually shares one plan; pickling it once per worker instead of
        once per input is most of the cost of sending a small file's job.
        """
        key = id(job.plan)
        plan = None if key in self.plans else job.plan
        self.plans[key] = job.plan  # held, so that the id stays this plan's
        return job.source, job.doc_id, key, plan, job.known_hash, job.render

    @property
    def deadline(self) -> float | None:
        """When the job the worker is on is overdue (its timeout and ``KILL_GRACE``), or None."""
        if not self.given:
            return None
        _, job = self.given[max(0, int(self.progress[0]) - 1)]
        timeout = job.plan.policy.timeout
        return None if timeout is None else self.progress[1] + timeout + KILL_GRACE

    def take(self) -> tuple[list[tuple[int, FileResult]], list[int]]:
        """Return the results of the batch given, by index, and the jobs left to give again.

        A dead worker fails the job it was on and is restarted; the jobs before it (their
        results died with it) and after it are left, as are those after a retiring worker's.
        """
        batch, self.given = self.given, []
        try:
            answers, retiring = self.connection.recv()
        except (EOFError, OSError):
            on = max(0, int(self.progress[0]) - 1)
            index, job = batch[on]
            message = f"{job.source}: the worker process chunking it died ({self._death()})"
            self._restart()
            undone = [i for k, (i, _) in enumerate(batch) if k != on]
            return [(index, FileResult(job.source, job.doc_id, error=message))], undone
        done = [(i, FileResult(*fields)) for (i, _), fields in zip(batch, answers, strict=False)]
        if retiring:  # it grew large: a fresh process for the rest
            self.process.join(timeout=5)
            self._restart()
        return done, [i for i, _ in batch[len(done) :]]

    def is_overdue(self) -> bool:
        """Return whether the job the worker is on has run past its deadline and kill grace."""
        import time

        deadline = self.deadline
        return deadline is not None and time.monotonic() >= deadline

    def kill_overdue(self) -> tuple[list[tuple[int, FileResult]], list[int]]:
        """Kill the worker, fail the job it was on as timed out, and start a fresh worker.

        Returns that job's index and result, and the jobs of the batch to give again.
        """
        batch, self.given = self.given, []
        on = max(0, int(self.progress[0]) - 1)
        index, job = batch[on]
        self.process.kill()  # SIGKILL: whatever the worker is stuck in, it cannot hold this off
        self.process.join()
        self.connection.close()
        self._start()
        error = timeout_message(job.source, job.plan.policy.timeout)
        undone = [i for k, (i, _) in enumerate(batch) if k != on]
        return [(index, FileResult(job.source, job.doc_id, error=error))], undone

    def stop(self, *, gracefully: bool) -> None:
        """End the worker: asked to, once all is done; terminated, when cut short."""
        if gracefully:
            with contextlib.suppress(OSError):
                self.connection.send(None)
            self.process.join(timeout=5)
        if self.process.is_alive():
            self.process.terminate()
            self.process.join()
        self.connection.close()

    def _restart(self) -> None:
        self.stop(gracefully=False)
        self._start()

    def _death(self) -> str:
        import signal

        self.process.join(timeout=5)
        code = self.process.exitcode
        if code is not None and code < 0:
            name = signal.Signals(-code).name
            return f"killed by {name}, perhaps out of memory" if name == "SIGKILL" else f"{name}"
        return f"exit code {code}"


class _Waiter:
    """Waits for answers from busy workers: one ``poll`` object kept across the whole run.

    ``multiprocessing.connection.wait`` builds a selector on every call, which over a thousand
    small files was a tenth of the parent's time; where ``select.poll`` is missing (Windows)
    it is used all the same.
    """

    def __init__(self) -> None:
        import select

        self._poll = select.poll() if hasattr(select, "poll") else None
        self._registered: dict[int, _Worker] = {}

    def wait(self, busy: Sequence[_Worker], timeout: float | None) -> list[_Worker]:
        """Return the busy workers with an answer (or a closed pipe) to read, within timeout."""
        if self._poll is None:
            from multiprocessing.connection import wait

            ready = wait([worker.connection for worker in busy], timeout)
            return [worker for worker in busy if worker.connection in ready]
        import select

        wanted = {worker.connection.fileno(): worker for worker in busy}
        for fd in self._registered.keys() - wanted.keys():
            self._poll.unregister(fd)
        for fd in wanted.keys() - self._registered.keys():
            self._poll.register(fd, select.POLLIN)
        self._registered = wanted
        milliseconds = None if timeout is None else max(0, math.ceil(timeout * 1000))
        return [wanted[fd] for fd, _ in self._poll.poll(milliseconds) if fd in wanted]


def _time_to_deadline(busy: Sequence[_Worker]) -> float | None:
    """Return the seconds until the first busy worker is overdue, or None without deadlines."""
    import time

    deadlines = [deadline for worker in busy if (deadline := worker.deadline) is not None]
    return max(0.0, min(deadlines) - time.monotonic()) if deadlines else None
