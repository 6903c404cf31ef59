"""Deadlines: the most time one input may take (``--timeout``), enforced in this process.

An interval timer raises ``TimedOut`` inside the work (POSIX, main thread only). Worker
processes are limited by their parent as well (``ragchunk.runs.workers``), which kills one that does
not answer a little after its deadline (stuck inside C code).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator


class TimedOut(BaseException):
    """Raised inside the work when ``time_limit`` expires.

    A ``BaseException``, like ``KeyboardInterrupt``: third-party code that catches
    ``Exception`` to repair damaged files must not swallow it.
    """


def timeout_message(source: str, seconds: float | None) -> str:
    """Return the one-line failure of an input that ran out of time."""
    return f"{source}: timed out after {seconds:g} s (--timeout)"


@contextlib.contextmanager
def time_limit(seconds: float | None) -> Iterator[None]:
    """Raise ``TimedOut`` inside the block once ``seconds`` have passed (None: no limit).

    Uses ``SIGALRM`` and an interval timer, so only on POSIX, in the main thread, and when any
    ``SIGALRM`` handler was set from Python; elsewhere the block runs unlimited (worker
    processes are limited by their parent as well). The timer fires again every second past
    the deadline, in case some code swallowed the first.
    Code inside C extensions is interrupted when it next returns to Python. A timer armed
    before (a test runner's) is suspended meanwhile and re-armed with the time it had left.
    """
    import signal
    import threading
    import time

    if seconds is None or not hasattr(signal, "setitimer"):
        yield
        return
    # Only the main thread may set handlers; one installed outside Python (None) could not be
    # put back afterwards, so it is left alone.
    if threading.current_thread() is not threading.main_thread() or (
        signal.getsignal(signal.SIGALRM) is None
    ):
        yield
        return

    started = time.monotonic()

    def expire(_signum: int, _frame: object) -> None:
        # An alarm of the timer armed before (still pending as this one was set) may arrive
        # here: only our own deadline counts. The outer timer is re-armed below.
        if time.monotonic() - started >= seconds * 0.999:
            raise TimedOut

    previous = signal.signal(signal.SIGALRM, expire)
    outer, outer_interval = signal.setitimer(signal.ITIMER_REAL, seconds, 1.0)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        if outer:  # someone else's timer (a test runner's): give it back what time it has left
            left = max(outer - (time.monotonic() - started), 0.001)
            signal.setitimer(signal.ITIMER_REAL, left, outer_interval)
