"""A client for any OpenAI-compatible ``/v1/chat/completions`` endpoint, answers cached on disk.

OpenAI, Ollama, vLLM and llama.cpp's server all take ``POST {url}/chat/completions`` with
``{"model", "messages", "temperature", "response_format"}`` and answer with
``choices[0].message.content`` plus a ``usage`` of prompt and completion tokens. Transport —
timeouts, retries with backoff honouring ``Retry-After``, the key read from an environment
variable and masked in every message — is ``backends/http.py``'s ``JsonClient``; the on-disk
cache is ``backends/cache.py``'s ``DiskCache`` (kind ``chat-v1``), so the conventions are the
embeddings' own.

Structured output: the first request to an endpoint asks for the JSON schema in OpenAI's form
(``{"type": "json_schema", ...}``), an HTTP 500 then not retried; an endpoint that refuses
it (HTTP 400, 422, 500 or 501: llama.cpp's server answers 500) is asked next with
``{"type": "json_object", "schema": ...}`` (llama.cpp and vLLM constrain the answer to the
schema by grammar; others read it as plain JSON mode), then with no ``response_format`` at all.
The prompt always spells out the JSON wanted, so every mode works; the mode that worked is
remembered per endpoint for the life of the process.

An answer is cached under a hash of the endpoint's URL and model, the temperature, the prompt's
version and the messages (which hold the passage), and holds the answer's text and usage, never
the key. A rerun over the same text asks the endpoint nothing. Requests go out at most
``concurrency`` at once on daemon threads; one request's failure is its own reply's ``error``,
never the others', and Ctrl-C is never held up by a slow endpoint.
"""

from __future__ import annotations

import dataclasses
import json
import queue
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Final, TypeVar, cast

from ragchunk.errors import OptionError

if TYPE_CHECKING:
    from ragchunk.model import JSONValue

MODES: Final = ("json_schema", "json_object", "plain")
"""The ways to ask for JSON, tried in this order until the endpoint accepts one."""
_REFUSED_MODE: Final = frozenset({400, 422, 500, 501})
_MODE_OF: dict[str, str] = {}
"""The structured-output mode each endpoint URL accepted, in this process."""
_MODE_LOCK: Final = threading.Lock()
CACHE_KIND: Final = "chat-v1"

T = TypeVar("T")
R = TypeVar("R")


def chat_url(base: str) -> str:
    """Return the URL to post to: ``base`` when it ends in ``/chat/completions``, else appended.

    ``base`` is the API root as OpenAI clients take it (``http://127.0.0.1:8080/v1``).
    """
    base = base.rstrip("/")
    return base if base.endswith("/chat/completions") else f"{base}/chat/completions"


@dataclass(frozen=True, slots=True, kw_only=True)
class ChatSpec:
    """Which chat endpoint to use and how; validated on construction.

    Attributes:
        url: the endpoint's base URL, such as ``http://127.0.0.1:8080/v1`` (``--api-base``).
        model: the model name the endpoint serves (``--model``).
        key_env: the environment variable holding the key, sent as a bearer token when set;
            never logged, stored or shown (``--api-key-env``).
        temperature: sampling temperature; 0 makes answers repeatable where the server allows.
        max_tokens: the most tokens one answer may hold.
        timeout: seconds to wait for an answer (connecting waits at most 10).
        concurrency: requests in flight at once.
        retries: attempts after the first on a timeout, a refused connection, 429 or 5xx.
    """

    url: str | None = None
    model: str | None = None
    key_env: str = "OPENAI_API_KEY"
    temperature: float = 0.0
    max_tokens: int = 1024
    timeout: float = 120.0
    concurrency: int = 2
    retries: int = 2

    def __post_init__(self) -> None:
        if self.url is not None and not self.url.startswith(("http://", "https://")):
            raise OptionError(
                "--api-base", f"must start with http:// or https:// (got {self.url!r})"
            )
        if not 0 <= self.temperature <= 2:
            raise OptionError("--temperature", f"must be between 0 and 2 (got {self.temperature})")
        for option, value, least in (
            ("--max-tokens", self.max_tokens, 1),
            ("--api-concurrency", self.concurrency, 1),
            ("--api-retries", self.retries, 0),
        ):
            if value < least:
                raise OptionError(option, f"must be at least {least} (got {value})")
        if not 0 < self.timeout < float("inf"):
            raise OptionError(
                "--api-timeout", f"must be a positive number of seconds (got {self.timeout})"
            )

    @property
    def ready(self) -> bool:
        """Whether both the URL and the model are given."""
        return bool(self.url and self.model)

    @property
    def label(self) -> str:
        """``model@url``: what chunk ids depend on when a model writes the chunks."""
        return f"{self.model}@{chat_url(self.url or '')}"


