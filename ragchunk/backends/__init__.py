"""Backends: the models and endpoints that give text a meaning, behind one protocol per kind.

``BACKENDS`` is the table: for each kind (``embedder``, ``chat``), name → module, imported
only when that name is used. A module exposes ``BACKEND``, an ``EmbeddingBackend`` or a
``ChatBackend`` (``backends/_spec.py``) naming its own typed options; to add a backend, write
its module and add one line here. Nothing else in ragchunk names a backend.

Embedders (``--embedder``):

- ``local`` (``backends/local.py``): a sentence-transformers model from an installed package
  or a local directory; nothing is downloaded. Needs the ``embed`` extra.
- ``openai`` (``backends/openai.py``): any OpenAI-compatible ``/v1/embeddings`` endpoint,
  over ``backends/http.py`` (timeouts, retries, a concurrency limit; the key read from an
  environment variable and never shown).

Chat models (``ChatSpec.backend``; ``backends/chat.py`` caches their answers):

- ``openai`` (``backends/openai_chat.py``): any OpenAI-compatible ``/v1/chat/completions``
  endpoint.

``backends/cache.py`` keeps vectors on disk, keyed by the model's identity and the text's hash,
so reruns cost no embedding call. ``open_embedder`` puts the pieces together.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final, TypeVar

from ragchunk import registry
from ragchunk.backends._spec import (
    ChatAnswer,
    ChatBackend,
    ChatModel,
    ChatOptions,
    Embedder,
    EmbedderOptions,
    EmbeddingBackend,
    Vector,
    at_least,
    options_from,
)
from ragchunk.errors import OptionError, UsageError
from ragchunk.settings import Chat, Embedding

if TYPE_CHECKING:
    from ragchunk.backends.cache import CachedEmbedder

__all__ = [
    "BACKENDS",
    "ChatAnswer",
    "ChatBackend",
    "ChatModel",
    "ChatOptions",
    "ChatSpec",
    "Embedder",
    "EmbedderOptions",
    "EmbedderSpec",
    "EmbeddingBackend",
    "Vector",
    "chat_backend",
    "check_embedder",
    "embedding_backend",
    "identity_of",
    "load_backend",
    "loaded_count",
    "names",
    "one_thread",
    "open_embedder",
    "use_one_thread",
]

BACKENDS: Final[dict[str, dict[str, str]]] = {
    "embedder": {
        "local": "ragchunk.backends.local",
        "openai": "ragchunk.backends.openai",
    },
    "chat": {
        "openai": "ragchunk.backends.openai_chat",
    },
}
"""Kind → name → module exposing ``BACKEND``; a plugin adds its line to its kind's table."""

Spec = TypeVar("Spec", EmbeddingBackend, ChatBackend)
_EMBEDDING: Final = Embedding()
"""The embedding settings' defaults: the one place they are written is the settings tree."""
DEFAULT_EMBEDDER: Final = _EMBEDDING.embedder
DEFAULT_CHAT: Final = "openai"
_CHAT: Final = Chat()
"""The chat settings' defaults: the one place they are written is the settings tree."""


def names(kind: str) -> tuple[str, ...]:
    """Return the names of the backends of ``kind`` (``embedder``, ``chat``), sorted."""
    return registry.names(BACKENDS[kind])


def embedding_backend(name: str) -> EmbeddingBackend:
    """Return the embedding backend registered as ``name`` (its module imported now).

    Raises:
        OptionError: no embedding backend has that name (``--embedder``).
    """
    return _lookup("embedder", name, "--embedder", EmbeddingBackend)


def chat_backend(name: str) -> ChatBackend:
    """Return the chat backend registered as ``name`` (its module imported now).

    Raises:
        OptionError: no chat backend has that name.
    """
    return _lookup("chat", name, "chat backend", ChatBackend)


def _lookup(kind: str, name: str, option: str, spec: type[Spec]) -> Spec:
    """Return the ``BACKEND`` of the module registered as ``name`` for ``kind``."""
    table = BACKENDS[kind]
    if name not in table:
        raise OptionError(option, f"must be one of {', '.join(names(kind))} (got {name!r})")
    found = registry.load(table, name, option=option, attribute="BACKEND")
    if not isinstance(found, spec):
        raise TypeError(f"{table[name]}.BACKEND is not a {spec.__name__}")
    return found


