"""The package's public names."""

from __future__ import annotations

from pathlib import Path

import pytest

import ragchunk


def test_every_public_name_resolves_lazily() -> None:
    assert sorted(ragchunk._HOMES) == sorted(ragchunk.__all__)
    for name in ragchunk.__all__:
        assert getattr(ragchunk, name).__name__ == name
    with pytest.raises(AttributeError, match="has no attribute 'nothing'"):
        _ = ragchunk.nothing


def test_chunk_file_takes_the_format_and_language_flags(tmp_path: Path) -> None:
    source = tmp_path / "script"  # no extension: plain text unless told otherwise
    source.write_text("def one():\n    return 1\n\n\nclass Two:\n    pass\n")
    assert {c.metadata.get("language") for c in ragchunk.chunk_file(str(source))} == {None}
    chunks = ragchunk.chunk_file(str(source), strategy="code", language="python")
    assert [(c.metadata["language"], c.metadata["symbol"]) for c in chunks] == [
        ("python", "one, Two")
    ]
    notes = tmp_path / "notes"
    notes.write_text("# Title\n\nThe body.\n")
    assert [c.headings for c in ragchunk.chunk_file(str(notes))] == [()]
    forced = ragchunk.chunk_file(str(notes), format="markdown", size=12, overlap=0)
    assert [c.headings for c in forced] == [("Title",), ("Title",)]


@pytest.mark.slow
def test_chunk_text_takes_the_embedding_flags(tmp_path: Path) -> None:
    from ragchunk import EmbedderSpec, chunk_text

    text = "The tide rose over the harbour wall. " * 3 + "Volcanoes erupt ash into the sky. " * 3
    chunks = chunk_text(
        text,
        strategy="sentence",
        size=60,
        embed=True,
        embedder=EmbedderSpec(),
        cache_dir=str(tmp_path),
    )
    assert all(c.embedding is not None and len(c.embedding) == 384 for c in chunks)
    assert any(tmp_path.rglob("*"))  # the vectors went to the cache given


def test_chunk_text_takes_a_settings_tree_and_its_keywords_win() -> None:
    from ragchunk import Settings, chunk_text
    from ragchunk.settings import Chunking

    text = "One short sentence here. " * 20
    tree = Settings(chunking=Chunking(strategy="fixed", size=50, overlap=0))
    by_tree = chunk_text(text, tree)
    assert [c.text for c in by_tree] == [text[i : i + 50] for i in range(0, len(text), 50)]
    assert by_tree == chunk_text(text, strategy="fixed", size=50, overlap=0)
    wider = chunk_text(text, tree, size=100)  # a keyword wins over the tree's leaf
    assert [c.end - c.start for c in wider] == [100] * 5
    assert all(c.strategy == "fixed" for c in wider)


def test_chunk_text_takes_a_parent_spec_as_parents_text() -> None:
    from ragchunk import chunk_text
    from ragchunk.pipeline.parents import ParentSpec

    text = "Word " * 400
    assert chunk_text(text, size=100, parents=ParentSpec("recursive", 600, 0)) == chunk_text(
        text, size=100, parents="600"
    )
