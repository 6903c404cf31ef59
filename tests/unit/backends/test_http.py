"""backends/http.py against a real server on 127.0.0.1: retries, timeouts, garbage, the key."""

from __future__ import annotations

import threading
import time

import pytest

from ragchunk.backends.guards import retry_after as _retry_after
from ragchunk.backends.http import Endpoint, EndpointError, JsonClient
from tests.servers import LOCALHOST
from tests.support.scripted import EMBEDDINGS, RecordedRequest, Reply, ScriptedServer

pytestmark = [*LOCALHOST, pytest.mark.timeout(30)]

KEY = "sk-test-do-not-print-4711"


def client(url: str, **settings: object) -> JsonClient:
    defaults: dict[str, object] = {"name": "embedding endpoint", "backoff": 0.01, "retries": 2}
    return JsonClient(Endpoint(url=url, **{**defaults, **settings}))  # type: ignore[arg-type]


def url_of(server: ScriptedServer) -> str:
    return server.base_url + "/embeddings"


def test_an_answer_is_decoded(scripted_server: ScriptedServer) -> None:
    scripted_server.script(EMBEDDINGS, Reply.json({"data": [1, 2]}))
    assert client(url_of(scripted_server)).post({"input": ["a"]}) == {"data": [1, 2]}
    (request,) = scripted_server.calls()
    assert request.json() == {"input": ["a"]}
    assert request.headers["content-type"] == "application/json"
    assert "authorization" not in request.headers  # no key variable set: no header


def test_429_waits_as_retry_after_asks(scripted_server: ScriptedServer) -> None:
    scripted_server.script(EMBEDDINGS, Reply.error(429, retry_after=1), Reply.json({"ok": 1}))
    assert client(url_of(scripted_server)).post({}) == {"ok": 1}
    first, second = scripted_server.calls()
    assert second.received_at - first.received_at >= 0.95  # not the 0.01 s backoff


def test_503_retry_after_is_capped(scripted_server: ScriptedServer) -> None:
    scripted_server.script(EMBEDDINGS, Reply.error(503, retry_after=3600), Reply.json({"ok": 1}))
    started = time.monotonic()
    assert client(url_of(scripted_server), max_wait=0.2).post({}) == {"ok": 1}
    assert time.monotonic() - started < 5


def test_5xx_is_retried_then_reported_with_the_attempts(scripted_server: ScriptedServer) -> None:
    url = url_of(scripted_server)
    scripted_server.script(EMBEDDINGS, *[Reply.error(500)] * 3)
    with pytest.raises(EndpointError) as raised:
        client(url, retries=2).post({})
    assert str(raised.value) == (
        f"embedding endpoint {url} answered HTTP 500: "
        """'{"error": {"message": "scripted 500", "type": "scripted", "code": 500}}' """
        "(after 3 attempts)"
    )
    assert len(scripted_server.calls()) == 3


def test_a_refused_connection_names_the_endpoint(refused_url: str) -> None:
    url = refused_url + "/embeddings"
    with pytest.raises(EndpointError) as raised:
        client(url, retries=1).post({})
    assert (
        str(raised.value) == f"embedding endpoint {url} refused the connection (after 2 attempts)"
    )


def test_a_slow_answer_times_out(scripted_server: ScriptedServer) -> None:
    url = url_of(scripted_server)
    scripted_server.script(EMBEDDINGS, Reply.hang(10))
    started = time.monotonic()
    with pytest.raises(EndpointError) as raised:
        client(url, read_timeout=0.3, retries=0).post({})
    assert time.monotonic() - started < 3
    assert str(raised.value) == f"embedding endpoint {url} did not answer within 0.3 s"


def test_a_dropped_connection_is_retried(scripted_server: ScriptedServer) -> None:
    scripted_server.script(EMBEDDINGS, Reply.dropped(), Reply.json({"ok": 1}))
    assert client(url_of(scripted_server)).post({}) == {"ok": 1}


def test_garbage_is_one_line_and_not_retried(scripted_server: ScriptedServer) -> None:
    url = url_of(scripted_server)
    scripted_server.script(EMBEDDINGS, Reply.raw(b"{not json\n<html>oops</html>"))
    with pytest.raises(EndpointError) as raised:
        client(url).post({})
    assert str(raised.value) == (
        f"embedding endpoint {url} answered something that is not JSON: "
        "'{not json <html>oops</html>'"
    )
    assert len(scripted_server.calls()) == 1


def test_the_key_is_sent_and_never_shown(
    scripted_server: ScriptedServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RAGCHUNK_TEST_KEY", KEY)
    url = url_of(scripted_server)
    scripted_server.script(EMBEDDINGS, Reply.raw(f'{{"error": "bad key {KEY}"}}'.encode(), 401))
    with pytest.raises(EndpointError) as raised:
        client(url, key_env="RAGCHUNK_TEST_KEY").post({})
    assert KEY not in str(raised.value)
    assert (
        str(raised.value)
        == f"""embedding endpoint {url} answered HTTP 401: '{{"error": "bad key ***"}}'"""
    )
    assert scripted_server.calls()[0].headers["authorization"] == f"Bearer {KEY}"


def test_post_all_keeps_the_order_and_the_concurrency_limit(
    scripted_server: ScriptedServer,
) -> None:
    lock = threading.Lock()
    active, peak = [0], [0]

    def slow(request: RecordedRequest) -> Reply:
        with lock:
            active[0] += 1
            peak[0] = max(peak[0], active[0])
        time.sleep(0.1)
        with lock:
            active[0] -= 1
        return Reply.json({"echo": request.json()["n"]})

    scripted_server.on(EMBEDDINGS, slow)
    answers = client(url_of(scripted_server), concurrency=3).post_all([{"n": n} for n in range(9)])
    assert answers == [{"echo": n} for n in range(9)]
    assert peak[0] == 3


def test_post_all_raises_the_first_failure(scripted_server: ScriptedServer) -> None:
    def answer(request: RecordedRequest) -> Reply:
        return Reply.error(400) if request.json()["n"] == 2 else Reply.json({})

    scripted_server.on(EMBEDDINGS, answer)
    with pytest.raises(EndpointError, match="answered HTTP 400"):
        client(url_of(scripted_server), concurrency=2).post_all([{"n": n} for n in range(6)])


@pytest.mark.parametrize(
    ("header", "seconds"),
    [("2", 2.0), ("0.5", 0.5), ("-3", 0.0), ("soon", None), (None, None), ("nan", None)],
)
def test_retry_after_values(header: str | None, seconds: float | None) -> None:
    assert _retry_after(header) == seconds


def test_retry_after_as_a_date() -> None:
    from email.utils import formatdate

    waited = _retry_after(formatdate(time.time() + 30, usegmt=True))
    assert waited is not None
    assert 25 < waited <= 30


def test_only_http_urls() -> None:
    with pytest.raises(EndpointError, match="ftp://x/v1 is not an http"):
        client("ftp://x/v1")
