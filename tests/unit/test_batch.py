"""Batch runs as a library: routing outputs, counting, manifest records and removals."""

from __future__ import annotations

import contextlib
import dataclasses
import io
import json
from pathlib import Path

import pytest

from ragchunk import sinks
from ragchunk.errors import OptionError
from ragchunk.pipeline.results import FileResult
from ragchunk.pipeline.scopes import make_plans
from ragchunk.runs import workers
from ragchunk.runs.batch import Batch, is_directory_output, prepare
from ragchunk.runs.config import Config
from ragchunk.runs.loop import Extra, run_batch
from ragchunk.runs.tally import Tally
from ragchunk.settings import Run, scope
from ragchunk.sinks.jsonl import encode

PARAGRAPH = "A sentence about retrieval. Another about chunks, overlap and size.\n\n"


def make_tree(root: Path, names: list[str]) -> Path:
    for name in names:
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(PARAGRAPH * 2, encoding="utf-8")
    return root


def make_batch(
    paths: list[str], *, output: str | None, manifest: Path | None = None, root: Path | None = None
) -> Batch:
    plans = make_plans(Config(), scope({"size": 60, "overlap": 0}))
    run = Run(
        jobs=1,
        manifest=None if manifest is None else str(manifest),
        root=None if root is None else str(root),
    )
    return prepare(paths, plans, run, output=output)


class _StopError(Exception):
    """Cuts a run short, as Ctrl-C or a failing write would."""


def run_all(batch: Batch, *, stop_after: int | None = None) -> Tally:
    """Run the batch as the command line does, writing outputs; stop early on request."""
    tally = Tally.start(batch)
    extra: list[Extra] = [] if batch.has_output else [(batch.output_format, io.StringIO())]

    def stop(_result: FileResult) -> None:
        if tally.done == stop_after:
            raise _StopError

    with contextlib.suppress(_StopError):
        run_batch(batch, extra=extra, on_result=stop, tally=tally)
    return tally


def listing(directory: Path) -> list[str]:
    return sorted(p.relative_to(directory).as_posix() for p in directory.rglob("*") if p.is_file())


def test_directory_outputs_are_a_trailing_slash_or_an_existing_directory(tmp_path: Path) -> None:
    assert is_directory_output(f"{tmp_path}/new/")
    assert is_directory_output(str(tmp_path))
    assert not is_directory_output(str(tmp_path / "all.jsonl"))


def test_prepare_routes_each_input_to_its_mirrored_file(tmp_path: Path) -> None:
    docs = make_tree(tmp_path / "docs", ["a.txt", "sub/b.txt"])
    out = tmp_path / "out"
    batch = make_batch([str(docs)], output=f"{out}/", root=docs)
    assert [job.doc_id for job in batch.jobs] == ["a.txt", "sub/b.txt"]
    assert batch.outputs == (out / "a.txt.jsonl", out / "sub" / "b.txt.jsonl")
    assert (batch.output_dir, batch.output_file, batch.roots) == (out, None, (str(docs),))


def test_outputs_mirror_the_doc_ids_relative_to_the_current_directory(
    tmp_path: Path, monkeypatch
) -> None:
    make_tree(tmp_path / "docs", ["a.txt", "sub/b.txt"])
    make_tree(tmp_path / "archive", ["sub/b.txt"])
    monkeypatch.chdir(tmp_path)
    batch = make_batch(["docs", "archive", "docs/sub/b.txt"], output="out/")
    assert [job.doc_id for job in batch.jobs] == [
        "docs/a.txt",
        "docs/sub/b.txt",
        "archive/sub/b.txt",
    ]
    assert batch.outputs == (
        Path("out/docs/a.txt.jsonl"),
        Path("out/docs/sub/b.txt.jsonl"),
        Path("out/archive/sub/b.txt.jsonl"),
    )
    assert [note.code for note in batch.notes] == ["duplicate-input"]


def test_two_inputs_claiming_one_output_the_second_is_refused(tmp_path: Path) -> None:
    # doc_ids are unique, but an absolute one (a file outside --root) loses its leading / under
    # -o DIR/: a file inside the root at that same relative path would share its output.
    root = tmp_path / "root"
    first = make_tree(tmp_path / "x", ["a.txt"]) / "a.txt"
    second = make_tree(root, [first.relative_to("/").as_posix()]) / first.relative_to("/")
    out = tmp_path / "out"
    batch = make_batch([str(first), str(second)], output=f"{out}/", root=root)
    target = out / first.relative_to("/").parent / "a.txt.jsonl"
    assert [job.source for job in batch.jobs] == [str(first)]
    assert batch.outputs == (target,)
    assert [failure.error for failure in batch.refused] == [
        f"{second}: its output {target} is already that of {first}"
    ]


