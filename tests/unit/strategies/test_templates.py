"""The templates (legal, book, academic, qa, email) on their fixtures, and dropped text."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ragchunk import strategies
from ragchunk.cli import app
from ragchunk.model import Chunk, Document, Dropped
from ragchunk.parsers._spec import ParseRequest
from ragchunk.pipeline.check import find_violations
from ragchunk.pipeline.engine import chunk_document, process
from ragchunk.pipeline.plan import limits_for, make_plan
from ragchunk.pipeline.reading import parse_bytes
from ragchunk.settings import shortcuts
from tests.conftest import FIXTURES

TEMPLATES = FIXTURES / "templates"
runner = CliRunner()


def parsed(path: Path) -> Document:
    return parse_bytes(path.read_bytes(), ParseRequest(source=str(path), doc_id=path.name))


def chunked(
    path: Path, strategy: str, **options: object
) -> tuple[Document, list[Chunk], list[Dropped]]:
    doc = parsed(path)
    dropped: list[Dropped] = []
    plan = make_plan(shortcuts({"strategy": strategy, "options": options}))
    chunks = chunk_document(doc, plan.recipe, dropped=dropped)
    assert find_violations(doc, chunks, limits_for(plan.recipe), dropped) == []
    return doc, chunks, dropped


def test_every_template_stamps_its_name() -> None:
    for name, path in [
        ("legal", TEMPLATES / "services-agreement.txt"),
        ("book", TEMPLATES / "estuary-year.txt"),
        ("academic", TEMPLATES / "basin-oxygen-paper.md"),
        ("qa", FIXTURES / "tables" / "faq.csv"),
        ("email", FIXTURES / "email" / "survey-plan.eml"),
    ]:
        _, chunks, _ = chunked(path, name)
        assert {c.metadata["template"] for c in chunks} == {name}


def test_legal_clause_chunks_name_their_clauses() -> None:
    _, chunks, dropped = chunked(TEMPLATES / "services-agreement.txt", "legal")
    assert dropped == []
    by_clause = {c.metadata.get("clause"): c for c in chunks}
    sample = by_clause["2.3.2"]
    assert sample.text.startswith("2.3.2  On receipt of each delivery")
    assert "(iii) the chain-of-custody form is missing" in sample.text  # depth 4-5 stay inside
    assert sample.headings == ("ARTICLE 2 – THE SERVICES", "2.3 Sample handling", "2.3.2")
    assert by_clause["1.1"].metadata["clause_title"] == "Definitions"
    assert by_clause["Article 4"].metadata["clause_title"] == "QUALITY, DATA AND CONFIDENTIALITY"
    assert "Schedule 3 § 4" in by_clause
    assert not any(c.text.startswith("1.\n") or c.text.startswith("4.3;") for c in chunks)


def test_legal_max_depth_and_size() -> None:
    _, shallow, _ = chunked(TEMPLATES / "services-agreement.txt", "legal", max_depth=1)
    assert [c.metadata.get("clause") for c in shallow][6:9] == [
        "Article 1",
        "Article 2",
        "Article 3",
    ]
    doc = parsed(TEMPLATES / "services-agreement.txt")
    plan = make_plan(shortcuts({"strategy": "legal", "size": 200}))
    chunks = chunk_document(doc, plan.recipe)
    assert max(c.chars for c in chunks) <= 200
    assert any(c.metadata.get("oversize_split") for c in chunks)


@pytest.mark.parametrize(
    "path", [TEMPLATES / "estuary-year.txt", FIXTURES / "epub" / "estuary-year.epub"], ids=str
)
def test_book_drops_the_contents_and_the_index_and_names_chapters(path: Path) -> None:
    doc, chunks, dropped = chunked(path, "book")
    assert [d.reason for d in dropped] == ["table of contents", "index"]
    text = " ".join(c.text for c in chunks)
    assert "........" not in text
    assert "Chapter I – The Weir in Flood 1" not in text
    assert "alder, 3, 5" not in text
    assert "turbidity maximum, 19" not in text
    assert "I did not set out to write a book" in text  # the foreword is kept
    chapters = [c.metadata.get("chapter") for c in chunks]
    assert any("The Weir in Flood" in str(chapter) for chapter in chapters)
    weir = next(c for c in chunks if "In January the Wend" in c.text)
    assert str(weir.metadata["part"]).lower() == "part one: winter"
    contents = dropped[0]
    assert "Foreword" in doc.text[contents.start : contents.end]


def test_book_front_matter_can_be_dropped_too() -> None:
    _, chunks, dropped = chunked(TEMPLATES / "estuary-year.txt", "book", front_matter=False)
    assert [d.reason for d in dropped] == ["table of contents", "front matter", "index"]
    assert all("I did not set out" not in c.text for c in chunks)


@pytest.mark.parametrize("name", ["basin-oxygen-paper.md", "basin-oxygen-paper.pdf"])
def test_academic_keeps_the_abstract_apart_and_drops_the_references(name: str) -> None:
    _, chunks, dropped = chunked(TEMPLATES / name, "academic")
    [abstract] = [c for c in chunks if c.metadata["section_kind"] == "abstract"]
    assert abstract.text.lstrip("# ").startswith("Abstract")
    assert "Monthly daytime surveys" in abstract.text
    assert [d.reason for d in dropped] == ["references"]
    text = " ".join(c.text for c in chunks)
    assert "References" not in text
    assert "Appendix A" in text  # after the references, and kept
    kinds = {c.metadata["section_kind"] for c in chunks}
    assert {"introduction", "methods", "results", "discussion", "conclusions"} <= kinds
    _, kept, none = chunked(TEMPLATES / name, "academic", references=True)
    assert none == []
    assert any(c.metadata["section_kind"] == "references" for c in kept)


def test_qa_gives_one_chunk_per_row() -> None:
    _, chunks, _ = chunked(FIXTURES / "tables" / "faq.csv", "qa")
    assert [c.metadata["row"] for c in chunks] == list(range(2, 10))
    assert chunks[0].metadata["question"] == "When are the monthly surveys?"
    _, plain, _ = chunked(FIXTURES / "tables" / "glossary-no-header.tsv", "qa")
    assert plain[0].metadata["question"] == "What is a salt wedge?"
    _, named, _ = chunked(FIXTURES / "tables" / "faq.csv", "qa", question_column="category")
    assert named[0].metadata["question"] == "surveys"


def test_email_parts_and_switches() -> None:
    path = FIXTURES / "email" / "results-with-attachments.eml"
    _, chunks, dropped = chunked(path, "email")
    assert dropped == []
    assert [c.metadata["part"] for c in chunks] == [
        "headers",
        "body",
        "attachment:june-readings.csv",
        "attachment:Prüfprotokoll-logger.txt",
        "attachment:Optical cap replacement.eml",
    ]
    _, bare, dropped = chunked(path, "email", headers=False, attachments=False)
    assert [c.metadata["part"] for c in bare] == ["body"]
    assert dropped[0].reason == "headers"
    assert len(dropped) == 4


def test_the_checker_requires_exactly_the_reported_spans_missing() -> None:
    doc, chunks, dropped = chunked(TEMPLATES / "estuary-year.txt", "book")
    limits = limits_for(make_plan(shortcuts({"strategy": "book"})).recipe)
    unreported = find_violations(doc, chunks, limits, dropped[:1])
    assert len(unreported) == 1
    assert "lies in no chunk" in unreported[0]
    too_much = [Dropped(0, len(doc.text), "everything")]
    assert any(
        "holds text of the dropped everything" in v
        for v in find_violations(doc, chunks, limits, too_much)
    )
    not_a_template = limits_for(make_plan(shortcuts({"strategy": "recursive"})).recipe)
    assert "may drop no text" in find_violations(doc, chunks, not_a_template, dropped)[0]


def test_only_templates_may_drop() -> None:
    dropping = {name for name in strategies.names() if strategies.get(name).drops}
    assert dropping == {"academic", "book", "email"}


def test_stats_and_verbose_report_what_was_dropped() -> None:
    path = str(TEMPLATES / "estuary-year.txt")
    result = runner.invoke(
        app, ["split", path, "-s", "book", "--stats", "-v"], env={"COLUMNS": "200"}
    )
    assert result.exit_code == 0, result.stderr
    # --stats reports on stderr (stdout keeps the records)
    assert "dropped on purpose: 1032 chars in 2 span(s) of 1 document(s)" in result.stderr
    assert "table of contents" in result.stderr
    assert all(json.loads(line) for line in result.stdout.splitlines())
    assert f"{path}: 8 chunks, 1032 chars dropped (table of contents, index)" in result.stderr
    jsonl = runner.invoke(app, ["split", path, "-s", "book", "--check"])
    assert jsonl.stderr == "check: no violations in 1 input (8 chunks)\n"
    assert all(
        json.loads(line)["metadata"]["template"] == "book" for line in jsonl.stdout.splitlines()
    )


def test_an_mbox_gives_one_document_per_message_and_a_failed_one_is_named(tmp_path: Path) -> None:
    good = b"From a@b Mon Jan 1 00:00:00 2024\nSubject: %s\n\nBody %s.\n\n"
    bad = b"From a@b Mon Jan 1 00:00:00 2024\n\x00binary\n\n"
    mbox = tmp_path / "list.mbox"
    mbox.write_bytes(good % (b"one", b"one") + bad + good % (b"three", b"three"))
    result = process(
        str(mbox), "list.mbox", make_plan(shortcuts({"strategy": "recursive", "check": True}))
    )
    assert result.error is None
    assert [c.doc_id for c in result.chunks] == ["list.mbox#1", "list.mbox#3"]
    assert result.failed_parts == (f"{mbox}#2: binary data, not an e-mail (it holds zero bytes)",)
    cli = runner.invoke(app, ["split", str(mbox), "--check"])
    assert cli.exit_code == 1
    assert (
        cli.stderr.splitlines()[0]
        == f"error: {mbox}#2: binary data, not an e-mail (it holds zero bytes)"
    )


def test_academic_finds_an_abstract_paragraph_and_a_reference_list_by_their_shape() -> None:
    paper = TEMPLATES / "tidal-mixing-paper.md"  # no Abstract heading, no References heading
    _, chunks, dropped = chunked(paper, "academic")
    [abstract] = [c for c in chunks if c.metadata["section_kind"] == "abstract"]
    assert abstract.text.startswith("**Abstract.** Bottom-water oxygen in small estuaries")
    assert "would miss every low-oxygen episode we recorded.\n\n*Keywords:*" in abstract.text
    assert abstract.metadata["section"] == "Abstract"
    assert all("Abstract" not in c.text for c in chunks if c is not abstract)
    assert [d.reason for d in dropped] == ["references"]
    conclusions = [c for c in chunks if c.metadata["section_kind"] == "conclusions"]
    assert conclusions
    assert all("(2015)" not in c.text and "References" not in c.text for c in conclusions)
    methods = " ".join(c.text for c in chunks if c.metadata["section_kind"] == "methods")
    assert "1. Lower the probe at 0.2 m/s" in methods  # numbered, but not a reference
    _, kept, none = chunked(paper, "academic", references=True)
    assert none == []
    listed = [c for c in kept if c.metadata["section_kind"] == "references"]
    assert listed
    assert listed[0].text.startswith("**References**\n\n[1] Alder, J. and Brook, T. (2015).")
    assert listed[0].metadata["section"] == "References"


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("# T\n\nAbstract\nWe measured oxygen.\n\n## 1 Introduction\n\nText.", True),
        ("# T\n\nABSTRACT We measured oxygen.\n\n## 1 Introduction\n\nText.", True),
        ("# T\n\nAbstract\u2014We measured oxygen.\n\n## 1 Introduction\n\nText.", True),
        ("# T\n\nabstract class Limiter {}\n\n## 1 Introduction\n\nText.", False),
        ("# T\n\nAbstract classes are useful.\n\n## 1 Introduction\n\nText.", False),
    ],
)
def test_academic_abstract_by_shape_only_where_the_word_opens_a_paragraph_alone(
    text: str, found: bool
) -> None:
    from ragchunk.strategies.academic.shapes import abstract_start

    at = abstract_start(text, 0, text.index("## 1"))
    assert (at is not None) == found
