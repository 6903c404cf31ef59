"""markdown: heading sections, whole blocks, tables by rows with the header in context, fences by
lines, list items, bold labels, breadcrumbs and the output budget."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from ragchunk.cli import app
from ragchunk.errors import LimitExceededError, OptionError
from ragchunk.model import Chunk, Document
from ragchunk.parsers._spec import ParseRequest
from ragchunk.parsers.markdown import parse
from ragchunk.pipeline.engine import chunk_document
from ragchunk.pipeline.plan import make_plan
from ragchunk.settings import shortcuts
from tests.conftest import FIXTURES
from tests.invariants import assert_invariants

GUIDE = FIXTURES / "markdown" / "station-guide.md"


def markdown(text: str) -> Document:
    return parse(text.encode(), ParseRequest(source="doc.md", doc_id="doc.md"))


def split(text: str, **plan: object) -> list[Chunk]:
    return assert_invariants(markdown(text), make_plan(shortcuts({"strategy": "markdown", **plan})))  # type: ignore[arg-type]


# --- acceptance: the fixture's table at --size 200 --------------------------------------------


def _table_lines(text: str) -> tuple[list[str], str]:
    """Return the lines of the fixture's table and its header + delimiter rows."""
    start = text.index("| Station | Sensor |")
    end = text.index("\n\n", start)
    lines = text[start:end].split("\n")
    return lines, "\n".join(lines[:2])


def test_fixture_table_chunks_hold_whole_rows_and_repeat_the_header_in_context() -> None:
    result = CliRunner().invoke(app, ["split", str(GUIDE), "-s", "markdown", "--size", "200"])
    assert result.exit_code == 0, result.stderr
    records = [json.loads(line) for line in result.stdout.splitlines()]
    text = GUIDE.read_text(encoding="utf-8")
    lines, header = _table_lines(text)
    assert len(lines) - 2 >= 12  # header, delimiter and at least 12 rows
    table_start = text.index(lines[0])
    table_end = table_start + len("\n".join(lines))
    table_chunks = [r for r in records if r["start"] < table_end and r["end"] > table_start]
    assert len(table_chunks) >= 3
    for record in table_chunks:
        assert record["chars"] <= 200
        assert record["metadata"]["kind"] == "table"
        for row in record["text"].split("\n"):
            assert row in lines, f"partial row {row!r}"
        assert record["context"].startswith(header)
        assert record["context"].endswith(record["text"])
    covered = "\n".join(r["text"] for r in table_chunks)
    assert covered == "\n".join(lines)


def test_fixture_holds_every_invariant_in_both_units_with_and_without_context() -> None:
    doc = parse(GUIDE.read_bytes(), ParseRequest(source=str(GUIDE)))
    # The deepest breadcrumb takes 80 chars, 17 tokens: smaller sizes are refused.
    for unit, sizes in (("chars", (96, 200, 512)), ("tokens", (20, 64, 256))):
        for size in sizes:
            for contextualize in (False, True):
                plan = make_plan(
                    shortcuts(
                        {
                            "strategy": "markdown",
                            "size": size,
                            "overlap": size // 8,
                            "unit": unit,
                            "contextualize": contextualize,
                        }
                    )
                )
                assert_invariants(doc, plan)


# --- fences ------------------------------------------------------------------------------------

FENCES = """# Code

```python
def first():
    return 1


def second():
    return 2
```

~~~~text
inner
~~~
still inside: a shorter fence does not close
~~~~
"""


def test_a_fence_that_fits_stays_whole_with_its_language() -> None:
    python = FENCES[FENCES.index("```python") : FENCES.index("```\n\n") + 3]
    tilde = FENCES[FENCES.index("~~~~text") : FENCES.rindex("~~~~") + 4]
    chunks = split(FENCES, size=70)
    assert [c.text for c in chunks] == ["# Code", python, tilde]
    assert chunks[1].metadata == {"kind": "code", "language": "python"}
    assert chunks[2].metadata == {"kind": "code", "language": "text"}


