"""Question generation against llama.cpp's real server over SmolLM2-135M (slow).

The model is weak: these tests assert the contract over whatever it keeps (every excerpt is
``text[start:end]`` of its document, in the file as in the result), that the run completes,
and that everything it proposed is accounted for; they may keep no question at all.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from ragchunk.backends.chat import ChatClient, ChatSpec, forget_modes
from ragchunk.evaluation.generate import (
    EvidenceMode,
    GeneratedQuestions,
    generate_questions,
    write_questions,
)
from tests.conftest import FIXTURES
from tests.servers import LOCALHOST
from tests.support.llama import LlamaServer

pytestmark = [*LOCALHOST, pytest.mark.slow, pytest.mark.timeout(600)]
DROPPED = ("not_found", "unrelated", "duplicate", "invalid", "surplus")


@pytest.fixture(autouse=True)
def _fresh_modes() -> Iterator[None]:
    forget_modes()
    yield
    forget_modes()


def client(server: LlamaServer, monkeypatch: pytest.MonkeyPatch, cache: Path) -> ChatClient:
    monkeypatch.setenv("RAGCHUNK_CHAT_KEY", server.api_key)
    spec = ChatSpec(
        url=server.base_url,
        model=server.model,
        key_env="RAGCHUNK_CHAT_KEY",
        max_tokens=128,
        timeout=300,
        concurrency=1,
    )
    return ChatClient(spec, str(cache))


def documents() -> list[tuple[str, str]]:
    notes = (FIXTURES / "text" / "field-notes.txt").read_text(encoding="utf-8")
    return [("text/field-notes.txt", notes[:800])]  # two windows of at most 450 characters


def assert_contract(result: GeneratedQuestions, out: Path, texts: dict[str, str]) -> None:
    counts = result.counts
    assert counts["failed"] == 0, result.problems
    assert counts["proposed"] == counts["kept"] + sum(counts[name] for name in DROPPED)
    assert len(result.questions) == counts["kept"] <= counts["asked"]
    assert len(result.problems) == counts["malformed"]
    if not result.questions:  # the run completed and counted why it kept nothing
        assert counts["malformed"] + sum(counts[name] for name in DROPPED) > 0
    write_questions(out, result)
    records = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [r["id"] for r in records] == [q.id for q in result.questions]
    for record in records:
        text = texts[record["document"]]
        assert record["evidence"]
        for piece in record["evidence"]:
            assert piece["excerpt"] == text[piece["start"] : piece["end"]]
            assert piece["excerpt"] == piece["excerpt"].strip()


@pytest.mark.parametrize(("evidence", "wanted"), [("sentences", 2), ("excerpts", 1)])
def test_generated_questions_have_verbatim_evidence(
    llama_server: LlamaServer,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    evidence: EvidenceMode,
    wanted: int,
) -> None:
    docs = documents()
    chat = client(llama_server, monkeypatch, tmp_path / "cache")
    result = generate_questions(docs, chat, wanted, window=450, evidence=evidence)
    assert (result.counts["windows"], result.counts["requests"]) == (2, wanted)
    assert_contract(result, tmp_path / "questions.jsonl", dict(docs))
    assert chat.tally.calls == wanted
    assert chat.tally.tokens_in > 0
    rerun = client(llama_server, monkeypatch, tmp_path / "cache")
    again = generate_questions(docs, rerun, wanted, window=450, evidence=evidence)
    assert again.questions == result.questions  # from the cache: the same file again
    assert (again.counts["cached"], rerun.tally.calls) == (wanted, 0)
    print(evidence, dict(result.counts))  # noqa: T201 - shown with -s: what the model managed
