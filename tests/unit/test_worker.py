"""A worker's side of the pool, run in this process over a real pipe
(``ragchunk.runs.worker.serve``).

The pool's tests (test_jobs.py) drive workers in child processes, where coverage does not follow;
these check the same loop directly: one answer per batch, the plan sent once and kept by key,
JSONL encoded where it is made, and retiring after a job once the worker grew too much.
"""

from __future__ import annotations

import copyreg
import multiprocessing
import types
from pathlib import Path

import pytest

from ragchunk.pipeline.engine import process
from ragchunk.pipeline.plan import make_plan
from ragchunk.pipeline.results import FileResult
from ragchunk.runs import worker
from ragchunk.settings import shortcuts
from ragchunk.sinks.jsonl import encode


@pytest.fixture(autouse=True)
def _in_this_process(monkeypatch: pytest.MonkeyPatch) -> None:
    # A worker process ignores Ctrl-C and uses one thread; this test process must not. Of its
    # set-up, only what lets results cross the pipe: read-only metadata mappings pickled.
    monkeypatch.setattr(worker, "_init_worker", lambda: None)
    copyreg.pickle(types.MappingProxyType, worker._reduce_mapping)


def inputs(tmp_path: Path) -> tuple[Path, Path]:
    first, second = tmp_path / "a.txt", tmp_path / "b.txt"
    first.write_text("The gauge was read at noon. The tide was falling.\n" * 8, encoding="utf-8")
    second.write_text("A second file, about the north pier and its float.\n" * 6, encoding="utf-8")
    return first, second


def serve(
    *batches: list[worker.JobMessage],
) -> tuple[list[tuple[list[FileResult], bool]], list[float]]:
    """Run ``serve`` over ``batches`` then the stop message; return its answers and progress."""
    parent, child = multiprocessing.Pipe()
    for batch in batches:
        parent.send(batch)
    parent.send(None)
    progress = [0.0, 0.0]
    worker.serve(child, progress)
    answers = []
    while parent.poll():
        results, retiring = parent.recv()
        answers.append(([FileResult(*fields) for fields in results], retiring))
    return answers, progress


def test_a_batch_gets_one_answer_and_the_plan_crosses_once(tmp_path: Path) -> None:
    first, second = inputs(tmp_path)
    plan = make_plan(shortcuts({"size": 60, "overlap": 0}))
    batch: list[worker.JobMessage] = [
        (str(first), "a.txt", 7, plan, None, encode),
        (str(second), "b.txt", 7, None, None, None),  # the same plan, by its key
    ]
    answers, progress = serve(batch)
    [(results, retiring)] = answers
    assert not retiring
    assert progress[0] == 2  # both jobs begun
    rendered, plain = results
    assert rendered.chunks == ()
    assert b"".join(rendered.rendered or ()) == encode(process(str(first), "a.txt", plan).chunks)
    assert plain.chunks == process(str(second), "b.txt", plan).chunks
    assert plain.chunk_count == len(plain.chunks) > 1


def test_a_worker_that_grew_too_much_answers_at_once_and_retires(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first, second = inputs(tmp_path)
    plan = make_plan(shortcuts({"size": 60, "overlap": 0}))
    monkeypatch.setattr(worker, "RECYCLE_MIB", -1.0)  # any job "grows" the worker past it
    batch: list[worker.JobMessage] = [
        (str(first), "a.txt", 0, plan, None, None),
        (str(second), "b.txt", 0, None, None, None),
    ]
    answers, progress = serve(batch, batch)
    # One answer, with the first job only: the parent gives the rest to a fresh worker, and
    # this one stops reading (the second batch is never taken).
    [(results, retiring)] = answers
    assert retiring
    assert [result.source for result in results] == [str(first)]
    assert progress[0] == 1


def test_resident_memory_is_read_until_closed() -> None:
    with worker._Resident() as resident:
        mib = resident.mib()
        assert mib is None or mib > 0
    assert resident.mib() is None


def _no_memory(_chunks: object) -> bytes:
    raise MemoryError


def test_a_render_out_of_memory_fails_that_input_with_one_line(tmp_path: Path) -> None:
    """In this process (-j 1) as in a worker: the input fails, the run goes on."""
    first, _ = inputs(tmp_path)
    plan = make_plan(shortcuts({"size": 60, "overlap": 0}))
    result = worker.work(worker.Job(str(first), "a.txt", plan, render=_no_memory))
    assert result.error == f"{first}: ran out of memory writing its records"
    assert result.chunks == ()
    assert result.rendered is None
    assert result.chunk_count == 0


def test_a_record_past_the_cap_fails_that_input(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from ragchunk.sinks import jsonl

    first, _ = inputs(tmp_path)
    monkeypatch.setattr(jsonl, "ORJSON_MOST_CHARS", 0)
    monkeypatch.setattr(jsonl, "MAX_RECORD_BYTES", 100)
    plan = make_plan(shortcuts({"size": 60, "overlap": 0}))
    result = worker.work(worker.Job(str(first), "a.txt", plan, render=encode))
    assert result.error is not None
    assert result.error.startswith(f"{first}: refused: chunk 0 makes a JSONL record of ")
    assert result.error.endswith(" bytes (limit 100)")
