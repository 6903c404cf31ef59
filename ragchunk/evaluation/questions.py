"""Question files: JSONL or CSV questions, each with its document and its evidence.

JSONL holds one object per line::

    {"id": "q-001", "question": "...", "document": "markdown/git-readme.md",
     "evidence": [{"start": 120, "end": 198}, {"excerpt": "verbatim text"}], "answer": "..."}

``document`` is the document's path relative to the DOCS directory (its file name when DOCS is
one file). Each evidence item is a span (``start``/``end``: characters of the document's text
as ragchunk parses it, the text chunk offsets index) or an ``excerpt`` found verbatim in that
text (its first occurrence), or both, which must agree. Unknown keys are ignored; ``answer`` is
optional. CSV has the header ``id,question,document,start,end,excerpt`` and one row per piece of
evidence; rows sharing an id form one question. A file is ``.csv`` by its name, else JSONL.

``read_questions`` checks the shape of every line; ``resolve`` finds every excerpt and checks
every span against the parsed documents. Each mistake is one ``UsageError`` naming the file,
the line and the question.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Final

from ragchunk.errors import UsageError

if TYPE_CHECKING:
    from collections.abc import Mapping

CSV_HEADER: Final = ("id", "question", "document", "start", "end", "excerpt")
"""The columns of a CSV question file, in order."""


@dataclass(frozen=True, slots=True)
class Evidence:
    """One piece of evidence as written: a span, an excerpt, or both; ``line`` is 1-based."""

    line: int
    start: int | None = None
    end: int | None = None
    excerpt: str | None = None


@dataclass(frozen=True, slots=True)
class Question:
    """One question as read from the file; ``spans`` are filled in by ``resolve``.

    Attributes:
        id: the question's id, unique in its file.
        question: the text that is embedded and searched with.
        document: the path of its document relative to DOCS.
        evidence: the pieces as written.
        answer: an optional reference answer (kept, never scored).
        line: the line (JSONL) or first row (CSV) of the question, 1-based.
        spans: the evidence as ``(start, end)`` character spans, in order.
    """

    id: str
    question: str
    document: str
    evidence: tuple[Evidence, ...]
    answer: str | None = None
    line: int = 0
    spans: tuple[tuple[int, int], ...] = ()


def read_questions(path: str) -> list[Question]:
    """Return the questions of a JSONL or CSV file, in file order.

    Raises:
        UsageError: the file cannot be read, or a line or row is malformed (the message names
            the file, the line and the question when it has an id).
    """
    try:
        text = Path(path).read_text(encoding="utf-8-sig")
    except OSError as exc:
        raise UsageError(f"--questions: cannot read {path} ({exc.strerror or exc})") from None
    except UnicodeDecodeError:
        raise UsageError(f"{path}: not UTF-8 text") from None
    questions = _read_csv(path, text) if path.lower().endswith(".csv") else _read_jsonl(path, text)
    if not questions:
        raise UsageError(f"{path}: holds no questions")
    seen: dict[str, int] = {}
    for question in questions:
        if question.id in seen:
            raise UsageError(
                f"{path}:{question.line}: question {question.id!r}: the id is used again "
                f"(first on line {seen[question.id]})"
            )
        seen[question.id] = question.line
    return questions


def resolve(questions: list[Question], texts: Mapping[str, str], path: str) -> list[Question]:
    """Return the questions with their evidence as character spans of their documents' text.

    Raises:
        UsageError: a question's document is not among ``texts``, an excerpt is not in it, a
            span lies outside it, or a span and its excerpt disagree.
    """
    resolved = []
    for question in questions:
        where = f"{path}:{question.line}: question {question.id!r}"
        text = texts.get(question.document)
        if text is None:
            raise UsageError(f"{where}: no document {question.document!r} among the inputs")
        spans = [
            _span(piece, text, f"{path}:{piece.line}: question {question.id!r}")
            for piece in question.evidence
        ]
        resolved.append(dataclasses.replace(question, spans=tuple(spans)))
    return resolved


def _span(piece: Evidence, text: str, where: str) -> tuple[int, int]:
    if piece.start is not None and piece.end is not None:
        start, end = piece.start, piece.end
        if not 0 <= start < end <= len(text):
            raise UsageError(
                f"{where}: span {start}-{end} lies outside the document "
                f"({len(text)} characters) or is empty"
            )
        if piece.excerpt is not None and text[start:end] != piece.excerpt:
            raise UsageError(
                f"{where}: span {start}-{end} holds {_clip(text[start:end])!r}, not the "
                f"excerpt {_clip(piece.excerpt)!r}"
            )
        return start, end
    assert piece.excerpt is not None  # _evidence saw to it
    found = text.find(piece.excerpt)
    if found < 0:
        raise UsageError(f"{where}: excerpt {_clip(piece.excerpt)!r} is not in the document")
    return found, found + len(piece.excerpt)


def _clip(text: str, width: int = 40) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def _read_jsonl(path: str, text: str) -> list[Question]:
    questions = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
        except json.JSONDecodeError as exc:
            raise UsageError(f"{path}:{number}: not a JSON object ({exc.msg})") from None
        if not isinstance(item, dict):
            raise UsageError(f"{path}:{number}: not a JSON object")
        qid = item.get("id")
        if not isinstance(qid, str) or not qid.strip():
            raise UsageError(f"{path}:{number}: the question has no id (a non-empty string)")
        where = f"{path}:{number}: question {qid!r}"
        evidence = item.get("evidence")
        if not isinstance(evidence, list) or not evidence:
            raise UsageError(f"{where}: evidence must be a non-empty list")
        pieces = []
        for piece in evidence:
            if not isinstance(piece, dict):
                raise UsageError(f"{where}: each evidence item must be an object")
            pieces.append(
                _evidence(number, piece.get("start"), piece.get("end"), piece.get("excerpt"), where)
            )
        questions.append(
            Question(
                qid,
                _text(item, "question", where),
                _text(item, "document", where),
                tuple(pieces),
                _answer(item.get("answer"), where),
                number,
            )
        )
    return questions


def _read_csv(path: str, text: str) -> list[Question]:
    import csv
    import io

    rows = csv.reader(io.StringIO(text, newline=""))
    header = next(rows, None)
    if header is None or tuple(cell.strip() for cell in header) != CSV_HEADER:
        raise UsageError(f"{path}:1: the header must be {','.join(CSV_HEADER)}")
    found: dict[str, Question] = {}
    for row in rows:
        number = rows.line_num
        if not any(cell.strip() for cell in row):
            continue
        if len(row) != len(CSV_HEADER):
            raise UsageError(f"{path}:{number}: expected {len(CSV_HEADER)} columns, got {len(row)}")
        qid, question, document, start, end, excerpt = row
        if not qid.strip():
            raise UsageError(f"{path}:{number}: the question has no id")
        where = f"{path}:{number}: question {qid!r}"
        piece = _evidence(
            number,
            _csv_int(start, "start", where),
            _csv_int(end, "end", where),
            excerpt or None,
            where,
        )
        known = found.get(qid)
        if known is None:
            item = {"question": question, "document": document}
            found[qid] = Question(
                qid,
                _text(item, "question", where),
                _text(item, "document", where),
                (piece,),
                line=number,
            )
        elif (known.question, known.document) != (question, document):
            raise UsageError(
                f"{where}: rows of one question must repeat its question and document "
                f"(as on line {known.line})"
            )
        else:
            found[qid] = Question(
                qid, known.question, known.document, (*known.evidence, piece), line=known.line
            )
    return list(found.values())


def _csv_int(value: str, name: str, where: str) -> int | None:
    if not value.strip():
        return None
    try:
        return int(value)
    except ValueError:
        raise UsageError(f"{where}: {name} must be a whole number (got {value!r})") from None


def _evidence(line: int, start: object, end: object, excerpt: object, where: str) -> Evidence:
    if (start is None) != (end is None):
        raise UsageError(f"{where}: evidence needs both start and end, or neither")
    for name, value in (("start", start), ("end", end)):
        if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
            raise UsageError(f"{where}: evidence {name} must be a whole number (got {value!r})")
    if excerpt is not None and (not isinstance(excerpt, str) or not excerpt):
        raise UsageError(f"{where}: an evidence excerpt must be a non-empty string")
    if start is None and excerpt is None:
        raise UsageError(f"{where}: evidence needs a span (start, end), an excerpt, or both")
    return Evidence(line, start, end, excerpt)  # type: ignore[arg-type]


def _text(item: Mapping[str, object], key: str, where: str) -> str:
    value = item.get(key)
    if not isinstance(value, str) or not value.strip():
        raise UsageError(f"{where}: {key} must be a non-empty string")
    return value


def _answer(value: object, where: str) -> str | None:
    if value is None or isinstance(value, str):
        return value
    raise UsageError(f"{where}: answer must be a string when given")
