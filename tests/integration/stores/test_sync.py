"""The sync scenarios every store must pass (``store_url`` runs each on every store).

After each scenario the store holds exactly the chunks ``ragchunk split`` gives for the
current tree (same ids, texts, spans, pages, headings) and no others. Vectors come from the
real ``openai`` backend talking to the scripted server on 127.0.0.1 (deterministic unit vectors
per text, every request recorded), so embedding calls are counted where they happen; the
local model runs in the test marked slow.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import cast

import pytest
from typer.testing import CliRunner

import ragchunk
from ragchunk import sinks
from ragchunk.cli import app
from ragchunk.errors import StoreError
from ragchunk.pipeline.results import FileResult
from ragchunk.runs.index import IndexReport
from ragchunk.settings import Settings, shortcuts
from ragchunk.sinks._store import Counts, Store
from tests.conftest import FIXTURES, ROOT
from tests.servers import LOCALHOST
from tests.support.scripted import EMBEDDINGS, Reply, ScriptedServer, fake_embeddings

pytestmark = [*LOCALHOST, pytest.mark.timeout(300)]
runner = CliRunner()
SIZE = 200
Stored = dict[str, list[tuple[object, ...]]]


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """A tree: ``docs/`` (a ~100-chunk Markdown file, text, a DOCX) and ``other/`` beside it."""
    docs = tmp_path / "docs"
    (docs / "sub").mkdir(parents=True)
    sections = [
        (
            f"## Section {i}\n\nThe harbour log for week {i} records {i * 7 % 13} arrivals, "
            f"two inspections and a note about the tide tables of berth {i % 9}.\n\n"
            f"Crew {i} reported the crane on pier {i % 5} working, the lights on buoy {i} "
            f"dim, and nothing else of note for the week numbered {i}.\n"
        )
        for i in range(50)
    ]
    (docs / "long.md").write_text("# Harbour log\n\n" + "\n".join(sections), encoding="utf-8")
    (docs / "a.txt").write_text("Alpha notes.\n\nThe first small input.\n", encoding="utf-8")
    (docs / "sub" / "b.md").write_text("# Beta\n\nA second small input.\n", encoding="utf-8")
    shutil.copy(FIXTURES / "docx" / "memo.docx", docs / "memo.docx")
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "c.txt").write_text("Outside the walked root.\n", encoding="utf-8")
    return tmp_path


@pytest.fixture
def server(scripted_server: ScriptedServer) -> ScriptedServer:
    scripted_server.on(EMBEDDINGS, fake_embeddings(dim=8))
    return scripted_server


def settings(server: ScriptedServer, root: Path, **extra: object) -> Settings:
    values = {
        "embedder": "openai",
        "embed_url": server.base_url,
        "embed_model": "m",
        "embed_retries": 0,
        "size": SIZE,
        "overlap": 0,
        "no_cache": True,
        "jobs": 1,
        "root": str(root),
        **extra,
    }
    return shortcuts(values)


def expected(paths: list[Path], chosen: Settings) -> Stored:
    """Return what ``ragchunk split`` gives for ``paths``, by doc_id (the chunk fields compared)."""
    found: Stored = {}

    def take(result: FileResult) -> None:
        if result.error is None:
            found[result.doc_id] = [
                (c.id, c.text, c.start, c.end, c.page_start, c.page_end, tuple(c.headings), c.index)
                for c in result.chunks
            ]

    ragchunk.run([str(p) for p in paths], settings=chosen, on_result=take)
    return found


def stored(url: str, doc_ids: set[str]) -> Stored:
    """Return what the store holds for ``doc_ids`` and for every document its ledger names."""
    spec = sinks.get(sinks.choose(url, None))
    with spec.open(url) as sink:
        store = cast("Store", sink)
        names = set(store.ledger()) | doc_ids
        found: Stored = {}
        for doc_id in sorted(names):
            records = sorted(store.records(doc_id).values(), key=lambda r: r.index)
            if records:
                found[doc_id] = [
                    (r.id, r.text, r.start, r.end, r.page_start, r.page_end, r.headings, r.index)
                    for r in records
                ]
        return found


def index(url: str, tree: Path, chosen: Settings, *, prune: bool = True) -> IndexReport:
    return ragchunk.index([str(tree / "docs")], url, settings=chosen, prune=prune)


def assert_holds(url: str, tree: Path, chosen: Settings, *, also: Stored | None = None) -> Stored:
    """Assert the store holds exactly what split gives for ``docs/`` (plus ``also``)."""
    want = expected([tree / "docs"], chosen) | (also or {})
    assert stored(url, set(want)) == want
    return want


def edit_line(path: Path, needle: str, replacement: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert text.count(needle) == 1
    path.write_text(text.replace(needle, replacement), encoding="utf-8")


@pytest.fixture
def outside(store_url: str, tree: Path, server: ScriptedServer) -> Stored:
    """Index ``other/`` first: a document outside every later run's roots."""
    ragchunk.index([str(tree / "other")], store_url, settings=settings(server, tree))
    held = stored(store_url, {"other/c.txt"})
    assert list(held) == ["other/c.txt"]
    return held


