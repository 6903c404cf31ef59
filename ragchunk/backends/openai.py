"""The ``openai`` backend: any OpenAI-compatible ``/v1/embeddings`` endpoint.

OpenAI, Ollama, vLLM, llama.cpp's server and TEI all answer ``POST {url}/embeddings`` with
``{"data": [{"index": i, "embedding": [...]}, ...]}``. Texts go in batches of ``batch_size``,
at most ``concurrency`` requests at once (``backends/http.py``). An answer is checked before
it is used: one vector per text, all of one dimension, finite numbers; anything else is an
``EndpointError`` naming the endpoint. Vectors are normalised to unit length (not every server
does it) and kept as float32.

An answer may hold at most ``ANSWER_BYTES_PER_TEXT`` bytes per text of its batch, and never
less than ``MAX_ANSWER`` (64 MiB: 32 texts of 8,192 dimensions written out in full take about
7 MiB), so a server cannot make ragchunk read a gigabyte; the key's variable is checked before
any input is read (``backends/keys.py``).
"""

from __future__ import annotations

import math
from array import array
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from ragchunk.backends._spec import EmbeddingBackend, at_least, check_url
from ragchunk.backends.keys import check_key
from ragchunk.errors import BackendError, OptionError, UsageError
from ragchunk.settings import Embedding

if TYPE_CHECKING:
    from ragchunk.backends import Vector
    from ragchunk.backends.http import EndpointError
    from ragchunk.model import JSONValue


def embeddings_url(base: str) -> str:
    """Return the URL to post to: ``base`` if it ends in ``/embeddings``, else ``base/embeddings``.

    ``base`` is the API root as OpenAI clients take it (``http://127.0.0.1:8080/v1``).
    """
    base = base.rstrip("/")
    return base if base.endswith("/embeddings") else f"{base}/embeddings"


_EMBEDDING: Final = Embedding()
"""The defaults of the embedding settings, written once in the settings tree."""
MAX_ANSWER: Final = 64 * 1024 * 1024
"""The least cap on one answer's bytes, whatever the batch size."""
ANSWER_BYTES_PER_TEXT: Final = 2 * 1024 * 1024
REQUEST_TEXTS: Final = 32
"""Texts per request unless ``--embed-batch-size`` says."""
"""The cap on one answer's bytes per text of its batch, past ``MAX_ANSWER``."""


@dataclass(frozen=True, slots=True, kw_only=True)
class OpenAIOptions:
    """The openai backend's options (``EmbedderSpec`` passes its fields of these names).

    Attributes:
        url: the API's base URL, such as ``http://127.0.0.1:8080/v1`` (``--embed-url``).
        model: the model name the endpoint serves (``--embed-model``).
        key_env: the environment variable holding the key, sent as a bearer token when set;
            never logged, stored or shown (``--embed-key-env``).
        batch_size: texts per request (``--embed-batch-size``); None: ``REQUEST_TEXTS``.
        timeout: seconds one attempt may take, from connecting (at most 10 of them) to the
            answer's last byte (``--embed-timeout``).
        concurrency: requests in flight at once (``--embed-concurrency``).
        retries: attempts after the first on a timeout, a refused connection, 429 or 5xx
            (``--embed-retries``).
    """

    url: str | None = None
    model: str | None = None
    key_env: str = _EMBEDDING.embed_key_env
    batch_size: int | None = _EMBEDDING.embed_batch_size
    timeout: float = _EMBEDDING.embed_timeout
    concurrency: int = _EMBEDDING.embed_concurrency
    retries: int = _EMBEDDING.embed_retries

    def __post_init__(self) -> None:
        if not self.url:
            raise OptionError("--embed-url", "is needed with --embedder openai")
        if not self.model:
            raise OptionError("--embed-model", "is needed with --embedder openai")
        check_url("--embed-url", self.url)
        at_least("--embed-batch-size", self.batch_size, 1)
        at_least("--embed-concurrency", self.concurrency, 1)
        at_least("--embed-retries", self.retries, 0)
        if not 0 < self.timeout < float("inf"):
            raise OptionError(
                "--embed-timeout", f"must be a positive number of seconds (got {self.timeout})"
            )

    @property
    def per_request(self) -> int:
        """Texts per request: ``batch_size``, else ``REQUEST_TEXTS``."""
        return self.batch_size or REQUEST_TEXTS

    def model_name(self) -> str:
        """Return the model name sent to the endpoint."""
        return self.model or ""

    def identity(self) -> str:
        """Return the endpoint's URL and model (the same name elsewhere may be another build)."""
        return f"openai\0{embeddings_url(self.url or '')}\0{self.model}"

    def check(self, why: str, *, tokens: bool) -> None:
        """Refuse token vectors (an endpoint returns one vector per text) and an unusable key.

        Raises:
            UsageError: ``tokens`` is asked for, or the key's variable holds what no HTTP
                header can carry (one sentence naming the variable, never the key).
        """
        check_key(self.key_env or None, "--embed-key-env")
        if tokens:
            raise UsageError(
                f"{why} needs token vectors, which only --embedder local gives "
                "(an /v1/embeddings endpoint returns one vector per text)"
            )

    def load(self) -> OpenAIEmbedder:
        """Return a client of the endpoint (no request is sent yet)."""
        return OpenAIEmbedder(self)


