"""A scripted, fault-injecting OpenAI-compatible HTTP server for tests (stdlib only).

The server runs in a thread on 127.0.0.1 at a free port. Tests program it per endpoint with a queue
of replies, each used for one request in arrival order; when a queue is empty the endpoint's default
responder answers (deterministic fake embeddings or a fixed chat answer, see `fake_embeddings` and
`chat_answer`), or 404 when it has none. Every request is recorded (method, path, headers, body) so
tests can count calls and check that no API key leaks anywhere but the `Authorization` header.

    server.script("/v1/embeddings", Reply.error(429, retry_after=1), Reply.json(body))
    server.script("/v1/chat/completions", Reply.raw(b"{not json"), Reply.hang(30))

`refused_url()` gives a base URL whose port refuses connections (bound, never listening).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import socket
import sys
import threading
import time
from collections import defaultdict, deque
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

EMBEDDINGS = "/v1/embeddings"
CHAT = "/v1/chat/completions"


@dataclass(frozen=True, slots=True)
class RecordedRequest:
    """One request as the server received it."""

    method: str
    path: str
    headers: Mapping[str, str]
    body: bytes
    received_at: float

    def json(self) -> Any:
        """Return the body parsed as JSON."""
        return json.loads(self.body)

    @property
    def inputs(self) -> list[str]:
        """Return the texts of an embeddings request (`input` as a list)."""
        value = self.json()["input"]
        return [value] if isinstance(value, str) else list(value)


Responder = Callable[[RecordedRequest], "Reply"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Reply:
    """What the server does with one request: answer, wait first, or drop the connection."""

    status: int = 200
    body: bytes = b""
    headers: Mapping[str, str] = field(default_factory=dict)
    delay: float = 0.0  # seconds before answering (a hang when longer than the client's timeout)
    drop: bool = False  # close the connection without sending a status line
    trickle: float = 0.0  # seconds between the bytes of the body (a slowloris answer)
    flood: int = 0  # bytes of a JSON array streamed after the status line (an answer bomb)
    declare: bool = True  # with flood: send its Content-Length (else: read until closed)

    @classmethod
    def json(
        cls, payload: Any, status: int = 200, headers: Mapping[str, str] | None = None
    ) -> Reply:
        """Answer with `payload` as JSON."""
        return cls(
            status=status,
            body=json.dumps(payload).encode(),
            headers={"Content-Type": "application/json", **(headers or {})},
        )

    @classmethod
    def raw(cls, body: bytes, status: int = 200, content_type: str = "application/json") -> Reply:
        """Answer with these exact bytes (e.g. malformed JSON under a JSON content type)."""
        return cls(status=status, body=body, headers={"Content-Type": content_type})

    @classmethod
    def error(cls, status: int, retry_after: float | str | None = None) -> Reply:
        """Answer with an OpenAI-style error body; `retry_after` sets the Retry-After header."""
        headers = {} if retry_after is None else {"Retry-After": str(retry_after)}
        payload = {"error": {"message": f"scripted {status}", "type": "scripted", "code": status}}
        return cls.json(payload, status=status, headers=headers)

    @classmethod
    def hang(cls, seconds: float, then: Reply | None = None) -> Reply:
        """Wait `seconds` (cut short when the server stops), then answer like `then` (200 `{}`)."""
        base = then or cls.json({})
        return cls(status=base.status, body=base.body, headers=base.headers, delay=seconds)

    @classmethod
    def trickled(cls, payload: Any, seconds_per_byte: float = 1.0) -> Reply:
        """Answer `payload` as JSON, one byte every `seconds_per_byte` (cut short on stop)."""
        return dataclasses.replace(cls.json(payload), trickle=seconds_per_byte)

    @classmethod
    def flooded(cls, size: int, *, declare: bool = True) -> Reply:
        """Stream a JSON array of `size` bytes, made as it is sent (never held in memory)."""
        return cls(headers={"Content-Type": "application/json"}, flood=size, declare=declare)

    @classmethod
    def dropped(cls) -> Reply:
        """Close the connection without answering (the client sees a reset or empty reply)."""
        return cls(drop=True)


def unit_vector(text: str, dim: int) -> list[float]:
    """Return a deterministic unit vector for `text` (same text, same vector)."""
    digest = hashlib.sha256(text.encode()).digest()
    while len(digest) < dim:
        digest += hashlib.sha256(digest).digest()
    raw = [b - 127.5 for b in digest[:dim]]
    norm = math.sqrt(sum(x * x for x in raw)) or 1.0
    return [x / norm for x in raw]


def embeddings_body(vectors: Sequence[Sequence[float]], model: str = "scripted-embed") -> Any:
    """Return an OpenAI `/v1/embeddings` response body holding `vectors` in order."""
    return {
        "object": "list",
        "model": model,
        "data": [
            {"object": "embedding", "index": i, "embedding": list(v)} for i, v in enumerate(vectors)
        ],
        "usage": {"prompt_tokens": 0, "total_tokens": 0},
    }


def chat_body(content: str, model: str = "scripted-chat", prompt_tokens: int = 10) -> Any:
    """Return an OpenAI `/v1/chat/completions` response body whose one choice says `content`."""
    completion_tokens = max(1, len(content.split()))
    return {
        "id": "chatcmpl-scripted",
        "object": "chat.completion",
        "created": 0,
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content},
                "finish_reason": "stop",
            }
        ],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        },
    }


def fake_embeddings(dim: int = 8, *, count_delta: int = 0, dim_delta: int = 0) -> Responder:
    """Return a responder giving each input its `unit_vector`.

    `count_delta` adds (or removes) vectors and `dim_delta` changes their length, to script a
    server that answers with the wrong number of vectors or the wrong dimension.
    """

    def respond(request: RecordedRequest) -> Reply:
        texts = request.inputs
        vectors = [unit_vector(t, dim + dim_delta) for t in texts]
        if count_delta > 0:
            vectors += [unit_vector(f"extra {i}", dim + dim_delta) for i in range(count_delta)]
        elif count_delta < 0:
            vectors = vectors[:count_delta]
        return Reply.json(embeddings_body(vectors))

    return respond


def chat_answer(content: str) -> Responder:
    """Return a responder that answers every chat request with `content`."""
    return lambda _request: Reply.json(chat_body(content))


def echo_key(status: int = 401) -> Responder:
    """Return a responder refusing every request with its bearer token quoted in the error.

    The token is JSON-escaped in the body, as OpenAI's "Incorrect API key provided: ..." is.
    """

    def respond(request: RecordedRequest) -> Reply:
        token = request.headers.get("authorization", "").removeprefix("Bearer ")
        message = f"Incorrect API key provided: {token}. Check it."
        return Reply.json({"error": {"message": message, "code": status}}, status=status)

    return respond


class ScriptedServer:
    """An OpenAI-compatible server whose every answer the test decides; see the module docstring."""

    def __init__(self) -> None:
        self.requests: list[RecordedRequest] = []
        self.errors: list[BaseException] = []  # raised while answering (a responder's bug)
        self.flooded: list[int] = []  # bytes each `Reply.flooded` got out before it stopped
        self._queues: dict[str, deque[Reply | Responder]] = defaultdict(deque)
        self._defaults: dict[str, Responder] = {}
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._httpd = _Server(("127.0.0.1", 0), _Handler)
        self._httpd.owner = self
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()

    @property
    def port(self) -> int:
        """The port the server listens on (127.0.0.1)."""
        return int(self._httpd.server_address[1])

    @property
    def base_url(self) -> str:
        """The OpenAI-style base URL, ending in `/v1`."""
        return f"http://127.0.0.1:{self.port}/v1"

    def script(self, path: str, *replies: Reply | Responder) -> None:
        """Queue replies for `path`; each answers one request, in order."""
        with self._lock:
            self._queues[path].extend(replies)

    def on(self, path: str, responder: Responder) -> None:
        """Answer requests to `path` with `responder` once its queue is empty."""
        with self._lock:
            self._defaults[path] = responder

    def calls(self, path: str | None = None) -> list[RecordedRequest]:
        """Return the recorded requests (to `path` only when given), in arrival order."""
        with self._lock:
            return [r for r in self.requests if path is None or r.path == path]

    def pending(self, path: str) -> int:
        """Return how many scripted replies for `path` are still unused."""
        with self._lock:
            return len(self._queues[path])

    def stop(self) -> None:
        """Stop serving; hanging replies return at once; the port is closed."""
        self._stopping.set()
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)

    def _next_reply(self, request: RecordedRequest) -> Reply:
        with self._lock:
            self.requests.append(request)
            queue = self._queues[request.path]
            step: Reply | Responder | None = queue.popleft() if queue else None
            if step is None:
                step = self._defaults.get(request.path)
        if step is None:
            return Reply.error(404)
        return step if isinstance(step, Reply) else step(request)


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False
    owner: ScriptedServer

    def handle_error(self, _request: Any, _client_address: Any) -> None:
        """Keep what a handler raised; a client that gave up (timeout, reset) is no error."""
        error = sys.exc_info()[1]
        if error is not None and not isinstance(error, ConnectionError):
            self.owner.errors.append(error)


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    protocol_version = "HTTP/1.1"

    def do_GET(self) -> None:
        self._serve()

    def do_POST(self) -> None:
        self._serve()

    def log_message(self, format: str, *args: Any) -> None:
        """Keep test output clean: requests are recorded, not logged."""

    def _serve(self) -> None:
        owner = self.server.owner
        length = int(self.headers.get("Content-Length") or 0)
        request = RecordedRequest(
            method=self.command,
            path=self.path.split("?", 1)[0],
            headers={k.lower(): v for k, v in self.headers.items()},
            body=self.rfile.read(length) if length else b"",
            received_at=time.monotonic(),
        )
        reply = owner._next_reply(request)
        if reply.delay and owner._stopping.wait(reply.delay):
            self.close_connection = True
            return
        if reply.drop:
            self.close_connection = True
            self.connection.shutdown(socket.SHUT_RDWR)
            return
        self.send_response(reply.status)
        for name, value in reply.headers.items():
            self.send_header(name, value)
        if reply.flood:
            self._flood(reply)
            return
        self.send_header("Content-Length", str(len(reply.body)))
        self.end_headers()
        if not reply.trickle:
            self.wfile.write(reply.body)
            return
        for k in range(len(reply.body)):
            self.wfile.write(reply.body[k : k + 1])
            self.wfile.flush()
            if owner._stopping.wait(reply.trickle):
                self.close_connection = True
                return

    def _flood(self, reply: Reply) -> None:
        """Send `[0.0,0.0,...` up to `reply.flood` bytes; stop when the client goes away."""
        if reply.declare:
            self.send_header("Content-Length", str(reply.flood))
        else:
            self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True
        block = b"0.0," * 16384
        sent = 0
        try:
            self.wfile.write(b"[")
            sent = 1
            while sent < reply.flood and not self.server.owner._stopping.is_set():
                piece = block[: reply.flood - sent]
                self.wfile.write(piece)
                sent += len(piece)
        except OSError:  # the client stopped reading and closed: what a cap should do
            pass
        self.server.owner.flooded.append(sent)


@contextmanager
def refused_url() -> Iterator[str]:
    """Yield a base URL on 127.0.0.1 whose port refuses connections while the context is open.

    The port is bound but never listens, so connecting fails at once with ECONNREFUSED and no
    other process can take the port meanwhile.
    """
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        sock.bind(("127.0.0.1", 0))
        yield f"http://127.0.0.1:{sock.getsockname()[1]}/v1"
    finally:
        sock.close()
