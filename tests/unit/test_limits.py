"""--timeout and --max-bytes: inputs fail alone, in bounded time, in-process and in workers."""

from __future__ import annotations

import contextlib
import io
import mmap
import os
import signal
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ragchunk.cli import app
from ragchunk.defaults import DEFAULT_MAX_BYTES, DEFAULT_MAX_TEXT, DEFAULT_TIMEOUT
from ragchunk.errors import LimitExceededError, OptionError
from ragchunk.model import Span
from ragchunk.options import Capacity
from ragchunk.pipeline.deadline import time_limit
from ragchunk.pipeline.engine import process
from ragchunk.pipeline.plan import Plan, Policy, Recipe, make_plan
from ragchunk.pipeline.reading import read_input
from ragchunk.pipeline.scopes import plan_from_settings
from ragchunk.runs import worker, workers
from ragchunk.runs.manifest import settings_digest
from ragchunk.runs.workers import KILL_GRACE, Job, run_jobs
from ragchunk.settings import scope, shortcuts
from ragchunk.sinks.jsonl import encode
from ragchunk.strategies._spec import Strategy
from ragchunk.strategies.recursive import RecursiveOptions, split

pytestmark = pytest.mark.timeout(10)
runner = CliRunner()


def slow_on_marker(doc, options, ctx):  # type: ignore[no-untyped-def]
    """Split like recursive; on SLOW sleep, on SWALLOW loop catching Exception, on STUCK
    block SIGALRM first (as code stuck inside a C extension would never see it)."""
    if "SLOW" in doc.text:
        time.sleep(60)
    if "SWALLOW" in doc.text:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            # The point: code that swallows every Exception must not hide a timeout.
            with contextlib.suppress(Exception):
                time.sleep(0.01)
    if "STUCK" in doc.text:
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM})
        time.sleep(60)
    return split(doc, options, ctx)


SLOW = Strategy(name="slow", summary="test", options=RecursiveOptions, split=slow_on_marker)


def inputs(tmp_path: Path, *texts: str) -> list[Path]:
    paths = []
    for k, text in enumerate(texts):
        path = tmp_path / f"doc{k}.txt"
        path.write_text(text, encoding="utf-8")
        paths.append(path)
    return paths


@pytest.mark.parametrize("marker", ["SLOW", "SWALLOW"])
def test_an_input_past_its_timeout_fails_in_process(tmp_path: Path, marker: str) -> None:
    (path,) = inputs(tmp_path, f"{marker} text\n")
    plan = Plan(
        Recipe(strategy=SLOW, options=RecursiveOptions(), capacity=Capacity(size=512, overlap=50)),
        Policy(timeout=0.3),
    )
    began = time.monotonic()
    result = process(str(path), path.name, plan)
    assert time.monotonic() - began < 3
    assert result.error == f"{path}: timed out after 0.3 s (--timeout)"
    assert result.chunks == ()


def test_the_timer_is_disarmed_and_an_outer_timer_restored(tmp_path: Path) -> None:
    (path,) = inputs(tmp_path, "quick text\n")
    plan = Plan(
        Recipe(strategy=SLOW, options=RecursiveOptions(), capacity=Capacity(size=512, overlap=50)),
        Policy(timeout=0.2),
    )
    handler = signal.getsignal(signal.SIGALRM)
    outer_before = signal.getitimer(signal.ITIMER_REAL)[0]  # pytest-timeout's, here
    assert process(str(path), path.name, plan).error is None
    time.sleep(0.3)  # past the input's deadline: nothing may fire now
    assert signal.getsignal(signal.SIGALRM) == handler
    outer_after = signal.getitimer(signal.ITIMER_REAL)[0]
    assert 0 < outer_after <= outer_before


def test_no_timeout_arms_no_timer() -> None:
    handler = signal.getsignal(signal.SIGALRM)
    with time_limit(None):
        assert signal.getsignal(signal.SIGALRM) == handler


def test_workers_time_out_alone_and_a_stuck_one_is_killed(tmp_path: Path) -> None:
    paths = inputs(tmp_path, "one\n", "SLOW\n", "two\n", "STUCK\n", "three\n")
    plan = Plan(
        Recipe(strategy=SLOW, options=RecursiveOptions(), capacity=Capacity(size=512, overlap=50)),
        Policy(timeout=0.5),
    )
    began = time.monotonic()
    results = list(run_jobs([Job(str(p), p.name, plan) for p in paths], workers=2))
    assert time.monotonic() - began < 0.5 + KILL_GRACE + 4
    assert [r.error for r in results] == [
        None,
        f"{paths[1]}: timed out after 0.5 s (--timeout)",
        None,
        f"{paths[3]}: timed out after 0.5 s (--timeout)",
        None,
    ]
    assert [r.chunks[0].text for r in results if r.error is None] == ["one\n", "two\n", "three\n"]


