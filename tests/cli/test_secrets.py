"""The API key never reaches a stream, an output, the cache or a log, in any of its forms.

Each run is a real ``python -m ragchunk`` against the scripted server on 127.0.0.1, with the key
in the environment as a user has it: with the carriage return and line feed of a key file saved
on Windows (refused before any request, naming the variable), or holding quotes and a backslash
that JSON and ``repr`` escape, which an endpoint echoes in its error (masked in every form).
Afterwards every byte ragchunk wrote — stdout, stderr, the ``-o`` file, the cache directory —
is searched for every form of the key.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from urllib.parse import quote

import pytest

from tests.servers import LOCALHOST
from tests.support.scripted import (
    CHAT,
    EMBEDDINGS,
    Reply,
    ScriptedServer,
    chat_body,
    echo_key,
)

pytestmark = [*LOCALHOST, pytest.mark.timeout(120)]
CORE = "sk-proj-Zq8vR2mT6xW4yB1nK9pL3sD7"
VARIABLE = "RAGCHUNK_SECRET_UNDER_TEST"
TEXT = "The pump at Wend station failed in March. Engineers replaced its bearing in April.\n"


def forms(key: str) -> set[bytes]:
    """Every form in which ``key`` could leak: as it is, trimmed, escaped by repr and JSON."""
    found: set[bytes] = set()
    for text in {key, key.strip(), key.rstrip("\r\n")}:
        for variant in (
            text,
            json.dumps(text)[1:-1],
            json.dumps(text, ensure_ascii=False)[1:-1],
            repr(text)[1:-1],
            repr(text.encode())[2:-1],
            quote(text, safe=""),
        ):
            found.add(variant.encode())
    return {form for form in found if len(form) >= 8}


def ragchunk(
    tmp_path: Path, key: str, *args: str, name: str = "run"
) -> tuple[subprocess.CompletedProcess[bytes], Path]:
    doc = tmp_path / "notes.txt"
    doc.write_text(TEXT, encoding="utf-8")
    output, cache = tmp_path / f"{name}.jsonl", tmp_path / f"{name}-cache"
    environment = {**os.environ, VARIABLE: key}
    command = [sys.executable, "-m", "ragchunk", "split", str(doc), "-o", str(output)]
    command += ["--cache-dir", str(cache), "--jobs", "1", *args]
    done = subprocess.run(command, capture_output=True, env=environment, timeout=100, check=False)
    return done, output


def leaks(key: str, done: subprocess.CompletedProcess[bytes], *places: Path) -> list[str]:
    """Return where a form of ``key`` was found among the streams and the files under places."""
    blobs = {"stdout": done.stdout, "stderr": done.stderr}
    for place in places:
        files = [place] if place.is_file() else [p for p in place.rglob("*") if p.is_file()]
        blobs |= {str(path): path.read_bytes() for path in files}
    return [
        f"{where}: {form!r}" for where, blob in blobs.items() for form in forms(key) if form in blob
    ]


def embedding(url: str) -> list[str]:
    return ["--embed", "--embedder", "openai", "--embed-url", url, "--embed-model", "m",
            "--embed-key-env", VARIABLE, "--embed-retries", "0"]  # fmt: skip


def chat(url: str) -> list[str]:
    return ["-s", "proposition", "--api-base", url, "--model", "m", "--api-key-env", VARIABLE,
            "--api-retries", "0"]  # fmt: skip


@pytest.mark.parametrize("ending", ["\r\n", "\r", "\n"])
@pytest.mark.parametrize("kind", ["embedding", "chat"])
def test_a_key_ending_in_a_line_break_is_refused_before_any_request(
    scripted_server: ScriptedServer, tmp_path: Path, kind: str, ending: str
) -> None:
    key = CORE + ending
    args = embedding if kind == "embedding" else chat
    done, output = ragchunk(tmp_path, key, *args(scripted_server.base_url), "--debug")
    assert done.returncode == 2, done.stderr
    option = "--embed-key-env" if kind == "embedding" else "--api-key-env"
    what = {"\r\n": "a carriage return and a line feed", "\r": "a carriage return"}
    (line,) = done.stderr.decode().splitlines()
    assert line.startswith(
        f"Error: {option} names {VARIABLE}, whose value ends in {what.get(ending, 'a line feed')}"
    )
    assert "Traceback" not in line
    assert scripted_server.calls() == []
    assert not output.exists()
    assert leaks(key, done, tmp_path) == []


@pytest.mark.parametrize("kind", ["embedding", "chat"])
def test_an_echoed_key_with_quotes_is_masked_in_every_form(
    scripted_server: ScriptedServer, tmp_path: Path, kind: str
) -> None:
    key = CORE + "\"q'uo\\te"
    scripted_server.on(EMBEDDINGS if kind == "embedding" else CHAT, echo_key(401))
    args = embedding if kind == "embedding" else chat
    done, _ = ragchunk(tmp_path, key, *args(scripted_server.base_url), "--debug")
    assert done.returncode == 1, done.stderr
    stderr = done.stderr.decode()
    assert "Incorrect API key provided: ***. Check it." in stderr
    sent = scripted_server.calls()[0].headers["authorization"]
    assert sent == f"Bearer {key}"  # the key goes out as it is, and only in its header
    assert leaks(key, done, tmp_path) == []


def test_an_answer_holding_the_key_is_refused_and_never_cached(
    scripted_server: ScriptedServer, tmp_path: Path
) -> None:
    key = CORE + "\"q'uo\\te"
    echoed = json.dumps({"propositions": [f"The key is {key} and the pump failed in March."]})
    scripted_server.on(CHAT, lambda _r: Reply.json(chat_body(echoed)))
    done, output = ragchunk(tmp_path, key, *chat(scripted_server.base_url))
    stderr = done.stderr.decode()
    assert "answered with the API key in it; kept verbatim as a passage chunk" in stderr
    assert json.loads(output.read_text(encoding="utf-8"))["text"] == TEXT.strip()
    assert leaks(key, done, tmp_path) == []
