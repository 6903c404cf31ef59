"""The Markdown parser: exact spans, kinds, heading paths and metadata from token.map lines."""

from __future__ import annotations

import re
import time

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from ragchunk.model import Section
from ragchunk.parsers import detect, get
from ragchunk.parsers._spec import ParseRequest
from ragchunk.parsers.markdown import find_sections, parse
from tests.conftest import FIXTURES

GUIDE = FIXTURES / "markdown" / "station-guide.md"
README = FIXTURES / "markdown" / "git-readme.md"


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
    assert not text[position:].strip(" \t\r\n\f\v")
    for section in sections:
        if section.kind == "heading":
            assert section.level >= 1
        else:
            assert section.level == 0


def test_blocks_get_kinds_spans_and_heading_paths() -> None:
    text = (
        "# Guide\n\nIntro *text*.\n\n## Install `ragchunk`\n\n- one\n- two\n\n"
        "> quoted\n> more\n\n### Deep\n\n---\n\n<div>\nhi\n</div>\n\n# Next\n\nEnd.\n"
    )
    assert spans(text) == [
        ("heading", "# Guide", ("Guide",)),
        ("prose", "Intro *text*.", ("Guide",)),
        ("heading", "## Install `ragchunk`", ("Guide", "Install ragchunk")),
        ("list", "- one\n- two", ("Guide", "Install ragchunk")),
        ("quote", "> quoted\n> more", ("Guide", "Install ragchunk")),
        ("heading", "### Deep", ("Guide", "Install ragchunk", "Deep")),
        ("rule", "---", ("Guide", "Install ragchunk", "Deep")),
        ("html", "<div>\nhi\n</div>", ("Guide", "Install ragchunk", "Deep")),
        ("heading", "# Next", ("Next",)),
        ("prose", "End.", ("Next",)),
    ]
    assert [s.level for s in find_sections(text) if s.kind == "heading"] == [1, 2, 3, 1]


def test_setext_headings_and_skipped_levels() -> None:
    text = "Title\n=====\n\n### Three\n\nSub\n---\n\nbody\n"
    sections = find_sections(text)
    assert [(s.kind, s.level, s.headings) for s in sections] == [
        ("heading", 1, ("Title",)),
        ("heading", 3, ("Title", "Three")),
        ("heading", 2, ("Title", "Sub")),
        ("prose", 0, ("Title", "Sub")),
    ]
    assert [s.metadata["style"] for s in sections[:3]] == ["setext", "atx", "setext"]
    assert text[sections[2].start : sections[2].end] == "Sub\n---"


def test_front_matter_is_its_own_section_and_never_a_heading() -> None:
    text = "---\ntitle: A\n---\nText\n---\n\n# H\n"
    assert spans(text) == [
        ("front_matter", "---\ntitle: A\n---", ()),
        # Without the front matter rule, "Text\n---" would be a setext heading; it still is
        # one, but the front matter's closing fence no longer makes "title: A" a heading.
        ("heading", "Text\n---", ("Text",)),
        ("heading", "# H", ("H",)),
    ]


def test_unclosed_front_matter_is_plain_markdown() -> None:
    text = "---\ntitle: A\n\nbody\n"
    assert [kind for kind, _, _ in spans(text)] == ["rule", "prose", "prose"]


def test_front_matter_only() -> None:
    assert spans("---\na: 1\n...") == [("front_matter", "---\na: 1\n...", ())]


def test_crlf_and_lone_cr_offsets_index_the_original_text() -> None:
    text = "# A\r\n\r\npara one\r\nline two\r\n\r\n## B\rbody\r"
    assert spans(text) == [
        ("heading", "# A", ("A",)),
        ("prose", "para one\r\nline two", ("A",)),
        ("heading", "## B", ("A", "B")),
        ("prose", "body", ("A", "B")),
    ]


def test_nul_characters_keep_offsets() -> None:
    text = "# T\x00x\n\na\x00b\n"
    assert spans(text) == [
        ("heading", "# T\x00x", ("T\ufffdx",)),
        ("prose", "a\x00b", ("T\ufffdx",)),
    ]


def test_table_records_header_and_row_spans() -> None:
    text = "Intro\n\n| a | b |\n|---|:-:|\n| 1 | 2 |\n| 3 | 4 |\n\nafter\n"
    table = find_sections(text)[1]
    assert table.kind == "table"
    assert text[table.start : table.end] == "| a | b |\n|---|:-:|\n| 1 | 2 |\n| 3 | 4 |"
    assert table.header is not None
    assert text[table.header[0] : table.header[1]] == "| a | b |\n|---|:-:|"
    assert [text[s:e] for s, e in table.parts] == ["| 1 | 2 |", "| 3 | 4 |"]


def test_list_items_are_direct_children_with_their_nested_lists() -> None:
    text = "1. first\n   - nested a\n   - nested b\n2. second\n\n   more\n"
    (section,) = find_sections(text)
    assert section.kind == "list"
    assert section.metadata["ordered"] is True
    assert section.metadata["marker"] == "."
    assert [text[s:e] for s, e in section.parts] == [
        "1. first\n   - nested a\n   - nested b",
        "2. second\n\n   more",
    ]


