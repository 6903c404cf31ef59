"""Question generation against the scripted chat server: exact evidence, what is dropped, counts."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from ragchunk.backends.chat import ChatClient, ChatSpec, forget_modes
from ragchunk.errors import OptionError
from ragchunk.evaluation.generate import (
    COUNT_NAMES,
    GeneratedQuestions,
    generate_questions,
    write_questions,
)
from ragchunk.evaluation.prompts import EXCERPTS_PROMPT_VERSION, SENTENCES_PROMPT_VERSION
from ragchunk.evaluation.vetting import is_duplicate, is_related, locate
from ragchunk.evaluation.windows import allot, cut_windows
from tests.servers import LOCALHOST
from tests.support.scripted import CHAT, RecordedRequest, Reply, ScriptedServer, chat_body

pytestmark = [*LOCALHOST, pytest.mark.timeout(60)]

PUMP = (
    "The pump at Wend station failed in March. Engineers replaced its bearings in April.\n"
    "The station reopened on 3 May.  Its new pump moves 40 litres a second."
)
# sentences: [0:41] [42:83] [84:114] [116:154]
FERRY = (
    "The ferry to Osk leaves at dawn. It carries twelve cars. Tickets cost nine euros. "
    "The station reopened in May."
)


@pytest.fixture(autouse=True)
def _fresh_modes() -> Iterator[None]:
    forget_modes()
    yield
    forget_modes()


def client(server: ScriptedServer, cache: Path | None = None) -> ChatClient:
    spec = ChatSpec(url=server.base_url, model="scripted", key_env="", retries=0, concurrency=1)
    return ChatClient(spec, None if cache is None else str(cache))


def answer(*questions: Any) -> Reply:
    return Reply.json(chat_body(json.dumps({"questions": list(questions)})))


def user_of(request: RecordedRequest) -> str:
    return str(request.json()["messages"][1]["content"])


def by_document(answers: dict[str, Reply]) -> Callable[[RecordedRequest], Reply]:
    """Answer each request with the reply of the first key its user message contains."""

    def respond(request: RecordedRequest) -> Reply:
        user = user_of(request)
        return next(reply for key, reply in answers.items() if key in user)

    return respond


def assert_exact(result: GeneratedQuestions, texts: dict[str, str]) -> None:
    for question in result.questions:
        text = texts[question.document]
        for piece in question.evidence:
            assert piece.excerpt == text[piece.start : piece.end]
    counts = result.counts
    assert list(counts) == list(COUNT_NAMES)
    dropped = ("not_found", "unrelated", "duplicate", "invalid", "surplus")
    assert counts["proposed"] == counts["kept"] + sum(counts[name] for name in dropped)


def test_sentence_numbers_become_exact_spans_and_runs_merge(
    scripted_server: ScriptedServer,
) -> None:
    scripted_server.script(
        CHAT,
        answer(
            {"question": "Which pump failed in March?", "sentences": [1]},
            {"question": "When did the station reopen after repairs?", "sentences": [3, 2]},
        ),
    )
    result = generate_questions([("notes/pump.txt", PUMP)], client(scripted_server), 2)
    assert [(q.id, q.question, q.document) for q in result.questions] == [
        ("q-001", "Which pump failed in March?", "notes/pump.txt"),
        ("q-002", "When did the station reopen after repairs?", "notes/pump.txt"),
    ]
    first, second = result.questions
    assert [(e.start, e.end) for e in first.evidence] == [(0, 41)]
    assert [(e.start, e.end) for e in second.evidence] == [(42, 114)]  # 2 and 3: one span
    assert second.evidence[0].excerpt == (
        "Engineers replaced its bearings in April.\nThe station reopened on 3 May."
    )
    assert_exact(result, {"notes/pump.txt": PUMP})
    assert result.counts["kept"] == result.counts["proposed"] == result.counts["asked"] == 2
    assert result.prompt_version == SENTENCES_PROMPT_VERSION
    (call,) = scripted_server.calls(CHAT)
    assert user_of(call) == (
        "Sentences:\n"
        "[1] The pump at Wend station failed in March.\n"
        "[2] Engineers replaced its bearings in April.\n"
        "[3] The station reopened on 3 May.\n"
        "[4] Its new pump moves 40 litres a second.\n\n"
        "Write 2 questions that these sentences answer, with the sentence numbers."
    )
    assert call.json()["response_format"]["json_schema"]["schema"]["required"] == ["questions"]


def test_an_invented_excerpt_is_dropped_and_found_ones_are_exact(
    scripted_server: ScriptedServer,
) -> None:
    scripted_server.script(
        CHAT,
        answer(
            {"question": "Which pump failed in March?", "excerpts": ["  failed in March. "]},
            # copied with the line break as a space: found, and stored as the document has it
            {"question": "What happened at the station in April?", "excerpts": ["April. The"]},
            {"question": "Who founded the company?", "excerpts": ["The station reopened"]},
            {"question": "How fast does the old pump run?", "excerpts": ["It moves 90 litres."]},
            {"question": "What does the ticket cost there?", "excerpts": ["nine euros"]},
        ),
    )
    result = generate_questions(
        [("pump.txt", PUMP)], client(scripted_server), 5, evidence="excerpts"
    )
    spans = [[(e.start, e.end, e.excerpt) for e in q.evidence] for q in result.questions]
    assert spans == [[(25, 41, "failed in March.")], [(77, 87, "April.\nThe")]]
    assert result.counts["not_found"] == 2  # invented, and text of another document
    assert result.counts["unrelated"] == 1  # no word of the question in its evidence
    assert result.counts["kept"] == 2
    assert result.prompt_version == EXCERPTS_PROMPT_VERSION
    assert_exact(result, {"pump.txt": PUMP})
    (call,) = scripted_server.calls(CHAT)
    task = "Write 5 questions that this text answers, with the passages copied from it."
    assert user_of(call) == f"Text:\n<<<\n{PUMP}\n>>>\n\n{task}"


def test_a_question_must_share_a_content_word_with_its_evidence() -> None:
    evidence = ["The station reopened on 3 May."]
    assert is_related("When did the station reopen?", evidence)  # reopen ~ reopened
    assert not is_related("Which pump failed in March?", evidence)
    assert not is_related("What is on the ...?", evidence)  # function words never count
    assert is_related("What happened on 3 May?", evidence)
    assert not is_related("What did they do then?", evidence)


def test_locate_prefers_the_window_and_never_returns_other_text() -> None:
    text = "alpha beta. alpha beta.\nalpha  beta"
    assert locate(text, "alpha beta", (12, 23)) == (12, 22)  # the window's, not the first one
    assert locate(text, "alpha beta", (23, 35)) == (0, 10)  # anywhere when not in the window
    assert locate(text, "beta. alpha  beta", (12, 35)) == (18, 35)  # "beta.\nalpha  beta"
    assert locate(text, "   ", (0, 35)) is None
    assert locate(text, "alpha gamma", (0, 35)) is None
    assert locate(text, "beta. (alpha", (0, 35)) is None  # regex characters are literal


def test_near_identical_questions_are_dropped_across_documents(
    scripted_server: ScriptedServer,
) -> None:
    scripted_server.on(
        CHAT,
        by_document(
            {
                "Wend": answer(
                    {"question": "Which pump failed in March?", "sentences": [1]},
                    {"question": "which PUMP failed, in March", "sentences": [1]},
                    {"question": "When did the station reopen?", "sentences": [3]},
                ),
                "ferry": answer(
                    {"question": "When did the station reopen then?", "sentences": [4]},
                    {"question": "When does the ferry to Osk leave?", "sentences": [1]},
                ),
            }
        ),
    )
    docs = [("pump.txt", PUMP), ("ferry.txt", FERRY)]
    result = generate_questions(docs, client(scripted_server), 3)
    assert [q.question for q in result.questions] == [
        "Which pump failed in March?",
        "When did the station reopen?",
        "When does the ferry to Osk leave?",
    ]
    assert result.counts["duplicate"] == 2  # 5 of 6 words shared (0.83) counts; case never does
    assert_exact(result, dict(docs))
    assert not is_duplicate(frozenset("abcd"), [frozenset("abce")])  # 3 of 5 letters: 0.6


def test_malformed_answers_and_items_are_counted_and_the_rest_kept(
    scripted_server: ScriptedServer,
) -> None:
    scripted_server.on(
        CHAT,
        by_document(
            {
                "Wend": Reply.json(chat_body("Sure! Here are your questions: [")),
                "ferry": answer(
                    {"question": "Ferry?", "sentences": [1]},  # too short to be a question
                    {"question": "When does the ferry leave?", "sentences": ["1"]},
                    {"question": "How many cars does it carry?", "sentences": []},
                    {"question": "What does a ticket cost?", "sentences": [1, 2, 3, 1, 2, 3]},
                    {"question": "Who sells the tickets?", "sentences": [7]},
                    {"text": "no question at all"},
                    "a bare string",
                    {"question": "How much is a ticket?", "sentences": [3]},
                ),
            }
        ),
    )
    docs = [("pump.txt", PUMP), ("ferry.txt", FERRY)]
    result = generate_questions(docs, client(scripted_server), 8)
    assert [(q.question, q.evidence[0].excerpt) for q in result.questions] == [
        ("How much is a ticket?", "Tickets cost nine euros.")
    ]
    counts = result.counts
    assert (counts["malformed"], counts["invalid"], counts["not_found"]) == (1, 6, 1)
    assert counts["proposed"] == 8
    (problem,) = result.problems
    assert (problem.path, problem.code) == ("pump.txt", "malformed")
    assert problem.message == (
        f"pump.txt: window [0:154]: chat endpoint {scripted_server.base_url}/chat/completions "
        "answered invalid JSON"
    )
    assert_exact(result, dict(docs))


def test_a_failing_endpoint_for_one_document_is_reported_and_the_others_go_on(
    scripted_server: ScriptedServer,
) -> None:
    scripted_server.on(
        CHAT,
        by_document(
            {
                "Wend": Reply.error(503),
                "ferry": answer({"question": "When does the ferry leave?", "sentences": [1]}),
            }
        ),
    )
    docs = [("pump.txt", PUMP), ("empty.txt", " \n "), ("ferry.txt", FERRY)]
    result = generate_questions(docs, client(scripted_server), 1)
    assert [(q.id, q.document) for q in result.questions] == [("q-001", "ferry.txt")]
    assert [(p.path, p.code) for p in result.problems] == [
        ("empty.txt", "empty"),
        ("pump.txt", "failed"),
    ]
    assert "503" in result.problems[1].message
    assert result.counts["failed"] == 1
    assert result.counts["requests"] == 2
    assert result.counts["documents"] == 3


def test_questions_beyond_a_windows_share_are_surplus(scripted_server: ScriptedServer) -> None:
    scripted_server.script(
        CHAT,
        answer(
            {"question": "When does the ferry leave?", "sentences": [1]},
            {"question": "How many cars does it carry?", "sentences": [2]},
        ),
    )
    result = generate_questions([("ferry.txt", FERRY)], client(scripted_server), 1)
    assert [q.question for q in result.questions] == ["When does the ferry leave?"]
    assert (result.counts["asked"], result.counts["surplus"]) == (1, 1)


def test_the_questions_are_spread_over_windows_deterministically() -> None:
    assert allot(3, 7) == [2, 3, 2]
    assert allot(4, 2) == [0, 1, 0, 1]
    assert allot(4, 2, seed=1) == [1, 0, 1, 0]
    assert allot(5, 1) == [0, 0, 1, 0, 0]
    assert allot(0, 3) == []
    for windows in range(1, 12):
        for wanted in range(1, 30):
            shares = allot(windows, wanted, seed=wanted)
            assert sum(shares) == wanted
            assert max(shares) - min(shares) <= 1


def test_windows_hold_whole_sentences_within_the_size() -> None:
    text = " ".join(f"Sentence number {i} says a little." for i in range(40))
    long = "word " * 120 + "end."
    text += "\n\n" + long
    windows = cut_windows(text, 300)
    assert all(w.end - w.start <= 300 for w in windows)
    pieces = [span for w in windows for span in w.sentences]
    assert pieces == sorted(pieces)
    assert all(text[s:e] == text[s:e].strip() and text[s:e] for s, e in pieces)
    assert "".join(text[s:e] for s, e in pieces).replace(" ", "") == text.replace(" ", "").replace(
        "\n", ""
    )  # nothing lost: the long sentence was cut, not dropped
    assert text[windows[0].sentences[0][0] : windows[0].sentences[0][1]] == (
        "Sentence number 0 says a little."
    )
    assert cut_windows(" \n\t ", 300) == []


def test_the_question_file_is_jsonl_with_exact_excerpts(
    scripted_server: ScriptedServer, tmp_path: Path
) -> None:
    scripted_server.script(
        CHAT, answer({"question": "When did the station reopen?", "sentences": [3]})
    )
    result = generate_questions([("docs/pump.txt", PUMP)], client(scripted_server), 1)
    out = tmp_path / "questions.jsonl"
    write_questions(out, result)
    lines = out.read_text(encoding="utf-8").splitlines()
    assert [json.loads(line) for line in lines] == [
        {
            "id": "q-001",
            "question": "When did the station reopen?",
            "document": "docs/pump.txt",
            "evidence": [{"start": 84, "end": 114, "excerpt": "The station reopened on 3 May."}],
            "generated": {
                "model": "scripted",
                "prompt": SENTENCES_PROMPT_VERSION,
                "window": [0, 154],
            },
        }
    ]
    assert [path.name for path in tmp_path.iterdir()] == ["questions.jsonl"]  # no temporary left


def test_a_rerun_reads_the_cache_and_gives_the_same_questions(
    scripted_server: ScriptedServer, tmp_path: Path
) -> None:
    scripted_server.on(
        CHAT,
        by_document(
            {
                "Wend": answer({"question": "Which pump failed in March?", "sentences": [1]}),
                "ferry": answer({"question": "When does the ferry leave?", "sentences": [1]}),
            }
        ),
    )
    docs = [("pump.txt", PUMP), ("ferry.txt", FERRY)]
    first = generate_questions(docs, client(scripted_server, tmp_path / "cache"), 1)
    forget_modes()
    again = generate_questions(docs, client(scripted_server, tmp_path / "cache"), 1)
    assert again.questions == first.questions
    assert [q.id for q in again.questions] == ["q-001", "q-002"]
    assert len(scripted_server.calls(CHAT)) == 2  # the second run asked nothing
    assert (first.counts["cached"], again.counts["cached"]) == (0, 2)


def test_the_options_are_checked() -> None:
    chat = ChatClient(ChatSpec(url="http://127.0.0.1:9/v1", model="m"), None)
    with pytest.raises(OptionError, match=r"^--generate must be at least 1 \(got 0\)$"):
        generate_questions([("a", "A.")], chat, 0)
    with pytest.raises(OptionError, match="--window must be at least 200"):
        generate_questions([("a", "A.")], chat, 1, window=50)
    with pytest.raises(OptionError, match="--evidence must be one of sentences, excerpts"):
        generate_questions([("a", "A.")], chat, 1, evidence="words")  # type: ignore[arg-type]


def test_a_down_endpoint_is_reported_once_it_is_skipped(refused_url: str) -> None:
    spec = ChatSpec(url=refused_url, model="m", key_env="", retries=0, concurrency=1)
    docs = [(f"doc-{n}.txt", f"{FERRY} Ferry {n} is blue.") for n in range(8)]
    result = generate_questions(docs, ChatClient(spec, None), 1)
    assert result.counts["failed"] == 8
    messages = [p.message for p in result.problems]
    assert sum(m.endswith("refused the connection") for m in messages) == 5
    assert sum("skipped: it failed 5 requests in a row" in m for m in messages) == 1
    assert len(messages) == 6  # the three other skipped windows are not repeated
