"""The reStructuredText parser: titles from adornments, block kinds, rows and items, exact spans."""

from __future__ import annotations

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from ragchunk.model import Section
from ragchunk.parsers import detect, get
from ragchunk.parsers._spec import ParseRequest
from ragchunk.parsers.rst import find_sections, parse, plain_title
from ragchunk.pipeline.plan import make_plan
from ragchunk.settings import shortcuts
from tests.conftest import FIXTURES
from tests.invariants import assert_invariants
from tests.meaning import every_strategy

CONTRIBUTING = FIXTURES / "docs-site" / "docs" / "contributing.rst"


def spans(text: str) -> list[tuple[str, str, tuple[str, ...]]]:
    """Each section as (kind, its text, heading path)."""
    return [(s.kind, text[s.start : s.end], s.headings) for s in find_sections(text)]


def assert_well_formed(text: str, sections: list[Section]) -> None:
    """Sections are ordered, disjoint, trimmed and cover every non-whitespace character."""
    position = 0
    for section in sections:
        assert position <= section.start < section.end <= len(text), section
        assert text[section.end - 1] not in " \t\r\n\f\v"
        assert not text[position : section.start].strip(" \t\r\n\f\v"), (position, section)
        position = section.end
        for start, end in (*section.parts, *([section.header] if section.header else [])):
            assert section.start <= start < end <= section.end
    assert not text[position:].strip(" \t\r\n\f\v")


def test_titles_take_levels_in_order_of_first_appearance() -> None:
    text = (
        "=====\nGuide\n=====\n\nIntro.\n\n"
        "Install\n-------\n\nStep.\n\n"
        "Deep\n~~~~\n\nDeeper.\n\n"
        "Usage\n-----\n\nRun it.\n\n"
        "Appendix\n========\n\nLast.\n"
    )
    assert spans(text) == [
        ("heading", "=====\nGuide\n=====", ("Guide",)),
        ("prose", "Intro.", ("Guide",)),
        ("heading", "Install\n-------", ("Guide", "Install")),
        ("prose", "Step.", ("Guide", "Install")),
        ("heading", "Deep\n~~~~", ("Guide", "Install", "Deep")),
        ("prose", "Deeper.", ("Guide", "Install", "Deep")),
        ("heading", "Usage\n-----", ("Guide", "Usage")),
        ("prose", "Run it.", ("Guide", "Usage")),
        # Underline-only = is a style of its own, after the overlined one: level 4.
        ("heading", "Appendix\n========", ("Guide", "Usage", "Appendix")),
        ("prose", "Last.", ("Guide", "Usage", "Appendix")),
    ]
    headings = [s for s in find_sections(text) if s.kind == "heading"]
    assert [s.level for s in headings] == [1, 2, 3, 2, 4]
    assert dict(headings[0].metadata) == {"adornment": "=", "overline": True}
    assert dict(headings[1].metadata) == {"adornment": "-", "overline": False}


def test_what_is_not_a_title() -> None:
    text = (
        "Short underline\n--\n\n"  # under four characters and shorter than the text
        "One line\nof a paragraph\n--------------\n\n"  # the text is not a line of its own
        "=============\nMismatched\n-------------\n\n"  # overline and underline differ
        "A long title\n~~~~\n\n"  # four characters: a title
        "----\n\nAfter a transition.\n"
    )
    assert spans(text) == [
        ("prose", "Short underline\n--", ()),
        ("prose", "One line\nof a paragraph\n--------------", ()),
        ("rule", "=============", ()),
        ("heading", "Mismatched\n-------------", ("Mismatched",)),
        ("heading", "A long title\n~~~~", ("Mismatched", "A long title")),
        ("rule", "----", ("Mismatched", "A long title")),
        ("prose", "After a transition.", ("Mismatched", "A long title")),
    ]


def test_blocks_get_kinds_spans_and_items() -> None:
    text = (
        "Setup\n=====\n\n"
        ":Author: me\n:Date: today\n\n"
        "Install it::\n\n    pip install x\n\n    x --help\n\n"
        "An indented quote follows.\n\n    Quoted words.\n\n"
        ".. code-block:: python\n   :linenos:\n\n   print(1)\n\n"
        ".. note::\n\n   A note body.\n\n"
        "- one\n- two\n  continued\n\n- three\n\n"
        "#. first\n#. second\n\n"
        ">>> 1 + 1\n2\n\n"
        ".. a comment\n"
    )
    sections = find_sections(text)
    assert [(s.kind, text[s.start : s.end]) for s in sections] == [
        ("heading", "Setup\n====="),
        ("prose", ":Author: me\n:Date: today"),
        ("prose", "Install it::"),
        ("code", "    pip install x\n\n    x --help"),
        ("prose", "An indented quote follows."),
        ("quote", "    Quoted words."),
        ("code", ".. code-block:: python\n   :linenos:\n\n   print(1)"),
        ("prose", ".. note::\n\n   A note body."),
        ("list", "- one\n- two\n  continued\n\n- three"),
        ("list", "#. first\n#. second"),
        ("code", ">>> 1 + 1\n2"),
        ("prose", ".. a comment"),
    ]
    assert dict(sections[6].metadata) == {"directive": "code-block", "language": "python"}
    bullets = sections[8]
    assert [text[a:b] for a, b in bullets.parts] == ["- one", "- two\n  continued", "- three"]
    assert [text[a:b] for a, b in sections[9].parts] == ["#. first", "#. second"]
    assert all(s.headings == ("Setup",) for s in sections)
    assert_well_formed(text, sections)


