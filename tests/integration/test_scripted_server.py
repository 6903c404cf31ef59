"""The scripted server answers each request as programmed and records every request."""

from __future__ import annotations

import json
import math
import threading
import time
import urllib.error

import pytest

from tests.support.http import Response, request
from tests.support.scripted import (
    CHAT,
    EMBEDDINGS,
    Reply,
    ScriptedServer,
    chat_answer,
    chat_body,
    embeddings_body,
    fake_embeddings,
    unit_vector,
)

pytestmark = pytest.mark.localhost
KEY = "sk-scripted-secret"


def _embed(server: ScriptedServer, texts: list[str], timeout: float = 5.0) -> Response:
    return request(
        f"{server.base_url}/embeddings",
        {"model": "m", "input": texts},
        headers={"Authorization": f"Bearer {KEY}"},
        timeout=timeout,
    )


def test_429_with_retry_after_then_200(scripted_server: ScriptedServer) -> None:
    vectors = [[1.0, 0.0], [0.0, 1.0]]
    scripted_server.script(
        EMBEDDINGS, Reply.error(429, retry_after=2), Reply.json(embeddings_body(vectors))
    )

    first = _embed(scripted_server, ["a", "b"])
    second = _embed(scripted_server, ["a", "b"])

    assert first.status == 429
    assert first.headers["retry-after"] == "2"
    assert first.json()["error"]["code"] == 429
    assert second.status == 200
    assert [d["embedding"] for d in second.json()["data"]] == vectors
    calls = scripted_server.calls(EMBEDDINGS)
    assert len(calls) == 2
    assert all(c.headers["authorization"] == f"Bearer {KEY}" for c in calls)
    assert calls[0].inputs == ["a", "b"]
    assert all(KEY.encode() not in c.body for c in calls)
    assert scripted_server.pending(EMBEDDINGS) == 0


def test_default_responders_after_the_script(scripted_server: ScriptedServer) -> None:
    scripted_server.on(EMBEDDINGS, fake_embeddings(dim=4))
    scripted_server.on(CHAT, chat_answer('["one fact"]'))

    embedded = _embed(scripted_server, ["x", "y", "x"]).json()["data"]
    chat = request(f"{scripted_server.base_url}/chat/completions", {"messages": []}).json()

    assert [d["embedding"] for d in embedded] == [unit_vector(t, 4) for t in ("x", "y", "x")]
    assert math.isclose(sum(v * v for v in embedded[0]["embedding"]), 1.0)
    assert chat["choices"][0]["message"]["content"] == '["one fact"]'
    assert chat["usage"]["total_tokens"] == chat["usage"]["prompt_tokens"] + 2
    assert [c.path for c in scripted_server.calls()] == [EMBEDDINGS, CHAT]


def test_wrong_vector_count_and_dimension(scripted_server: ScriptedServer) -> None:
    scripted_server.script(
        EMBEDDINGS, fake_embeddings(dim=4, count_delta=-1), fake_embeddings(dim=4, dim_delta=1)
    )

    fewer = _embed(scripted_server, ["a", "b", "c"]).json()["data"]
    wider = _embed(scripted_server, ["a", "b"]).json()["data"]

    assert len(fewer) == 2
    assert {len(d["embedding"]) for d in wider} == {5}


def test_malformed_json_500_and_unscripted_paths(scripted_server: ScriptedServer) -> None:
    scripted_server.script(CHAT, Reply.raw(b'{"choices": [tru'), Reply.error(500))

    malformed = request(f"{scripted_server.base_url}/chat/completions", {"messages": []})
    failed = request(f"{scripted_server.base_url}/chat/completions", {"messages": []})
    unscripted = request(f"{scripted_server.base_url}/models")

    assert malformed.status == 200
    assert malformed.headers["content-type"] == "application/json"
    with pytest.raises(json.JSONDecodeError):
        malformed.json()
    assert failed.status == 500
    assert unscripted.status == 404


def test_hang_outlasts_the_client_timeout_and_stop_cuts_it_short() -> None:
    server = ScriptedServer()
    server.script(EMBEDDINGS, Reply.hang(60, then=Reply.json(embeddings_body([[1.0]]))))
    started = time.monotonic()
    with pytest.raises((TimeoutError, urllib.error.URLError)):
        _embed(server, ["a"], timeout=0.5)
    assert time.monotonic() - started < 5

    stopping = threading.Thread(target=server.stop)
    stopping.start()
    stopping.join(timeout=5)
    assert not stopping.is_alive()
    assert len(server.calls()) == 1


def test_dropped_connection(scripted_server: ScriptedServer) -> None:
    scripted_server.script(CHAT, Reply.dropped())
    with pytest.raises((ConnectionError, urllib.error.URLError)):
        request(f"{scripted_server.base_url}/chat/completions", {"messages": []})


def test_refused_connection(refused_url: str) -> None:
    with pytest.raises(urllib.error.URLError) as caught:
        request(f"{refused_url}/embeddings", {"input": ["a"]}, timeout=5)
    assert isinstance(caught.value.reason, ConnectionRefusedError)


def test_chat_body_is_openai_shaped() -> None:
    body = chat_body("hello there", prompt_tokens=7)
    assert body["choices"][0]["message"] == {"role": "assistant", "content": "hello there"}
    assert body["usage"] == {"prompt_tokens": 7, "completion_tokens": 2, "total_tokens": 9}


def test_a_responder_that_raises_is_reported() -> None:
    server = ScriptedServer()
    try:
        server.script(EMBEDDINGS, lambda request: Reply.json(request.json()["missing"]))
        with pytest.raises((ConnectionError, urllib.error.URLError)):
            _embed(server, ["a"])
    finally:
        server.stop()
    assert [type(e) for e in server.errors] == [KeyError]