@pytest.mark.parametrize(
    ("text", "fence", "closed"),
    [
        ("```py title\nx = 1\n```\n", "```", True),
        ("~~~~\nx\n~~~\nstill code\n~~~~~\n", "~~~~", True),
        ("~~~\nx\n```\n", "~~~", False),
        ("```\nnever closed\n\n", "```", False),
    ],
)
def test_fences_keep_their_markup_info_and_whether_they_close(
    text: str, fence: str, closed: bool
) -> None:
    (section,) = find_sections(text)
    assert section.kind == "code"
    assert text[section.start : section.end] == text.rstrip()
    assert section.metadata["fence"] == fence
    assert section.metadata["closed"] is closed


def test_fence_language_is_the_first_info_word() -> None:
    (section,) = find_sections("```py title\nx = 1\n```")
    assert section.metadata["info"] == "py title"
    assert section.metadata["language"] == "py"
    (bare,) = find_sections("```\nx\n```")
    assert "language" not in bare.metadata


def test_indented_code() -> None:
    text = "para\n\n    code line\n      more\n"
    assert spans(text)[1] == ("code", "    code line\n      more", ())
    assert find_sections(text)[1].metadata == {"indented": True}


def test_link_definitions_are_kept_as_prose() -> None:
    text = "See [x][].\n\n[x]: https://example.org\n"
    assert spans(text) == [("prose", "See [x][].", ()), ("prose", "[x]: https://example.org", ())]


def test_heading_text_is_plain() -> None:
    text = "# **Bold** and [link](http://x) ![img](a.png) <b>html</b>\n"
    (heading,) = find_sections(text)
    assert heading.headings == ("Bold and link img html",)


def test_empty_heading_adds_nothing_to_the_path() -> None:
    text = "# A\n\n##\n\nx\n"
    assert [s.headings for s in find_sections(text)] == [("A",), ("A",), ("A",)]


def test_empty_and_blank_input() -> None:
    assert find_sections("") == []
    assert find_sections(" \n\n\t\n") == []


def test_parse_decodes_verbatim_and_warns_on_invalid_utf8() -> None:
    warnings: list[tuple[str, str]] = []
    request = ParseRequest(source="bad.md", warn=lambda c, m: warnings.append((c, m)))
    doc = parse(b"\xef\xbb\xbf# T\r\n\nx\xff\n", request)
    assert doc.text == "# T\r\n\nx\ufffd\n"
    assert doc.format == "markdown"
    assert doc.has_lines
    assert [s.kind for s in doc.sections] == ["heading", "prose"]
    assert [code for code, _ in warnings] == ["invalid-encoding"]


def test_detected_by_extension_and_registered() -> None:
    assert detect("notes.md", b"#") == "markdown"
    assert detect("NOTES.MARKDOWN", b"#") == "markdown"
    assert get("markdown").name == "markdown"


def test_station_guide_fixture() -> None:
    text = GUIDE.read_text(encoding="utf-8")
    sections = find_sections(text)
    assert_well_formed(text, sections)
    kinds = {s.kind for s in sections}
    assert kinds == {
        "front_matter",
        "heading",
        "prose",
        "list",
        "quote",
        "table",
        "code",
        "html",
        "rule",
    }
    assert sections[0].kind == "front_matter"
    headings = [s for s in sections if s.kind == "heading"]
    assert [h.metadata["style"] for h in headings[:1]] == ["setext"]
    drift = next(s for s in sections if s.headings[-1:] == ("Drift procedure",))
    assert drift.headings == ("Tide Gauge Station Guide", "Station checks", "Drift procedure")
    (table,) = (s for s in sections if s.kind == "table")
    rows = table.parts
    assert len(rows) == 13
    for start, end in rows:
        row = text[start:end]
        assert row.startswith("| ")
        assert row.endswith(" |")
        assert "\n" not in row
    fences = [s for s in sections if s.kind == "code" and "fence" in s.metadata]
    assert {s.metadata["fence"] for s in fences} == {"```", "~~~", "~~~~"}
    assert max(s.end - s.start for s in fences if s.metadata["fence"] == "~~~") > 200
    assert all(s.metadata["closed"] for s in fences)


def test_git_readme_fixture() -> None:
    text = README.read_text(encoding="utf-8")
    sections = find_sections(text)
    assert_well_formed(text, sections)
    title = "Git - fast, scalable, distributed revision control system"
    assert sections[1].kind == "heading"
    assert sections[1].headings == (title,)
    assert all(s.headings == (title,) for s in sections[1:])
    assert sections[-1].kind == "prose"
    assert text[sections[-1].start :].startswith("[INSTALL]: INSTALL")