GRID = (
    "+-----+-------+\n"
    "| Key | Value |\n"
    "+=====+=======+\n"
    "| a   | one   |\n"
    "|     | more  |\n"
    "+-----+-------+\n"
    "| b   | two   |\n"
    "+-----+-------+\n"
)
SIMPLE = "=====  =====\nKey    Value\n=====  =====\na      one\n\nb      two\n=====  =====\n"


def test_a_grid_table_has_its_header_and_rows_with_their_borders() -> None:
    (table,) = find_sections(GRID)
    assert table.kind == "table"
    assert table.header is not None
    assert GRID[table.header[0] : table.header[1]] == GRID[: GRID.index("| a")].rstrip("\n")
    assert [GRID[a:b] for a, b in table.parts] == [
        "| a   | one   |\n|     | more  |\n+-----+-------+",
        "| b   | two   |\n+-----+-------+",
    ]
    headless = GRID.replace("+=====+=======+", "+-----+-------+")
    (table,) = find_sections(headless)
    assert table.header is None
    assert headless[table.parts[0][0] : table.parts[0][1]].startswith("+-----+")


def test_a_simple_table_has_its_header_and_a_row_per_line() -> None:
    (table,) = find_sections(SIMPLE + "\nAfter.\n")[:1]
    assert table.kind == "table"
    assert table.header is not None
    assert SIMPLE[table.header[0] : table.header[1]] == "=====  =====\nKey    Value\n=====  ====="
    assert [SIMPLE[a:b] for a, b in table.parts] == [
        "a      one",
        "b      two\n=====  =====",
    ]
    assert spans(SIMPLE + "\nAfter.\n")[-1] == ("prose", "After.", ())


def test_offsets_are_exact_with_crlf_and_non_ascii_text() -> None:
    text = "Überblick\r\n=========\r\n\r\nGrüße aus Köln 👋.\r\n\r\nTeil\r\n----\r\n\r\n- ä\r\n"
    doc = parse(text.encode(), ParseRequest(source="doc.rst", doc_id="doc.rst"))
    assert doc.text == text
    assert doc.format == "rst"
    assert [(s.kind, text[s.start : s.end], s.headings) for s in doc.sections] == [
        ("heading", "Überblick\r\n=========", ("Überblick",)),
        ("prose", "Grüße aus Köln 👋.", ("Überblick",)),
        ("heading", "Teil\r\n----", ("Überblick", "Teil")),
        ("list", "- ä", ("Überblick", "Teil")),
    ]


def test_inline_markup_leaves_title_paths() -> None:
    assert plain_title("Install ``ragchunk`` *now*") == "Install ragchunk now"
    assert plain_title("See `the guide <https://x.org>`_ and :ref:`setup`") == (
        "See the guide and setup"
    )
    assert plain_title("  **Bold**   words ") == "Bold words"


def test_rst_files_are_detected_and_parsed_by_the_rst_format() -> None:
    assert detect("docs/contributing.rst", b"===") == "rst"
    assert detect("notes.rest", b"") == "rst"
    assert detect("notes.txt", b"") == "text"
    doc = get("rst").parse(CONTRIBUTING.read_bytes(), ParseRequest(source=str(CONTRIBUTING)))
    assert doc.text == CONTRIBUTING.read_text(encoding="utf-8")
    headings = [(s.level, s.headings) for s in doc.sections if s.kind == "heading"]
    title = "Contributing to Quayside"
    assert headings == [
        (1, (title,)),
        (2, (title, "Development setup")),
        (3, (title, "Development setup", "Code style")),
        (4, (title, "Development setup", "Code style", "Type hints")),
        (4, (title, "Development setup", "Code style", "Docstrings")),
        (2, (title, "Making a change")),
        (3, (title, "Making a change", "Review")),
        (2, (title, "Releases")),
        (2, (title, "Code of conduct")),
    ]
    kinds = [s.kind for s in doc.sections]
    assert kinds.count("table") == 2
    assert kinds.count("list") == 2
    assert kinds.count("code") == 2  # the literal block after "::" and the code-block
    assert_well_formed(doc.text, list(doc.sections))


@pytest.mark.parametrize("name", every_strategy())
@pytest.mark.parametrize(
    "budget", [(64, 8, "chars"), (300, 30, "chars"), (48, 4, "tokens")], ids=str
)
def test_every_strategy_keeps_the_invariants_on_the_fixture(
    name: str, budget: tuple[int, int, str]
) -> None:
    size, overlap, unit = budget
    doc = parse(CONTRIBUTING.read_bytes(), ParseRequest(source=str(CONTRIBUTING)))
    plan = make_plan(shortcuts({"strategy": name, "size": size, "overlap": overlap, "unit": unit}))  # type: ignore[arg-type]
    assert_invariants(doc, plan)


LINES = [
    "Title",
    "=====",
    "-----",
    "~~~~",
    "",
    "   ",
    "  indented",
    "Text::",
    "- item",
    "#. item",
    ".. note::",
    ".. code-block:: python",
    "+---+---+",
    "| a | b |",
    "+===+===+",
    "===  ===",
    "a    b",
    ">>> x",
    "\t\ttab",
    "日本語",
]


@given(st.lists(st.sampled_from(LINES), max_size=30), st.sampled_from(["\n", "\r\n", "\r"]))
@example(["+---+", "| a |", "", "===  ===", "a    b", "", "c    d"], "\n")
def test_sections_always_tile_the_text(lines: list[str], newline: str) -> None:
    text = newline.join(lines)
    sections = find_sections(text)
    assert_well_formed(text, sections)
    for section in sections:
        assert section.level == 0 or section.kind == "heading"
