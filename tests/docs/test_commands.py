"""Every ``ragchunk`` command of README.md and docs/*.md runs and exits as documented.

Each page's commands run in document order in a fresh working directory holding a copy of
``fixtures/`` (so ``fixtures/text/field-notes.txt`` is the bundled file), one test per page and
per set of ``needs`` (``tests/docs/commands.py`` says how a fence declares them). The example
files a page shows (``<!-- docs: file=NAME -->``: a ``ragchunk.toml``, ``setups.toml``,
``q.csv``, a short German ``bericht.txt``) are written where the page shows them; nothing else is
laid out. A plain command runs in this process through Typer's runner; one that needs the shell
(a pipe, ``<``, ``&&``, a glob) or a service runs in ``bash -o pipefail`` with ``ragchunk`` on
``PATH`` as ``python -m ragchunk``. (A service's commands never run in this process: a process
that has loaded torch and then forks ``--jobs`` workers leaves them stuck in torch's threads.)

The services are local stand-ins, never a real endpoint:

- ``chat``: the scripted OpenAI-compatible server (``tests/support/scripted.py``); each
  ``--api-base`` value is replaced by its URL. It answers question generation with a question
  on the window's first sentence, and everything else with an empty list, so ``proposition``
  and ``resume`` take their documented fallback (exit 0).
- ``embeddings``: the same server with deterministic vectors; each ``--embed-url`` is replaced.
- ``local-model``: the local all-MiniLM-L6-v2 of the ``embed`` extra (marked ``slow``).
- ``ray``: the suite's Ray cluster (``ray_cluster``, marked ``slow``): ``RAY_ADDRESS`` names it
  and each ``--ray-address`` value is replaced by its address.
- ``browser``: ``$BROWSER`` is a script that records the URL it is given (``--open`` goes
  through Python's ``webbrowser``); the test checks the page it was given exists.
- ``tesseract``: the ``tesseract`` program itself (skipped when missing, failing in CI).
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ragchunk.cli import app
from tests.docs.commands import PAGES, ROOT, Fence, needs_a_shell, read_page
from tests.servers import LOCALHOST
from tests.support.requirements import missing
from tests.support.scripted import (
    CHAT,
    EMBEDDINGS,
    RecordedRequest,
    Reply,
    ScriptedServer,
    chat_body,
    fake_embeddings,
)

runner = CliRunner()
TIMEOUT = 600
REPLACED = {"chat": "--api-base", "embeddings": "--embed-url", "ray": "--ray-address"}


def _cases() -> list[object]:
    cases: list[object] = []
    for path in PAGES:
        page = read_page(path)
        for needs in page.groups():
            marks: list[pytest.MarkDecorator] = []
            if needs & {"chat", "embeddings", "ray"}:
                marks += LOCALHOST
            if needs & {"local-model", "ray"}:
                marks.append(pytest.mark.slow)
            label = ",".join(sorted(needs)) or "plain"
            cases.append(pytest.param(path, needs, marks=marks, id=f"{page.name}:{label}"))
    return cases


def _answer(request: RecordedRequest) -> Reply:
    """Questions on a window's first sentence (``eval --generate``); an empty list otherwise."""
    user = str(request.json()["messages"][-1]["content"])
    first = re.search(r"^\[1\] (.*)$", user, re.MULTILINE)
    if first is None:
        return Reply.json(chat_body("[]"))
    words = [w.lower() for w in re.findall(r"[A-Za-z]{4,}", first.group(1))][:2]
    question = f"What does the text say about {' and '.join(words)}?"
    answer = {"questions": [{"question": question, "sentences": [1]}]}
    return Reply.json(chat_body(json.dumps(answer)))


def _replace_option(command: str, option: str, value: str) -> str:
    return re.sub(rf"{re.escape(option)}(=|\s+)\S+", f"{option} {value}", command)