def test_a_tally_counts_and_records_every_written_input(tmp_path: Path) -> None:
    docs = make_tree(tmp_path / "docs", ["a.txt", "b.txt"])
    manifest = tmp_path / "m.json"
    batch = make_batch([str(docs)], output=f"{tmp_path}/out/", manifest=manifest, root=docs)
    tally = run_all(batch)
    assert (tally.done, tally.chunked, tally.unchanged, tally.failures) == (2, 2, 0, [])
    assert tally.chunks == sum(e.chunks for e in tally.entries.values())
    saved = json.loads(manifest.read_text(encoding="utf-8"))["inputs"]
    assert sorted(saved) == ["docs/a.txt", "docs/b.txt"]
    assert saved["docs/a.txt"]["output"] == "out/a.txt.jsonl"


def test_a_run_cut_short_records_finished_files_but_not_a_shared_one(tmp_path: Path) -> None:
    docs = make_tree(tmp_path / "docs", ["a.txt", "b.txt", "c.txt"])
    per_input = tmp_path / "per-input.json"
    run_all(make_batch([str(docs)], output=f"{tmp_path}/out/", manifest=per_input), stop_after=1)
    assert list(json.loads(per_input.read_text(encoding="utf-8"))["inputs"]) == ["docs/a.txt"]
    shared = tmp_path / "shared.json"
    out = tmp_path / "all.jsonl"
    run_all(make_batch([str(docs)], output=str(out), manifest=shared), stop_after=1)
    assert not shared.exists()
    assert not out.exists()  # the shared file is written atomically: all or nothing


def test_outputs_of_gone_inputs_are_removed_with_their_empty_directories(tmp_path: Path) -> None:
    docs = make_tree(tmp_path / "docs", ["keep.txt", "old/deep/gone.txt"])
    out, manifest = tmp_path / "out", tmp_path / "m.json"
    run_all(make_batch([str(docs)], output=f"{out}/", manifest=manifest, root=docs))
    assert listing(out) == ["keep.txt.jsonl", "old/deep/gone.txt.jsonl"]
    (docs / "old" / "deep" / "gone.txt").unlink()
    tally = run_all(make_batch([str(docs)], output=f"{out}/", manifest=manifest, root=docs))
    assert (tally.removed, tally.unchanged, tally.chunked) == (1, 1, 0)
    assert listing(out) == ["keep.txt.jsonl"]
    assert not (out / "old").exists()
    assert list(json.loads(manifest.read_text(encoding="utf-8"))["inputs"]) == ["docs/keep.txt"]


def test_a_recorded_output_outside_the_output_directory_is_never_removed(tmp_path: Path) -> None:
    docs = make_tree(tmp_path / "docs", ["a.txt"])
    out, manifest = tmp_path / "out", tmp_path / "m.json"
    outside = tmp_path / "precious.jsonl"
    outside.write_text("{}\n", encoding="utf-8")
    entry = {"hash": "0", "settings": "0", "output": "precious.jsonl", "chunks": 1}
    data = {"format": 1, "inputs": {"docs/gone.txt": entry}}
    manifest.write_text(json.dumps(data), encoding="utf-8")
    tally = run_all(make_batch([str(docs)], output=f"{out}/", manifest=manifest))
    assert tally.removed == 1
    assert outside.read_text(encoding="utf-8") == "{}\n"


def test_the_jsonl_sink_writes_to_a_stream_or_a_file(tmp_path: Path) -> None:
    source = make_tree(tmp_path, ["a.txt"]) / "a.txt"
    (result,) = workers.run_jobs(make_batch([str(source)], output=None, root=tmp_path).jobs)
    rendered = dataclasses.replace(result, rendered=(encode(result.chunks),))
    sink = sinks.get("jsonl")
    assert sink.render is encode  # it takes bytes, rendered where the chunks are made
    stream = io.StringIO()
    with sink.open(stream) as out:
        out.write(rendered)
    assert [json.loads(line)["doc_id"] for line in stream.getvalue().splitlines()] == [
        "a.txt"
    ] * result.chunk_count
    target = tmp_path / "out" / "a.jsonl"
    with sink.open(str(target)) as out:
        out.write(rendered)
    assert target.read_text(encoding="utf-8") == stream.getvalue()
    assert listing(tmp_path) == ["a.txt", "out/a.jsonl"]


