"""The ``openai`` backend: any OpenAI-compatible ``/v1/embeddings`` endpoint.

OpenAI, Ollama, vLLM, llama.cpp's server and TEI all answer ``POST {url}/embeddings`` with
``{"data": [{"index": i, "embedding": [...]}, ...]}``. Texts go in batches of ``batch_size``,
at most ``concurrency`` requests at once (``backends/http.py``). An answer is checked before
it is used: one vector per text, all of one dimension, finite numbers; anything else is an
``EndpointError`` naming the endpoint. Vectors are normalised to unit length (not every server
does it) and kept as float32.
"""

from __future__ import annotations

import math
from array import array
from collections.abc import Sequence
from typing import TYPE_CHECKING

from ragchunk.backends.http import Endpoint, EndpointError, JsonClient
from ragchunk.errors import BackendError

if TYPE_CHECKING:
    from ragchunk.backends import EmbedderSpec, Vector
    from ragchunk.model import JSONValue


def embeddings_url(base: str) -> str:
    """Return the URL to post to: ``base`` if it ends in ``/embeddings``, else ``base/embeddings``.

    ``base`` is the API root as OpenAI clients take it (``http://127.0.0.1:8080/v1``).
    """
    base = base.rstrip("/")
    return base if base.endswith("/embeddings") else f"{base}/embeddings"


def model_identity(spec: EmbedderSpec) -> str:
    """Return the endpoint's URL and model: the same model name elsewhere may be another build."""
    return f"openai\0{embeddings_url(spec.url or '')}\0{spec.model}"


class OpenAIEmbedder:
    """Embeddings from an OpenAI-compatible endpoint (see the module docstring)."""

    has_tokens = False

    def __init__(self, spec: EmbedderSpec) -> None:
        # EmbedderSpec refuses the openai backend without both.
        assert spec.url is not None
        assert spec.model is not None
        self._spec = spec
        self._model = spec.model
        self._url = embeddings_url(spec.url)
        self._client = JsonClient(
            Endpoint(
                url=self._url,
                name="embedding endpoint",
                key_env=spec.key_env or None,
                connect_timeout=min(10.0, spec.timeout),
                read_timeout=spec.timeout,
                concurrency=spec.concurrency,
                retries=spec.retries,
            )
        )
        self._dimensions: int | None = None

    @property
    def identity(self) -> str:
        """The endpoint's URL and model (see ``model_identity``)."""
        return model_identity(self._spec)

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
        size = self._spec.batch_size
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
        return EndpointError(f"embedding endpoint {self._url} answered {what}")
