"""Endpoints that hold a run: answers past the size cap, trickled answers, the circuit breaker.

Each fault is injected by the scripted server on 127.0.0.1 (``tests/support/scripted.py``):
a flood of bytes with or without its length, a body sent a byte at a time, refusals in a row.
"""

from __future__ import annotations

import time

import pytest

from ragchunk.backends import guards
from ragchunk.backends.http import MAX_ANSWER, Endpoint, EndpointError, JsonClient
from ragchunk.backends.openai import OpenAIEmbedder, OpenAIOptions
from tests.servers import LOCALHOST
from tests.support.scripted import EMBEDDINGS, Reply, ScriptedServer

pytestmark = [*LOCALHOST, pytest.mark.timeout(60)]
MIB = 1024 * 1024


def client(url: str, **settings: object) -> JsonClient:
    defaults: dict[str, object] = {"name": "embedding endpoint", "backoff": 0.01, "retries": 0}
    return JsonClient(Endpoint(url=url, **{**defaults, **settings}))  # type: ignore[arg-type]


def url_of(server: ScriptedServer) -> str:
    return server.base_url + "/embeddings"


def test_an_answer_declared_past_the_cap_is_refused_unread(
    scripted_server: ScriptedServer,
) -> None:
    url = url_of(scripted_server)
    scripted_server.script(EMBEDDINGS, Reply.flooded(300 * MIB))
    with pytest.raises(EndpointError) as raised:
        client(url, max_answer=MIB, retries=3).post({})
    assert str(raised.value) == (
        f"embedding endpoint {url} announced an answer of 300 MiB, past the cap of 1 MiB on one "
        "answer; stopped reading"
    )
    assert len(scripted_server.calls()) == 1  # never retried


def test_an_undeclared_flood_stops_at_the_cap(scripted_server: ScriptedServer) -> None:
    url = url_of(scripted_server)
    scripted_server.script(EMBEDDINGS, Reply.flooded(1536 * MIB, declare=False))
    started = time.monotonic()
    with pytest.raises(EndpointError) as raised:
        client(url, max_answer=MIB).post({})
    assert str(raised.value) == (
        f"embedding endpoint {url} answered more than 1 MiB, past the cap of 1 MiB on one "
        "answer; stopped reading"
    )
    assert time.monotonic() - started < 10
    for _ in range(100):  # the flood ends once the client has closed the connection
        if scripted_server.flooded:
            break
        time.sleep(0.05)
    (sent,) = scripted_server.flooded
    assert sent < 64 * MIB  # what the client read, plus the sockets' buffers


def test_the_embedders_cap_is_64_mib_or_2_mib_a_text() -> None:
    def cap(batch_size: int) -> int:
        options = OpenAIOptions(url="http://127.0.0.1:9/v1", model="m", batch_size=batch_size)
        return OpenAIEmbedder(options)._client.endpoint.max_answer

    assert MAX_ANSWER == 64 * MIB
    assert cap(32) == 64 * MIB
    assert cap(100) == 200 * MIB


def test_a_trickled_answer_is_cut_at_the_deadline_and_tried_once_more(
    scripted_server: ScriptedServer,
) -> None:
    url = url_of(scripted_server)
    scripted_server.on(EMBEDDINGS, lambda _r: Reply.trickled({"data": [0.5] * 40}, 0.2))
    started = time.monotonic()
    with pytest.raises(EndpointError) as raised:
        client(url, read_timeout=1.0, retries=4).post({})
    # a byte every 0.2 s never trips a socket timeout of 1 s: the deadline is the whole attempt
    assert (
        str(raised.value)
        == f"embedding endpoint {url} did not answer within 1 s (after 2 attempts)"
    )
    assert time.monotonic() - started < 5
    assert len(scripted_server.calls()) == 2  # two stalls end the request, whatever the retries


def test_a_trickle_within_the_deadline_is_read(scripted_server: ScriptedServer) -> None:
    scripted_server.script(EMBEDDINGS, Reply.trickled({"ok": 1}, 0.02))
    assert client(url_of(scripted_server), read_timeout=5.0).post({}) == {"ok": 1}


def test_the_breaker_skips_an_endpoint_after_five_failures_in_a_row(
    scripted_server: ScriptedServer,
) -> None:
    url = url_of(scripted_server)
    scripted_server.on(EMBEDDINGS, lambda _r: Reply.error(503))
    endpoint = client(url)
    for _ in range(guards.BREAKER_FAILURES):
        with pytest.raises(EndpointError, match="answered HTTP 503"):
            endpoint.post({})
    started = time.monotonic()
    with pytest.raises(EndpointError) as raised:
        client(url).post({})  # another client of the URL, in the same process
    assert raised.value.skipped
    assert time.monotonic() - started < 0.5
    assert str(raised.value) == (
        f"embedding endpoint {url} skipped: it failed 5 requests in a row (the last answered "
        """HTTP 503: '{"error": {"message": "scripted 503", "type": "scripted", "code": 503}}'); """
        "not asked again for 60 s"
    )
    assert len(scripted_server.calls()) == guards.BREAKER_FAILURES


def test_the_breaker_tries_again_after_the_cooldown(
    scripted_server: ScriptedServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(guards, "BREAKER_COOLDOWN", 0.3)
    url = url_of(scripted_server)
    scripted_server.script(EMBEDDINGS, *[Reply.error(500)] * 6)
    scripted_server.on(EMBEDDINGS, lambda _r: Reply.json({"ok": 1}))
    for _ in range(5):
        with pytest.raises(EndpointError):
            client(url).post({})
    with pytest.raises(EndpointError, match="skipped"):
        client(url).post({})
    time.sleep(0.35)
    with pytest.raises(EndpointError, match="answered HTTP 500"):  # the one try: still down
        client(url).post({})
    with pytest.raises(EndpointError, match="skipped"):  # open again at once
        client(url).post({})
    time.sleep(0.35)
    assert client(url).post({}) == {"ok": 1}
    assert client(url).post({}) == {"ok": 1}  # closed
    assert len(scripted_server.calls()) == 8


def test_answers_about_one_request_never_trip_the_breaker(
    scripted_server: ScriptedServer,
) -> None:
    url = url_of(scripted_server)
    scripted_server.script(EMBEDDINGS, *[Reply.error(400)] * 4, *[Reply.error(413)] * 4)
    scripted_server.on(EMBEDDINGS, lambda _r: Reply.json({"ok": 1}))
    for _ in range(8):
        with pytest.raises(EndpointError, match="answered HTTP 4"):
            client(url).post({})
    assert client(url).post({}) == {"ok": 1}


def test_an_answer_resets_the_count(scripted_server: ScriptedServer) -> None:
    url = url_of(scripted_server)
    failures = [Reply.error(502)] * 4
    scripted_server.script(EMBEDDINGS, *failures, Reply.json({}), *failures, Reply.json({}))
    for expected in [*["fail"] * 4, "ok", *["fail"] * 4, "ok"]:
        if expected == "ok":
            assert client(url).post({}) == {}
        else:
            with pytest.raises(EndpointError, match="HTTP 502"):
                client(url).post({})


def test_a_refused_key_trips_the_breaker(scripted_server: ScriptedServer) -> None:
    url = url_of(scripted_server)
    scripted_server.on(EMBEDDINGS, lambda _r: Reply.error(401))
    for _ in range(5):
        with pytest.raises(EndpointError, match="HTTP 401"):
            client(url).post({})
    with pytest.raises(EndpointError, match="skipped"):
        client(url).post({})