MARKDOWN_LINES = st.sampled_from(
    [
        "# H1",
        "## H2 *x*",
        "####### not a heading",
        "Setext",
        "===",
        "---",
        "- item",
        "  - nested",
        "1. one",
        "> quote",
        "> > deeper",
        "```py",
        "~~~",
        "    indented",
        "| a | b |",
        "|---|---|",
        "| 1 | 2 |",
        "<div>",
        "[x]: /url",
        "plain words",
        "",
        "   ",
        "\t",
        "日本語 👨‍👩‍👧",
    ]
)


@given(
    st.lists(st.tuples(MARKDOWN_LINES, st.sampled_from(["\n", "\r\n", "\r"])), max_size=40),
)
@example([("---", "\n"), ("a: 1", "\n"), ("---", "\n"), ("# H", "")])
@example([("> " * 30 + "x", "\n")])
def test_sections_cover_generated_markdown(lines: list[tuple[str, str]]) -> None:
    text = "".join(line + end for line, end in lines)
    sections = find_sections(text)
    assert_well_formed(text, sections)
    path: tuple[str, ...] = ()
    for section in sections:
        if section.kind == "heading":
            assert len(section.headings) <= section.level
            path = section.headings
        assert section.headings == path


@pytest.mark.parametrize(
    "text",
    [
        "> " * 50_000 + "deep",
        "- " * 20_000 + "deep",
        "[" * 100_000 + "x" + "]" * 100_000,
        "*" * 100_000 + "x",
        "# " + "*a " * 30_000,
        "\n".join("  " * n + "- item" for n in range(2_000)),
    ],
    ids=["quotes", "lists", "brackets", "emphasis", "heading-emphasis", "indent"],
)
def test_pathological_nesting_is_bounded(text: str) -> None:
    began = time.process_time()
    sections = find_sections(text)
    assert time.process_time() - began < 10
    assert_well_formed(text, sections)


def test_large_input_stays_linear() -> None:
    block = (
        "## Part\n\nSome text with *emphasis* and `code`.\n\n- a\n- b\n\n| x |\n|---|\n| 1 |\n\n"
    )
    small, large = block * 500, block * 5_000
    began = time.process_time()
    find_sections(small)
    small_time = time.process_time() - began
    began = time.process_time()
    sections = find_sections(large)
    large_time = time.process_time() - began
    assert len(sections) == 4 * 5_000
    assert large_time < 30 * max(small_time, 0.01)


def test_sections_never_start_mid_line() -> None:
    text = GUIDE.read_text(encoding="utf-8")
    for section in find_sections(text):
        assert section.start == 0 or re.match(r"[\r\n]", text[section.start - 1])


def test_large_table_and_list_are_parsed_in_bounded_time() -> None:
    rows = 20_000
    text = "| a | b |\n|---|---|\n" + "| 1 | 2 |\n" * rows + "\n" + "- item\n" * rows
    began = time.process_time()
    table, listing = find_sections(text)
    assert time.process_time() - began < 20
    assert len(table.parts) == rows
    assert len(listing.parts) == rows


def test_only_the_tokens_sections_read_are_kept() -> None:
    """Regression: a 5 MB table kept three ~300-byte tokens per cell (550 MB of memory)."""
    from ragchunk.parsers.markdown import _block_parser

    table = "| a | b | c |\n|---|---|---|\n" + "| 1 | 2 | 3 |\n" * 1000
    tokens = _block_parser().parse(table)
    assert len(tokens) < 2 * 1000 + 10  # table, thead, one row pair each; no cells
    items = "".join(f"- item {k}\n" for k in range(1000))
    assert len(_block_parser().parse(items)) < 2 * 1000 + 10
    sections = find_sections(table + "\n" + items)
    assert [s.kind for s in sections] == ["table", "list"]
    assert len(sections[0].parts) == 1000
    assert len(sections[1].parts) == 1000


def test_nesting_ten_thousand_deep_is_prose_past_the_cap() -> None:
    for marker in ("- ", "1. ", "> ", "> - "):
        text = marker * 10_000 + "bottom\n"
        began = time.process_time()
        sections = find_sections(text)
        assert time.process_time() - began < 5
        assert sections[0].start == 0
        assert sections[-1].end == len(text) - 1  # "bottom" is inside a section


@pytest.mark.parametrize(
    ("heading", "name"),
    [
        ("## Request Body { #request-body }", "Request Body"),
        ('## Classes { #classes data-toc-label="Classes" }', "Classes"),
        ("## Details { #details .advanced }", "Details"),
        ("# Quayside {.hero}", "Quayside"),
        ("## Attr {: #attr }", "Attr"),
        ("Setext { #setext }\n---", "Setext"),
        ("## Using {braces}", "Using {braces}"),
        ("## A `{ #code }` span", "A { #code } span"),
    ],
)
def test_attribute_lists_are_not_part_of_heading_names(heading: str, name: str) -> None:
    text = f"{heading}\n\nBody.\n"
    sections = find_sections(text)
    assert sections[0].headings == (name,)
    assert text[sections[0].start : sections[0].end] == heading  # the text keeps them