@dataclass(frozen=True, slots=True)
class ChatRequest:
    """One question: a system and a user message, the JSON schema of the answer wanted.

    ``version`` names the prompt's wording; it is part of the cache key, so a new prompt
    never reuses the old one's answers.
    """

    system: str
    user: str
    schema: dict[str, JSONValue]
    version: str
    name: str = "answer"


@dataclass(frozen=True, slots=True)
class ChatReply:
    """The answer's text (``content``), or why there is none (``error``, one sentence)."""

    content: str | None = None
    error: str | None = None
    cached: bool = False


@dataclass(slots=True)
class ChatTally:
    """What a client spent: calls made, answers from the cache, tokens, failed calls."""

    calls: int = 0
    cached: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    failures: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def add(self, **counts: int) -> None:
        """Add ``counts`` to the named fields (thread-safe)."""
        with self._lock:
            for name, value in counts.items():
                setattr(self, name, getattr(self, name) + value)

    def as_dict(self) -> dict[str, int]:
        """Return the counts by name."""
        return {
            "calls": self.calls,
            "cached": self.cached,
            "tokens_in": self.tokens_in,
            "tokens_out": self.tokens_out,
            "failures": self.failures,
        }


class ChatClient:
    """Asks one endpoint, through the answer cache (see the module docstring)."""

    def __init__(self, spec: ChatSpec, cache_dir: str | None) -> None:
        if not spec.ready:
            raise OptionError("--api-base", "and --model are needed to call a chat endpoint")
        self.spec = spec
        self.url = chat_url(spec.url or "")
        self.name = "chat endpoint"
        self.tally = ChatTally()
        # The HTTP client and the disk cache load with the first client: every run reads
        # ChatSpec (an option of the plan), few ask an endpoint (http.client, ssl, email).
        from ragchunk.backends.cache import DiskCache
        from ragchunk.backends.http import Endpoint, JsonClient

        self.disk = None if cache_dir is None else DiskCache(cache_dir, CACHE_KIND)
        endpoint = Endpoint(
            url=self.url,
            name=self.name,
            key_env=spec.key_env or None,
            connect_timeout=min(10.0, spec.timeout),
            read_timeout=spec.timeout,
            concurrency=spec.concurrency,
            retries=spec.retries,
        )
        self._client = JsonClient(endpoint)
        self._memory: dict[str, bytes] = {}  # answers this client got (for --check's rerun)
        self._failed: dict[str, str] = {}  # and its failures, never written to disk
        self._probe = JsonClient(dataclasses.replace(endpoint, final=_REFUSED_MODE))

    @property
    def problem(self) -> str | None:
        """Why the disk cache stopped being written, if it did (one warning's worth)."""
        return None if self.disk is None else self.disk.broken

    def key(self, request: ChatRequest) -> str:
        """Return the cache key of ``request`` (endpoint, model, temperature, prompt, text)."""
        from ragchunk.backends.cache import cache_key

        spec = self.spec
        return cache_key(
            self.url,
            spec.model or "",
            f"t={spec.temperature:g};max={spec.max_tokens}",
            request.version,
            request.system,
            request.user,
        )

    def ask_all(self, requests: Sequence[ChatRequest]) -> list[ChatReply]:
        """Return a reply per request, in order; at most ``concurrency`` calls at once.

        Requests asked twice (two passages of the same text) are asked once.
        """
        unique = {self.key(request): request for request in requests}
        answers = each(self.ask, list(unique.values()), self.spec.concurrency)
        replies = dict(zip(unique, answers, strict=True))
        return [replies[self.key(request)] for request in requests]

    def ask(self, request: ChatRequest) -> ChatReply:
        """Return the endpoint's answer to ``request``, from the cache when it was asked before.

        A failed call is a reply with an ``error`` (counted in ``tally.failures``).
        """
        from ragchunk.backends.http import EndpointError

        key = self.key(request)
        if key in self._failed:  # --check's second run sees what the first saw
            return ChatReply(error=self._failed[key])
        stored = self._memory.get(key)
        if stored is None and self.disk is not None:
            stored = self.disk.get(key)
        if stored is not None:
            content = _stored_content(stored)
            if content is not None:
                self.tally.add(cached=1)
                return ChatReply(content=content, cached=True)
        try:
            answer = self._post(request)
            content, usage = self._read(answer)
        except EndpointError as exc:
            self.tally.add(calls=1, failures=1)
            self._failed[key] = str(exc)
            return ChatReply(error=str(exc))
        self.tally.add(calls=1, tokens_in=usage[0], tokens_out=usage[1])
        payload = json.dumps({"content": content, "usage": list(usage)}, ensure_ascii=False)
        self._memory[key] = payload.encode("utf-8")
        if self.disk is not None:
            self.disk.put(key, self._memory[key])
        return ChatReply(content=content)

    def _post(self, request: ChatRequest) -> JSONValue:
        from ragchunk.backends.http import EndpointError

        with _MODE_LOCK:
            mode, confirmed = _MODE_OF.get(self.url, MODES[0]), self.url in _MODE_OF
        while True:
            body = self._body(request, mode)
            if confirmed or mode == MODES[-1]:
                answer = self._client.post(body)
                break
            try:
                answer = self._probe.post(body)
                break
            except EndpointError as exc:
                if exc.status not in _REFUSED_MODE:  # not about the mode (retried already)
                    raise
                mode = MODES[MODES.index(mode) + 1]
        with _MODE_LOCK:
            _MODE_OF[self.url] = mode
        return answer

    def _body(self, request: ChatRequest, mode: str) -> dict[str, JSONValue]:
        spec = self.spec
        body: dict[str, JSONValue] = {
            "model": spec.model,
            "messages": [
                {"role": "system", "content": request.system},
                {"role": "user", "content": request.user},
            ],
            "temperature": spec.temperature,
            "max_tokens": spec.max_tokens,
        }
        if mode == "json_schema":
            body["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": request.name, "schema": request.schema, "strict": True},
            }
        elif mode == "json_object":
            body["response_format"] = {"type": "json_object", "schema": request.schema}
        return body

    def _read(self, answer: JSONValue) -> tuple[str, tuple[int, int]]:
        choices = answer.get("choices") if isinstance(answer, dict) else None
        first = choices[0] if isinstance(choices, list) and choices else None
        message = first.get("message") if isinstance(first, dict) else None
        content = message.get("content") if isinstance(message, dict) else None
        if not isinstance(content, str):
            from ragchunk.backends.http import EndpointError

            raise EndpointError(f"{self.name} {self.url} answered without a message content")
        assert isinstance(answer, dict)  # choices came from it
        usage = answer.get("usage")
        counts = (0, 0)
        if isinstance(usage, dict):
            counts = (_count(usage.get("prompt_tokens")), _count(usage.get("completion_tokens")))
        return content, counts


