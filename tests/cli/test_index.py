"""``ragchunk index`` and ``ragchunk query`` as a user runs them, and ``split -o sqlite:///``.

Vectors come from the real ``openai`` backend and the scripted server on 127.0.0.1; the store
is the real SQLite one. The sync scenarios themselves are in tests/integration/stores/.
"""

from __future__ import annotations

import json
import re
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ragchunk.cli import app
from tests.conftest import FIXTURES
from tests.servers import LOCALHOST
from tests.support.scripted import EMBEDDINGS, Reply, ScriptedServer, fake_embeddings

pytest.importorskip("apsw")
pytest.importorskip("sqlite_vec")

pytestmark = [*LOCALHOST, pytest.mark.timeout(120)]
runner = CliRunner()


def embedding(server: ScriptedServer) -> list[str]:
    server.on(EMBEDDINGS, fake_embeddings(dim=8))
    url = server.base_url
    return ["--embedder", "openai", "--embed-url", url, "--embed-model", "m", "--no-cache"]


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "cranes.md").write_text(
        "# Harbour\n\n## Cranes\n\nThe cranes on pier four are serviced every spring by the "
        "harbour engineers, who also test the brakes and the lights.\n\n## Tides\n\n"
        "Tide tables are posted at the harbour office.\n",
        encoding="utf-8",
    )
    (docs / "notes.txt").write_text("Nothing about cranes here, only notes.\n", encoding="utf-8")
    return docs


