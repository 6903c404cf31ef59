"""PDF cleaning rules that over-fired (issue 31, finding 9).

- the watermark rule compared lines with digits read as ``#``, so numbered headings repeated
  across pages (``2 Bar`` / ``5 Bar``, ``1.5 Exercises`` / ``2.5 Exercises``) were deleted;
- de-hyphenation joined ``HER2-`` ``high-risk`` to ``HER2high-risk`` although the document
  writes ``HER2-high-risk`` elsewhere.
"""

from __future__ import annotations

import json

from typer.testing import CliRunner

from ragchunk.cli import app
from ragchunk.parsers._spec import ParseRequest
from ragchunk.parsers.pdf import parse
from ragchunk.parsers.pdf.clean import remove_repeated
from ragchunk.parsers.pdf.hyphens import HyphenCounts, join_hyphenated
from ragchunk.parsers.pdf.lines import Line, PageLines
from tests.conftest import FIXTURES

runner = CliRunner()


def page(*texts: str) -> PageLines:
    """A page of lines in its middle, far from the header and footer zones."""
    lines = tuple(
        Line(text, 10, 50, 300, 200 + 40 * k, 210 + 40 * k) for k, text in enumerate(texts)
    )
    return PageLines(lines, 600, 800)


def test_numbered_headings_repeated_across_pages_are_no_watermark() -> None:
    pages = [
        page(f"{n} Bar", f"Body of part {word}.", f"{n}.5 Exercises", f"Try {word} again.")
        for n, word in zip(range(1, 7), ["one", "two", "three", "four", "five", "six"], strict=True)
    ]
    kept, removed = remove_repeated(pages, headers=True, watermarks=True)
    assert removed == []
    assert kept == pages


def test_a_watermark_printed_the_same_on_every_page_is_still_removed() -> None:
    pages = [
        page(f"{n} Bar", "DRAFT 2024 - NOT FOR CITATION", f"Body of part {n}.") for n in range(1, 7)
    ]
    _, removed = remove_repeated(pages, headers=True, watermarks=True)
    assert [(r.page, r.kind, r.text) for r in removed] == [
        (n, "watermark", "DRAFT 2024 - NOT FOR CITATION") for n in range(1, 7)
    ]


def test_a_hyphen_the_document_writes_elsewhere_is_kept_in_a_compound() -> None:
    pages = [
        PageLines(
            tuple(
                Line(text)
                for text in (
                    "Patients with HER2-high-risk disease were treated first.",
                    "Of the HER2-",
                    "high-risk group, most responded; the labora-",
                    "tory confirmed it.",
                )
            ),
            600,
            800,
        )
    ]
    counts = HyphenCounts()
    out = join_hyphenated(pages, counts)
    assert [line.text for line in out[0].lines][1:] == [
        "Of the HER2-high-risk",
        "group, most responded; the laboratory",
        "confirmed it.",
    ]
    assert (counts.joined, counts.kept) == (1, 1)


# The same three shapes in a real PDF: ``pdf/exercise-book.pdf``, printed by Chromium
# (``fixtures/builders/exercise_pdf.py``), read through the parser and the CLI.
EXERCISES = FIXTURES / "pdf" / "exercise-book.pdf"


def test_numbered_headings_on_every_page_of_a_printed_pdf_are_kept() -> None:
    result = runner.invoke(app, ["inspect", "--text", str(EXERCISES)])
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    for number in range(1, 5):  # the same words on every page, only the numbers differ
        assert f"{number} Reading" in lines
        assert f"{number}.5 Exercises" in lines
    doc = parse(EXERCISES.read_bytes(), ParseRequest(source=EXERCISES.name))
    assert doc.extraction["removed"] == []
    headings = [doc.text[s.start : s.end] for s in doc.sections if s.kind == "heading"]
    assert headings == [
        "Chapter 5",
        "The Context",
        *(f"{n} Reading\n{n}.5 Exercises".split("\n")[k] for n in range(1, 5) for k in (0, 1)),
    ]


def test_a_compound_broken_at_its_hyphen_in_a_printed_pdf_keeps_it() -> None:
    doc = parse(EXERCISES.read_bytes(), ParseRequest(source=EXERCISES.name))
    assert "Trial entry needs HER2-high-risk disease confirmed" in doc.text
    assert "HER2high" not in doc.text
    assert doc.text.count("HER2-high-risk") == 2
    assert (doc.extraction["hyphens_joined"], doc.extraction["hyphens_kept"]) == (0, 1)


def test_a_chapter_title_over_a_subsection_heading_is_never_a_chunk_alone() -> None:
    args = ["split", str(EXERCISES), "-s", "hierarchical", "--size", "300", "--min-size", "100"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.stderr
    texts = [json.loads(line)["text"] for line in result.stdout.splitlines()]
    assert all(text.strip() not in {"Chapter 5", "Chapter 5\nThe Context"} for text in texts)
    assert texts[0].startswith("Chapter 5\nThe Context\nBreast cancers are sorted")