def test_first_index_then_unchanged_rerun(
    store_url: str, tree: Path, server: ScriptedServer, outside: Stored
) -> None:
    chosen = settings(server, tree)
    report = index(store_url, tree, chosen)
    assert (report.added, report.changed, report.failures) == (4, 0, [])
    want = assert_holds(store_url, tree, chosen, also=outside)
    assert 95 <= len(want["docs/long.md"]) <= 110
    assert report.counts.written == sum(len(v) for k, v in want.items() if k != "other/c.txt")
    calls = len(server.calls(EMBEDDINGS))

    again = index(store_url, tree, chosen)
    assert (again.unchanged, again.added, again.changed, again.deleted) == (4, 0, 0, 0)
    assert again.counts == Counts()  # no write of any kind
    assert (again.embedded, len(server.calls(EMBEDDINGS))) == (0, calls)  # no embedding call
    assert_holds(store_url, tree, chosen, also=outside)


def test_one_line_edit_rewrites_only_the_chunks_around_it(
    store_url: str, tree: Path, server: ScriptedServer, outside: Stored
) -> None:
    chosen = settings(server, tree)
    index(store_url, tree, chosen)
    calls = len(server.calls(EMBEDDINGS))
    edit_line(tree / "docs" / "long.md", "week 25 records", "week 25 (revised) records")

    report = index(store_url, tree, chosen)
    assert (report.changed, report.unchanged) == (1, 3)
    assert report.counts.written <= 3
    assert report.counts.deleted <= 3
    assert report.embedded <= 3
    assert report.counts.moved > 0  # the chunks after it moved, and kept their vectors
    assert len(server.calls(EMBEDDINGS)) == calls + 1
    assert_holds(store_url, tree, chosen, also=outside)


def test_deleted_file_is_pruned_unless_no_prune(
    store_url: str, tree: Path, server: ScriptedServer, outside: Stored
) -> None:
    chosen = settings(server, tree)
    index(store_url, tree, chosen)
    before = stored(store_url, {"docs/a.txt"})["docs/a.txt"]
    (tree / "docs" / "a.txt").unlink()

    kept = index(store_url, tree, chosen, prune=False)
    assert (kept.kept, kept.deleted, kept.counts) == (1, 0, Counts())
    assert_holds(store_url, tree, chosen, also={**outside, "docs/a.txt": before})

    pruned = index(store_url, tree, chosen)
    assert (pruned.deleted, pruned.counts.deleted, pruned.counts.written) == (1, len(before), 0)
    assert_holds(store_url, tree, chosen, also=outside)


def test_settings_change_rewrites_everything(
    store_url: str, tree: Path, server: ScriptedServer, outside: Stored
) -> None:
    index(store_url, tree, settings(server, tree))
    chosen = settings(server, tree, size=150)
    report = index(store_url, tree, chosen)
    want = assert_holds(store_url, tree, chosen, also=outside)
    assert report.changed == 4
    assert report.counts.written == sum(len(v) for k, v in want.items() if k != "other/c.txt")
    assert report.counts.moved == 0


@pytest.mark.usefixtures("outside")
def test_dimension_mismatch_is_refused_before_any_write(
    store_url: str, tree: Path, server: ScriptedServer
) -> None:
    chosen = settings(server, tree)
    index(store_url, tree, chosen)
    held = stored(store_url, set())
    server.on(EMBEDDINGS, fake_embeddings(dim=16))
    other_model = settings(server, tree, embed_model="m16")
    with pytest.raises(StoreError) as raised:
        index(store_url, tree, other_model)
    message = str(raised.value)
    assert "size 8" in message
    assert "size 16" in message
    assert stored(store_url, set()) == held

    args = ["index", str(tree / "docs"), "--store", store_url, *cli_args(server, tree, "m16")]
    result = runner.invoke(app, args)
    assert result.exit_code == 1
    assert result.stderr.count("\n") == 1, result.stderr
    assert "size 8" in result.stderr
    assert stored(store_url, set()) == held


def test_failing_document_keeps_its_chunks_and_the_others_sync(
    store_url: str, tree: Path, server: ScriptedServer, outside: Stored
) -> None:
    chosen = settings(server, tree)
    index(store_url, tree, chosen)
    memo = stored(store_url, {"docs/memo.docx"})["docs/memo.docx"]
    (tree / "docs" / "memo.docx").write_bytes(b"PK\x03\x04 not a zip any more")
    edit_line(tree / "docs" / "long.md", "week 7 records", "week 7 (late) records")

    args = ["index", str(tree / "docs"), "--store", store_url, *cli_args(server, tree, "m")]
    result = runner.invoke(app, args)
    assert result.exit_code == 1
    assert result.stderr.startswith("Error: ")
    assert "memo.docx: corrupt DOCX" in result.stderr
    want = expected([tree / "docs"], chosen)
    assert "docs/memo.docx" not in want
    assert stored(store_url, set(want)) == {**want, **outside, "docs/memo.docx": memo}


