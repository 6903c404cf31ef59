"""hierarchical: one chunk per heading subtree down to max_depth; unbounded unless --size."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from ragchunk.cli import app
from ragchunk.errors import OptionError
from ragchunk.model import Document, Page, Section
from ragchunk.parsers._spec import ParseRequest
from ragchunk.parsers.markdown import parse
from ragchunk.pipeline.engine import chunk_document, process
from ragchunk.pipeline.plan import make_plan
from ragchunk.settings import shortcuts
from tests.conftest import FIXTURES
from tests.invariants import assert_invariants

TEXT = (
    "Preface text.\n\n# One\n\nIntro of one.\n\n## One A\n\nBody A. "
    + "Long body. " * 20
    + "\n\n### One A i\n\nDeep.\n\n## One B\n\nBody B.\n\n# Two\n\nBody two.\n"
)


def markdown(text: str) -> Document:
    return parse(text.encode(), ParseRequest(source="doc.md", doc_id="doc.md"))


def test_one_chunk_per_subtree_down_to_max_depth() -> None:
    doc = markdown(TEXT)
    chunks = assert_invariants(
        doc, make_plan(shortcuts({"strategy": "hierarchical", "options": {"max_depth": "2"}}))
    )
    assert [c.text.split("\n")[0] for c in chunks] == [
        "Preface text.",
        "# One",
        "## One A",
        "## One B",
        "# Two",
    ]
    assert "### One A i\n\nDeep." in chunks[2].text  # deeper than max_depth: stays inside
    assert chunks[2].headings == ("One", "One A")


def test_max_depth_one_merges_whole_top_level_sections() -> None:
    chunks = chunk_document(
        markdown(TEXT),
        make_plan(shortcuts({"strategy": "hierarchical", "options": {"max_depth": "1"}})).recipe,
    )
    assert [c.headings for c in chunks] == [(), ("One",), ("Two",)]
    assert chunks[1].text.endswith("Body B.")


def test_unbounded_without_size_and_refined_with_it() -> None:
    doc = markdown(TEXT)
    unbounded = chunk_document(doc, make_plan(shortcuts({"strategy": "hierarchical"})).recipe)
    assert max(c.chars for c in unbounded) > 200
    assert not any(c.metadata for c in unbounded)
    bounded = assert_invariants(
        doc, make_plan(shortcuts({"strategy": "hierarchical", "size": 100}))
    )
    assert max(c.chars for c in bounded) <= 100
    refined = [c for c in bounded if c.headings[:2] == ("One", "One A")]
    assert len(refined) > 1  # the long subtree was refined into pieces
    # A subtree is not a block that had to stay whole: its pieces are not oversize_split.
    assert not any(c.metadata.get("oversize_split") for c in bounded)


def test_page_ranges_are_the_min_and_max_of_the_merged_sections() -> None:
    text = "# A\n\nPage one text.\n\nPage two text.\n\n# B\n\nPage three."
    doc = Document(
        text=text,
        format="pdf",
        has_lines=False,
        sections=(
            Section(0, 3, "heading", ("A",), 1),
            Section(5, 19, "prose", ("A",)),
            Section(21, 35, "prose", ("A",)),
            Section(37, 40, "heading", ("B",), 1),
            Section(42, 53, "prose", ("B",)),
        ),
        pages=(Page(1, 0, 19), Page(2, 21, 35), Page(3, 37, 53)),
    )
    chunks = assert_invariants(doc, make_plan(shortcuts({"strategy": "hierarchical"})))
    assert [(c.page_start, c.page_end) for c in chunks] == [(1, 2), (3, 3)]


def test_docx_subtrees_carry_their_heading_path_and_no_guessed_pages() -> None:
    path = FIXTURES / "docx" / "memo.docx"  # no page breaks: no pages
    result = process(
        str(path), "memo.docx", make_plan(shortcuts({"strategy": "hierarchical", "size": 400}))
    )
    assert result.error is None
    assert [c.headings for c in result.chunks] == [
        ("Gauge Memo",),
        ("Gauge Memo", "Winter plan"),
        ("Gauge Memo", "Winter plan", "Staffing"),
    ]
    assert all(c.page_start is None for c in result.chunks)


def test_pdf_outline_subtrees_and_pages() -> None:
    path = FIXTURES / "pdf" / "report-outline.pdf"
    result = process(
        str(path),
        "report.pdf",
        make_plan(shortcuts({"strategy": "hierarchical", "options": {"max_depth": "1"}})),
    )
    assert result.error is None
    assert [c.headings for c in result.chunks][1:] == [
        ("Network overview",),
        ("Maintenance in 2024",),
        ("Findings",),
    ]
    assert [c.page_start for c in result.chunks][1:] == [1, 2, 3]


def test_max_depth_is_validated() -> None:
    with pytest.raises(OptionError, match=r"max_depth must be between 1 and 9 \(got 0\)"):
        make_plan(shortcuts({"strategy": "hierarchical", "options": {"max_depth": "0"}}))


def test_strategies_and_help_say_it_is_unbounded_unless_sized() -> None:
    runner = CliRunner()
    listing = runner.invoke(app, ["strategies", "hierarchical"], env={"COLUMNS": "200"})
    assert listing.exit_code == 0
    assert "unbounded unless" in listing.stdout
    assert "--size is given" in listing.stdout
    helped = runner.invoke(app, ["split", "--help"], env={"COLUMNS": "200"})
    words = " ".join(helped.stdout.replace("│", " ").split())
    assert "hierarchical and sentence-count mode are unbounded unless it is given" in words


def test_an_unbounded_chunk_past_an_embedding_window_is_warned_about_once_per_run(
    tmp_path,
) -> None:
    from typer.testing import CliRunner

    from ragchunk.cli import app

    body = "Tide records are kept for every station. " * 1000  # about 8,000 tokens and more
    for name in ("a.md", "b.md"):
        (tmp_path / name).write_text(f"# Records\n\n{body}{body}\n\n# Small\n\nShort.\n")
    result = CliRunner().invoke(app, ["split", str(tmp_path), "-s", "hierarchical", "-j", "1"])
    assert result.exit_code == 0
    warnings = [line for line in result.stderr.splitlines() if line.startswith("warning:")]
    assert len(warnings) == 1
    assert warnings[0].startswith(f"warning: {tmp_path / 'a.md'}: 1 chunk over 8192 tokens")
    assert "give --size" in warnings[0]
    bounded = CliRunner().invoke(
        app, ["split", str(tmp_path), "-s", "hierarchical", "--size", "2000"]
    )
    assert bounded.stderr == ""