def test_a_fence_larger_than_the_size_is_split_by_lines_and_flagged() -> None:
    chunks = split(FENCES, size=30)
    python = [c for c in chunks if c.metadata.get("language") == "python"]
    assert len(python) >= 2
    lines = FENCES.split("\n")
    for chunk in python:
        assert chunk.metadata["oversize_split"] is True
        assert chunk.chars <= 30
        assert all(line in lines for line in chunk.text.split("\n"))
    tilde = [c for c in chunks if c.metadata.get("language") == "text"]
    assert all(c.metadata["oversize_split"] for c in tilde)
    assert tilde[-1].text.endswith("~~~~")


def test_a_fence_line_larger_than_the_size_is_split_further() -> None:
    text = "```\n" + "word " * 30 + "\n```\n"
    chunks = split(text, size=40)
    assert len(chunks) > 3
    assert all(c.metadata.get("oversize_split") for c in chunks)


# --- tables ------------------------------------------------------------------------------------

TABLE = "## Prices\n\n| Item | Price |\n|------|------:|\n" + "".join(
    f"| item number {n} | {n}.00 |\n" for n in range(1, 11)
)


def test_a_small_header_counts_within_the_size_so_the_context_fits() -> None:
    chunks = split(TABLE, size=100)
    pieces = [c for c in chunks if c.metadata.get("kind") == "table"]
    assert len(pieces) > 2
    for chunk in pieces:
        assert chunk.context is not None
        header = "| Item | Price |\n|------|------:|\n"
        # The first piece holds the header itself, after its heading.
        assert chunk.context.startswith((header, f"## Prices\n\n{header}"))
        assert len(chunk.context) <= 100
        assert "context_oversize" not in chunk.metadata


def test_a_header_too_large_to_count_is_flagged_when_the_context_exceeds_the_size() -> None:
    chunks = split(TABLE, size=40)
    rows = [c for c in chunks if c.metadata.get("kind") == "table" and c.text.startswith("| item")]
    assert rows
    for chunk in rows:
        assert chunk.chars <= 40
        assert chunk.context is not None
        assert chunk.metadata.get("context_oversize") == (len(chunk.context) > 40)


def test_a_table_that_fits_is_packed_whole() -> None:
    chunks = split(TABLE, size=1000)
    assert len(chunks) == 1
    assert chunks[0].text == TABLE.rstrip("\n")


def test_a_bold_table_cell_is_not_a_label() -> None:
    text = "| Company | Terms |\n|---|---|\n| **No refund** | A |\n| B | 30 days |\n\nAfter.\n"
    assert all("label" not in c.metadata for c in split(text, size=40))


# --- lists, labels, headings -------------------------------------------------------------------

LIST = "Intro line.\n\n" + "".join(f"- item {n} has a few words in it\n" for n in range(1, 9))


def test_a_list_larger_than_the_size_is_split_between_whole_items() -> None:
    chunks = split(LIST, size=80)
    items = [c for c in chunks if c.text.startswith("- item")]
    assert len(items) >= 3
    for chunk in items:
        assert all(line.startswith("- item") for line in chunk.text.split("\n"))
        assert "oversize_split" not in chunk.metadata


LABELS = """# Policies

**Refund policy**
Customers may return goods within 30 days. The receipt is required.

Store credit is offered when there is no receipt.

Text with a soft-wrapped
**bold line** inside it.

```text
**not a label**
```

After the fence the label no longer applies.
"""


def test_a_bold_label_repeats_in_the_context_of_its_scope_only() -> None:
    chunks = split(LABELS, size=70)
    labelled = [c for c in chunks if c.metadata.get("label") == "Refund policy"]
    assert labelled[0].text.startswith(("**Refund policy**", "# Policies\n\n**Refund policy**"))
    assert labelled[0].context is None  # the label is in its own text
    later = labelled[1:]
    assert later
    for chunk in later:
        assert chunk.context == "**Refund policy**\n" + chunk.text
    after = [c for c in chunks if c.text.startswith("After the fence")]
    assert after[0].context is None
    assert "label" not in after[0].metadata
    assert not any(c.metadata.get("label") == "bold line" for c in chunks)
    assert not any(c.metadata.get("label") == "not a label" for c in chunks)