def test_kill_9_mid_run_leaves_old_or_new_documents_and_a_rerun_repairs(
    store_url: str, tree: Path, server: ScriptedServer, outside: Stored
) -> None:
    chosen = settings(server, tree)
    old = index_and_hold(store_url, tree, chosen, outside)
    for path in sorted((tree / "docs").rglob("*")):
        if path.suffix in (".md", ".txt"):
            path.write_text(path.read_text(encoding="utf-8") + "\nA line added.\n", "utf-8")
    new = {**expected([tree / "docs"], chosen), **outside}
    calls = len(server.calls(EMBEDDINGS))
    # a.txt is embedded and written, then the request for long.md hangs: kill -9 there.
    server.script(EMBEDDINGS, fake_embeddings(dim=8), Reply.hang(120))
    args = ["index", str(tree / "docs"), "--store", store_url, *cli_args(server, tree, "m")]
    with Running([sys.executable, "-m", "ragchunk", *args]) as process:
        deadline = time.monotonic() + 120
        while len(server.calls(EMBEDDINGS)) < calls + 2:
            assert process.poll() is None, process.stderr.read() if process.stderr else ""
            assert time.monotonic() < deadline
            time.sleep(0.05)
        process.send_signal(signal.SIGKILL)
        process.wait()
    server.on(EMBEDDINGS, fake_embeddings(dim=8))
    held = stored(store_url, set(new) | set(old))
    assert set(held) == set(new)
    states = {doc_id: "new" if held[doc_id] == new[doc_id] else "old" for doc_id in held}
    assert all(held[d] == (new if s == "new" else old)[d] for d, s in states.items())
    assert states["docs/a.txt"] == "new"
    assert states["docs/long.md"] == "old"

    index(store_url, tree, chosen)
    assert stored(store_url, set(new)) == new


def index_and_hold(url: str, tree: Path, chosen: Settings, also: Stored) -> Stored:
    index(url, tree, chosen)
    return assert_holds(url, tree, chosen, also=also)


def cli_args(server: ScriptedServer, tree: Path, model: str) -> list[str]:
    return [
        "--embedder",
        "openai",
        "--embed-url",
        server.base_url,
        "--embed-model",
        model,
        "--embed-retries",
        "0",
        "--size",
        str(SIZE),
        "--overlap",
        "0",
        "--no-cache",
        "--jobs",
        "1",
        "--root",
        str(tree),
        "--quiet",
    ]


class Running:
    """Start a process (its own session, this tree importable); kill its group at the end."""

    def __init__(self, command: list[str]) -> None:
        self.command = command

    def __enter__(self) -> subprocess.Popen[str]:
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), *sys.path])}
        self.process = subprocess.Popen(
            self.command,
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )
        return self.process

    def __exit__(self, *exc: object) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait()
        for stream in (self.process.stdout, self.process.stderr):
            if stream is not None:
                stream.close()


@pytest.mark.slow
def test_local_model_first_index_and_unchanged_rerun(store_url: str, tree: Path) -> None:
    chosen = shortcuts({"size": SIZE, "overlap": 0, "jobs": 1, "root": str(tree)})
    first = index(store_url, tree, chosen)
    assert (first.added, first.failures) == (4, [])
    assert_holds(store_url, tree, chosen)
    again = index(store_url, tree, chosen)
    assert (again.unchanged, again.counts, again.embedded) == (4, Counts(), 0)
    hits = ragchunk.query(store_url, "crane on pier 3", k=3)
    assert len(hits) == 3
    assert all(hit.record.doc_id == "docs/long.md" for hit in hits)


@pytest.mark.slow
def test_unchanged_rerun_over_the_fixtures_writes_and_embeds_nothing(
    store_url: str, server: ScriptedServer
) -> None:
    # Every bundled fixture, as a user's tree: the scanned PDF without a text layer fails
    # each time (its old state, none, is kept), every other document is written once.
    chosen = settings(server, ROOT, size=512, overlap=50)
    first = ragchunk.index([str(FIXTURES)], store_url, settings=chosen)
    assert first.added > 50
    assert [f.source for f in first.failures] == [
        str(FIXTURES / "pdf" / "inspection-letter-scan.pdf")
    ]
    assert first.counts.written > 500
    calls = len(server.calls(EMBEDDINGS))

    again = ragchunk.index([str(FIXTURES)], store_url, settings=chosen)
    assert (again.unchanged, again.added, again.changed, again.deleted) == (first.added, 0, 0, 0)
    assert again.counts == Counts()  # no write of any kind
    assert (again.embedded, len(server.calls(EMBEDDINGS))) == (0, calls)  # no embedding call
