"""`ragchunk eval --generate`: a question file from the chat endpoint, then scored.

The scripted server answers the chat requests (questions naming sentence numbers, made from
the sentences it is shown) and embeds by keyword counts, as in test_eval.py.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ragchunk.backends.chat import forget_modes
from ragchunk.cli import app
from tests.cli.test_eval import endpoint, keyword_embeddings, make_docs
from tests.servers import LOCALHOST
from tests.support.scripted import (
    CHAT,
    EMBEDDINGS,
    RecordedRequest,
    Reply,
    ScriptedServer,
    chat_body,
)

pytestmark = [*LOCALHOST, pytest.mark.timeout(120)]
runner = CliRunner()


@pytest.fixture(autouse=True)
def _fresh_modes() -> None:
    forget_modes()


def about_first_sentence(request: RecordedRequest) -> Reply:
    """One question per window, on the words of its sentence [1], naming that sentence."""
    user = str(request.json()["messages"][1]["content"])
    sentence = re.search(r"^\[1\] (.*)$", user, re.MULTILINE)
    assert sentence is not None
    words = [w.lower() for w in re.findall(r"[A-Za-z]{4,}", sentence.group(1))][:2]
    question = f"What does the text say about {' and '.join(words)}?"
    body = {"questions": [{"question": question, "sentences": [1]}]}
    return Reply.json(chat_body(json.dumps(body)))


def invented(_request: RecordedRequest) -> Reply:
    body = {"questions": [{"question": "Who wrote the lost chapter?", "excerpts": ["not here"]}]}
    return Reply.json(chat_body(json.dumps(body)))


def generate(server: ScriptedServer, docs: Path, out: Path, *args: str) -> object:
    chat = ["--api-base", server.base_url, "--model", "scripted", "--api-key-env", ""]
    command = ["eval", str(docs), "--questions", str(out), "--generate", "1", *chat]
    return runner.invoke(app, [*command, *endpoint(server), "--no-cache", *args])


def test_generated_questions_are_written_with_exact_evidence_and_scored(
    scripted_server: ScriptedServer, tmp_path: Path
) -> None:
    scripted_server.on(CHAT, about_first_sentence)
    scripted_server.on(EMBEDDINGS, keyword_embeddings)
    docs = make_docs(tmp_path)
    out = docs / "questions.jsonl"  # inside DOCS: never read as a document
    result = generate(scripted_server, docs, out)
    assert result.exit_code == 0, result.output
    assert "generated: 3 of 3 proposed questions kept; 3 requests to scripted" in result.stderr
    lines = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert sorted(item["document"] for item in lines) == ["one.txt", "sub/three.md", "two.txt"]
    for item in lines:
        text = (docs / item["document"]).read_text(encoding="utf-8")
        for piece in item["evidence"]:
            assert text[piece["start"] : piece["end"]] == piece["excerpt"]
    assert "3 questions" in result.stdout  # the scores of the questions just written


def test_an_existing_question_file_is_never_overwritten(
    scripted_server: ScriptedServer, tmp_path: Path
) -> None:
    docs = make_docs(tmp_path)
    out = tmp_path / "reviewed.jsonl"
    out.write_text("kept as it is\n", encoding="utf-8")
    result = generate(scripted_server, docs, out)
    assert result.exit_code == 2
    assert f"--generate: {out} exists" in result.stderr
    assert out.read_text(encoding="utf-8") == "kept as it is\n"
    assert scripted_server.calls() == []


def test_no_question_kept_writes_no_file(scripted_server: ScriptedServer, tmp_path: Path) -> None:
    scripted_server.on(CHAT, invented)
    docs = make_docs(tmp_path)
    out = tmp_path / "q.jsonl"
    result = generate(scripted_server, docs, out, "--evidence", "excerpts")
    assert result.exit_code == 2
    assert "generated: 0 of 3 proposed questions kept (dropped: 3 not found)" in result.stderr
    assert "no question whose evidence was found" in result.stderr
    assert not out.exists()
    assert scripted_server.calls(EMBEDDINGS) == []


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--generate", "1"], "--api-base and --model are needed to call a chat endpoint"),
        (
            [
                "--generate",
                "1",
                "--api-base",
                "http://127.0.0.1:9/v1",
                "--model",
                "m",
                "--evidence",
                "quotes",
            ],
            "--evidence must be sentences or excerpts (got 'quotes')",
        ),
    ],
)
def test_generate_usage_errors(tmp_path: Path, args: list[str], message: str) -> None:
    docs = make_docs(tmp_path)
    result = runner.invoke(
        app, ["eval", str(docs), "--questions", str(tmp_path / "q.jsonl"), *args]
    )
    assert result.exit_code == 2, result.output
    assert message in result.stderr
    assert not (tmp_path / "q.jsonl").exists()


def not_json(_request: RecordedRequest) -> Reply:
    return Reply.json(chat_body("these are not the questions"))


def test_a_warning_names_its_document_once(scripted_server: ScriptedServer, tmp_path: Path) -> None:
    scripted_server.on(CHAT, not_json)
    docs = make_docs(tmp_path)
    result = generate(scripted_server, docs, tmp_path / "q.jsonl")
    assert result.exit_code == 2
    warnings = [line for line in result.stderr.splitlines() if line.startswith("warning: ")]
    assert len(warnings) == 3
    for line, name in zip(sorted(warnings), ["one.txt", "sub/three.md", "two.txt"], strict=True):
        assert re.fullmatch(
            re.escape(f"warning: {name}: window [")
            + r"\d+:\d+"
            + re.escape("]: ")
            + r".* answered invalid JSON",
            line,
        ), line
