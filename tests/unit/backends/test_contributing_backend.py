"""CONTRIBUTING.md's worked example: an embedding backend added by one module and one table line.

The example's code block is taken from CONTRIBUTING.md as it stands, saved as a module,
registered with one line in ``BACKENDS["embedder"]`` (as a plugin would), and run end to end:
``split --embed`` and ``semantic`` through the command line and the library, the disk cache,
and the messages that name backends.
"""

from __future__ import annotations

import importlib
import json
import re
from pathlib import Path
from types import ModuleType

import pytest
from typer.testing import CliRunner

from ragchunk import backends
from ragchunk.backends import EmbedderSpec
from ragchunk.errors import OptionError
from ragchunk.pipeline.engine import process
from ragchunk.pipeline.plan import make_plan
from ragchunk.settings import shortcuts
from tests.conftest import ROOT

MODULE = "contributing_hash"
runner = CliRunner()
TEXT = (
    "The tide rose over the harbour wall. The tide fell back at dawn.\n\n"
    "Volcanoes erupt when magma rises. Lava cools into new rock.\n\n"
    "The tide came in again by noon.\n"
)


def example_code() -> str:
    text = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", text, re.DOTALL)
    (block,) = [b for b in blocks if 'name="hash"' in b]
    return block


@pytest.fixture
def toy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    """Save the example as a module and add its one line to the embedder table."""
    folder = tmp_path / "plugin"
    folder.mkdir()
    (folder / f"{MODULE}.py").write_text(example_code(), encoding="utf-8")
    monkeypatch.syspath_prepend(str(folder))
    monkeypatch.setitem(backends.BACKENDS["embedder"], "hash", MODULE)
    return importlib.import_module(MODULE)


def expected(toy: ModuleType, text: str, salt: str | None = None) -> list[float]:
    """The toy's vector of ``text``, as JSONL writes it (float32 read back)."""
    embedder = toy.HashOptions(model=salt).load()
    (vector,) = embedder.embed([text])
    return [float(x) for x in vector]


def app():  # type: ignore[no-untyped-def]
    from ragchunk.cli import app as ragchunk_app

    return ragchunk_app


def test_split_embed_through_the_registered_backend(toy: ModuleType, tmp_path: Path) -> None:
    doc = tmp_path / "notes.txt"
    doc.write_text(TEXT, encoding="utf-8")
    args = ["split", str(doc), "--size", "80", "--embed", "--embedder", "hash", "--no-cache"]
    result = runner.invoke(app(), args)
    assert result.exit_code == 0, result.stderr
    records = [json.loads(line) for line in result.stdout.splitlines()]
    assert len(records) >= 3
    for record in records:
        assert record["metadata"]["embedding_model"] == "hash-64"
        assert record["metadata"]["embedding_dimensions"] == 64
        assert record["embedding"] == pytest.approx(expected(toy, record["text"]), abs=1e-7)
    salted = runner.invoke(app(), [*args, "--embed-model", "salt"])
    assert salted.exit_code == 0, salted.stderr
    first = json.loads(salted.stdout.splitlines()[0])
    assert first["metadata"]["embedding_model"] == "salt"
    assert first["embedding"] == pytest.approx(expected(toy, first["text"], "salt"), abs=1e-7)
    assert first["embedding"] != records[0]["embedding"]


def test_semantic_cuts_with_the_backend_and_caches_its_vectors(
    toy: ModuleType, tmp_path: Path
) -> None:
    from ragchunk.backends.cache import clear_memory

    doc = tmp_path / "notes.txt"
    doc.write_text(TEXT, encoding="utf-8")
    args = ["split", str(doc), "-s", "semantic", "--size", "2000", "--embedder", "hash"]
    args += ["--embed", "--cache-dir", str(tmp_path / "cache"), "-v"]
    clear_memory()
    first = runner.invoke(app(), args)
    assert first.exit_code == 0, first.stderr
    records = [json.loads(line) for line in first.stdout.splitlines()]
    assert all(TEXT[r["start"] : r["end"]] == r["text"] for r in records)
    assert len(records) >= 2  # the volcanoes are far from the tides
    assert all(r["metadata"]["embedding_model"] == "hash-64" for r in records)
    assert all(r["embedding"] == pytest.approx(expected(toy, r["text"])) for r in records)
    counts = re.search(r"embeddings: (\d+) computed, (\d+) from the cache", first.stderr)
    assert counts is not None, first.stderr
    computed, found = int(counts.group(1)), int(counts.group(2))
    assert computed > 0
    clear_memory()  # as a new process would start: the vectors come from disk
    second = runner.invoke(app(), args)
    assert second.exit_code == 0, second.stderr
    assert f"embeddings: 0 computed, {computed + found} from the cache" in second.stderr
    assert second.stdout == first.stdout


def test_the_library_uses_the_backend_and_ids_depend_on_it(toy: ModuleType, tmp_path: Path) -> None:
    doc = tmp_path / "notes.txt"
    doc.write_text(TEXT, encoding="utf-8")
    spec = EmbedderSpec(backend="hash", model="salt")
    assert spec.label == "hash:salt"
    assert backends.identity_of(spec) == "hash\0salt"
    asked = {"strategy": "semantic", "size": 2000, "no_cache": True, "embed": True}
    plan = make_plan(shortcuts({**asked, "embedder": "hash", "embed_model": "salt"}))
    chunks = process(str(doc), doc.name, plan).chunks
    assert chunks
    for chunk in chunks:
        assert chunk.text == TEXT[chunk.start : chunk.end]
        assert chunk.embedding == pytest.approx(expected(toy, chunk.text, "salt"), abs=1e-7)
    other = make_plan(shortcuts({"strategy": "semantic", "size": 2000, "embedder": "hash"}))
    assert other.recipe.fingerprint != plan.recipe.fingerprint


def test_the_backends_name_is_checked_and_listed(toy: ModuleType) -> None:
    with pytest.raises(OptionError) as raised:
        EmbedderSpec(backend="nope")
    assert str(raised.value) == "--embedder must be one of hash, local, openai (got 'nope')"
    assert backends.names("embedder") == ("hash", "local", "openai")
    assert backends.embedding_backend("hash") is toy.BACKEND


@pytest.mark.usefixtures("toy")
def test_late_chunking_refuses_a_backend_without_token_vectors(tmp_path: Path) -> None:
    doc = tmp_path / "notes.txt"
    doc.write_text(TEXT, encoding="utf-8")
    result = runner.invoke(app(), ["split", str(doc), "-s", "late", "--embedder", "hash"])
    assert result.exit_code == 2
    assert result.stderr == (
        "Error: --strategy late needs token vectors, which --embedder hash does not give\n"
    )


def test_without_its_table_line_the_backend_is_unknown() -> None:
    with pytest.raises(OptionError) as raised:
        EmbedderSpec(backend="hash")
    assert str(raised.value) == "--embedder must be one of local, openai (got 'hash')"
