"""What keeps an endpoint from holding a run: the deadline of an attempt, the circuit breaker.

``Watchdog`` cuts a connection once an attempt has run past its deadline, whatever the server
does meanwhile (a byte a second never trips a socket timeout). ``Breaker`` counts the requests
to one URL that failed for good; after ``BREAKER_FAILURES`` in a row the URL is skipped by this
process (every request fails at once, saying why) until ``BREAKER_COOLDOWN`` seconds have
passed, when one request may try it again; an answer closes it. ``retry_after`` reads how long
a server asks to wait. ``backends/http.py`` uses them.
"""

from __future__ import annotations

import contextlib
import email.utils
import socket
import threading
import time
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    import http.client

MIB: Final = 1024 * 1024
BREAKER_FAILURES: Final = 5
"""Requests in a row that failed for good before a URL is skipped (the circuit breaker)."""
BREAKER_COOLDOWN: Final = 60.0
"""Seconds a URL is skipped before one request may try it again."""


class Watchdog:
    """Cuts a connection once an attempt has taken ``seconds`` (a timer on a daemon thread).

    A socket timeout bounds each read; a server sending a byte a second never trips it. The
    watchdog shuts the socket down at the deadline, and the blocked read returns at once.
    """

    def __init__(self, seconds: float) -> None:
        self.cut = False
        self._connection: http.client.HTTPConnection | None = None
        self._timer = threading.Timer(seconds, self._expire)
        self._timer.daemon = True
        self._timer.start()

    def watch(self, connection: http.client.HTTPConnection) -> None:
        """Cut ``connection`` at the deadline (at once when it has passed)."""
        self._connection = connection
        if self.cut:
            self._expire()

    def stop(self) -> None:
        """Forget the deadline: the attempt is over."""
        self._timer.cancel()

    def _expire(self) -> None:
        self.cut = True
        sock = None if self._connection is None else self._connection.sock
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)


class Breaker:
    """The circuit breaker of one URL in this process (see the module docstring)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._failures = 0
        self._last = ""
        self._opened: float | None = None
        self._trying = False

    def skips(self) -> str | None:
        """Return why a request is skipped now, or None to send it."""
        with self._lock:
            if self._opened is None:
                return None
            if not self._trying and time.monotonic() - self._opened >= BREAKER_COOLDOWN:
                self._trying = True  # one request tries the endpoint again
                return None
            return (
                f"it failed {self._failures} requests in a row (the last {self._last}); "
                f"not asked again for {BREAKER_COOLDOWN:g} s"
            )

    def record(self, failure: str | None) -> None:
        """Count a request that failed for good (``failure``: why), or one answered (None)."""
        with self._lock:
            if failure is None:
                self._failures, self._opened, self._trying = 0, None, False
                return
            self._failures += 1
            self._last = failure
            if self._trying or (self._opened is None and self._failures >= BREAKER_FAILURES):
                self._opened, self._trying = time.monotonic(), False


_BREAKERS: dict[str, Breaker] = {}
_BREAKERS_LOCK: Final = threading.Lock()


def breaker_of(url: str) -> Breaker:
    """Return the circuit breaker of ``url`` in this process."""
    with _BREAKERS_LOCK:
        return _BREAKERS.setdefault(url, Breaker())


def reset_breakers() -> None:
    """Close every circuit breaker (as a new process starts; tests)."""
    with _BREAKERS_LOCK:
        _BREAKERS.clear()


def size_text(count: int) -> str:
    """Return a byte count for a message (``64 MiB``, ``1.5 GiB``, ``900 bytes``)."""
    for unit, scale in (("GiB", 1024 * MIB), ("MiB", MIB), ("KiB", 1024)):
        if count >= scale:
            return f"{count / scale:.3g} {unit}"
    return f"{count} bytes"


def retry_after(value: str | None) -> float | None:
    """Return the seconds a ``Retry-After`` header asks for (a number or an HTTP date)."""
    if value is None:
        return None
    value = value.strip()
    try:
        seconds = float(value)
    except ValueError:
        pass
    else:
        return max(0.0, seconds) if seconds == seconds else None  # NaN asks for nothing
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())
