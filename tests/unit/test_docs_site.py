"""Issue 13 acceptance on the documentation-site fixture tree (MkDocs-style pages).

No ``markdown`` chunk is a heading alone or table syntax alone, and ``--min-size 200`` leaves
a chunk under 200 characters only where a heading boundary or the size forbids every merge.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from ragchunk.model import Chunk, Document
from ragchunk.parsers.markdown import find_sections
from ragchunk.pipeline.engine import chunk_document, process
from ragchunk.pipeline.plan import make_plan
from ragchunk.settings import shortcuts
from ragchunk.text.sections import heading_scopes
from tests.conftest import FIXTURES

SITE = FIXTURES / "docs-site"
PAGES = sorted([*SITE.rglob("*.md"), *SITE.rglob("*.rst")])
_HEADING_LINE = re.compile(
    r"[ ]{0,3}#{1,6}(?:[ \t].*)?|[^\n]+\n[ ]{0,3}(?:=+|-+)[ \t]*"
    # a reStructuredText title: its text under an adornment line, with an optional overline
    r"|(?:([-=~^\"'*+#:.])\1{3,}\n)?[^\n]+\n([-=~^\"'*+#:.])\2{3,}[ \t]*"
)
_TABLE_SYNTAX = re.compile(r"[\s|:+=-]*")


def chunks_of(path: Path, **plan: object) -> tuple[Document, list[Chunk]]:
    result = process(
        str(path),
        path.relative_to(SITE).as_posix(),
        make_plan(shortcuts({**plan})),
        keep_document=True,
    )  # type: ignore[arg-type]
    assert result.error is None, result.error
    assert result.document is not None
    return result.document, list(result.chunks)


def is_heading_alone(chunk: Chunk) -> bool:
    blocks = [b for b in re.split(r"\n[ \t]*\n", chunk.text.strip()) if b.strip()]
    return bool(blocks) and all(_HEADING_LINE.fullmatch(b.strip("\n")) for b in blocks)


@pytest.mark.parametrize(
    "budget",
    [{}, {"size": 300}, {"size": 128, "unit": "tokens"}, {"size": 64, "unit": "tokens"}],
    ids=["default", "300chars", "128tokens", "64tokens"],
)
@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(SITE).as_posix())
def test_no_chunk_is_a_heading_or_table_syntax_alone(page: Path, budget: dict[str, object]) -> None:
    _, chunks = chunks_of(page, strategy="markdown", **budget)
    for chunk in chunks:
        assert not is_heading_alone(chunk), chunk.text
        assert not _TABLE_SYNTAX.fullmatch(chunk.text), chunk.text
    assert all(not c.text.lstrip().startswith(("</div>", "///\n")) for c in chunks)


def test_attribute_lists_never_reach_heading_paths() -> None:
    for page in PAGES:
        _, chunks = chunks_of(page, strategy="markdown", contextualize=True)
        for chunk in chunks:
            assert not any("{" in heading for heading in chunk.headings), chunk.headings
            assert chunk.context is not None
            assert "{ #" not in chunk.context.split("\n\n", 1)[0]  # the breadcrumb line


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(SITE).as_posix())
def test_min_size_leaves_small_chunks_only_where_a_heading_or_the_size_forbids(
    page: Path,
) -> None:
    doc, chunks = chunks_of(page, strategy="markdown", min_size=200)
    scope = heading_scopes(doc.sections)
    limit = 512
    for i, chunk in enumerate(chunks):
        if chunk.chars >= 200:
            continue
        for neighbour in (
            chunks[i - 1] if i else None,
            chunks[i + 1] if i + 1 < len(chunks) else None,
        ):
            if neighbour is None:
                continue
            first, second = sorted((chunk, neighbour), key=lambda c: c.start)
            heading_between = scope(first.start) != scope(second.start)
            # The merged chunk keeps the first one's repeated table header, counted in the size.
            prefix = len(first.context) - len(first.text) if first.context else 0
            too_large = prefix + second.end - first.start > limit
            assert heading_between or too_large, (
                f"{page.name}: chunk {chunk.index} ({chunk.chars} chars) could merge with "
                f"chunk {neighbour.index}"
            )


def test_min_size_merges_across_kinds() -> None:
    # Before: a merge was refused when metadata differed (a fence's last piece beside prose).
    text = "# T\n\n```\n" + "value = 1\n" * 10 + "```\n\nAfter the fence.\n"
    doc = Document(text=text, format="markdown", sections=tuple(find_sections(text)))
    plain = chunk_document(doc, make_plan(shortcuts({"strategy": "markdown", "size": 50})).recipe)
    merged = chunk_document(
        doc, make_plan(shortcuts({"strategy": "markdown", "size": 50, "min_size": 30})).recipe
    )
    assert [c.text for c in plain[-2:]] == ["value = 1\n```", "After the fence."]
    assert plain[-2].metadata == {"kind": "code", "oversize_split": True}
    assert [c.text for c in merged] == [
        *(c.text for c in plain[:-2]),
        "value = 1\n```\n\nAfter the fence.",
    ]
    assert merged[-1].metadata == {"oversize_split": True}  # it holds a piece of a split fence


def test_a_wide_table_keeps_whole_rows_beside_its_own_header_chunk() -> None:
    # At 300 characters the first row (217) fits alone but not beside the header rows (247):
    # rows stay whole (SPEC §4: tables split between rows), each repeating the header in its
    # context; the header rows make a chunk of their own, which holds the column names.
    doc, chunks = chunks_of(
        SITE / "docs" / "reference" / "responses.md", strategy="markdown", size=300
    )
    table = next(s for s in doc.sections if s.kind == "table")
    assert table.header is not None
    header = doc.text[table.header[0] : table.header[1]]
    rows = {doc.text[a:b] for a, b in table.parts}
    pieces = [c for c in chunks if table.start <= c.start < table.end]
    assert pieces[0].text == header
    assert "Media type" in pieces[0].text
    for piece in pieces[1:]:
        assert set(piece.text.split("\n")) <= rows
        assert piece.context is not None
        assert piece.context.startswith(header)
