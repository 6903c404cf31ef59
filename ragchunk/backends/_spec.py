"""The shape of a backend: the protocol of each kind and the spec a backend module exposes.

Two kinds exist. An embedding backend's module exposes ``BACKEND = EmbeddingBackend(...)``:
its typed options (a frozen dataclass implementing ``EmbedderOptions``, built from the
``EmbedderSpec`` fields of the same names) make its ``Embedder``. A chat backend's module
exposes ``BACKEND = ChatBackend(...)``: its options (``ChatOptions``, built from ``ChatSpec``)
make its ``ChatModel``. The tables in ``backends/__init__.py`` name the modules; nothing else
in ragchunk names a backend.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final, Protocol, TypeAlias, TypeVar

from ragchunk.errors import OptionError

if TYPE_CHECKING:
    from array import array

    from ragchunk.model import ChatRequest

Vector: TypeAlias = "array[float]"
"""A unit vector: an ``array.array`` of typecode ``f`` (float32)."""


class Embedder(Protocol):
    """Text → unit vectors; with a local model, token vectors too.

    An embedder turns a batch of texts into unit vectors (float32). One that holds a model
    can also give token vectors: ``token_offsets`` says where each of the model's tokens lies
    in a text, and ``pool`` returns, for character spans of that text, the L2-normalised mean
    of the vectors of the tokens inside each (late chunking).
    """

    @property
    def identity(self) -> str:
        """What cached vectors are keyed on: the backend, the model and its revision."""
        ...

    @property
    def model(self) -> str:
        """The model's name as records show it (``metadata.embedding_model``)."""
        ...

    @property
    def has_tokens(self) -> bool:
        """Whether ``token_offsets`` and ``pool`` work (a local model)."""
        ...

    def embed(self, texts: Sequence[str]) -> list[Vector]:
        """Return one unit vector per text, in order.

        Raises:
            BackendError: the model or endpoint failed (one sentence naming it).
        """
        ...

    def token_offsets(self, text: str) -> list[tuple[int, int]]:
        """Return the character span of each of the model's tokens in ``text``, in order.

        Raises:
            TokenMappingError: the tokenizer's offsets cannot be mapped back onto ``text``.
            BackendError: the backend has no tokens, or the model failed.
        """
        ...

    def pool(self, text: str, spans: Sequence[tuple[int, int]]) -> list[Vector | None]:
        """Encode ``text`` once (windowed) and pool the token vectors inside each span.

        A span holding no token gets None. Spans are absolute, half-open, in order.

        Raises:
            BackendError: the backend has no tokens, or the model failed.
        """
        ...


class EmbedderOptions(Protocol):
    """An embedding backend's own options: a frozen dataclass, validated on construction.

    ``EmbedderSpec`` builds it from its fields of the same names (and has checked the ranges
    of its numbers); it is pickled to worker processes with the plan.
    """

    def model_name(self) -> str:
        """Return the model's name as records show it (``metadata.embedding_model``)."""
        ...

    def identity(self) -> str:
        """Return what cached vectors are keyed on, without loading any model.

        Raises:
            BackendError: the model cannot be found.
        """
        ...

    def check(self, why: str, *, tokens: bool) -> None:
        """Check, before any input is read, that the backend can work here.

        Imports nothing heavy. ``why`` names what needs it (``--embed``); ``tokens`` says
        token vectors are needed (late chunking).

        Raises:
            UsageError: one sentence naming what is missing.
        """
        ...

    def load(self) -> Embedder:
        """Return the model or client (the caller keeps one per process).

        Raises:
            BackendError: the model cannot be found or loaded.
        """
        ...


@dataclass(frozen=True, slots=True, kw_only=True, eq=False, repr=False)
class EmbeddingBackend:
    """What an embedding backend's module exposes as ``BACKEND``.

    Attributes:
        name: its ``--embedder`` name (the table's key).
        summary: one line for listings.
        options: its options class, called with the ``EmbedderSpec`` fields it declares.
        tokens: whether its embedders give token vectors (late chunking).
    """

    name: str
    summary: str
    options: Callable[..., EmbedderOptions]
    tokens: bool = False


@dataclass(frozen=True, slots=True)
class ChatAnswer:
    """A chat model's answer: its text and the tokens the call spent (0 when not reported)."""

    content: str
    tokens_in: int = 0
    tokens_out: int = 0


class ChatModel(Protocol):
    """A chat model: a question in, the answer's text out (uncached; ``ChatClient`` caches)."""

    @property
    def name(self) -> str:
        """What it is, for messages (``chat endpoint``)."""
        ...

    @property
    def url(self) -> str:
        """Where it is, for messages (an endpoint's URL)."""
        ...

    def complete(self, request: ChatRequest) -> ChatAnswer:
        """Return the answer to ``request``.

        Raises:
            BackendError: the model or endpoint failed (one sentence naming it).
        """
        ...


class ChatOptions(Protocol):
    """A chat backend's own options, built by ``ChatSpec`` from its fields of the same names."""

    def ready(self) -> bool:
        """Return whether the options say enough to ask the model."""
        ...

    def label(self) -> str:
        """Return what chunk ids depend on when this model writes the chunks."""
        ...

    def identity(self) -> tuple[str, ...]:
        """Return what cached answers are keyed on, besides the sampling and the messages."""
        ...

    def load(self) -> ChatModel:
        """Return the model or client (no call is made yet)."""
        ...


@dataclass(frozen=True, slots=True, kw_only=True, eq=False, repr=False)
class ChatBackend:
    """What a chat backend's module exposes as ``BACKEND``.

    Attributes:
        name: its name (the table's key; ``ChatSpec.backend``).
        summary: one line for listings.
        options: its options class, called with the ``ChatSpec`` fields it declares.
        forget: forgets what it learnt about its models in this process (as a new one starts).

    A spec holds its backend's ``BACKEND``, and crosses to worker processes with the plan: its
    callables are module-level names (pickled by reference), never lambdas.
    """

    name: str
    summary: str
    options: Callable[..., ChatOptions]
    forget: Callable[[], None] | None = None


def at_least(option: str, value: int | None, least: int) -> None:
    """Raise ``OptionError`` unless ``value`` (given as ``option``) is at least ``least``.

    None is an option left to its default, which the backend chooses.
    """
    if value is not None and value < least:
        raise OptionError(option, f"must be at least {least} (got {value})")


def check_url(option: str, url: str) -> None:
    """Raise ``OptionError`` unless ``url`` (given as ``option``) is an HTTP(S) URL."""
    if not url.startswith(("http://", "https://")):
        raise OptionError(option, f"must start with http:// or https:// (got {url!r})")


Options = TypeVar("Options")


def options_from(make: Callable[..., Options], spec: object) -> Options:
    """Return ``make`` called with the attributes of ``spec`` that its parameters name.

    A parameter ``spec`` has no attribute for keeps its default (a backend's own setting).
    """
    names = [name for name in inspect.signature(make).parameters if name not in _DERIVED]
    return make(**{name: getattr(spec, name) for name in names if hasattr(spec, name)})


_DERIVED: Final = frozenset({"backend", "kind", "options"})
"""A spec's attributes that are not settings (never passed to a backend's options)."""
