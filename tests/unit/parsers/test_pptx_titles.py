"""PPTX: a slide is headed by its visible title, never by a content placeholder; pictures named."""

from __future__ import annotations

from typer.testing import CliRunner

from ragchunk.cli import app
from ragchunk.model import Document
from ragchunk.parsers._spec import ParseRequest
from ragchunk.parsers.pptx import parse
from tests.conftest import FIXTURES

DECK = FIXTURES / "pptx" / "harbour-works.pptx"
runner = CliRunner()


def deck() -> Document:
    return parse(DECK.read_bytes(), ParseRequest(source="harbour-works.pptx"))


def on_slide(doc: Document, number: int) -> list[tuple[str, str, tuple[str, ...]]]:
    page = next(p for p in doc.pages if p.number == number)
    return [
        (s.kind, doc.text[s.start : s.end], s.headings)
        for s in doc.sections
        if page.start <= s.start < page.end
    ]


def test_a_content_placeholder_in_the_title_idx_is_body_text() -> None:
    doc = deck()
    for number, title, first in [
        (2, "Progress since March", "Quay wall: piling complete on the north face"),
        (3, "What is left to do", "Lighting: eight new columns along the east quay"),
    ]:
        sections = on_slide(doc, number)
        assert sections[0] == ("heading", title, (title,))
        body = [s for s in sections if s[0] != "heading"]
        assert len(body) == 1
        assert body[0][0] == "list"
        assert body[0][1].startswith(first)
        assert body[0][2] == (title,)


def test_a_title_placeholder_holding_many_lines_is_no_heading() -> None:
    sections = on_slide(deck(), 4)
    assert all(kind != "heading" for kind, _, _ in sections)
    assert all(len(" › ".join(headings)) < 100 for _, _, headings in sections)
    text = "\n".join(t for _, t, _ in sections)
    assert "Risks and issues" in text
    assert "The dredger is booked elsewhere from the end of April." in text


def test_every_heading_is_short() -> None:
    doc = deck()
    assert all(
        "\n" not in doc.text[s.start : s.end] and s.end - s.start < 80
        for s in doc.sections
        if s.kind == "heading"
    )


def test_pictures_left_out_are_named_in_extraction_and_inspect() -> None:
    doc = deck()
    assert doc.extraction["left_out"] == [{"kind": "picture", "page": 5, "name": "Picture 2"}]
    shown = runner.invoke(app, ["inspect", str(DECK)])
    assert shown.exit_code == 0, shown.stderr
    assert "left_out" in shown.stdout
    assert "picture" in shown.stdout
