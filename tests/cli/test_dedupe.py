"""``split --dedupe`` through the CLI: what is dropped or marked, counts, --jobs, bad values."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ragchunk.cli import app
from tests.conftest import FIXTURES

runner = CliRunner()
NOTES = (FIXTURES / "text" / "field-notes.txt").read_text(encoding="utf-8")
LICENCE = (FIXTURES / "text" / "apache-2.0.txt").read_text(encoding="utf-8")
BULLETINS = FIXTURES / "pdf" / "bulletins.pdf"
# Light edits: three words changed, in three different chunks.
EDITED = (
    NOTES.replace("roughly 40,000 pages", "about 40,000 pages")
    .replace("typed letters", "typewritten letters")
    .replace("more for tables", "more for big tables")
)


def records(stdout: str) -> list[dict[str, object]]:
    return [json.loads(line) for line in stdout.splitlines()]


@pytest.fixture
def copies(tmp_path: Path) -> Path:
    """A directory: the notes, a copy, a lightly edited copy and an unrelated licence."""
    root = tmp_path / "docs"
    root.mkdir()
    (root / "a-notes.txt").write_text(NOTES, encoding="utf-8")
    (root / "b-copy.txt").write_text(NOTES, encoding="utf-8")
    (root / "c-edited.txt").write_text(EDITED, encoding="utf-8")
    (root / "d-licence.txt").write_text(LICENCE, encoding="utf-8")
    return root


def _chunk_counts(root: Path) -> dict[str, int]:
    plain = runner.invoke(app, ["split", str(root), "-q", "--jobs", "1"])
    assert plain.exit_code == 0, plain.stderr
    counts: dict[str, int] = {}
    for record in records(plain.stdout):
        name = Path(str(record["source"])).name
        counts[name] = counts.get(name, 0) + 1
    return counts


def test_near_drops_copies_and_light_edits_the_same_with_one_and_two_jobs(copies: Path) -> None:
    counts = _chunk_counts(copies)
    notes = counts["a-notes.txt"]
    assert counts["b-copy.txt"] == counts["c-edited.txt"] == notes
    runs = [
        runner.invoke(app, ["split", str(copies), "--dedupe", "near", "--jobs", jobs, "-v"])
        for jobs in ("1", "2")
    ]
    for run in runs:
        assert run.exit_code == 0, run.stderr
    assert runs[0].stdout == runs[1].stdout  # byte-identical
    kept = records(runs[0].stdout)
    sources = {Path(str(r["source"])).name for r in kept}
    assert sources == {"a-notes.txt", "d-licence.txt"}  # every chunk of both copies dropped
    assert len(kept) == notes + counts["d-licence.txt"]
    stderr = runs[0].stderr
    assert f"b-copy.txt: 0 chunks, {notes} duplicates dropped" in stderr
    assert f"c-edited.txt: 0 chunks, {notes} duplicates dropped" in stderr
    total = sum(counts.values())
    assert f"dedupe near:0.7: {2 * notes} of {total} chunks repeat an earlier chunk, dropped" in (
        stderr
    )


def test_kept_records_are_those_of_a_run_without_dedupe(copies: Path) -> None:
    plain = records(runner.invoke(app, ["split", str(copies), "--jobs", "1"]).stdout)
    deduped = runner.invoke(app, ["split", str(copies), "--dedupe", "near", "--jobs", "1"])
    kept = records(deduped.stdout)
    by_id = {r["id"]: r for r in plain}
    assert all(by_id[r["id"]] == r for r in kept)  # index included: dropped ones leave gaps


def test_exact_misses_the_edited_copy_and_ignores_whitespace(tmp_path: Path) -> None:
    root = tmp_path / "docs"
    root.mkdir()
    (root / "a.txt").write_text(NOTES, encoding="utf-8")
    (root / "b.txt").write_text(NOTES.replace("\n", "\r\n"), encoding="utf-8")  # CRLF copy
    (root / "c.txt").write_text(EDITED, encoding="utf-8")
    counts = _chunk_counts(root)
    result = runner.invoke(app, ["split", str(root), "--dedupe", "exact", "-v", "--jobs", "1"])
    assert result.exit_code == 0, result.stderr
    kept = records(result.stdout)
    names = [Path(str(r["source"])).name for r in kept]
    assert names.count("b.txt") == 0
    # c.txt keeps the chunks holding an edit (and those whose overlap reaches an edit).
    assert 3 <= names.count("c.txt") < counts["c.txt"]
    dropped = counts["c.txt"] - names.count("c.txt")
    assert f"c.txt: {names.count('c.txt')} chunks, {dropped} duplicates dropped" in result.stderr


def test_mark_keeps_every_chunk_with_the_id_of_the_one_it_repeats(copies: Path) -> None:
    plain = records(runner.invoke(app, ["split", str(copies), "--jobs", "1"]).stdout)
    result = runner.invoke(
        app, ["split", str(copies), "--dedupe", "near", "--dedupe-mark", "--jobs", "2"]
    )
    assert result.exit_code == 0, result.stderr
    marked = records(result.stdout)
    assert [r["id"] for r in marked] == [r["id"] for r in plain]
    notes = [r for r in plain if str(r["source"]).endswith("a-notes.txt")]
    for record, original in zip(marked, plain, strict=True):
        metadata = record["metadata"]
        assert isinstance(metadata, dict)
        name = Path(str(record["source"])).name
        if name in ("b-copy.txt", "c-edited.txt"):
            # A copy's chunk k repeats the notes' chunk k (the edits are light).
            kept = notes[int(str(record["index"]))]
            assert metadata == {**original["metadata"], "duplicate_of": kept["id"]}  # type: ignore[dict-item]
        else:
            assert record == original
    assert "dedupe near:0.7: " in result.stderr
    assert result.stderr.rstrip().endswith(", marked")


def test_the_pdf_fixture_loses_its_repeated_disclaimers() -> None:
    result = runner.invoke(app, ["split", str(BULLETINS), "--dedupe", "near", "--dedupe-mark"])
    assert result.exit_code == 0, result.stderr
    chunks = records(result.stdout)
    marked = [c for c in chunks if "duplicate_of" in c["metadata"]]  # type: ignore[operator]
    assert [c["page_start"] for c in marked] == [2, 3, 4]  # page 3's was edited
    first = next(c for c in chunks if "Disclaimer:" in str(c["text"]))
    assert first["page_start"] == 1
    assert all(c["metadata"]["duplicate_of"] == first["id"] for c in marked)  # type: ignore[index]
    assert all("Disclaimer:" in str(c["text"]) for c in marked)
    exact = runner.invoke(
        app, ["split", str(BULLETINS), "--dedupe", "exact", "--overlap", "0", "-v"]
    )
    assert "bulletins.pdf: 10 chunks, 2 duplicates dropped" in exact.stderr  # not the edited one


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("near:1.5", "--dedupe near's threshold must be above 0 and at most 1 (got 1.5)"),
        ("near:0", "--dedupe near's threshold must be above 0 and at most 1 (got 0)"),
        ("fuzzy", "--dedupe must be exact or near[:THRESHOLD] (got 'fuzzy')"),
        ("near:high", "--dedupe near's threshold must be a number above 0, at most 1 (got 'high')"),
        ("exact:0.9", "--dedupe exact takes no threshold (got 'exact:0.9')"),
    ],
)
def test_bad_values_are_one_line(copies: Path, value: str, message: str) -> None:
    result = runner.invoke(app, ["split", str(copies), "--dedupe", value])
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr == f"Error: {message}\n"


def test_mark_needs_dedupe(copies: Path) -> None:
    result = runner.invoke(app, ["split", str(copies), "--dedupe-mark"])
    assert result.exit_code == 2
    assert result.stderr == "Error: --dedupe-mark needs --dedupe exact or --dedupe near\n"


def test_check_still_holds_and_checks_the_chunks_before_dedupe(copies: Path) -> None:
    result = runner.invoke(app, ["split", str(copies), "--dedupe", "near", "--check", "-q"])
    assert result.exit_code == 0, result.stderr
    assert result.stderr == ""


def test_a_manifest_run_reads_every_input_again(copies: Path, tmp_path: Path) -> None:
    manifest = tmp_path / "manifest.json"
    out = tmp_path / "out"
    args = ["split", str(copies), "--dedupe", "near", "--manifest", str(manifest)]
    first = runner.invoke(app, [*args, "-o", f"{out}/"])
    assert first.exit_code == 0, first.stderr
    outputs = {p.name: p.read_bytes() for p in sorted(out.rglob("*.jsonl"))}
    assert outputs["b-copy.txt.jsonl"] == b""  # every chunk a duplicate: an empty output
    (copies / "a-notes.txt").unlink()  # the copy now comes first: it keeps its chunks
    second = runner.invoke(app, [*args, "-o", f"{out}/"])
    assert second.exit_code == 0, second.stderr
    assert "--dedupe reads every input again" in second.stderr
    assert "3 inputs processed, 0 unchanged and skipped, 1 removed" in second.stderr
    again = {p.name: p.read_bytes() for p in sorted(out.rglob("*.jsonl"))}
    assert "a-notes.txt.jsonl" not in again
    notes = len(outputs["a-notes.txt.jsonl"].splitlines())
    assert len(again["b-copy.txt.jsonl"].splitlines()) == notes  # first now: kept
    assert again["c-edited.txt.jsonl"] == b""  # duplicates of the copy now


def test_stats_counts_marked_and_dropped_duplicates(tmp_path: Path) -> None:
    root = tmp_path / "docs"
    root.mkdir()
    (root / "a.txt").write_text(NOTES, encoding="utf-8")
    (root / "c.txt").write_text(EDITED, encoding="utf-8")
    counts = _chunk_counts(root)
    marked, dropped = tmp_path / "marked.jsonl", tmp_path / "dropped.jsonl"
    split = ["split", str(root), "--dedupe", "exact", "-o"]
    assert runner.invoke(app, [*split, str(marked), "--dedupe-mark"]).exit_code == 0
    assert runner.invoke(app, [*split, str(dropped)]).exit_code == 0
    lines = marked.read_text(encoding="utf-8").splitlines()
    repeats = sum("duplicate_of" in line for line in lines)
    assert 0 < repeats < counts["c.txt"]
    shown = runner.invoke(app, ["stats", str(marked)])
    assert (
        f"duplicates: {repeats} of {len(lines)} chunks marked duplicate_of an earlier chunk; "
        "at least 0 dropped by --dedupe (gaps in their document's index)" in _flat(shown.stdout)
    )
    kept = [json.loads(line) for line in dropped.read_text(encoding="utf-8").splitlines()]
    indices = [r["index"] for r in kept if r["source"].endswith("c.txt")]
    missing = set(range(max(indices) + 1)) - set(indices)  # dropped ones after the last unseen
    assert missing
    shown = runner.invoke(app, ["stats", str(dropped)])
    assert (
        f"duplicates: 0 of {len(kept)} chunks marked duplicate_of an earlier chunk; "
        f"at least {len(missing)} dropped by --dedupe" in _flat(shown.stdout)
    )


def _flat(text: str) -> str:
    """Return ``text`` with its runs of whitespace as one space (rich wraps long lines)."""
    return " ".join(text.split())


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_with_parents_children_are_compared_with_children_and_parents_all_kept(
    copies: Path, jobs: str
) -> None:
    """A copy's children go; every parent stays, so each kept child's parent_id is written."""
    args = ["split", str(copies), "--parents", "1600", "--size", "400", "--jobs", jobs]
    plain = runner.invoke(app, args)
    deduped = runner.invoke(app, [*args, "--dedupe", "exact"])
    assert plain.exit_code == deduped.exit_code == 0, deduped.stderr
    before, after = records(plain.stdout), records(deduped.stdout)
    parents = [r for r in before if "parent_id" not in r]
    assert [r for r in after if "parent_id" not in r] == parents  # none dropped, none marked
    written = {r["id"] for r in after}
    children = [r for r in after if "parent_id" in r]
    assert all(r["parent_id"] in written for r in children)
    copy_children = [r for r in children if str(r["source"]).endswith("b-copy.txt")]
    assert copy_children == []  # every child of the exact copy repeats one of the original's
    assert {str(r["source"]).rsplit("/", 1)[-1] for r in children} == {
        "a-notes.txt",
        "c-edited.txt",
        "d-licence.txt",
    }
    dropped, compared = len(before) - len(after), len(before) - len(parents)
    assert f"dedupe exact: {dropped} of {compared} chunks repeat an earlier chunk" in deduped.stderr
    stats = runner.invoke(app, ["stats", "-"], input=deduped.stdout, env={"COLUMNS": "200"})
    assert stats.exit_code == 0, stats.stderr
    assert f"{len(children)} chunks from 4 document(s)" in stats.stdout  # the copy: parents only
    assert "dropped by --dedupe (gaps in their document's index)" in stats.stdout