def test_a_run_without_a_sink_writes_nothing_and_hands_over_the_chunks(tmp_path: Path) -> None:
    docs = make_tree(tmp_path / "docs", ["a.txt", "b.txt"])
    seen: list[FileResult] = []
    tally = run_batch(make_batch([str(docs)], output=None, root=docs), on_result=seen.append)
    assert [r.doc_id for r in seen] == ["a.txt", "b.txt"]
    assert all(r.rendered is None and len(r.chunks) == r.chunk_count > 0 for r in seen)
    assert tally.chunks == sum(r.chunk_count for r in seen)
    assert listing(tmp_path) == ["docs/a.txt", "docs/b.txt"]


def test_the_output_format_comes_from_the_flag_else_the_name() -> None:
    assert sinks.choose(None, None) == "jsonl"
    assert sinks.choose("all.jsonl", None) == "jsonl"
    assert sinks.choose("all.PARQUET", None) == "parquet"
    assert sinks.choose("all.data", "parquet") == "parquet"
    assert sinks.choose("out.parquet", None, is_directory=True) == "jsonl"
    assert sinks.choose("out/", "parquet", is_directory=True) == "parquet"


@pytest.mark.parametrize(
    ("output", "given", "message"),
    [
        (None, "parquet", "--output-format parquet needs -o FILE or -o DIR/ (it is not written"),
        ("all.jsonl", "parquet", "--output-format parquet does not fit -o all.jsonl"),
        ("all.parquet", "jsonl", "--output-format jsonl does not fit -o all.parquet"),
        (
            "all.csv",
            "csv",
            "--output-format must be one of jsonl, parquet, qdrant, lancedb, milvus (got 'csv')",
        ),
    ],
)
def test_output_formats_that_do_not_fit_are_usage_errors(
    output: str | None, given: str, message: str
) -> None:
    with pytest.raises(OptionError) as caught:
        sinks.choose(output, given)
    assert str(caught.value).startswith(message)


def test_parquet_outputs_mirror_the_tree_with_their_own_suffix(tmp_path: Path) -> None:
    pq = pytest.importorskip("pyarrow.parquet")
    docs = make_tree(tmp_path / "docs", ["a.txt", "sub/b.txt"])
    out, manifest = tmp_path / "out", tmp_path / "m.json"
    plans = make_plans(Config(), scope({"size": 60, "overlap": 0}))
    run = Run(jobs=1, manifest=str(manifest), root=str(docs))
    batch = prepare([str(docs)], plans, run, output=f"{out}/", output_format="parquet")
    assert batch.outputs == (out / "a.txt.parquet", out / "sub" / "b.txt.parquet")
    tally = run_all(batch)
    assert listing(out) == ["a.txt.parquet", "sub/b.txt.parquet"]
    assert pq.read_table(out / "a.txt.parquet").num_rows == tally.entries["docs/a.txt"].chunks
    saved = json.loads(manifest.read_text(encoding="utf-8"))["inputs"]
    assert saved["docs/sub/b.txt"]["output"] == "out/sub/b.txt.parquet"


def test_one_parquet_file_holds_every_input_and_appears_whole(tmp_path: Path) -> None:
    pq = pytest.importorskip("pyarrow.parquet")
    docs = make_tree(tmp_path / "docs", ["a.txt", "b.txt", "c.txt"])
    out = tmp_path / "all.parquet"
    run_all(make_batch([str(docs)], output=str(out), root=docs), stop_after=2)
    assert not out.exists()  # cut short: nothing, not a partial file
    tally = run_all(make_batch([str(docs)], output=str(out), root=docs))
    table = pq.read_table(out)
    assert table.num_rows == tally.chunks
    assert sorted(set(table.column("doc_id").to_pylist())) == ["a.txt", "b.txt", "c.txt"]


def test_a_ray_address_needs_the_ray_engine(tmp_path: Path) -> None:
    plans = make_plans(Config(), scope({}))
    run = Run(ray_address="auto")
    with pytest.raises(OptionError, match="--ray-address needs --engine ray"):
        prepare([str(tmp_path)], plans, run, output=None)
