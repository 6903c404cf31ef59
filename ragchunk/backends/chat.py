"""The chat client: any chat backend's answers, cached on disk, asked concurrently.

``ChatSpec`` says which chat backend to use (``BACKENDS["chat"]``; ``openai``, any
OpenAI-compatible ``/v1/chat/completions`` endpoint, is the one built in) and how; the backend
takes the fields its options declare. ``ChatClient`` asks the backend's ``ChatModel`` through
an answer cache: ``backends/cache.py``'s ``DiskCache`` (kind ``chat-v1``), so the conventions
are the embeddings' own.

An answer is cached under a hash of the model's identity (an endpoint's URL and model), the
temperature, the prompt's version and the messages (which hold the passage), and holds the
answer's text and usage, never a key. A rerun over the same text asks the model nothing. Only
an answer that is JSON of the request's schema is written to disk (``backends/answers.py``),
and one read back that is not is asked again: a cache never replays a broken endpoint's
answers to a run against the fixed one. An answer holding the key is refused. A call the
endpoint's circuit breaker skipped (``backends/guards.py``) is a reply marked ``skipped``,
counted apart from the calls made.
Requests go out at most ``concurrency`` at once on daemon threads; one request's failure is
its own reply's ``error``, never the others', and Ctrl-C is never held up by a slow endpoint.
"""

from __future__ import annotations

import json
import queue
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Final, TypeVar, cast

from ragchunk.backends import ChatSpec as ChatSpec  # where it was defined before
from ragchunk.errors import BackendError, OptionError
from ragchunk.model import ChatReply

if TYPE_CHECKING:
    from ragchunk.backends._spec import ChatAnswer, ChatBackend, ChatModel
    from ragchunk.model import ChatRequest

CACHE_KIND: Final = "chat-v1"
_USED: dict[str, ChatBackend] = {}
"""The chat backends this process made clients of (``forget_modes`` resets them)."""

T = TypeVar("T")
R = TypeVar("R")


@dataclass(slots=True)
class ChatTally:
    """What a client spent: calls made, answers from the cache, tokens, failed calls.

    ``skipped`` counts the calls never made: the endpoint's circuit breaker was open.
    """

    calls: int = 0
    cached: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    failures: int = 0
    skipped: int = 0
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
            "skipped": self.skipped,
        }


class ChatClient:
    """Asks one chat model, through the answer cache (see the module docstring).

    Attributes:
        name: what the model is, for messages (``chat endpoint``).
        url: where it is, for messages.
        tally: what it spent.
    """

    def __init__(self, spec: ChatSpec, cache_dir: str | None) -> None:
        if not spec.ready:
            raise OptionError("--api-base", "and --model are needed to call a chat endpoint")
        # The disk cache loads with the first client: every run reads ChatSpec (an option of
        # the plan), few ask a model.
        from ragchunk.backends.cache import DiskCache
        from ragchunk.backends.keys import check_key

        check_key(spec.key_env or None, "--api-key-env")
        self.spec = spec
        self.model: ChatModel = spec.options.load()
        _USED[spec.kind.name] = spec.kind
        self.url = self.model.url
        self.name = self.model.name
        self.tally = ChatTally()
        self.disk = None if cache_dir is None else DiskCache(cache_dir, CACHE_KIND)
        self._memory: dict[str, bytes] = {}  # answers this client got (for --check's rerun)
        self._failed: dict[str, ChatReply] = {}  # and its failures, never written to disk

    @property
    def problem(self) -> str | None:
        """Why the disk cache stopped being written, if it did (one warning's worth)."""
        return None if self.disk is None else self.disk.broken

    def key(self, request: ChatRequest) -> str:
        """Return the cache key of ``request`` (model, temperature, prompt, text)."""
        from ragchunk.backends.cache import cache_key

        spec = self.spec
        return cache_key(
            *spec.options.identity(),
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

    def stored(self, request: ChatRequest) -> bool:
        """Return whether the disk cache holds a usable answer to ``request`` (a dry run's)."""
        from ragchunk.backends.answers import fits

        payload = None if self.disk is None else self.disk.get(self.key(request))
        content = None if payload is None else _stored_content(payload)
        return content is not None and fits(content, request.schema)

    def ask(self, request: ChatRequest) -> ChatReply:
        """Return the model's answer to ``request``, from the cache when it was asked before.

        A failed call is a reply with an ``error`` (counted in ``tally.failures``; a call the
        circuit breaker skipped in ``tally.skipped``). Only an answer that fits the request's
        schema is written to disk; one read back that does not is asked again.
        """
        from ragchunk.backends.answers import fits

        key = self.key(request)
        if key in self._failed:  # --check's second run sees what the first saw
            return self._failed[key]
        stored = self._memory.get(key)
        schema_checked = stored is None
        if stored is None and self.disk is not None:
            stored = self.disk.get(key)
        content = None if stored is None else _stored_content(stored)
        if content is not None and (not schema_checked or fits(content, request.schema)):
            self.tally.add(cached=1)
            return ChatReply(content=content, cached=True)
        answer, failed = self._complete(request)
        if failed is not None:
            self._failed[key] = failed
            return failed
        assert answer is not None  # no failure: an answer
        usage = [answer.tokens_in, answer.tokens_out]
        payload = json.dumps({"content": answer.content, "usage": usage}, ensure_ascii=False)
        self._memory[key] = payload.encode("utf-8")
        if self.disk is not None and fits(answer.content, request.schema):
            self.disk.put(key, self._memory[key])
        return ChatReply(content=answer.content)

    def _complete(self, request: ChatRequest) -> tuple[ChatAnswer | None, ChatReply | None]:
        """Ask the model; return its answer, or the reply of a failed (or skipped) call."""
        from ragchunk.backends.keys import mask, read_key

        try:
            answer = self.model.complete(request)
        except BackendError as exc:
            skipped = bool(getattr(exc, "skipped", False))
            self.tally.add(**({"skipped": 1} if skipped else {"calls": 1, "failures": 1}))
            return None, ChatReply(error=str(exc), skipped=skipped)
        key = read_key(self.spec.key_env or None)
        if mask(answer.content, key) != answer.content:  # an echo of the key: never kept
            self.tally.add(calls=1, failures=1)
            return None, ChatReply(error=f"{self.name} {self.url} answered with the API key in it")
        self.tally.add(calls=1, tokens_in=answer.tokens_in, tokens_out=answer.tokens_out)
        return answer, None


def _stored_content(payload: bytes) -> str | None:
    try:
        stored = json.loads(payload)
    except (UnicodeDecodeError, json.JSONDecodeError):
        return None
    content = stored.get("content") if isinstance(stored, dict) else None
    return content if isinstance(content, str) else None


def forget_modes() -> None:
    """Forget what the chat backends learnt of their endpoints (as a new process starts).

    The openai backend remembers which structured-output mode each endpoint took.
    """
    for kind in _USED.values():
        if kind.forget is not None:
            kind.forget()


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