def test_a_heading_never_stands_alone_when_what_is_beside_it_fits() -> None:
    text = "# A\n\n## B\n\nBody of B.\n\n## C\n\n# D\n\nBody of D.\n\n## E\n"
    chunks = split(text, size=500)
    # A leads its first subsection; the empty C and E join the chunk before them.
    assert [c.text for c in chunks] == [
        "# A\n\n## B\n\nBody of B.\n\n## C",
        "# D\n\nBody of D.\n\n## E",
    ]
    assert [c.headings for c in chunks] == [("A",), ("D",)]
    small = split(text, size=20)  # nothing fits beside them: headings stay whole, alone
    assert [c.text for c in small] == [
        "# A\n\n## B",
        "Body of B.\n\n## C",
        "# D\n\nBody of D.",
        "## E",
    ]


def test_an_empty_first_section_joins_the_one_after_it() -> None:
    chunks = split("## Empty\n\n## Next\n\nText.\n", size=500)
    assert [c.text for c in chunks] == ["## Empty\n\n## Next\n\nText."]


def test_closers_and_indented_bodies_stay_with_the_block_they_close() -> None:
    fence = "```console\n" + "$ run --flag\n" * 6 + "```"
    text = (
        f'# Run\n\nIntro line.\n\n<div class="termy">\n\n{fence}\n\n</div>\n\n'
        "!!! note\n    An admonition opener.\n\n    ```yaml\n    key: value\n    ```\n\n"
        "/// details | More\n    type: info\n\nThe body of the block.\n\n///\n"
    )
    for size in (60, 100, 130, 200):
        chunks = split(text, size=size)
        for chunk in chunks:
            assert not chunk.text.startswith(("</div>", "///\n")), (size, chunk.text)
            assert chunk.text != "///", size
            if size >= 130:  # each opener and its block fit together
                assert not chunk.text.endswith('<div class="termy">'), (size, chunk.text)
                assert not chunk.text.startswith("    "), (size, chunk.text)
                assert not chunk.text.endswith("!!! note\n    An admonition opener."), size


def test_min_level_keeps_deeper_headings_inside_their_section() -> None:
    text = "# A\n\n## B\n\nBody of B.\n\n### B1\n\nMore.\n\n## C\n\nBody of C.\n"
    chunks = split(text, size=500, options={"min_level": "2"})
    assert [c.text for c in chunks] == [
        "# A\n\n## B\n\nBody of B.\n\n### B1\n\nMore.",  # A leads its first subsection
        "## C\n\nBody of C.",
    ]


def test_min_level_is_validated() -> None:
    with pytest.raises(OptionError, match=r"min_level must be between 1 and 6 \(got 7\)"):
        make_plan(shortcuts({"strategy": "markdown", "options": {"min_level": "7"}}))


def test_contextualize_puts_the_breadcrumb_first_and_counts_it() -> None:
    chunks = split(TABLE, size=100, contextualize=True)
    for chunk in chunks:
        assert chunk.context is not None
        assert chunk.context.startswith("Prices\n\n")
        assert len(chunk.context) <= 100
    rows = [c for c in chunks if c.text.startswith("| item")]
    assert rows[0].context is not None
    assert rows[0].context.startswith("Prices\n\n| Item | Price |\n")


def test_plain_text_is_read_as_markdown() -> None:
    doc = Document(text="# Title\n\nSome text.\n\n## Part\n\nMore text.\n")
    chunks = assert_invariants(doc, make_plan(shortcuts({"strategy": "markdown", "size": 100})))
    assert [c.headings for c in chunks] == [("Title",), ("Title", "Part")]


def test_repeated_headers_beyond_the_output_budget_fail_with_one_sentence() -> None:
    header = "| " + " | ".join(f"column {n:04d}" for n in range(200)) + " |\n"
    header += "|" + "---|" * 200 + "\n"
    text = header + "".join(f"| {n} |\n" for n in range(400))
    with pytest.raises(LimitExceededError) as caught:
        chunk_document(
            markdown(text), make_plan(shortcuts({"strategy": "markdown", "size": 12})).recipe
        )
    assert str(caught.value).startswith("doc.md: the breadcrumbs, table headers and labels")
    assert "\n" not in str(caught.value)