@dataclass(frozen=True, slots=True, kw_only=True)
class EmbedderSpec:
    """Which embedder to use and how to reach it; validated on construction.

    The fields are the embedding settings (``--embedder``, ``--embed-*``, ``--device``); the
    chosen backend takes those its options declare (``options``), checks them and ignores
    the rest.

    Attributes:
        backend: the ``--embedder`` name: ``local`` (sentence-transformers) or ``openai``
            (an HTTP endpoint), or any other in ``BACKENDS["embedder"]``.
        model: a local model directory or installed model name (local; default
            all-MiniLM-L6-v2), or the endpoint's model name (openai; required).
        url: the endpoint's base URL, such as ``http://127.0.0.1:8080/v1`` (openai).
        key_env: the environment variable holding the endpoint's key (sent as a bearer
            token when set; never logged, stored or shown).
        device: ``cpu``, ``cuda``, ``cuda:N`` or ``mps`` for the local model; None picks one.
        batch_size: texts per model batch or per request; None: the backend's default.
        timeout: seconds to wait for an endpoint's answer (connecting waits at most 10).
        concurrency: requests in flight at once to the endpoint.
        retries: attempts after the first on a timeout, a refused connection, 429 or 5xx.
        window_overlap: late chunking: model tokens shared by consecutive model windows.
        kind: the backend's spec (derived).
        options: the backend's own options, built from the fields above (derived).
    """

    backend: str = DEFAULT_EMBEDDER
    model: str | None = None
    url: str | None = None
    key_env: str = _EMBEDDING.embed_key_env
    device: str | None = None
    batch_size: int | None = _EMBEDDING.embed_batch_size
    timeout: float = _EMBEDDING.embed_timeout
    concurrency: int = _EMBEDDING.embed_concurrency
    retries: int = _EMBEDDING.embed_retries
    window_overlap: int = _EMBEDDING.window_overlap
    _kind: EmbeddingBackend | None = field(default=None, init=False, repr=False, compare=False)
    _options: EmbedderOptions | None = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        _check_name("embedder", self.backend, "--embedder")
        if not _all_defaults(self):  # what was set is checked now; the defaults hold
            _resolve(self, embedding_backend)
        # The numbers are checked whichever backend reads them, as the flags they are.
        at_least("--embed-batch-size", self.batch_size, 1)
        at_least("--embed-concurrency", self.concurrency, 1)
        at_least("--embed-retries", self.retries, 0)
        at_least("window_overlap", self.window_overlap, 0)
        if not 0 < self.timeout < float("inf"):
            raise OptionError(
                "--embed-timeout", f"must be a positive number of seconds (got {self.timeout})"
            )

    @property
    def kind(self) -> EmbeddingBackend:
        """The backend's spec (its module imported on first use)."""
        return self._kind if self._kind is not None else _resolve(self, embedding_backend)[0]

    @property
    def options(self) -> EmbedderOptions:
        """The backend's own options, built from the fields (on first use)."""
        found = self._options
        return found if found is not None else _resolve(self, embedding_backend)[1]

    @property
    def label(self) -> str:
        """``backend:model``: what chunk ids depend on when embeddings shape the chunks."""
        return f"{self.backend}:{self.options.model_name()}"


@dataclass(frozen=True, slots=True, kw_only=True)
class ChatSpec:
    """Which chat model to use and how; validated on construction.

    The fields are the chat settings (``--api-base``, ``--model``, ``--api-*``); the backend
    takes those its options declare (``options``), checks them and ignores the rest.

    Attributes:
        backend: the chat backend's name in ``BACKENDS["chat"]`` (``openai``).
        url: the endpoint's base URL, such as ``http://127.0.0.1:8080/v1`` (``--api-base``).
        model: the model name the endpoint serves (``--model``).
        key_env: the environment variable holding the key, sent as a bearer token when set;
            never logged, stored or shown (``--api-key-env``).
        temperature: sampling temperature; 0 makes answers repeatable where the server allows.
        max_tokens: the most tokens one answer may hold.
        timeout: seconds to wait for an answer (connecting waits at most 10).
        concurrency: requests in flight at once.
        retries: attempts after the first on a timeout, a refused connection, 429 or 5xx.
        kind: the backend's spec (derived).
        options: the backend's own options, built from the fields above (derived).
    """

    backend: str = DEFAULT_CHAT
    url: str | None = None
    model: str | None = None
    key_env: str = _CHAT.api_key_env
    temperature: float = _CHAT.temperature
    max_tokens: int = _CHAT.max_tokens
    timeout: float = _CHAT.api_timeout
    concurrency: int = _CHAT.api_concurrency
    retries: int = _CHAT.api_retries
    _kind: ChatBackend | None = field(default=None, init=False, repr=False, compare=False)
    _options: ChatOptions | None = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        _check_name("chat", self.backend, "chat backend")
        if not _all_defaults(self):  # what was set is checked now; the defaults hold
            _resolve(self, chat_backend)
        # The numbers are checked whichever backend reads them, as the flags they are.
        if not 0 <= self.temperature <= 2:
            raise OptionError("--temperature", f"must be between 0 and 2 (got {self.temperature})")
        at_least("--max-tokens", self.max_tokens, 1)
        at_least("--api-concurrency", self.concurrency, 1)
        at_least("--api-retries", self.retries, 0)
        if not 0 < self.timeout < float("inf"):
            raise OptionError(
                "--api-timeout", f"must be a positive number of seconds (got {self.timeout})"
            )

    @property
    def kind(self) -> ChatBackend:
        """The backend's spec (its module imported on first use)."""
        return self._kind if self._kind is not None else _resolve(self, chat_backend)[0]

    @property
    def options(self) -> ChatOptions:
        """The backend's own options, built from the fields (on first use)."""
        found = self._options
        return found if found is not None else _resolve(self, chat_backend)[1]

    @property
    def ready(self) -> bool:
        """Whether the backend has what it needs to ask the model (a URL and a model)."""
        return self.options.ready()

    @property
    def label(self) -> str:
        """What chunk ids depend on when a model writes the chunks (``model@url``)."""
        return self.options.label()