def test_an_input_larger_than_max_bytes_is_refused_before_reading(tmp_path: Path) -> None:
    (path,) = inputs(tmp_path, "x" * 101)
    with pytest.raises(LimitExceededError) as caught:
        read_input(str(path), max_bytes=100)
    assert str(caught.value) == f"{path}: refused: 101 bytes, more than --max-bytes 100"
    assert read_input(str(path), max_bytes=101) == b"x" * 101


def test_standard_input_is_read_only_up_to_max_bytes(monkeypatch: pytest.MonkeyPatch) -> None:
    class Endless(io.RawIOBase):
        """A stream that never ends, like /dev/zero."""

        read_so_far = 0

        def readable(self) -> bool:
            return True

        def readinto(self, buffer: bytearray) -> int:  # type: ignore[override]
            buffer[:] = b"a" * len(buffer)
            Endless.read_so_far += len(buffer)
            return len(buffer)

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BufferedReader(Endless())))
    with pytest.raises(LimitExceededError) as caught:
        read_input("-", max_bytes=3_000_000)
    assert str(caught.value) == "-: refused: more than --max-bytes 3000000 bytes"
    assert Endless.read_so_far < 3_000_000 + 2 * io.DEFAULT_BUFFER_SIZE


def test_limits_are_validated() -> None:
    with pytest.raises(OptionError, match=r"^--timeout must be a positive number of seconds"):
        make_plan(shortcuts({"timeout": 0}))
    for bad in (float("nan"), float("inf"), -1.0):
        with pytest.raises(OptionError, match=r"^--timeout must be a positive number of seconds"):
            make_plan(shortcuts({"timeout": bad}))
    with pytest.raises(OptionError, match=r"^--max-bytes must be at least 1 \(got 0\)$"):
        make_plan(shortcuts({"max_bytes": 0}))


def test_the_library_sets_no_timeout_and_the_command_line_does() -> None:
    assert make_plan().policy.timeout is None
    assert make_plan().policy.max_bytes == DEFAULT_MAX_BYTES
    assert plan_from_settings(scope({})).policy.timeout == DEFAULT_TIMEOUT
    plan = plan_from_settings(scope({"timeout": 2.5, "max_bytes": 1000}))
    assert (plan.policy.timeout, plan.policy.max_bytes) == (2.5, 1000)


def test_limits_change_no_chunk_id_and_no_manifest_digest() -> None:
    plain, limited = make_plan(), make_plan(shortcuts({"timeout": 5, "max_bytes": 10}))
    assert plain.recipe.fingerprint == limited.recipe.fingerprint
    assert settings_digest(plain.recipe) == settings_digest(limited.recipe)