class OpenAIEmbedder:
    """Embeddings from an OpenAI-compatible endpoint (see the module docstring)."""

    has_tokens = False

    def __init__(self, options: OpenAIOptions) -> None:
        # http.client, ssl and email load with the first client, not with the options.
        from ragchunk.backends.http import Endpoint, JsonClient

        self._options = options
        self._model = options.model_name()
        self._url = embeddings_url(options.url or "")
        self._client = JsonClient(
            Endpoint(
                url=self._url,
                name="embedding endpoint",
                key_env=options.key_env or None,
                connect_timeout=min(10.0, options.timeout),
                read_timeout=options.timeout,
                concurrency=options.concurrency,
                retries=options.retries,
                max_answer=max(MAX_ANSWER, options.per_request * ANSWER_BYTES_PER_TEXT),
            )
        )
        self._dimensions: int | None = None

    @property
    def identity(self) -> str:
        """The endpoint's URL and model (see ``OpenAIOptions.identity``)."""
        return self._options.identity()

    @property
    def model(self) -> str:
        """The model name sent to the endpoint."""
        return self._model

    def embed(self, texts: Sequence[str]) -> list[Vector]:
        """Return a unit vector per text (see the module docstring).

        Raises:
            EndpointError: the endpoint failed or answered something unusable.
        """
        if not texts:
            return []
        size = self._options.per_request
        batches = [list(texts[i : i + size]) for i in range(0, len(texts), size)]
        bodies: list[JSONValue] = [{"model": self._model, "input": list(b)} for b in batches]
        answers = self._client.post_all(bodies)
        vectors: list[Vector] = []
        for batch, answer in zip(batches, answers, strict=True):
            vectors += self._read(answer, len(batch))
        return vectors

    def token_offsets(self, text: str) -> list[tuple[int, int]]:
        """Refuse: an embeddings endpoint gives no token vectors."""
        del text  # the protocol's signature
        raise BackendError(f"the embedding endpoint {self._url} gives no token vectors")

    def pool(self, text: str, spans: Sequence[tuple[int, int]]) -> list[Vector | None]:
        """Refuse: an embeddings endpoint gives no token vectors."""
        del text, spans  # the protocol's signature
        raise BackendError(f"the embedding endpoint {self._url} gives no token vectors")

    def _read(self, answer: JSONValue, expected: int) -> list[Vector]:
        data = answer.get("data") if isinstance(answer, dict) else None
        if not isinstance(data, list):
            raise self._garbage("an answer without a data list")
        if len(data) != expected:
            raise self._garbage(f"{len(data)} vectors for {expected} texts")
        rows: list[tuple[int, list[float]]] = []
        for position, item in enumerate(data):
            if not isinstance(item, dict) or not isinstance(item.get("embedding"), list):
                raise self._garbage("an item without an embedding list")
            index = item.get("index", position)
            if not isinstance(index, int) or isinstance(index, bool):
                raise self._garbage("an item with a non-integer index")
            values = item["embedding"]
            assert isinstance(values, list)  # checked above
            rows.append((index, self._numbers(values)))
        rows.sort(key=lambda row: row[0])
        if [index for index, _ in rows] != list(range(expected)):
            raise self._garbage("indexes that do not match the texts sent")
        return [self._unit(values) for _, values in rows]

    def _numbers(self, values: list[JSONValue]) -> list[float]:
        numbers: list[float] = []
        for value in values:
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise self._garbage("a vector holding something other than numbers")
            numbers.append(float(value))
        if self._dimensions is None:
            if not numbers:
                raise self._garbage("an empty vector")
            self._dimensions = len(numbers)
        elif len(numbers) != self._dimensions:
            raise self._garbage(f"vectors of {len(numbers)} dimensions after {self._dimensions}")
        return numbers

    def _unit(self, values: list[float]) -> Vector:
        norm = math.sqrt(math.fsum(v * v for v in values))
        if not math.isfinite(norm) or norm == 0.0:
            raise self._garbage("a zero or non-finite vector")
        return array("f", [v / norm for v in values])

    def _garbage(self, what: str) -> EndpointError:
        from ragchunk.backends.http import EndpointError

        return EndpointError(f"embedding endpoint {self._url} answered {what}")


BACKEND = EmbeddingBackend(
    name="openai",
    summary="Any OpenAI-compatible /v1/embeddings endpoint (OpenAI, Ollama, vLLM, TEI...).",
    options=OpenAIOptions,
)
