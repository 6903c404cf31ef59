"""The llama.cpp server fixture answers chat and embeddings like an OpenAI endpoint."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from tests.support.http import Response, request
from tests.support.llama import LlamaServer, llama_server
from tests.support.processes import group_members

pytestmark = [pytest.mark.slow, pytest.mark.localhost]

PROPOSITIONS_SCHEMA = {
    "type": "object",
    "properties": {"propositions": {"type": "array", "items": {"type": "string"}}},
    "required": ["propositions"],
}
SYSTEM = "Decompose the text into short standalone facts. Answer in JSON."
TEXT = "The station opened in 1902. It has two platforms and a small cafe."
MESSAGES = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": TEXT}]


def _post(server: LlamaServer, path: str, payload: object) -> Response:
    return request(f"{server.base_url}{path}", payload, headers=server.headers, timeout=120)


def test_chat_completion(llama_server: LlamaServer) -> None:
    answer = _post(
        llama_server,
        "/chat/completions",
        {
            "model": llama_server.model,
            "messages": [{"role": "user", "content": "Name one colour."}],
            "temperature": 0,
            "max_tokens": 16,
        },
    )

    assert answer.status == 200, answer.body
    body = answer.json()
    assert body["model"] == llama_server.model
    content = body["choices"][0]["message"]["content"]
    assert isinstance(content, str)
    assert content.strip()
    usage = body["usage"]
    assert 0 < usage["completion_tokens"] <= 16
    assert usage["total_tokens"] == usage["prompt_tokens"] + usage["completion_tokens"]


def test_chat_json_object_with_schema_is_constrained(llama_server: LlamaServer) -> None:
    answer = _post(
        llama_server,
        "/chat/completions",
        {
            "model": llama_server.model,
            "messages": MESSAGES,
            "temperature": 0,
            "max_tokens": 200,
            "response_format": {"type": "json_object", "schema": PROPOSITIONS_SCHEMA},
        },
    )

    assert answer.status == 200, answer.body
    choice = answer.json()["choices"][0]
    assert choice["finish_reason"] == "stop"
    parsed = json.loads(choice["message"]["content"])
    assert set(parsed) == {"propositions"}
    assert all(isinstance(p, str) for p in parsed["propositions"])


def test_openai_json_schema_form_is_refused(llama_server: LlamaServer) -> None:
    # llama-cpp-python accepts only {"type": "json_object", "schema": ...}; OpenAI's own form is
    # refused with a 500. A client must fall back (plain JSON instructions) on such an endpoint.
    answer = _post(
        llama_server,
        "/chat/completions",
        {
            "model": llama_server.model,
            "messages": MESSAGES,
            "max_tokens": 50,
            "response_format": {
                "type": "json_schema",
                "json_schema": {"name": "propositions", "schema": PROPOSITIONS_SCHEMA},
            },
        },
    )

    assert answer.status == 500
    assert "json_object" in answer.json()["error"]["message"]


def test_embeddings_one_vector_per_input(llama_server: LlamaServer) -> None:
    texts = ["The train left at noon.", "Bananas are yellow.", "The train left at noon."]
    answer = _post(llama_server, "/embeddings", {"model": llama_server.model, "input": texts})

    assert answer.status == 200, answer.body
    data = answer.json()["data"]
    assert [d["index"] for d in data] == [0, 1, 2]
    vectors = [d["embedding"] for d in data]
    assert all(len(v) == llama_server.dimension for v in vectors)
    assert all(isinstance(x, float) and math.isfinite(x) for v in vectors for x in v)
    assert vectors[0] == pytest.approx(vectors[2], abs=1e-5)
    assert vectors[0] != pytest.approx(vectors[1], abs=1e-3)


def test_requests_without_the_key_are_refused(llama_server: LlamaServer) -> None:
    answer = request(f"{llama_server.base_url}/embeddings", {"input": ["a"]}, timeout=30)
    assert answer.status == 401


def test_server_stops_without_leftovers(tmp_path: Path) -> None:
    with llama_server(tmp_path) as server:
        assert group_members(server.pid) == [server.pid]
    assert group_members(server.pid) == []
