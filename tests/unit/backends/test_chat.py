"""The chat client against the scripted server: modes, retries, timeouts, the cache, the key."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from ragchunk.backends.chat import ChatClient, ChatSpec, forget_modes
from ragchunk.backends.openai_chat import chat_url
from ragchunk.errors import OptionError
from ragchunk.model import ChatRequest
from tests.servers import LOCALHOST
from tests.support.scripted import CHAT, Reply, ScriptedServer, chat_answer, chat_body

pytestmark = [*LOCALHOST, pytest.mark.timeout(60)]
KEY = "sk-ragchunk-chat-secret-77aa"
SCHEMA = {"type": "object", "properties": {"propositions": {"type": "array"}}}
REQUEST = ChatRequest("system words", "user words", SCHEMA, "v1", name="propositions")
OTHER = ChatRequest("system words", "other words", SCHEMA, "v1", name="propositions")


@pytest.fixture(autouse=True)
def _fresh_modes(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("RAGCHUNK_CHAT_KEY", KEY)
    forget_modes()
    yield
    forget_modes()


def client(server: ScriptedServer, cache: Path | None = None, **spec: object) -> ChatClient:
    given = {"url": server.base_url, "model": "m", "key_env": "RAGCHUNK_CHAT_KEY", **spec}
    return ChatClient(ChatSpec(**given), None if cache is None else str(cache))  # type: ignore[arg-type]


def test_the_url_and_the_spec_are_checked() -> None:
    assert chat_url("http://h:1/v1/") == "http://h:1/v1/chat/completions"
    assert chat_url("http://h:1/v1/chat/completions") == "http://h:1/v1/chat/completions"
    with pytest.raises(OptionError, match="--api-base"):
        ChatSpec(url="ftp://x", model="m")
    with pytest.raises(OptionError, match="--api-concurrency"):
        ChatSpec(url="http://x", model="m", concurrency=0)
    with pytest.raises(OptionError, match="--api-base"):
        ChatClient(ChatSpec(), None)


def test_a_good_answer_sends_the_schema_the_key_and_temperature_0(
    scripted_server: ScriptedServer,
) -> None:
    scripted_server.on(CHAT, chat_answer('{"propositions": ["A fact."]}'))
    chat = client(scripted_server)
    reply = chat.ask(REQUEST)
    assert reply.content == '{"propositions": ["A fact."]}'
    assert reply.error is None
    (call,) = scripted_server.calls(CHAT)
    body = call.json()
    assert body["model"] == "m"
    assert body["temperature"] == 0
    assert body["messages"] == [
        {"role": "system", "content": "system words"},
        {"role": "user", "content": "user words"},
    ]
    assert body["response_format"]["type"] == "json_schema"
    assert body["response_format"]["json_schema"]["schema"] == SCHEMA
    assert call.headers["authorization"] == f"Bearer {KEY}"
    assert chat.tally.as_dict() == {
        "calls": 1,
        "cached": 0,
        "tokens_in": 10,
        "tokens_out": 3,  # the scripted server counts words
        "failures": 0,
        "skipped": 0,
    }


def test_a_refused_schema_falls_back_to_json_object_and_is_remembered(
    scripted_server: ScriptedServer,
) -> None:
    # llama.cpp's server answers HTTP 500 to OpenAI's json_schema form.
    scripted_server.script(CHAT, Reply.error(500))
    scripted_server.on(CHAT, chat_answer('{"propositions": []}'))
    chat = client(scripted_server)
    assert chat.ask(REQUEST).content == '{"propositions": []}'
    assert chat.ask(REQUEST).cached  # asked before: answered from memory
    assert chat.ask(OTHER).content == '{"propositions": []}'
    formats = [call.json().get("response_format") for call in scripted_server.calls(CHAT)]
    assert [f["type"] for f in formats] == ["json_schema", "json_object", "json_object"]
    assert formats[1]["schema"] == SCHEMA  # llama.cpp constrains the answer to it
    again = client(scripted_server)  # another client of the same endpoint, same process
    again.ask(ChatRequest("system words", "more words", SCHEMA, "v1"))
    assert scripted_server.calls(CHAT)[-1].json()["response_format"]["type"] == "json_object"


def test_an_endpoint_refusing_every_format_gets_plain_instructions(
    scripted_server: ScriptedServer,
) -> None:
    scripted_server.script(CHAT, Reply.error(400), Reply.error(422))
    scripted_server.on(CHAT, chat_answer("[]"))
    assert client(scripted_server).ask(REQUEST).content == "[]"
    bodies = [call.json() for call in scripted_server.calls(CHAT)]
    assert "response_format" not in bodies[-1]
    assert len(bodies) == 3


def test_429_with_retry_after_is_waited_for(scripted_server: ScriptedServer) -> None:
    scripted_server.script(CHAT, Reply.error(429, retry_after=1))
    scripted_server.on(CHAT, chat_answer("[]"))
    started = time.monotonic()
    reply = client(scripted_server, retries=2).ask(REQUEST)
    assert reply.content == "[]"
    first, second = scripted_server.calls(CHAT)
    assert second.received_at - first.received_at >= 0.9
    assert time.monotonic() - started < 10


def test_a_hang_past_the_timeout_is_a_failed_reply(scripted_server: ScriptedServer) -> None:
    scripted_server.on(CHAT, lambda _request: Reply.hang(10))
    chat = client(scripted_server, timeout=0.3, retries=1)
    reply = chat.ask(REQUEST)
    assert reply.content is None
    assert reply.error == (
        f"chat endpoint {scripted_server.base_url}/chat/completions did not answer within "
        "0.3 s (after 2 attempts)"
    )
    assert chat.tally.failures == 1


def test_the_key_is_masked_in_errors(scripted_server: ScriptedServer) -> None:
    scripted_server.on(
        CHAT, lambda _r: Reply.raw(f'{{"error": "bad key {KEY}"}}'.encode(), status=401)
    )
    reply = client(scripted_server).ask(REQUEST)
    assert reply.error is not None
    assert KEY not in reply.error
    assert "***" in reply.error


def test_answers_are_cached_on_disk_and_never_hold_the_key(
    scripted_server: ScriptedServer, tmp_path: Path
) -> None:
    scripted_server.on(CHAT, chat_answer('{"propositions": ["Cached."]}'))
    first = client(scripted_server, tmp_path)
    assert first.ask(REQUEST).cached is False
    second = client(scripted_server, tmp_path)  # a new process: only the disk remembers
    reply = second.ask(REQUEST)
    assert reply.cached is True
    assert reply.content == '{"propositions": ["Cached."]}'
    assert len(scripted_server.calls(CHAT)) == 1
    assert second.tally.as_dict()["cached"] == 1
    other = ChatRequest("system words", "user words", SCHEMA, "v2")  # a new prompt version
    assert second.ask(other).cached is False
    files = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert files
    assert all(KEY.encode() not in p.read_bytes() for p in files)


def test_ask_all_keeps_the_order_and_the_concurrency_limit(
    scripted_server: ScriptedServer,
) -> None:
    def respond(request):  # type: ignore[no-untyped-def]
        user = request.json()["messages"][1]["content"]
        return Reply(
            status=200,
            body=json.dumps(chat_body(user)).encode(),
            headers={"Content-Type": "application/json"},
            delay=0.2,
        )

    scripted_server.on(CHAT, respond)
    requests = [ChatRequest("s", f"question {k}", SCHEMA, "v1") for k in range(6)]
    replies = client(scripted_server, concurrency=3).ask_all(requests)
    assert [r.content for r in replies] == [f"question {k}" for k in range(6)]
    times = sorted(call.received_at for call in scripted_server.calls(CHAT))
    # 6 requests, 3 at a time, 0.2 s each: the fourth waits for a first answer
    assert times[3] - times[0] >= 0.15


def test_a_question_asked_twice_in_one_batch_is_asked_once(
    scripted_server: ScriptedServer,
) -> None:
    scripted_server.on(CHAT, chat_answer("[]"))
    replies = client(scripted_server).ask_all([REQUEST, OTHER, REQUEST])
    assert [r.content for r in replies] == ["[]", "[]", "[]"]
    assert len(scripted_server.calls(CHAT)) == 2
