"""`ragchunk eval`: sweeps and named setups scored over a scripted embedding endpoint, errors.

The endpoint (tests/support/scripted.py) embeds each text as a vector of keyword counts, so
which chunk a question retrieves, and so every score, is known in advance. The run on the
bundled fixtures with the real local model is the slow acceptance test at the end.
"""

from __future__ import annotations

import importlib.util
import json
import math
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from ragchunk.cli import app
from tests.conftest import FIXTURES
from tests.servers import LOCALHOST
from tests.support.scripted import (
    EMBEDDINGS,
    RecordedRequest,
    Reply,
    ScriptedServer,
    embeddings_body,
)

pytestmark = [*LOCALHOST, pytest.mark.timeout(120)]
runner = CliRunner()
NARROW = {"COLUMNS": "80"}
KEYWORDS = ("alpha", "beta", "gamma", "delta")

ONE = "Alpha facts: the alpha line is here.\n\nFiller words that say nothing at all.\n"
TWO = "Beta notes. Beta is second.\n"
THREE = "# Gamma\n\nGamma closes the set, with gamma rays.\n"


def keyword_vector(text: str) -> list[float]:
    lowered = text.lower()
    raw = [lowered.count(word) + 0.01 for word in KEYWORDS]
    norm = math.sqrt(sum(x * x for x in raw))
    return [x / norm for x in raw]


def keyword_embeddings(request: RecordedRequest) -> Reply:
    return Reply.json(embeddings_body([keyword_vector(t) for t in request.inputs]))


def make_docs(tmp_path: Path) -> Path:
    docs = tmp_path / "docs"
    (docs / "sub").mkdir(parents=True)
    (docs / "one.txt").write_text(ONE, encoding="utf-8")
    (docs / "two.txt").write_text(TWO, encoding="utf-8")
    (docs / "sub" / "three.md").write_text(THREE, encoding="utf-8")
    return docs


def make_questions(tmp_path: Path, *extra: dict[str, Any]) -> Path:
    items = [
        {
            "id": "q-alpha",
            "question": "What about alpha?",
            "document": "one.txt",
            "evidence": [{"excerpt": "the alpha line is here."}],
        },
        {
            "id": "q-gamma",
            "question": "gamma?",
            "document": "sub/three.md",
            "evidence": [{"start": 9, "end": 32}],
        },
        *extra,
    ]
    path = tmp_path / "q.jsonl"
    path.write_text("".join(json.dumps(item) + "\n" for item in items), encoding="utf-8")
    return path


def endpoint(server: ScriptedServer) -> list[str]:
    return ["--embedder", "openai", "--embed-url", server.base_url, "--embed-model", "kw"]


def run_eval(server: ScriptedServer, tmp_path: Path, *args: str) -> Any:
    server.on(EMBEDDINGS, keyword_embeddings)
    docs = make_docs(tmp_path)
    questions = make_questions(tmp_path)
    command = ["eval", str(docs), "--questions", str(questions), *endpoint(server), *args]
    return runner.invoke(app, [*command, "--no-cache"], env=NARROW)


def test_a_sweep_prints_its_tables_and_writes_exact_scores(
    scripted_server: ScriptedServer, tmp_path: Path
) -> None:
    out = tmp_path / "report.json"
    result = run_eval(scripted_server, tmp_path, "--size", "1000,30", "-k", "1", "--json", str(out))
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "2 questions over 3 documents · top 1 by cosine similarity · kw"
    assert "Scores on characters" in result.stdout
    assert "Scores on tokens (cl100k_base)" in result.stdout
    assert all(len(line) <= 80 for line in lines)
    report = json.loads(out.read_text(encoding="utf-8"))
    assert report["schema"] == 1
    assert [s["name"] for s in report["setups"]] == ["recursive 1000", "recursive 30"]
    whole = report["setups"][0]  # one chunk per document
    assert whole["chunks"] == 3
    assert whole["settings"] == {
        "strategy": "recursive",
        "size": 1000,
        "overlap": 50,
        "unit": "chars",
    }
    alpha, gamma = whole["questions"]
    assert alpha["retrieved"][0]["document"] == "one.txt"
    assert alpha["chars"]["recall"] == 1.0
    assert alpha["chars"]["precision"] == pytest.approx(23 / len(ONE.rstrip("\n")), abs=0.02)
    assert gamma["retrieved"][0]["document"] == "sub/three.md"
    assert gamma["chars"]["recall"] == 1.0
    assert whole["chars"]["recall"] == 1.0
    assert whole["tokens"]["recall"] == 1.0
    assert [d["name"] for d in whole["documents"]] == ["one.txt", "sub/three.md", "two.txt"]
    assert [d["questions"] for d in whole["documents"]] == [1, 1, 0]
    small = report["setups"][1]
    assert small["chunks"] > 3
    assert small["mean_chars"] <= 30
    # Smaller chunks around the same evidence: higher precision at full recall.
    assert small["chars"]["precision_omega"] > whole["chars"]["precision_omega"]


