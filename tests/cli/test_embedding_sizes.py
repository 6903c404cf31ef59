"""After an endpoint answering the wrong vector size is fixed, no output mixes two sizes.

Real ``python -m ragchunk`` runs (each a new process) against the scripted server on 127.0.0.1,
sharing one cache directory, as a user's runs do.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.servers import LOCALHOST
from tests.support.scripted import EMBEDDINGS, ScriptedServer, fake_embeddings

pytestmark = [*LOCALHOST, pytest.mark.timeout(120)]


def split(server: ScriptedServer, tmp_path: Path, *inputs: Path) -> tuple[int, str, set[int]]:
    output = tmp_path / "out.jsonl"
    command = [sys.executable, "-m", "ragchunk", "split", *map(str, inputs), "-o", str(output)]
    command += ["--embed", "--embedder", "openai", "--embed-url", server.base_url]
    command += ["--embed-model", "m", "--cache-dir", str(tmp_path / "cache"), "--jobs", "1"]
    done = subprocess.run(command, capture_output=True, timeout=100, check=False)
    lines = output.read_text(encoding="utf-8").splitlines() if output.exists() else []
    return done.returncode, done.stderr.decode(), {len(json.loads(x)["embedding"]) for x in lines}


def test_a_fixed_endpoint_never_gives_a_mixed_output(
    scripted_server: ScriptedServer, tmp_path: Path
) -> None:
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_text("Alpha notes about the pump.\n", encoding="utf-8")
    b.write_text("Beta notes about the river.\n", encoding="utf-8")
    scripted_server.on(EMBEDDINGS, fake_embeddings(dim=3))  # misconfigured
    assert split(scripted_server, tmp_path, a)[::2] == (0, {3})
    scripted_server.on(EMBEDDINGS, fake_embeddings(dim=8))  # fixed
    code, stderr, found = split(scripted_server, tmp_path, a, b)
    assert (code, found) == (1, {3})  # a from the cache; b refused, never mixed in
    assert stderr.splitlines()[0] == (
        f"error: {b}: the embedder openai:m at {scripted_server.base_url} answered vectors of 8 "
        "dimensions after 3 in this run (cached ones included); the cache now expects 8: run "
        "again for vectors of one size"
    )
    assert split(scripted_server, tmp_path, a, b)[::2] == (0, {8})


def test_workers_of_one_run_never_write_two_sizes(
    scripted_server: ScriptedServer, tmp_path: Path
) -> None:
    # Each worker process checks its own vectors; the run checks them across workers.
    names = [f"n{k}.txt" for k in range(8)]
    inputs = [tmp_path / name for name in names]
    for k, path in enumerate(inputs):
        path.write_text(f"Notes number {k} about the pump and the river.\n", encoding="utf-8")
    scripted_server.on(EMBEDDINGS, fake_embeddings(dim=3))  # misconfigured
    assert split(scripted_server, tmp_path, *inputs[::2])[::2] == (0, {3})  # half are cached
    scripted_server.on(EMBEDDINGS, fake_embeddings(dim=8))  # fixed
    output = tmp_path / "out.jsonl"
    command = [sys.executable, "-m", "ragchunk", "split", *map(str, inputs), "-o", str(output)]
    command += ["--embed", "--embedder", "openai", "--embed-url", scripted_server.base_url]
    command += ["--embed-model", "m", "--cache-dir", str(tmp_path / "cache"), "--jobs", "2"]
    done = subprocess.run(command, capture_output=True, timeout=100, check=False)
    lines = output.read_text(encoding="utf-8").splitlines()
    assert len({len(json.loads(line)["embedding"]) for line in lines}) == 1
    errors = [line for line in done.stderr.decode().splitlines() if line.startswith("error: ")]
    assert done.returncode == 1
    assert errors
    assert all("dimensions" in line for line in errors)
