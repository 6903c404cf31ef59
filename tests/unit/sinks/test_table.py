"""The --table preview never passes a document's control characters to the terminal."""

from __future__ import annotations

import io

from rich.console import Console

from ragchunk.model import Document, Section, Span
from ragchunk.pipeline.chunks import assemble
from ragchunk.sinks.table import build, preview


def test_whitespace_is_visible_and_controls_are_pictures() -> None:
    assert preview("a\nb\tc") == "a↵b→c"
    assert preview("\x1b[31mred\x07\x00\x7f\x9b") == "␛[31mred␇␀␡\ufffd"


def test_a_table_of_hostile_text_holds_no_escape_sequence() -> None:
    text = "Hello \x1b[31mRED\x1b[0m and \x1b]0;title\x07 bell\n"
    doc = Document(text=text, sections=(Section(0, len(text), "prose", ("\x1b[2J head",)),))
    chunks = assemble(doc, [Span(0, len(text))], strategy="test", fingerprint="f")
    out = io.StringIO()
    Console(file=out, width=120, force_terminal=False).print(build(chunks, "t"))
    assert "\x1b" not in out.getvalue()
    assert "␛[31mRED" in out.getvalue()
    assert "␛[2J head" in out.getvalue()