def test_json_to_stdout_replaces_the_tables(
    scripted_server: ScriptedServer, tmp_path: Path
) -> None:
    result = run_eval(scripted_server, tmp_path, "--json", "-")
    assert result.exit_code == 0, result.stderr
    report = json.loads(result.stdout)
    assert [s["name"] for s in report["setups"]] == ["recursive"]
    assert report["top_k"] == 5


def test_named_setups_identical_ones_score_identically(
    scripted_server: ScriptedServer, tmp_path: Path
) -> None:
    setups = tmp_path / "setups.toml"
    setups.write_text(
        'size = 40\n\n[setups.first]\nstrategy = "recursive"\n\n'
        '[setups.again]\nstrategy = "recursive"\n\n'
        '[setups.sentences]\nstrategy = "sentence"\nsize = 60\n',
        encoding="utf-8",
    )
    result = run_eval(scripted_server, tmp_path, "--config", str(setups), "--json", "-")
    assert result.exit_code == 0, result.stderr
    first, again, sentences = json.loads(result.stdout)["setups"]
    assert (first["name"], again["name"], sentences["name"]) == ("first", "again", "sentences")
    assert {k: v for k, v in first.items() if k != "name"} == {
        k: v for k, v in again.items() if k != "name"
    }
    assert first["settings"]["size"] == 40
    assert sentences["strategy"] == "sentence"


def test_per_document_table(scripted_server: ScriptedServer, tmp_path: Path) -> None:
    result = run_eval(scripted_server, tmp_path, "--per-document")
    assert result.exit_code == 0, result.stderr
    assert "recursive: per document (characters)" in result.stdout
    assert "sub/three.md" in result.stdout
    assert "two.txt" not in result.stdout  # no questions about it


@pytest.mark.parametrize("suffix", [".png", ".svg"])
def test_plot(scripted_server: ScriptedServer, tmp_path: Path, suffix: str) -> None:
    plot = tmp_path / f"plot{suffix}"
    result = run_eval(
        scripted_server,
        tmp_path,
        "-s",
        "recursive,sentence",
        "--size",
        "30,200",
        "--plot",
        str(plot),
    )
    assert result.exit_code == 0, result.stderr
    if suffix == ".svg":
        assert plot.read_text(encoding="utf-8").lstrip().startswith("<?xml")
    else:
        assert_drawn(plot)