class Workspace:
    """A page's working directory, its environment and the stand-ins its commands use."""

    def __init__(self, directory: Path, needs: frozenset[str], request: pytest.FixtureRequest):
        self.directory = directory
        self.needs = needs
        shutil.copytree(ROOT / "fixtures", directory / "fixtures")
        bin_dir = directory.parent / "bin"
        bin_dir.mkdir(exist_ok=True)
        shim = bin_dir / "ragchunk"
        shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m ragchunk "$@"\n')
        shim.chmod(0o755)
        self.env = {
            **os.environ,
            "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
            "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
        }
        self.values: dict[str, str] = {}
        self.server: ScriptedServer | None = None
        self.opened = directory.parent / "opened.txt"
        # A documented `-o /dev/null` writes to a device made here, never to the system's.
        self.null = directory.parent / "null"
        try:
            os.mknod(self.null, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
            self.null_is_device = True
        except PermissionError:  # not root: a regular file stands in
            self.null.touch()
            self.null_is_device = False
        if needs & {"chat", "embeddings"}:
            server: ScriptedServer = request.getfixturevalue("scripted_server")
            server.on(CHAT, _answer)
            server.on(EMBEDDINGS, fake_embeddings(dim=16))
            self.server = server
            self.values["chat"] = self.values["embeddings"] = server.base_url
        if "ray" in needs:
            cluster = request.getfixturevalue("ray_cluster")
            self.values["ray"] = cluster.address
            self.env["RAY_ADDRESS"] = cluster.address
        if "browser" in needs:
            recorder = bin_dir / "record-browser"
            recorder.write_text(f'#!/bin/sh\nprintf "%s\\n" "$1" >> "{self.opened}"\n')
            recorder.chmod(0o755)
            self.env["BROWSER"] = str(recorder)
        if "tesseract" in needs and shutil.which("tesseract") is None:
            missing("tesseract is not installed: apt-get install tesseract-ocr tesseract-ocr-eng")

    def prepare(self, command: str) -> str:
        """The command with each service's option pointed at its stand-in, /dev/null at ours."""
        command = re.sub(r"(?<![\w/])/dev/null\b", str(self.null), command)
        for need, option in REPLACED.items():
            if need in self.needs:
                command = _replace_option(command, option, self.values[need])
        return command

    def run(self, command: str) -> tuple[int, str]:
        """Run one command; return its exit code and what it printed."""
        if needs_a_shell(command) or self.needs:
            done = subprocess.run(
                ["bash", "-o", "pipefail", "-c", command],
                cwd=self.directory,
                env=self.env,
                capture_output=True,
                text=True,
                check=False,
                timeout=TIMEOUT,
            )
            return done.returncode, done.stdout[-2000:] + done.stderr[-2000:]
        argv = shlex.split(command, comments=True)[1:]
        result = runner.invoke(app, argv, env={"COLUMNS": "100"})
        return result.exit_code, result.stdout[-2000:] + result.stderr[-2000:]


@pytest.mark.timeout(3600)
@pytest.mark.parametrize(("path", "needs"), _cases())
def test_documented_commands_run(
    path: Path,
    needs: frozenset[str],
    tmp_path: Path,
    request: pytest.FixtureRequest,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    workspace = Workspace(tmp_path / "work", needs, request)
    monkeypatch.chdir(workspace.directory)
    failures: list[str] = []
    ran = 0
    for fence in read_page(path).fences:
        if fence.file is not None:
            target = workspace.directory / fence.file
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(fence.text, encoding="utf-8")
            continue
        if fence.needs != needs:
            continue
        for command in fence.commands:
            code, output = workspace.run(workspace.prepare(command))
            ran += 1
            if code != fence.exit_code:
                failures.append(
                    f"{fence.page}:{fence.line}: `{command}` exited {code}, "
                    f"documented {fence.exit_code}\n{output}"
                )
    assert ran, "no command ran"
    assert not failures, "\n\n".join(failures)
    if workspace.null_is_device:  # writing to a device must leave it one
        assert stat.S_ISCHR(workspace.null.stat().st_mode), "an output replaced the device"
    for need, endpoint in (("chat", CHAT), ("embeddings", EMBEDDINGS)):
        if need in needs:  # the stand-in was asked, not bypassed
            assert workspace.server is not None
            assert workspace.server.calls(endpoint), f"no request reached {endpoint}"
    if "browser" in needs:
        opened = workspace.opened.read_text(encoding="utf-8").split()
        assert opened, "--open opened nothing"
        for uri in opened:
            assert uri.startswith("file://"), uri
            assert Path(uri.removeprefix("file://")).is_file(), uri


def test_every_fence_with_commands_is_collected() -> None:
    """Each page's command fences fall in one of its groups, and no directive is unknown."""
    fences: list[Fence] = []
    for path in PAGES:
        page = read_page(path)
        for fence in page.fences:
            if fence.commands:
                assert fence.needs in page.groups()
                fences.append(fence)
    assert len(fences) > 30
    assert any(f.exit_code == 1 for f in fences)
    assert any(f.exit_code == 2 for f in fences)


def test_fences_and_directives_are_read(tmp_path: Path) -> None:
    """A directive applies to the fence below it; continuations join; other lines are not run."""
    page = tmp_path / "page.md"
    page.write_text(
        "<!-- docs: exit=2 needs=chat -->\n```sh\nragchunk split a \\\n  --size 9\n"
        "jq . x\n```\n\n<!-- docs: file=a.toml -->\n```toml\nsize = 1\n```\n"
        "```python\nragchunk = 1\n```\n",
        encoding="utf-8",
    )
    fences = read_page(page).fences
    assert [f.commands for f in fences] == [["ragchunk split a    --size 9"], [], []]
    assert (fences[0].exit_code, fences[0].needs) == (2, frozenset({"chat"}))
    assert (fences[1].file, fences[1].text) == ("a.toml", "size = 1\n")
    assert needs_a_shell("ragchunk split - < a.txt")
    assert needs_a_shell("ragchunk stats out/*.jsonl")
    assert not needs_a_shell("ragchunk split a --include '*.md'  # a | b")


def test_readme_library_example_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The README's Python example runs as printed, on the fixtures."""
    shutil.copytree(ROOT / "fixtures", tmp_path / "fixtures")
    monkeypatch.chdir(tmp_path)
    examples = [f.text for f in read_page(ROOT / "README.md").fences if f.language == "python"]
    assert examples
    for example in examples:
        namespace: dict[str, object] = {}
        exec(compile(example, "README.md", "exec"), namespace)
        assert namespace["chunks"]
