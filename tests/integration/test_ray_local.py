"""Ray on this machine: ``ray.init()`` in this process, and the CLI's own local cluster.

``run_jobs`` is the engine of ``split --engine ray``; here it runs in a Ray instance started
inside the test process (tests/support/ray_cluster.py ``local_ray``), against the local
engine's results. The CLI, run without ``--ray-address``, starts a cluster of its own and
stops it.
"""

from __future__ import annotations

import dataclasses
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from ragchunk.integrations.ray import TASK_RETRIES, run_jobs
from ragchunk.pipeline.plan import make_plan
from ragchunk.pipeline.scopes import make_plans
from ragchunk.runs import workers
from ragchunk.runs.batch import prepare
from ragchunk.runs.config import Config
from ragchunk.runs.workers import Job
from ragchunk.settings import Run, scope, shortcuts
from ragchunk.sinks.jsonl import encode, lines
from tests.conftest import FIXTURES, ROOT
from tests.integration import ray_killer
from tests.support.ray_cluster import local_ray

pytestmark = pytest.mark.slow


def config_with_rules(tmp_path: Path) -> Config:
    """Two plans in one run: markdown for *.md, tokens for code, recursive otherwise."""
    from ragchunk.runs.config import load_config

    path = tmp_path / "ragchunk.toml"
    path.write_text(
        'size = 300\n[files."*.md"]\nstrategy = "markdown"\n'
        '[files."*.py"]\nstrategy = "code"\nunit = "tokens"\nsize = 120\n',
        encoding="utf-8",
    )
    return load_config(str(path))


def test_run_jobs_gives_the_local_results_with_several_plans(tmp_path: Path) -> None:
    inputs = [str(FIXTURES / "markdown"), str(FIXTURES / "code"), str(FIXTURES / "text")]
    plans = make_plans(config_with_rules(tmp_path), scope({"hashes": True}))
    batch = prepare(inputs, plans, Run(jobs=1), output=None)
    assert len({id(job.plan) for job in batch.jobs}) == 3
    rendered = [dataclasses.replace(job, render=encode) for job in batch.jobs]
    local = list(workers.run_jobs(batch.jobs))
    with local_ray(num_cpus=2) as ray:
        on_ray = list(run_jobs(batch.jobs))  # chunks come back as Arrow records
        as_jsonl = list(run_jobs(rendered))  # rendered where they are made
        assert ray.is_initialized()  # a session of the caller's is left running
    assert [r.source for r in on_ray] == [job.source for job in batch.jobs]
    assert [lines(r.chunks) for r in on_ray] == [lines(r.chunks) for r in local]
    assert [b"".join(r.rendered or ()) for r in as_jsonl] == [encode(r.chunks) for r in local]
    for ours, theirs in zip(on_ray, local, strict=True):
        assert (ours.error, ours.diagnostics, ours.content_hash, ours.chunk_count) == (
            theirs.error,
            theirs.diagnostics,
            theirs.content_hash,
            theirs.chunk_count,
        )


def test_a_task_whose_worker_dies_fails_only_the_input_that_killed_it(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    for k in range(10):
        killer = "KILL " if k == 5 else ""
        (docs / f"f{k}.txt").write_text(killer + "Some words here. " * 40, encoding="utf-8")
    plan = make_plan(shortcuts({"size": 100}))
    plan = dataclasses.replace(
        plan, recipe=dataclasses.replace(plan.recipe, strategy=ray_killer.KILLER)
    )
    jobs = [Job(str(p), p.name, plan) for p in sorted(docs.iterdir())]
    expected = [
        r.chunk_count for r in workers.run_jobs([job for job in jobs if job.doc_id != "f5.txt"])
    ]
    with local_ray(num_cpus=2) as ray:
        ray.cloudpickle.register_pickle_by_value(ray_killer)
        results = list(run_jobs(jobs))
    assert [r.source for r in results] == [job.source for job in jobs]
    assert [r.error for r in results if r.error] == [
        f"{docs / 'f5.txt'}: the Ray task chunking it failed {TASK_RETRIES + 1} times (its worker "
        "killed, perhaps out of memory); the Ray logs say why"
    ]
    assert [r.chunk_count for r in results if r.error is None] == expected


def test_the_cli_starts_a_local_cluster_of_its_own_and_stops_it(tmp_path: Path) -> None:
    # Short: Ray's socket paths under it must stay below 108 bytes.
    ray_tmp = Path(tempfile.mkdtemp(prefix="rc-cli-", dir="/tmp"))
    tree = [str(FIXTURES / "markdown"), str(FIXTURES / "code")]
    runs = {}
    for engine in ("local", "ray"):
        out = tmp_path / f"{engine}.jsonl"
        runs[engine] = subprocess.run(
            [sys.executable, "-m", "ragchunk", "split", *tree, "-j", "2", "-o", str(out)]
            + (["--engine", "ray"] if engine == "ray" else []),
            capture_output=True,
            check=False,
            timeout=300,
            cwd=ROOT,
            env={**os.environ, "RAY_TMPDIR": str(ray_tmp)},  # not the machine's /tmp/ray
        )
    try:
        assert (runs["ray"].returncode, runs["ray"].stderr) == (0, b"")  # Ray says nothing
        assert (tmp_path / "ray.jsonl").read_bytes() == (tmp_path / "local.jsonl").read_bytes()
        assert (ray_tmp / "ray").is_dir()  # the cluster was this run's own
        assert _processes_under(ray_tmp) == []  # ... and it is gone
    finally:
        shutil.rmtree(ray_tmp, ignore_errors=True)


def _processes_under(directory: Path) -> list[int]:
    """Return the processes whose command line names ``directory`` (Ray's own name them)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            command = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        if str(directory).encode() in command:
            found.append(int(entry.name))
    return found
