"""A small JSON-over-HTTP client for model endpoints: timeouts, retries, a concurrency limit.

Built on the standard library (``http.client``), not httpx: ragchunk needs one thing from HTTP
(POST a JSON body, read a JSON answer), the core install stays free of another dependency, and
endpoints reached this way need no extra installed. Each thread keeps one keep-alive
connection.

- Deadlines: connecting waits ``connect_timeout`` seconds; a whole attempt, from connecting to
  the answer's last byte, at most ``read_timeout`` (a watchdog cuts the connection there, so a
  server trickling its answer a byte at a time is stopped too).
- Retries: a refused or reset connection, 429 and 5xx answers are tried again up to ``retries``
  times, waiting ``backoff`` seconds doubled each time (with jitter), or what a ``Retry-After``
  header asks on 429/503 (capped at ``max_wait``); an attempt past its deadline is tried once
  more at most (a stalled endpoint seldom answers the third time, and each stall costs the
  whole deadline).
- Size: an answer longer than ``max_answer`` bytes is refused (its declared length at once,
  else reading stops one byte past the cap).
- Circuit breaker (``backends/guards.py``): after 5 requests in a row to one URL failed for
  good (down, refusing the key, too slow, answering garbage), this process skips the URL for
  60 s, each request failing at once with why; then one request may try it again.
- Concurrency: ``post_all`` keeps at most ``concurrency`` requests in flight, on daemon
  threads, so Ctrl-C is never held up by a slow endpoint.
- The key: read from the environment variable ``key_env`` names at each request and sent as a
  bearer token; a value a header cannot carry is refused (``backends/keys.py``); it never
  appears in a message (every message has it masked, in all its forms) and is never stored.
- Connections: one per thread, kept alive for the requests of one ``post`` or ``post_all``
  call and closed before it returns.

Every failure is an ``EndpointError`` (a ``BackendError``) of one sentence naming the endpoint.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import queue
import random
import socket
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final
from urllib.parse import urlsplit

from ragchunk.backends.guards import MIB, Watchdog, breaker_of, retry_after, size_text
from ragchunk.backends.keys import key_problem, mask, read_key
from ragchunk.errors import BackendError
from ragchunk.model import JSONValue

RETRY_STATUSES: Final = frozenset({429, 500, 502, 503, 504})
MAX_ANSWER: Final = 64 * MIB
"""The default cap on one answer's bytes (each backend sets its own: see its module)."""
_BROKEN_STATUSES: Final = frozenset({401, 403, 404, 405, 407, 429})
"""Client errors that every later request would get too (a wrong key or URL): the breaker
counts them; other 4xx answers are about one request, and prove the endpoint up."""
_STALLS: Final = 2
"""Attempts past their deadline that end a request (see the module docstring)."""
_QUOTE_LENGTH: Final = 80


class EndpointError(BackendError):
    """An endpoint failed: unreachable, too slow, refusing, or answering garbage.

    ``status`` is the HTTP status of the last answer when the endpoint refused with one;
    ``skipped`` says the request was never sent (the circuit breaker is open).
    """

    def __init__(self, message: str, status: int | None = None, *, skipped: bool = False) -> None:
        super().__init__(message)
        self.status = status
        self.skipped = skipped


@dataclass(frozen=True, slots=True, kw_only=True)
class Endpoint:
    """Where and how to reach one endpoint.

    Attributes:
        url: the full URL requests are posted to.
        name: what messages call it (``embedding endpoint``).
        key_env: the environment variable holding the bearer token, or None for none.
        connect_timeout: seconds to wait for a connection.
        read_timeout: seconds one attempt may take, from connecting to the answer's last byte.
        concurrency: requests in flight at once in ``post_all``.
        retries: attempts after the first for a failure that may pass.
        backoff: seconds before the first retry; doubled for each one after.
        max_wait: the longest wait between attempts, whatever ``Retry-After`` asks.
        final: statuses answered as failures at once, never retried (a chat client asking
            whether an endpoint takes a request format: llama.cpp refuses with 500); the
            circuit breaker counts none of them.
        max_answer: the most bytes one answer may hold.
    """

    url: str
    name: str = "endpoint"
    key_env: str | None = None
    connect_timeout: float = 10.0
    read_timeout: float = 60.0
    concurrency: int = 4
    retries: int = 4
    backoff: float = 0.5
    max_wait: float = 60.0
    final: frozenset[int] = frozenset()
    max_answer: int = MAX_ANSWER


class _Retry(Exception):  # noqa: N818 - a signal between two functions, never raised to users
    """A failure that may pass: try again after ``wait`` seconds (None: the backoff)."""

    def __init__(
        self,
        problem: str,
        wait: float | None = None,
        status: int | None = None,
        *,
        stalled: bool = False,
    ) -> None:
        super().__init__(problem)
        self.problem = problem
        self.wait = wait
        self.status = status
        self.stalled = stalled