def _count(value: JSONValue) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def _stored_content(payload: bytes) -> str | None:
    try:
        stored = json.loads(payload)
    except (UnicodeDecodeError, json.JSONDecodeError):
        return None
    content = stored.get("content") if isinstance(stored, dict) else None
    return content if isinstance(content, str) else None


def forget_modes() -> None:
    """Forget which structured-output mode each endpoint took (as a new process starts)."""
    with _MODE_LOCK:
        _MODE_OF.clear()


def each(work: Callable[[T], R], items: Sequence[T], workers: int) -> list[R]:
    """Return ``[work(item) for item in items]``, at most ``workers`` at once, in order.

    The threads are daemons and the caller waits in short slices, so Ctrl-C and alarms reach
    it at once; the first exception a call raises is raised here (the others are dropped).
    """
    workers = min(workers, len(items))
    if workers <= 1:
        return [work(item) for item in items]
    results: list[R | None] = [None] * len(items)
    todo: queue.SimpleQueue[int] = queue.SimpleQueue()
    for index in range(len(items)):
        todo.put(index)
    done = threading.Event()
    lock = threading.Lock()
    state: dict[str, object] = {"left": len(items), "failure": None}

    def run() -> None:
        try:
            while not done.is_set():
                try:
                    index = todo.get_nowait()
                except queue.Empty:
                    return
                results[index] = work(items[index])
                with lock:
                    left = int(str(state["left"])) - 1
                    state["left"] = left
                    if left == 0:
                        done.set()
        except BaseException as exc:  # noqa: BLE001 - handed to the waiting thread
            with lock:
                if state["failure"] is None:
                    state["failure"] = exc
            done.set()

    for _ in range(workers):
        threading.Thread(target=run, daemon=True, name="ragchunk-chat").start()
    while not done.wait(0.25):  # a timed wait: Ctrl-C and alarms get through
        pass
    failure = state["failure"]
    if isinstance(failure, BaseException):
        raise failure
    return cast("list[R]", results)  # every slot was filled: no failure, none left