def assert_drawn(path: Path) -> None:
    from PIL import Image

    with Image.open(path) as image:
        assert image.format == "PNG"
        assert image.size[0] >= 600
        assert image.size[1] >= 300
        grey = image.convert("L")
        histogram = grey.histogram()
        dark = sum(histogram[:200])  # lines, markers, text
        assert dark > 0.005 * image.size[0] * image.size[1]
        colours = image.convert("RGB").getcolors(1 << 24) or []
        assert len(colours) > 20  # coloured lines and text, not one fill


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--size", "200,big"], "--size must be whole numbers separated by commas"),
        (["-s", "recursive,nope"], "--strategy 'nope' is unknown"),
        (["--size", "100", "--overlap", "100"], "recursive 100 +100: --overlap"),
        (["--top-k", "0"], "--top-k must be at least 1 (got 0)"),
        (["--plot", "out.jpg"], "--plot must name a .png or .svg file"),
        (["--json", "no/such/dir/r.json"], "--json: no directory to write no/such/dir/r.json in"),
        (["--config", "setups.toml", "--size", "3"], "--size cannot be combined with --config"),
    ],
)
def test_usage_errors_are_one_line(
    scripted_server: ScriptedServer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    args: list[str],
    message: str,
) -> None:
    monkeypatch.chdir(tmp_path)
    result = run_eval(scripted_server, tmp_path, *args)
    assert result.exit_code == 2
    assert message in result.stderr
    assert result.stderr.count("\n") == 1
    assert scripted_server.calls(EMBEDDINGS) == []  # checked before any work


def test_a_missing_excerpt_names_the_question(
    scripted_server: ScriptedServer, tmp_path: Path
) -> None:
    scripted_server.on(EMBEDDINGS, keyword_embeddings)
    bad = {"id": "q-bad", "question": "?", "document": "two.txt", "evidence": [{"excerpt": "Zeta"}]}
    questions = make_questions(tmp_path, bad)
    command = ["eval", str(make_docs(tmp_path)), "--questions", str(questions)]
    result = runner.invoke(app, [*command, *endpoint(scripted_server), "--no-cache"])
    assert result.exit_code == 2
    assert (
        result.stderr
        == f"Error: {questions}:3: question 'q-bad': excerpt 'Zeta' is not in the document\n"
    )


def test_missing_matplotlib_says_what_to_install(
    scripted_server: ScriptedServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *a: None if name == "matplotlib" else real(name, *a),
    )
    result = run_eval(scripted_server, tmp_path, "--plot", str(tmp_path / "p.png"))
    assert result.exit_code == 2
    assert result.stderr == "Error: --plot needs matplotlib: pip install 'ragchunk[eval]'\n"


def test_a_failing_endpoint_is_one_error_line(
    scripted_server: ScriptedServer, tmp_path: Path
) -> None:
    docs = make_docs(tmp_path)
    questions = make_questions(tmp_path)
    scripted_server.on(EMBEDDINGS, lambda _request: Reply.error(400))
    command = ["eval", str(docs), "--questions", str(questions), *endpoint(scripted_server)]
    result = runner.invoke(app, [*command, "--no-cache", "--embed-retries", "0"])
    assert result.exit_code == 1
    assert result.stderr.startswith("Error: ")
    assert result.stderr.count("\n") == 1


@pytest.mark.slow
@pytest.mark.timeout(1800)  # four setups' chunks of every fixture embedded by the local model
def test_the_bundled_question_set_with_the_local_model(tmp_path: Path) -> None:
    """The acceptance command of issue 17, offline, with all-MiniLM-L6-v2."""
    report_path = tmp_path / "report.json"
    plot = tmp_path / "plot.png"
    command = [
        "eval",
        str(FIXTURES),
        "--questions",
        str(FIXTURES / "questions.jsonl"),
        "-s",
        "recursive,token",
        "--size",
        "200,400",
        "--json",
        str(report_path),
        "--plot",
        str(plot),
    ]
    result = runner.invoke(app, command, env={**NARROW, "HF_HUB_OFFLINE": "1"})
    assert result.exit_code == 0, result.stderr
    assert all(len(line) <= 80 for line in result.stdout.splitlines())
    report = json.loads(report_path.read_text(encoding="utf-8"))
    names = ["recursive 200", "recursive 400", "token 200", "token 400"]
    assert [s["name"] for s in report["setups"]] == names
    for name in names:
        assert name in result.stdout
    assert report["questions"] == 23
    assert report["embedder"] == "all-MiniLM-L6-v2"
    for setup in report["setups"]:
        assert 0.4 < setup["chars"]["recall"] <= 1.0  # the model finds much of the evidence
        assert 0.0 < setup["tokens"]["iou"] < 1.0
    assert_drawn(plot)
