"""Question files of ragchunk eval: JSONL and CSV, excerpts and spans, one clear error each."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragchunk.errors import UsageError
from ragchunk.evaluation.questions import read_questions, resolve
from tests.conftest import FIXTURES

TEXTS = {
    "notes.txt": "Alpha comes first. Beta follows alpha. Gamma ends it.",
    "b.md": "# B\n\nbody",
}


def write_jsonl(tmp_path: Path, *items: object) -> str:
    path = tmp_path / "q.jsonl"
    path.write_text(
        "".join((item if isinstance(item, str) else json.dumps(item)) + "\n" for item in items),
        encoding="utf-8",
    )
    return str(path)


def question(**changes: object) -> dict[str, object]:
    item: dict[str, object] = {
        "id": "q-1",
        "question": "What follows alpha?",
        "document": "notes.txt",
        "evidence": [{"excerpt": "Beta follows alpha."}],
    }
    item.update(changes)
    return item


def test_jsonl_spans_excerpts_and_both(tmp_path: Path) -> None:
    path = write_jsonl(
        tmp_path,
        question(
            evidence=[
                {"start": 0, "end": 5},
                {"excerpt": "Gamma ends it."},
                {"start": 19, "end": 38, "excerpt": "Beta follows alpha."},
            ],
            answer="Beta",
            extra="ignored",
        ),
        "",
        question(id="q-2", document="b.md", evidence=[{"excerpt": "body"}]),
    )
    asked = read_questions(path)
    assert [q.id for q in asked] == ["q-1", "q-2"]
    assert asked[0].answer == "Beta"
    assert asked[1].line == 3
    resolved = resolve(asked, TEXTS, path)
    assert resolved[0].spans == ((0, 5), (39, 53), (19, 38))
    assert resolved[1].spans == ((5, 9),)


def test_csv_rows_sharing_an_id_form_one_question(tmp_path: Path) -> None:
    path = tmp_path / "q.csv"
    path.write_text(
        "id,question,document,start,end,excerpt\n"
        "q-1,What follows alpha?,notes.txt,,,Beta follows alpha.\n"
        "q-1,What follows alpha?,notes.txt,0,5,\n"
        "q-2,Body?,b.md,5,9,body\n",
        encoding="utf-8",
    )
    asked = read_questions(str(path))
    assert [(q.id, len(q.evidence)) for q in asked] == [("q-1", 2), ("q-2", 1)]
    assert resolve(asked, TEXTS, str(path))[0].spans == ((19, 38), (0, 5))


@pytest.mark.parametrize(
    ("lines", "message"),
    [
        (["{not json"], "q.jsonl:1: not a JSON object"),
        (["[1, 2]"], "q.jsonl:1: not a JSON object"),
        ([question(id="")], "q.jsonl:1: the question has no id"),
        ([question(evidence=[])], "q.jsonl:1: question 'q-1': evidence must be a non-empty list"),
        ([question(evidence=[{"start": 1}])], "needs both start and end, or neither"),
        ([question(evidence=[{"start": "1", "end": 4}])], "start must be a whole number"),
        ([question(evidence=[{}])], "needs a span (start, end), an excerpt, or both"),
        ([question(question="")], "question 'q-1': question must be a non-empty string"),
        ([question(answer=3)], "answer must be a string"),
        (
            [question(), question()],
            "q.jsonl:2: question 'q-1': the id is used again (first on line 1)",
        ),
    ],
)
def test_malformed_lines_name_file_line_and_question(
    tmp_path: Path, lines: list[object], message: str
) -> None:
    path = write_jsonl(tmp_path, *lines)
    with pytest.raises(UsageError, match=None) as caught:
        read_questions(path)
    assert message in str(caught.value)
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize(
    ("evidence", "message"),
    [
        (
            [{"excerpt": "Delta"}],
            "q.jsonl:1: question 'q-1': excerpt 'Delta' is not in the document",
        ),
        ([{"start": 40, "end": 90}], "span 40-90 lies outside the document (53 characters)"),
        (
            [{"start": 0, "end": 5, "excerpt": "Gamma"}],
            "span 0-5 holds 'Alpha', not the excerpt 'Gamma'",
        ),
    ],
)
def test_evidence_that_does_not_fit_the_document(
    tmp_path: Path, evidence: list[object], message: str
) -> None:
    path = write_jsonl(tmp_path, question(evidence=evidence))
    with pytest.raises(UsageError) as caught:
        resolve(read_questions(path), TEXTS, path)
    assert message in str(caught.value)


def test_a_question_about_an_unknown_document(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path, question(document="missing.txt"))
    with pytest.raises(UsageError, match=r"question 'q-1': no document 'missing\.txt'"):
        resolve(read_questions(path), TEXTS, path)


def test_bad_csv_header_and_row(tmp_path: Path) -> None:
    path = tmp_path / "q.csv"
    path.write_text("id,question\nq,x\n", encoding="utf-8")
    with pytest.raises(UsageError, match=r"q.csv:1: the header must be id,question,document"):
        read_questions(str(path))
    path.write_text("id,question,document,start,end,excerpt\nq-1,x,a.txt,one,2,\n")
    with pytest.raises(UsageError, match=r"q.csv:2: question 'q-1': start must be a whole number"):
        read_questions(str(path))


def test_unreadable_and_empty_files(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="--questions: cannot read"):
        read_questions(str(tmp_path / "none.jsonl"))
    with pytest.raises(UsageError, match="holds no questions"):
        read_questions(write_jsonl(tmp_path, ""))


def test_the_bundled_question_set_has_exact_spans() -> None:
    asked = read_questions(str(FIXTURES / "questions.jsonl"))
    assert 15 <= len(asked) <= 25
    formats = {q.document.rsplit(".", 1)[-1] for q in asked}
    assert {"md", "txt", "pdf", "docx", "html"} <= formats
    for q in asked:
        for piece in q.evidence:
            assert piece.start is not None
            assert piece.end is not None
            assert piece.excerpt is not None
            assert piece.end - piece.start == len(piece.excerpt)