def _check_name(kind: str, name: str, option: str) -> None:
    """Raise ``OptionError`` unless ``name`` is a backend of ``kind`` (nothing is imported)."""
    if name not in BACKENDS[kind]:
        raise OptionError(option, f"must be one of {', '.join(names(kind))} (got {name!r})")


def _all_defaults(spec: object) -> bool:
    """Return whether every field of a spec holds its default (valid by construction)."""
    fields = dataclasses.fields(spec)  # type: ignore[arg-type]  # a dataclass instance
    return all(getattr(spec, f.name) == f.default for f in fields if f.init)


def _resolve(spec: Any, lookup: Callable[[str], Any]) -> tuple[Any, Any]:
    """Import a spec's backend and build its options; kept on the spec (a frozen dataclass).

    A spec of defaults resolves on first use, so a run that embeds nothing and asks no chat
    model imports no backend module.

    Raises:
        OptionError: a bad value for the backend's options.
    """
    kind = lookup(spec.backend)
    options = options_from(kind.options, spec)
    object.__setattr__(spec, "_kind", kind)
    object.__setattr__(spec, "_options", options)
    return kind, options


def check_embedder(spec: EmbedderSpec, *, why: str, tokens: bool = False) -> None:
    """Check, before any input is read, that ``spec`` can work here (imports nothing heavy).

    Args:
        spec: the embedder asked for.
        why: what needs it, for the message (``--strategy semantic``, ``--embed``).
        tokens: token vectors are needed (late chunking).

    Raises:
        UsageError: the backend's packages or model are not installed (the message says what
            to install), or token vectors are asked of a backend that gives none.
    """
    spec.options.check(why, tokens=tokens)
    if tokens and not spec.kind.tokens:
        raise UsageError(
            f"{why} needs token vectors, which --embedder {spec.backend} does not give"
        )


def open_embedder(spec: EmbedderSpec, cache_dir: str | None) -> CachedEmbedder:
    """Return the embedder of ``spec`` behind the vector cache (``cache_dir`` None: no disk).

    The model or client is made on first use and kept for the life of the process, so every
    input a worker chunks shares one loaded model.
    """
    from ragchunk.backends.cache import CachedEmbedder

    return CachedEmbedder(spec, cache_dir)


def identity_of(spec: EmbedderSpec) -> str:
    """Return what cached vectors of ``spec`` are keyed on, without loading any model.

    Raises:
        BackendError: the model cannot be found (the local default model's package).
    """
    return spec.options.identity()


def load_backend(spec: EmbedderSpec) -> Embedder:
    """Return the raw embedder of ``spec`` (loaded once per process).

    Raises:
        BackendError: the model cannot be found or loaded.
    """
    found = _LOADED.get(spec)
    if found is None:
        found = _LOADED[spec] = spec.options.load()
    return found


def loaded_count() -> int:
    """Return how many models and clients this process has made.

    A worker's memory grows by a model's size once, which is no leak to retire it for.
    """
    return len(_LOADED)


def use_one_thread() -> None:
    """Run models on one thread: for worker processes that already fill the cores."""
    _ONE_THREAD[0] = True


def one_thread() -> bool:
    """Return whether backends load their models to run on one thread (``use_one_thread``)."""
    return _ONE_THREAD[0]


_LOADED: dict[EmbedderSpec, Embedder] = {}
"""Embedders made in this process, by spec: a model is loaded once per worker."""
_ONE_THREAD: list[bool] = [False]
