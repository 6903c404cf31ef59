"""run_jobs: in-process and pooled runs agree, results stay in order, a dying worker fails alone."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from collections import deque
from pathlib import Path

import pytest

from ragchunk.errors import UsageError
from ragchunk.options import Capacity
from ragchunk.pipeline.engine import process
from ragchunk.pipeline.plan import Plan, Recipe, make_plan
from ragchunk.runs import workers
from ragchunk.runs.workers import Job, run_jobs
from ragchunk.settings import shortcuts
from ragchunk.strategies._spec import Strategy
from ragchunk.strategies.recursive import RecursiveOptions, split


def crash_on_marker(doc, options, ctx):  # type: ignore[no-untyped-def]
    """Split like recursive, but kill the worker process on a marked document."""
    if "CRASH" in doc.text:
        os._exit(3)
    return split(doc, options, ctx)


CRASHING = Strategy(
    name="crashing", summary="test", options=RecursiveOptions, split=crash_on_marker
)


def write_inputs(tmp_path: Path, count: int) -> list[Path]:
    paths = []
    for k in range(count):
        path = tmp_path / f"doc{k:02}.txt"
        path.write_text(f"Document {k}. " * (20 + 7 * k) + "\n\nThe end.\n", encoding="utf-8")
        paths.append(path)
    return paths


def jobs_for(paths: list[Path], plan: Plan) -> list[Job]:
    return [Job(str(p), p.name, plan) for p in paths]


def test_pool_results_are_in_input_order_and_equal_to_in_process(tmp_path: Path) -> None:
    plan = make_plan(shortcuts({"size": 60}))
    jobs = jobs_for(write_inputs(tmp_path, 12), plan)
    alone = list(run_jobs(jobs, workers=1))
    pooled = list(run_jobs(jobs, workers=3))
    assert [r.doc_id for r in pooled] == [j.doc_id for j in jobs]
    assert pooled == alone
    assert all(r.error is None and r.chunks for r in pooled)


def test_a_worker_that_dies_fails_only_its_input(tmp_path: Path) -> None:
    paths = write_inputs(tmp_path, 6)
    paths[2].write_text("CRASH here\n", encoding="utf-8")
    plan = Plan(
        Recipe(
            strategy=CRASHING, options=RecursiveOptions(), capacity=Capacity(size=512, overlap=50)
        )
    )
    results = list(run_jobs(jobs_for(paths, plan), workers=2))
    assert [r.doc_id for r in results] == [p.name for p in paths]
    assert [r.error for r in results] == [
        None,
        None,
        f"{paths[2]}: the worker process chunking it died (exit code 3)",
        None,
        None,
        None,
    ]


def test_closing_early_stops_the_pool(tmp_path: Path) -> None:
    jobs = jobs_for(write_inputs(tmp_path, 10), make_plan(shortcuts({"size": 60})))
    results = run_jobs(jobs, workers=2)
    first = next(results)
    results.close()
    assert first.doc_id == "doc00.txt"


def test_jobs_below_one_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match=r"^--jobs must be at least 1 \(got 0\)$"):
        run_jobs([], workers=0)


def test_hashes_and_known_hash(tmp_path: Path) -> None:
    path = write_inputs(tmp_path, 1)[0]
    data = path.read_bytes()
    digest = hashlib.sha256(data).hexdigest()
    result = process(str(path), "d", make_plan(shortcuts({"size": 60, "hashes": True})))
    assert result.content_hash == digest
    for chunk in result.chunks:
        assert chunk.doc_hash == digest
        assert chunk.hash == hashlib.sha256(chunk.text.encode()).hexdigest()
        assert chunk.to_record()["hash"] == chunk.hash
    plain = process(str(path), "d", make_plan(shortcuts({"size": 60})))
    assert all(c.doc_hash is None and c.hash is None for c in plain.chunks)
    skipped = process(str(path), "d", make_plan(shortcuts({"size": 60})), known_hash=digest)
    assert (skipped.unchanged, skipped.chunks, skipped.content_hash) == (True, (), digest)
    changed = process(str(path), "d", make_plan(shortcuts({"size": 60})), known_hash="0" * 64)
    assert not changed.unchanged
    assert changed.chunks


def test_small_inputs_go_in_batches_that_shrink_toward_the_end(tmp_path: Path) -> None:
    jobs = jobs_for(write_inputs(tmp_path, 60), make_plan(shortcuts({"size": 60})))
    todo = deque(range(60))
    sizes = []
    while todo:
        sizes.append(len(workers._batch(jobs, todo, 2, 10**9)))
    assert sizes[0] == 7  # 60 left, 2 workers with 4 batches in flight each
    assert sizes[-1] == 1
    assert sum(sizes) == 60


def test_a_large_input_goes_alone(tmp_path: Path) -> None:
    paths = write_inputs(tmp_path, 60)
    paths[1].write_text("word " * workers.BATCH_BYTES, encoding="utf-8")
    jobs = jobs_for(paths, make_plan(shortcuts({"size": 60})))
    todo = deque(range(60))
    assert [i for i, _ in workers._batch(jobs, todo, 2, 10**9)] == [0]
    assert [i for i, _ in workers._batch(jobs, todo, 2, 10**9)] == [1]


def test_a_worker_that_dies_inside_a_batch_fails_only_that_input(tmp_path: Path) -> None:
    paths = write_inputs(tmp_path, 60)
    paths[3].write_text("CRASH here\n", encoding="utf-8")  # in the middle of the first batch
    plan = Plan(
        Recipe(
            strategy=CRASHING, options=RecursiveOptions(), capacity=Capacity(size=512, overlap=50)
        )
    )
    results = list(run_jobs(jobs_for(paths, plan), workers=2))
    assert [r.doc_id for r in results] == [p.name for p in paths]
    errors = {k: r.error for k, r in enumerate(results) if r.error is not None}
    assert errors == {3: f"{paths[3]}: the worker process chunking it died (exit code 3)"}
    assert all(r.chunks for k, r in enumerate(results) if k != 3)


def test_batched_pool_output_equals_in_process(tmp_path: Path) -> None:
    jobs = jobs_for(write_inputs(tmp_path, 60), make_plan(shortcuts({"size": 60})))
    assert list(run_jobs(jobs, workers=2)) == list(run_jobs(jobs, workers=1))


def test_standard_input_is_chunked_with_jobs_too(tmp_path: Path) -> None:
    # A worker process's standard input is /dev/null: the parent chunks "-" itself.
    first, second = map(str, write_inputs(tmp_path, 2))
    outputs = [
        subprocess.run(
            [sys.executable, "-m", "ragchunk", "split", first, "-", second, "--jobs", jobs],
            input="Read from standard input.\n",
            capture_output=True,
            text=True,
            check=True,
            timeout=60,
        ).stdout
        for jobs in ("1", "2")
    ]
    assert outputs[0] == outputs[1]
    records = [json.loads(line) for line in outputs[1].splitlines()]
    assert [r["doc_id"] for r in records] == [first, "-", second]
    assert records[1]["text"] == "Read from standard input.\n"