class JsonClient:
    """Posts JSON to one endpoint and returns its JSON answers (see the module docstring)."""

    def __init__(self, endpoint: Endpoint) -> None:
        parts = urlsplit(endpoint.url)
        if parts.scheme not in {"http", "https"} or not parts.hostname:
            raise EndpointError(f"{endpoint.name} {endpoint.url} is not an http(s) URL")
        self.endpoint = endpoint
        self._https = parts.scheme == "https"
        self._host = parts.hostname
        self._port = parts.port
        self._path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        self._local = threading.local()
        self._breaker = breaker_of(endpoint.url)

    def post(self, body: JSONValue) -> JSONValue:
        """Post ``body`` and return the decoded answer, retrying what may pass.

        Raises:
            EndpointError: the endpoint failed for good, or is skipped (one sentence naming it).
        """
        try:
            return self._post(body)
        finally:
            self._drop()

    def _post(self, body: JSONValue) -> JSONValue:
        skipped = self._breaker.skips()
        if skipped is not None:
            raise EndpointError(self._mask(f"{self._where} skipped: {skipped}"), skipped=True)
        try:
            answer = self._tries(body)
        except EndpointError as exc:
            status = exc.status
            if status not in self.endpoint.final:
                broken = status is None or status >= 500 or status in _BROKEN_STATUSES
                self._breaker.record(str(exc)[len(self._where) + 1 :] if broken else None)
            raise
        self._breaker.record(None)
        return answer

    def _tries(self, body: JSONValue) -> JSONValue:
        endpoint = self.endpoint
        payload = json.dumps(body, ensure_ascii=False).encode("utf-8", "surrogatepass")
        headers = self._headers()
        stalls = 0
        for attempt in range(endpoint.retries + 1):
            try:
                return self._attempt(payload, headers)
            except _Retry as retry:
                stalls += retry.stalled
                if attempt == endpoint.retries or stalls == _STALLS:
                    tries = f" (after {attempt + 1} attempts)" if attempt else ""
                    raise self._error(f"{retry.problem}{tries}", retry.status) from None
                time.sleep(self._wait(attempt, retry.wait))
        raise AssertionError("unreachable")  # pragma: no cover - the loop returns or raises

    def post_all(self, bodies: Sequence[JSONValue]) -> list[JSONValue]:
        """Post every body, at most ``concurrency`` at once; return the answers in order.

        The first failure stops the others (requests under way finish on their own threads,
        which never keep the process alive) and is raised.

        Raises:
            EndpointError: a request failed for good.
        """
        workers = min(self.endpoint.concurrency, len(bodies))
        if workers <= 1:  # in this thread: nothing to wait for, signals arrive directly
            try:
                return [self._post(body) for body in bodies]
            finally:
                self._drop()
        answers: list[JSONValue] = [None] * len(bodies)
        todo: queue.SimpleQueue[int] = queue.SimpleQueue()
        for index in range(len(bodies)):
            todo.put(index)
        state = _Shared(len(bodies))

        def work() -> None:
            try:
                while not state.stopped():
                    try:
                        index = todo.get_nowait()
                    except queue.Empty:
                        return
                    answers[index] = self._post(bodies[index])
                    state.done_one()
            except BaseException as exc:  # noqa: BLE001 - handed to the waiting thread
                state.fail(exc)
            finally:
                self._drop()

        for _ in range(workers):
            threading.Thread(target=work, daemon=True, name="ragchunk-http").start()
        state.wait()
        return answers

    def _attempt(self, payload: bytes, headers: dict[str, str]) -> JSONValue:
        endpoint = self.endpoint
        watchdog = Watchdog(endpoint.read_timeout)
        try:
            connection = self._connection()
            watchdog.watch(connection)
            connection.request("POST", self._path, body=payload, headers=headers)
            response = connection.getresponse()
            status, retry_after_header = response.status, response.getheader("Retry-After")
            body = self._read(response)
        except (ConnectionRefusedError, http.client.RemoteDisconnected, ConnectionResetError):
            self._drop()
            if watchdog.cut:
                raise self._stalled(watchdog) from None
            raise _Retry(
                "refused the connection" if not self._connected() else "closed the connection"
            ) from None
        except TimeoutError:
            self._drop()
            raise self._stalled(watchdog) from None
        except socket.gaierror:
            self._drop()
            raise self._error(f"cannot be reached: host {self._host!r} not found") from None
        except (OSError, http.client.HTTPException) as exc:
            self._drop()
            if watchdog.cut:
                raise self._stalled(watchdog) from None
            raise _Retry(f"cannot be reached ({type(exc).__name__}: {exc})") from None
        except (ValueError, UnicodeError) as exc:  # a header http.client refuses: never quoted
            self._drop()
            raise self._error(f"could not be sent the request ({type(exc).__name__})") from None
        finally:
            watchdog.stop()
            self._local.connected = False
        if watchdog.cut:  # cut while reading the body: what was read is a fragment
            self._drop()
            raise self._stalled(watchdog)
        if status in RETRY_STATUSES and status not in endpoint.final:
            wait = retry_after(retry_after_header) if status in {429, 503} else None
            raise _Retry(f"answered HTTP {status}{self._quote(body)}", wait, status)
        if not 200 <= status < 300:
            raise self._error(f"answered HTTP {status}{self._quote(body)}", status)
        try:
            answer: JSONValue = json.loads(body)
        except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
            raise self._error(f"answered something that is not JSON{self._quote(body)}") from None
        return answer

    def _read(self, response: http.client.HTTPResponse) -> bytes:
        """Return the answer's body; refuse one past ``max_answer`` bytes without reading it."""
        cap = self.endpoint.max_answer
        declared = response.getheader("Content-Length") or ""
        if declared.strip().isdigit() and int(declared) > cap:
            response.close()  # the response holds the socket open as well
            self._drop()
            raise self._error(f"announced an answer of {size_text(int(declared))}{self._over(cap)}")
        pieces: list[bytes] = []
        size = 0
        while size <= cap:  # in pieces: never a buffer of the cap's size for a small answer
            piece = response.read(min(MIB, cap + 1 - size))
            if not piece:
                break
            pieces.append(piece)
            size += len(piece)
        body = b"".join(pieces)
        if len(body) > cap:
            response.close()  # the rest is never read: the connection goes
            self._drop()
            raise self._error(f"answered more than {size_text(cap)}{self._over(cap)}")
        return body

    def _over(self, cap: int) -> str:
        return f", past the cap of {size_text(cap)} on one answer; stopped reading"

    def _stalled(self, watchdog: Watchdog) -> _Retry:
        endpoint = self.endpoint
        cut = watchdog.cut or self._connected()
        waited = endpoint.read_timeout if cut else endpoint.connect_timeout
        return _Retry(f"did not answer within {waited:g} s", stalled=True)

    def _connection(self) -> http.client.HTTPConnection:
        connection: http.client.HTTPConnection | None = getattr(self._local, "connection", None)
        self._local.connected = False
        if connection is None:
            kind = http.client.HTTPSConnection if self._https else http.client.HTTPConnection
            connection = kind(self._host, self._port, timeout=self.endpoint.connect_timeout)
            self._local.connection = connection
        if connection.sock is None:
            connection.connect()
        self._local.connected = True
        connection.sock.settimeout(self.endpoint.read_timeout)
        return connection

    def _connected(self) -> bool:
        return bool(getattr(self._local, "connected", False))

    def _drop(self) -> None:
        connection = getattr(self._local, "connection", None)
        if connection is not None:
            with contextlib.suppress(OSError):
                connection.close()
            self._local.connection = None

    def _headers(self) -> dict[str, str]:
        """Return the request's headers, the key's checked first (one line naming its variable)."""
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        key = self._key()
        if key:
            problem = key_problem(key)
            if problem is not None:
                variable = self.endpoint.key_env
                raise self._error(f"was not asked: the environment variable {variable} {problem}")
            headers["Authorization"] = f"Bearer {key}"
        return headers

    def _key(self) -> str | None:
        return read_key(self.endpoint.key_env)

    def _wait(self, attempt: int, asked: float | None) -> float:
        endpoint = self.endpoint
        if asked is not None:
            return min(asked, endpoint.max_wait)
        base = endpoint.backoff * 2.0**attempt
        return min(base * (0.5 + random.random()), endpoint.max_wait)  # jittered

    def _quote(self, body: bytes) -> str:
        """Return ``: "<start of body>"`` for a message, the key masked; empty for no body."""
        key = self._key()
        text = " ".join(mask(body.decode("utf-8", "replace"), key).split())
        if not text:
            return ""
        text = mask(text, key)
        if len(text) > _QUOTE_LENGTH:
            text = text[:_QUOTE_LENGTH] + "…"
        return f": {text!r}"

    @property
    def _where(self) -> str:
        return f"{self.endpoint.name} {self.endpoint.url}"

    def _mask(self, message: str) -> str:
        return mask(message, self._key())

    def _error(self, problem: str, status: int | None = None) -> EndpointError:
        return EndpointError(self._mask(f"{self._where} {problem}"), status)


class _Shared:
    """What the threads of ``post_all`` share: answers left, the first failure, a wake-up."""

    def __init__(self, count: int) -> None:
        self._left = count
        self._failure: BaseException | None = None
        self._lock = threading.Lock()
        self._done = threading.Event()

    def stopped(self) -> bool:
        return self._done.is_set()

    def done_one(self) -> None:
        with self._lock:
            self._left -= 1
            if self._left == 0:
                self._done.set()

    def fail(self, exc: BaseException) -> None:
        with self._lock:
            if self._failure is None:
                self._failure = exc
            self._done.set()

    def wait(self) -> None:
        while not self._done.wait(0.25):  # a timed wait: Ctrl-C and alarms get through
            pass
        if self._failure is not None:
            raise self._failure
