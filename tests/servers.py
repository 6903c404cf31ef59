"""Fixtures for the embedding tests: a scripted HTTP server, a refused port, the local model's
vectors served over HTTP. Import them into a test module (``from tests.servers import ...``).

Until tests/support/fixtures.py registers ``scripted_server`` and ``refused_url`` for the whole
suite, this module makes them from the same tests/support/scripted.py; a module's own import
wins over a conftest fixture of the same name, so both can coexist.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.llama import LlamaServer
from tests.support.llama import llama_server as _llama_server
from tests.support.scripted import (
    EMBEDDINGS,
    RecordedRequest,
    Reply,
    ScriptedServer,
    embeddings_body,
)
from tests.support.scripted import refused_url as _refused_url

LOCALHOST = [pytest.mark.localhost, pytest.mark.allow_hosts(["127.0.0.1"])]
"""Marks for a module that talks to a server on 127.0.0.1 (pytest-socket lets it through)."""


@pytest.fixture
def scripted_server() -> Iterator[ScriptedServer]:
    """A programmable OpenAI-compatible server on 127.0.0.1 (see tests/support/scripted.py)."""
    server = ScriptedServer()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def llama_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LlamaServer]:
    """llama.cpp's OpenAI-compatible server over SmolLM2-135M (embeddings; key required)."""
    with _llama_server(tmp_path_factory.mktemp("llama")) as server:
        yield server


@pytest.fixture
def refused_url() -> Iterator[str]:
    """A base URL whose port refuses connections."""
    with _refused_url() as url:
        yield url


def serve_local_model(server: ScriptedServer) -> None:
    """Answer ``/v1/embeddings`` on ``server`` with the local model's vectors (float32 values)."""
    from ragchunk.backends import EmbedderSpec, load_backend

    model = load_backend(EmbedderSpec())

    def respond(request: RecordedRequest) -> Reply:
        vectors = model.embed(request.inputs)
        return Reply.json(embeddings_body([list(v) for v in vectors], model="minilm"))

    server.on(EMBEDDINGS, respond)
