"""Helpers of the embedding tests beside the suite's fixtures (``tests/support/fixtures.py``
gives ``scripted_server``, ``refused_url`` and ``llama_server`` to every test): the marks of a
module that talks to 127.0.0.1, and the local model's vectors served over HTTP.
"""

from __future__ import annotations

import pytest

from tests.support.scripted import (
    EMBEDDINGS,
    RecordedRequest,
    Reply,
    ScriptedServer,
    embeddings_body,
)

LOCALHOST = [pytest.mark.localhost, pytest.mark.allow_hosts(["127.0.0.1"])]
"""Marks for a module that talks to a server on 127.0.0.1 (pytest-socket lets it through)."""


def serve_local_model(server: ScriptedServer) -> None:
    """Answer ``/v1/embeddings`` on ``server`` with the local model's vectors (float32 values)."""
    from ragchunk.backends import EmbedderSpec, load_backend

    model = load_backend(EmbedderSpec())

    def respond(request: RecordedRequest) -> Reply:
        vectors = model.embed(request.inputs)
        return Reply.json(embeddings_body([list(v) for v in vectors], model="minilm"))

    server.on(EMBEDDINGS, respond)