@pytest.mark.usefixtures("docs")
def test_index_then_query_reads_well_at_80_columns(
    scripted_server: ScriptedServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    store = "sqlite:///index.db"
    args = ["index", "docs", "--store", store, "--size", "120", *embedding(scripted_server)]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.stderr
    assert result.stdout == ""
    assert "documents: 2 added, 0 changed, 0 unchanged, 0 deleted" in result.stderr
    again = runner.invoke(app, args)
    assert "2 unchanged" in again.stderr
    assert "texts embedded: 0" in again.stderr

    asked = ["query", "--store", store, "cranes on pier four", *embedding(scripted_server)[:6]]
    shown = runner.invoke(app, [*asked, "-k", "3", "--hybrid"])
    assert shown.exit_code == 0, shown.stderr
    lines = shown.stdout.splitlines()
    assert all(len(line) <= 80 for line in lines)
    assert lines[0].startswith(" 1. ")
    assert lines[0].endswith("  docs/cranes.md")
    assert re.fullmatch(r"    chars \d+-\d+( · Harbour)?", lines[1])  # where, its headings
    at = next(k for k, line in enumerate(lines) if "serviced every spring" in line)
    assert re.fullmatch(r"    chars \d+-\d+ · Harbour > Cranes", lines[at - 1])

    listed = runner.invoke(app, [*asked, "--json", "--filter", "doc_id=docs/notes.txt"])
    records = [json.loads(line) for line in listed.stdout.splitlines()]
    assert [r["doc_id"] for r in records] == ["docs/notes.txt"]
    assert set(records[0]) >= {"id", "text", "start", "end", "headings", "metadata", "score"}
    assert "page_start" not in records[0]  # no pages: absent, not null

    bad = runner.invoke(app, [*asked, "--filter", "colour=red"])
    assert bad.exit_code == 2
    assert bad.stderr.startswith("Error: --filter colour: not a field")


def test_query_uses_the_recorded_embedder(
    scripted_server: ScriptedServer, docs: Path, tmp_path: Path
) -> None:
    store = f"sqlite:///{tmp_path}/index.db"
    runner.invoke(app, ["index", str(docs), "--store", store, *embedding(scripted_server)])
    calls = len(scripted_server.calls(EMBEDDINGS))
    shown = runner.invoke(app, ["query", "--store", store, "tides", "--no-cache", "--json"])
    assert shown.exit_code == 0, shown.stderr
    assert len(shown.stdout.splitlines()) == 2  # every chunk: one per file
    asked = scripted_server.calls(EMBEDDINGS)[calls:]
    assert [call.inputs for call in asked] == [["tides"]]
    assert asked[0].json()["model"] == "m"


def test_dry_run_prints_the_plan_and_touches_nothing(
    scripted_server: ScriptedServer, docs: Path, tmp_path: Path
) -> None:
    path = tmp_path / "index.db"
    args = ["index", str(docs), "--store", f"sqlite:///{path}", *embedding(scripted_server)]
    result = runner.invoke(app, [*args, "--dry-run"])
    assert result.exit_code == 0, result.stderr
    assert "(dry run: nothing changed)" in result.stdout
    assert "documents: 2 would be added" in result.stdout
    assert "texts to embed: 2 (" in result.stdout  # one chunk per file
    assert "tokens)" in result.stdout
    assert not path.exists()
    assert scripted_server.calls(EMBEDDINGS) == []


def test_split_writes_to_a_store_with_embed_and_refuses_without(
    scripted_server: ScriptedServer, docs: Path, tmp_path: Path
) -> None:
    store = f"sqlite:///{tmp_path}/split.db"
    plain = runner.invoke(app, ["split", str(docs), "-o", store])
    assert plain.exit_code == 2
    assert plain.stderr == f"Error: {store} stores vectors: add --embed (or use index)\n"
    args = ["split", str(docs), "-o", store, "--embed", *embedding(scripted_server)]
    assert runner.invoke(app, args).exit_code == 0
    # split records no embedder in the store: query is told which one.
    asked = ["query", "--store", store, "cranes", "--json", "-k", "10"]
    shown = runner.invoke(app, [*asked, *embedding(scripted_server)[:6]])
    assert shown.exit_code == 0, shown.stderr
    written = [json.loads(line) for line in shown.stdout.splitlines()]
    split = runner.invoke(app, ["split", str(docs)])
    assert sorted(r["id"] for r in written) == sorted(
        json.loads(line)["id"] for line in split.stdout.splitlines()
    )


def test_parents_and_unknown_stores_are_refused(tmp_path: Path) -> None:
    doc = FIXTURES / "text"
    store = f"sqlite:///{tmp_path}/index.db"
    config = tmp_path / "ragchunk.toml"
    config.write_text('parents = "2000"\n', encoding="utf-8")  # split's option, from a file
    args = ["index", str(doc), "--store", store, "--config", str(config)]
    parents = runner.invoke(app, args)
    assert parents.exit_code == 2
    assert parents.stderr.startswith("Error: --parents: index does not store parent records")
    unknown = runner.invoke(app, ["index", str(doc), "--store", "nosuch://x"])
    assert unknown.exit_code == 2
    assert "no sink writes nosuch://" in unknown.stderr
    assert not (tmp_path / "index.db").exists()


def test_a_second_index_run_waits_then_fails_saying_why(
    scripted_server: ScriptedServer, docs: Path, tmp_path: Path
) -> None:
    from tests.integration.stores.test_sync import Running

    store = f"sqlite:///{tmp_path}/index.db"
    args = ["index", str(docs), "--store", store, *embedding(scripted_server)]
    assert runner.invoke(app, args).exit_code == 0
    (docs / "notes.txt").write_text("Changed notes.\n", encoding="utf-8")
    calls = len(scripted_server.calls(EMBEDDINGS))
    scripted_server.script(EMBEDDINGS, Reply.hang(60))  # the first run waits on its model
    with Running([sys.executable, "-m", "ragchunk", *args]) as first:
        deadline = time.monotonic() + 60
        while len(scripted_server.calls(EMBEDDINGS)) == calls:  # it holds the lock by now
            assert first.poll() is None
            assert time.monotonic() < deadline
            time.sleep(0.05)
        second = runner.invoke(app, [*args[:3], f"{store}?timeout=0.5", *args[4:]])
    assert second.exit_code == 1
    assert second.stderr == (
        f"Error: {store}?timeout=0.5: another ragchunk run is writing this store "
        "(waited 0.5 s for its lock); run again once it is done\n"
    )


def test_a_rerun_hashes_unchanged_files_here_and_starts_no_worker(
    scripted_server: ScriptedServer, docs: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import ragchunk
    from ragchunk.runs import workers
    from ragchunk.runs.index import IndexReport
    from ragchunk.settings import scope

    (docs / "tides.md").write_text("# Tides\n\nHigh water is at noon.\n", encoding="utf-8")
    started: list[object] = []
    real = workers._Worker.__init__

    def counted(worker: workers._Worker) -> None:
        started.append(worker)
        real(worker)

    monkeypatch.setattr(workers._Worker, "__init__", counted)
    server = scripted_server.base_url
    settings = scope(
        {"embedder": "openai", "embed_url": server, "embed_model": "m", "no_cache": True}
        | {"jobs": 2}
    )
    store = f"sqlite:///{tmp_path}/index.db"
    said: list[tuple[str, str]] = []

    def run() -> IndexReport:
        said.clear()
        started.clear()
        return ragchunk.index([str(docs)], store, settings=settings, on_document=remember)

    def remember(source: str, status: str) -> None:
        said.append((Path(source).name, status))

    scripted_server.on(EMBEDDINGS, fake_embeddings(dim=8))
    assert run().added == 3
    assert len(started) == 2  # the first index chunks in worker processes
    again = run()
    assert (again.unchanged, again.counts.written, again.embedded) == (3, 0, 0)
    assert started == []  # nothing to chunk: the files were hashed here
    (docs / "notes.txt").write_text("Changed notes.\n", encoding="utf-8")
    edited = run()
    assert (edited.changed, edited.unchanged) == (1, 2)
    assert said == [("cranes.md", "unchanged"), ("notes.txt", "changed"), ("tides.md", "unchanged")]


def test_a_transcripts_times_are_stored_shown_and_filtered(
    scripted_server: ScriptedServer, tmp_path: Path
) -> None:
    store = f"sqlite:///{tmp_path}/index.db"
    talk = FIXTURES / "transcripts" / "talk.vtt"
    args = ["index", str(talk), "--store", store, "-s", "markdown", *embedding(scripted_server)]
    assert runner.invoke(app, args).exit_code == 0
    asked = ["query", "--store", store, "the tide", *embedding(scripted_server)[:6]]
    listed = runner.invoke(app, [*asked, "--json", "-k", "50"])
    records = [json.loads(line) for line in listed.stdout.splitlines()]
    assert len(records) > 1
    assert all(isinstance(r["timestamp_start"], float) for r in records)
    second = sorted(records, key=lambda r: r["start"])[1]
    at = str(second["timestamp_start"])
    kept = runner.invoke(app, [*asked, "--json", "--filter", f"timestamp_start={at}"])
    assert [json.loads(line)["id"] for line in kept.stdout.splitlines()] == [second["id"]]
    shown = runner.invoke(app, [*asked, "-k", "1"])
    assert re.fullmatch(r"    [\d.]+-[\d.]+ s · chars \d+-\d+.*", shown.stdout.splitlines()[1])


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_a_local_model_embeds_the_texts_of_several_documents_per_call(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import ragchunk
    from ragchunk.backends.local import LocalEmbedder
    from ragchunk.errors import BackendError
    from ragchunk.settings import scope

    docs = tmp_path / "docs"
    docs.mkdir()
    for n in range(6):
        body = "\n\n".join(f"Paragraph {p} of note {n} about the harbour." for p in range(3))
        (docs / f"note{n}.md").write_text(f"# Note {n}\n\n{body}\n", encoding="utf-8")
    calls: list[list[str]] = []
    real = LocalEmbedder.embed

    def counted(model: LocalEmbedder, texts: list[str]) -> list[object]:
        calls.append(list(texts))
        if any("note 3" in text for text in texts):  # a fault of this document's texts only
            raise BackendError("the model failed on note 3")
        return real(model, texts)  # type: ignore[return-value]

    monkeypatch.setattr(LocalEmbedder, "embed", counted)
    settings = scope({"size": 60, "overlap": 0, "unit": "chars", "no_cache": True, "jobs": 1})
    said: list[tuple[str, str]] = []
    report = ragchunk.index(
        [str(docs)],
        f"sqlite:///{tmp_path}/index.db",
        settings=settings,
        on_document=lambda source, status: said.append((Path(source).name, status)),
    )
    texts = [text for call in calls for text in call]
    assert len(calls[0]) == len(set(texts)) > 6  # one call for every document's texts
    # That call failed: each document was tried on its own, and only note 3 failed.
    assert len(calls) == 1 + 6
    assert [Path(f.source).name for f in report.failures] == ["note3.md"]
    assert said == [(f"note{n}.md", "failed" if n == 3 else "added") for n in range(6)]
    assert report.added == 5