def test_cli_flags_and_config_keys(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (path,) = inputs(tmp_path, "Some text that is long enough.\n")
    result = runner.invoke(app, ["split", str(path), "--max-bytes", "10"])
    assert result.exit_code == 1
    assert result.stderr == f"error: {path}: refused: 31 bytes, more than --max-bytes 10\n"
    result = runner.invoke(app, ["split", str(path), "--timeout", "0"])
    assert result.exit_code == 2
    assert result.stderr == "Error: --timeout must be a positive number of seconds (got 0.0)\n"
    monkeypatch.chdir(tmp_path)
    Path("ragchunk.toml").write_text("max-bytes = 20\ntimeout = 5\n", encoding="utf-8")
    result = runner.invoke(app, ["split", str(path)])
    assert result.stderr == f"error: {path}: refused: 31 bytes, more than --max-bytes 20\n"
    result = runner.invoke(app, ["split", str(path), "--max-bytes", "31"])
    assert result.exit_code == 0, result.stderr
    Path("ragchunk.toml").write_text("timeout = -1\n", encoding="utf-8")
    result = runner.invoke(app, ["split", str(path)])
    assert result.exit_code == 2
    assert result.stderr == (
        "Error: ragchunk.toml: --timeout must be a positive number of seconds (got -1.0)\n"
    )


LEAKED: list[mmap.mmap] = []


def leak_on_marker(doc, options, ctx):  # type: ignore[no-untyped-def]
    """Split like recursive; record the worker's pid; on LEAK, keep 40 MB for good."""
    if "LEAK" in doc.text:
        # Fresh pages, each written: resident whatever free memory the process's heap holds
        # (a long test session leaves plenty, which a plain allocation could reuse unseen).
        block = mmap.mmap(-1, 40 * 1024 * 1024)
        block[:: mmap.PAGESIZE] = b"\x01" * (len(block) // mmap.PAGESIZE)
        LEAKED.append(block)
    spans = split(doc, options, ctx)
    return [Span(s.start, s.end, metadata={"pid": os.getpid()}) for s in spans]


LEAKY = Strategy(name="leaky", summary="test", options=RecursiveOptions, split=leak_on_marker)


@pytest.mark.skipif(not Path("/proc/self/statm").exists(), reason="recycling needs Linux /proc")
def test_a_worker_that_grew_is_replaced_after_its_job(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(worker, "RECYCLE_MIB", 20)  # before the workers fork
    paths = inputs(tmp_path, "LEAK one\n", *(f"text {k}\n" for k in range(6)))
    plan = Plan(
        Recipe(strategy=LEAKY, options=RecursiveOptions(), capacity=Capacity(size=512, overlap=50))
    )
    results = list(run_jobs([Job(str(p), p.name, plan) for p in paths], workers=2))
    assert [r.error for r in results] == [None] * 7
    pids = [r.chunks[0].metadata["pid"] for r in results]
    assert pids[0] not in pids[1:]  # the leaky worker served no other input
    assert os.getpid() not in pids


def test_rendered_output_comes_in_pieces(tmp_path: Path) -> None:
    (path,) = inputs(tmp_path, "word " * 30_000)
    plan = make_plan(shortcuts({"size": 20, "overlap": 0}))
    (result,) = run_jobs([Job(str(path), path.name, plan, render=encode)])
    assert result.chunks == ()
    assert result.rendered is not None
    assert len(result.rendered) == -(-result.chunk_count // workers.RENDER_BLOCK)
    assert b"".join(result.rendered) == encode(process(str(path), path.name, plan).chunks)


def test_an_alarm_pending_from_an_outer_timer_is_not_a_timeout() -> None:
    """Found by fuzzing under libFuzzer, whose own SIGALRM could arrive just as ours was set."""
    with time_limit(5):
        signal.raise_signal(signal.SIGALRM)  # as if the outer timer had fired a moment ago
        time.sleep(0.01)  # the handler runs here, and must not raise TimedOut


def test_a_handler_set_outside_python_is_left_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(signal, "getsignal", lambda _signum: None)
    with time_limit(0.01):  # no timer: it could not give the foreign handler back
        time.sleep(0.05)


def test_inside_a_batch_a_timeout_or_a_kill_fails_only_its_input(tmp_path: Path) -> None:
    texts = [f"text {k}\n" for k in range(40)]
    texts[2], texts[4] = "SLOW\n", "STUCK\n"  # both in the first batch (40 // 8 = 5 inputs)
    paths = inputs(tmp_path, *texts)
    plan = Plan(
        Recipe(strategy=SLOW, options=RecursiveOptions(), capacity=Capacity(size=512, overlap=50)),
        Policy(timeout=0.5),
    )
    results = list(run_jobs([Job(str(p), p.name, plan) for p in paths], workers=2))
    errors = {k: r.error for k, r in enumerate(results) if r.error is not None}
    assert errors == {k: f"{paths[k]}: timed out after 0.5 s (--timeout)" for k in (2, 4)}
    assert [r.chunks[0].text for r in results if r.error is None] == [
        t for k, t in enumerate(texts) if k not in (2, 4)
    ]


@pytest.mark.skipif(not Path("/proc/self/statm").exists(), reason="recycling needs Linux /proc")
def test_a_worker_that_grew_inside_a_batch_leaves_the_rest_to_a_fresh_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(worker, "RECYCLE_MIB", 20)  # before the workers fork
    texts = [f"text {k}\n" for k in range(40)]
    texts[1] = "LEAK one\n"  # the second of the first batch
    paths = inputs(tmp_path, *texts)
    plan = Plan(
        Recipe(strategy=LEAKY, options=RecursiveOptions(), capacity=Capacity(size=512, overlap=50))
    )
    results = list(run_jobs([Job(str(p), p.name, plan) for p in paths], workers=2))
    assert [r.error for r in results] == [None] * 40
    pids = [r.chunks[0].metadata["pid"] for r in results]
    assert pids[1] not in pids[2:]  # the leaky worker served no input after it


def test_max_text_is_validated_and_reaches_the_policy() -> None:
    with pytest.raises(OptionError, match=r"^--max-text must be at least 1 \(got 0\)$"):
        make_plan(shortcuts({"max_text": 0}))
    assert make_plan().policy.max_text == DEFAULT_MAX_TEXT
    assert make_plan(shortcuts({"max_text": 1000})).policy.max_text == 1000
