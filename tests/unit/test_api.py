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
