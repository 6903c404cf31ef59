"""A chat endpoint that fails: the answer cache keeps no invalid answer, a down endpoint is
skipped after a few failures with one warning, and a run in which no call succeeded exits 1.

Against the scripted server on 127.0.0.1 and a port that refuses connections.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from ragchunk.backends.chat import ChatClient, ChatSpec, forget_modes
from ragchunk.backends.guards import BREAKER_FAILURES
from ragchunk.model import ChatRequest
from tests.servers import LOCALHOST
from tests.support.scripted import CHAT, RecordedRequest, Reply, ScriptedServer, chat_body

pytestmark = [*LOCALHOST, pytest.mark.timeout(120)]
runner = CliRunner()
SENTENCE = "The pump at station {n} failed in March and engineers replaced its bearing."


@pytest.fixture(autouse=True)
def _fresh_modes() -> Iterator[None]:
    forget_modes()
    yield
    forget_modes()


def app():  # type: ignore[no-untyped-def]
    from ragchunk.cli import app as ragchunk_app

    return ragchunk_app


def passages(tmp_path: Path, count: int, name: str = "notes.txt") -> Path:
    doc = tmp_path / name
    doc.write_text("\n\n".join(SENTENCE.format(n=n) for n in range(count)) + "\n", "utf-8")
    return doc


def run(url: str, *args: str) -> Any:
    command = ["split", *args, "-s", "proposition", "--size", "20", "--jobs", "1"]
    command += ["--api-base", url, "--model", "m"]
    return runner.invoke(app(), command)


def good(request: RecordedRequest) -> Reply:
    user = request.json()["messages"][1]["content"]
    passage = user.split("<<<\n", 1)[1].rsplit("\n>>>", 1)[0]
    return Reply.json(chat_body(json.dumps({"propositions": [passage.strip()]})))


@pytest.mark.parametrize(
    "broken",
    ["{not json", '{"propositions": [1, 2]}', '{"answer": "none"}', '"just a string"'],
)
def test_an_invalid_answer_is_never_cached(
    scripted_server: ScriptedServer, tmp_path: Path, broken: str
) -> None:
    doc = passages(tmp_path, 3)
    cache = ["--cache-dir", str(tmp_path / "cache")]
    scripted_server.on(CHAT, lambda _r: Reply.json(chat_body(broken)))
    first = run(scripted_server.base_url, str(doc), *cache)
    assert first.exit_code == 0, first.stderr  # answers came: the passages fall back, warned
    assert first.stderr.count("kept verbatim as a passage chunk") == 3
    scripted_server.on(CHAT, good)  # the endpoint is fixed
    second = run(scripted_server.base_url, str(doc), *cache)
    assert second.exit_code == 0, second.stderr
    assert len(scripted_server.calls(CHAT)) >= 6  # asked again, not replayed from the cache
    kinds = [json.loads(line)["metadata"]["kind"] for line in second.stdout.splitlines()]
    assert kinds == ["proposition"] * 3
    third = run(scripted_server.base_url, str(doc), *cache)
    assert "0 calls (0 failed), 3 answered by the cache" in third.stderr  # valid: kept


def test_an_invalid_answer_already_on_disk_is_asked_again(
    scripted_server: ScriptedServer, tmp_path: Path
) -> None:
    """An entry written before answers were checked (or by a broken endpoint) is a miss."""
    schema = {"type": "object", "properties": {"propositions": {"type": "array"}}}
    request = ChatRequest("system", "user", schema, "v1", name="propositions")
    spec = ChatSpec(url=scripted_server.base_url, model="m")
    poisoned = ChatClient(spec, str(tmp_path))
    assert poisoned.disk is not None
    payload = json.dumps({"content": "<html>502 Bad Gateway</html>", "usage": [0, 0]})
    poisoned.disk.put(poisoned.key(request), payload.encode())
    scripted_server.on(CHAT, lambda _r: Reply.json(chat_body('{"propositions": ["A."]}')))
    client = ChatClient(spec, str(tmp_path))
    assert not client.stored(request)
    reply = client.ask(request)
    assert (reply.content, reply.cached) == ('{"propositions": ["A."]}', False)
    assert ChatClient(spec, str(tmp_path)).ask(request).cached  # the good answer replaced it


def test_a_down_endpoint_is_skipped_after_five_failures_with_one_warning(
    refused_url: str, tmp_path: Path
) -> None:
    docs = [str(passages(tmp_path, 24, f"notes-{k}.txt")) for k in range(2)]  # 48 passages
    started = time.monotonic()
    result = run(refused_url, *docs, "--no-cache", "--api-concurrency", "1")  # exact counts
    elapsed = time.monotonic() - started
    assert result.exit_code == 1, result.stderr
    url = f"{refused_url}/chat/completions"
    lines = result.stderr.splitlines()
    fallbacks = [line for line in lines if "kept verbatim as a passage chunk" in line]
    assert len(fallbacks) == BREAKER_FAILURES
    assert all("refused the connection (after 3 attempts)" in line for line in fallbacks)
    (skipped,) = [line for line in lines if "skipped" in line and line.startswith("warning:")]
    assert skipped == (
        f"warning: {docs[0]}: chat endpoint {url} skipped: it failed 5 requests in a row (the "
        "last refused the connection (after 3 attempts)); not asked again for 60 s; passages "
        "kept verbatim meanwhile"
    )
    assert "chat model: 5 calls (5 failed, 43 skipped)" in result.stderr
    assert lines[-1] == (
        "error: every call to the chat model failed (5 failed, 43 skipped): every record is a "
        "fallback"
    )
    records = [json.loads(line) for line in result.stdout.splitlines()]
    assert len(records) == 48
    assert all(r["metadata"]["kind"] == "passage" for r in records)
    assert elapsed < 20  # each of 48 passages used to pay its retries: 38 s


def test_a_run_with_some_answers_exits_0(scripted_server: ScriptedServer, tmp_path: Path) -> None:
    scripted_server.script(CHAT, Reply.error(500), Reply.error(500))
    scripted_server.on(CHAT, good)
    result = run(
        scripted_server.base_url,
        str(passages(tmp_path, 3)),
        "--no-cache",
        "--api-retries",
        "0",
        "--api-concurrency",
        "1",
    )
    assert result.exit_code == 0, result.stderr
    assert "every call" not in result.stderr
