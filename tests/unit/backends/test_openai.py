"""backends/openai.py against real servers: a scripted one for bad answers, llama.cpp's for real."""

from __future__ import annotations

import math

import pytest

from ragchunk.backends import EmbedderSpec, load_backend
from ragchunk.backends.http import EndpointError
from ragchunk.backends.openai import OpenAIEmbedder, OpenAIOptions, embeddings_url
from tests.servers import LOCALHOST
from tests.support.scripted import (
    EMBEDDINGS,
    RecordedRequest,
    Reply,
    ScriptedServer,
    embeddings_body,
    fake_embeddings,
)

pytestmark = [*LOCALHOST, pytest.mark.timeout(60)]


def embedder(server: ScriptedServer, **settings: object) -> OpenAIEmbedder:
    spec = EmbedderSpec(
        backend="openai",
        url=server.base_url,
        model="m",
        retries=0,
        **settings,  # type: ignore[arg-type]
    )
    assert isinstance(spec.options, OpenAIOptions)
    return OpenAIEmbedder(spec.options)


def norm(vector: object) -> float:
    return math.sqrt(sum(v * v for v in vector))  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("base", "url"),
    [
        ("http://h:1/v1", "http://h:1/v1/embeddings"),
        ("http://h:1/v1/", "http://h:1/v1/embeddings"),
        ("http://h:1/v1/embeddings", "http://h:1/v1/embeddings"),
    ],
)
def test_the_url_is_the_api_root_plus_embeddings(base: str, url: str) -> None:
    assert embeddings_url(base) == url


def test_batches_go_concurrently_and_come_back_in_order(scripted_server: ScriptedServer) -> None:
    scripted_server.on(EMBEDDINGS, fake_embeddings(dim=8))
    texts = [f"text {n}" for n in range(7)]
    vectors = embedder(scripted_server, batch_size=2).embed(texts)
    calls = scripted_server.calls(EMBEDDINGS)
    assert sorted(len(c.inputs) for c in calls) == [1, 2, 2, 2]
    assert all(c.json()["model"] == "m" for c in calls)
    assert sorted(t for c in calls for t in c.inputs) == texts
    assert [len(v) for v in vectors] == [8] * 7
    assert all(norm(v) == pytest.approx(1.0, abs=1e-6) for v in vectors)
    again = embedder(scripted_server, batch_size=7).embed(texts)
    assert [list(v) for v in again] == [list(v) for v in vectors]  # same text, same vector


def test_items_are_put_in_index_order_and_normalised(scripted_server: ScriptedServer) -> None:
    body = embeddings_body([[0.0, 3.0], [4.0, 0.0]])
    body["data"].reverse()  # index 1 first
    scripted_server.script(EMBEDDINGS, Reply.json(body))
    first, second = embedder(scripted_server).embed(["a", "b"])
    assert list(first) == [0.0, 1.0]
    assert list(second) == [1.0, 0.0]


@pytest.mark.parametrize(
    ("reply", "problem"),
    [
        (fake_embeddings(dim=4, count_delta=1), "answered 3 vectors for 2 texts"),
        (fake_embeddings(dim=4, count_delta=-1), "answered 1 vectors for 2 texts"),
        (lambda _r: Reply.json({"object": "list"}), "answered an answer without a data list"),
        (
            lambda _r: Reply.json(embeddings_body([[1.0, "x"], [1.0, 0.0]])),
            "answered a vector holding something other than numbers",
        ),
        (
            lambda _r: Reply.json(embeddings_body([[0.0, 0.0], [1.0, 0.0]])),
            "answered a zero or non-finite vector",
        ),
        (
            lambda _r: Reply.json(
                {"data": [{"index": 0, "embedding": [1.0]}, {"index": 0, "embedding": [1.0]}]}
            ),
            "answered indexes that do not match the texts sent",
        ),
    ],
)
def test_garbage_answers_are_one_line_naming_the_endpoint(
    scripted_server: ScriptedServer, reply: object, problem: str
) -> None:
    scripted_server.on(EMBEDDINGS, reply)  # type: ignore[arg-type]
    with pytest.raises(EndpointError) as raised:
        embedder(scripted_server).embed(["a", "b"])
    assert (
        str(raised.value) == f"embedding endpoint {scripted_server.base_url}/embeddings {problem}"
    )


def test_a_change_of_dimension_between_batches_is_refused(scripted_server: ScriptedServer) -> None:
    scripted_server.script(EMBEDDINGS, fake_embeddings(dim=8), fake_embeddings(dim=9))
    with pytest.raises(EndpointError, match="answered vectors of 9 dimensions after 8"):
        embedder(scripted_server, batch_size=1, concurrency=1).embed(["a", "b"])


def test_no_texts_no_request(scripted_server: ScriptedServer) -> None:
    assert embedder(scripted_server).embed([]) == []
    assert scripted_server.calls() == []


def test_no_token_vectors_from_an_endpoint(scripted_server: ScriptedServer) -> None:
    with pytest.raises(Exception, match="gives no token vectors"):
        embedder(scripted_server).token_offsets("text")


@pytest.mark.slow
def test_llama_cpp_server_gives_unit_vectors_with_the_key(
    llama_server: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    server = llama_server
    monkeypatch.setenv("RAGCHUNK_TEST_LLAMA_KEY", server.api_key)  # type: ignore[attr-defined]
    spec = EmbedderSpec(
        backend="openai",
        url=server.base_url,  # type: ignore[attr-defined]
        model=server.model,  # type: ignore[attr-defined]
        key_env="RAGCHUNK_TEST_LLAMA_KEY",
        batch_size=2,
    )
    vectors = load_backend(spec).embed(["The tide rose.", "Volcanoes erupt.", "The tide fell."])
    assert [len(v) for v in vectors] == [server.dimension] * 3  # type: ignore[attr-defined]
    assert all(norm(v) == pytest.approx(1.0, abs=1e-5) for v in vectors)
    assert list(vectors[0]) != list(vectors[1])


def test_the_request_is_what_openai_clients_send(scripted_server: ScriptedServer) -> None:
    seen: list[RecordedRequest] = []

    def answer(request: RecordedRequest) -> Reply:
        seen.append(request)
        return fake_embeddings(dim=3)(request)

    scripted_server.on(EMBEDDINGS, answer)
    embedder(scripted_server).embed(["only"])
    assert seen[0].method == "POST"
    assert seen[0].path == "/v1/embeddings"
    assert seen[0].json() == {"model": "m", "input": ["only"]}


def test_requests_hold_32_texts_unless_embed_batch_size_says(
    scripted_server: ScriptedServer,
) -> None:
    scripted_server.on(EMBEDDINGS, fake_embeddings(dim=4))
    embedder(scripted_server).embed([f"text {n}" for n in range(70)])
    assert sorted(len(c.inputs) for c in scripted_server.calls(EMBEDDINGS)) == [6, 32, 32]
