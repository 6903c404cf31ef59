"""Manifests: what counts as unchanged, what is gone, and how bad files are reported."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragchunk.errors import UsageError
from ragchunk.pipeline.plan import make_plan
from ragchunk.runs.manifest import Entry, Manifest, load_manifest, save_manifest, settings_digest
from ragchunk.settings import shortcuts


def test_round_trip_is_sorted_json_relative_to_the_manifest(tmp_path: Path) -> None:
    path = tmp_path / "state" / "m.json"
    entries = {
        "docs/b.txt": Entry("h2", "s", None, 2),
        "docs/a.txt": Entry("h1", "s", "out/docs/a.txt.jsonl", 1),
    }
    save_manifest(path, entries)
    assert path.read_text(encoding="utf-8").index("a.txt") < path.read_text().index("b.txt")
    loaded = load_manifest(path)
    assert loaded.entries == entries
    assert loaded.key(str(tmp_path / "state" / "docs" / "a.txt")) == "docs/a.txt"
    assert loaded.key(str(tmp_path / "x.txt")) == "../x.txt"


def test_a_missing_file_is_empty_and_a_foreign_one_an_error(tmp_path: Path) -> None:
    assert load_manifest(tmp_path / "none.json").entries == {}
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": 7, "inputs": {}}')
    with pytest.raises(UsageError) as caught:
        load_manifest(bad)
    assert str(caught.value) == (
        f"--manifest: {bad} is not a ragchunk manifest (format 7, expected 1); "
        "delete it to start afresh"
    )
    bad.write_text("not json")
    with pytest.raises(UsageError, match="is not a ragchunk manifest"):
        load_manifest(bad)


def test_known_hash_needs_same_settings_output_and_an_existing_output(tmp_path: Path) -> None:
    out = tmp_path / "out" / "a.txt.jsonl"
    source = str(tmp_path / "a.txt")
    manifest = Manifest(tmp_path / "m.json", {"a.txt": Entry("h", "s", "out/a.txt.jsonl", 1)})
    assert manifest.known_hash(source, "s", out) is None  # the output file is missing
    out.parent.mkdir()
    out.write_text("")
    assert manifest.known_hash(source, "s", out) == "h"
    assert manifest.known_hash(source, "other settings", out) is None
    assert manifest.known_hash(source, "s", None) is None  # now to stdout: a new place
    assert manifest.known_hash(str(tmp_path / "new.txt"), "s", out) is None
    assert manifest.known_hash("-", "s", None) is None


def test_gone_is_limited_to_the_walked_roots(tmp_path: Path) -> None:
    entries = {
        "docs/a.txt": Entry("h", "s", None, 1),
        "docs/sub/b.txt": Entry("h", "s", None, 1),
        "docsx/c.txt": Entry("h", "s", None, 1),
        "other/d.txt": Entry("h", "s", None, 1),
    }
    manifest = Manifest(tmp_path / "m.json", entries)
    gone = manifest.gone([str(tmp_path / "docs")], [str(tmp_path / "docs" / "a.txt")])
    assert sorted(gone) == ["docs/sub/b.txt"]
    everything = manifest.gone([str(tmp_path)], [])
    assert sorted(everything) == sorted(entries)


def test_settings_digest_follows_every_shaping_field() -> None:
    base = settings_digest(make_plan(shortcuts({"size": 100})).recipe)
    assert base == settings_digest(
        make_plan(shortcuts({"size": 100, "debug": True, "password": "x"})).recipe
    )
    assert base != settings_digest(make_plan(shortcuts({"size": 101})).recipe)
    assert base != settings_digest(make_plan(shortcuts({"size": 100, "hashes": True})).recipe)
    assert base != settings_digest(make_plan(shortcuts({"size": 100, "count_tokens": True})).recipe)
    assert base != settings_digest(make_plan(shortcuts({"strategy": "fixed", "size": 100})).recipe)
