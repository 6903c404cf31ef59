"""What each command imports: ragchunk modules from an allow-list, no heavy module it does not use.

Every command here runs as a whole process (``python -c`` running the CLI's ``main``), which then
writes ``sys.modules``. A module that joins a command's imports fails the test until it is added
to that command's list below, on purpose: start-up is most of the wait of a user who runs
ragchunk once per file (issue 32). No timing is measured here; ``benchmarks/whole_runs.py``
measures the time.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from typing import Final

import pytest

from tests.conftest import FIXTURES

PROBE: Final = """
import sys
out, *argv = sys.argv[1:]
sys.argv = ["ragchunk", *argv]
code = 0
try:
    from ragchunk.cli import main
    main()
except SystemExit as exc:
    code = exc.code or 0
finally:
    with open(out, "w", encoding="utf-8") as file:
        file.write("\\n".join([str(code), *sorted(sys.modules)]))
"""

HEAVY: Final = (
    "torch",
    "numpy",
    "sentence_transformers",
    "transformers",
    "pyarrow",
    "ray",
    "pypdf",
    "pypdfium2",
    "docx",
    "tree_sitter",
    "tiktoken",
    "bpe_openai",  # its package parses three vocabularies on import: only its extension is loaded
    "httpx",
    "lxml",
    "markdown_it",
    "rich",
)
"""Third-party modules no command below imports unless it reads or shows what needs them."""

NEVER: Final = (
    "ragchunk.backends.cache",
    "ragchunk.backends.chat",
    "ragchunk.backends.http",
    "ragchunk.backends.local",
    "ragchunk.backends.openai",
    "ragchunk.backends.openai_chat",
    "ragchunk.evaluation",
    "ragchunk.view",
    "ragchunk.runs.dedupe",
    "ragchunk.pipeline.embedding",
    "ragchunk.pipeline.rewrite",
    "ragchunk.text.breakpoints",
)
"""ragchunk's modules that none of these runs needs: embedding, chat, eval, view, dedupe."""

_SETTINGS: Final = (
    "ragchunk.settings",
    "ragchunk.settings._leaf",
    "ragchunk.settings.backends",
    "ragchunk.settings.chunking",
    "ragchunk.settings.parsing",
    "ragchunk.settings.run",
    "ragchunk.settings.tree",
)
_BASE: Final = (
    "ragchunk",
    "ragchunk.cli",
    "ragchunk.cli._app",
    "ragchunk.errors",
    "ragchunk.text",
    "ragchunk.text.printable",
)
_PLAN: Final = (
    *_BASE,
    *_SETTINGS,
    "ragchunk.backends",  # the table and the specs, not a backend
    "ragchunk.backends._spec",
    "ragchunk.cli._options",
    "ragchunk.cli._panels",
    "ragchunk.defaults",
    "ragchunk.measure",
    "ragchunk.measure.chars",
    "ragchunk.model",
    "ragchunk.options",
    "ragchunk.parsers",
    "ragchunk.parsers._budget",  # every ParseRequest carries its input's text budget
    "ragchunk.parsers._spec",
    "ragchunk.pipeline",
    "ragchunk.pipeline.chunks",
    "ragchunk.pipeline.parents",
    "ragchunk.pipeline.plan",
    "ragchunk.pipeline.reading",
    "ragchunk.pipeline.results",
    "ragchunk.registry",
    "ragchunk.strategies",
    "ragchunk.strategies._spec",
    "ragchunk.text.boundaries",
    "ragchunk.text.breadcrumb",
    "ragchunk.text.sections",
    "ragchunk.text.spans",
)
_SPLIT: Final = (
    *_PLAN,
    "ragchunk.cli._batch",
    "ragchunk.cli._progress",
    "ragchunk.cli.split",
    "ragchunk.pipeline.context",
    "ragchunk.pipeline.cutting",
    "ragchunk.pipeline.deadline",
    "ragchunk.pipeline.engine",
    "ragchunk.pipeline.scopes",
    "ragchunk.runs",
    "ragchunk.runs.batch",
    "ragchunk.runs.config",
    "ragchunk.runs.globs",
    "ragchunk.runs.ignores",
    "ragchunk.runs.inputs",
    "ragchunk.runs.loop",
    "ragchunk.runs.tally",
    "ragchunk.runs.worker",
    "ragchunk.runs.workers",
    "ragchunk.sinks",
    "ragchunk.sinks._spec",
    "ragchunk.sinks.jsonl",
    "ragchunk.sinks.tree",
    "ragchunk.text.pack",
)
_TEXT: Final = ("ragchunk.parsers._decode", "ragchunk.parsers.text")
_PDF: Final = (
    "ragchunk.parsers._builder",
    "ragchunk.parsers.pdf",
    "ragchunk.parsers.pdf.boxes",
    "ragchunk.parsers.pdf.budget",
    "ragchunk.parsers.pdf.cells",
    "ragchunk.parsers.pdf.clean",
    "ragchunk.parsers.pdf.fonts",
    "ragchunk.parsers.pdf.hyphens",
    "ragchunk.parsers.pdf.info",
    "ragchunk.parsers.pdf.layout",
    "ragchunk.parsers.pdf.lines",
    "ragchunk.parsers.pdf.native",
    "ragchunk.parsers.pdf.outline",
    "ragchunk.parsers.pdf.pdfium",
    "ragchunk.parsers.pdf.precheck",
    "ragchunk.parsers.pdf.rtl",
    "ragchunk.parsers.pdf.rulings",
    "ragchunk.parsers.pdf.tables",
    "ragchunk.parsers.pdf.upright",
    "ragchunk.pipeline.boxes",
)
"""A sound PDF is read by PDFium alone: neither pypdf nor its ``reader`` (issue 30)."""
_RECURSIVE: Final = ("ragchunk.strategies.recursive", "ragchunk.text.separators")
_TOKEN: Final = (
    "ragchunk.strategies.token",
    "ragchunk.measure.bpe_openai",
    "ragchunk.measure.encoding_files",
    "ragchunk.measure.tiktoken",
    "ragchunk.text.bytemap",
)

ALLOWED: Final[dict[str, frozenset[str]]] = {
    "help": frozenset(_BASE),
    "split": frozenset((*_SPLIT, *_TEXT, *_RECURSIVE)),
    "split-token": frozenset((*_SPLIT, *_TEXT, *_TOKEN)),
    "split-pdf": frozenset((*_SPLIT, *_PDF, *_RECURSIVE)),
    "inspect": frozenset((*_PLAN, *_TEXT, "ragchunk.cli.inspect")),
    "stats": frozenset(
        (
            *_BASE,
            *_SETTINGS,
            "ragchunk.cli._panels",
            "ragchunk.cli.stats",
            "ragchunk.defaults",
            "ragchunk.options",
            "ragchunk.registry",
            "ragchunk.sinks",
            "ragchunk.sinks.stats",
            "ragchunk.sinks.stats_tables",
        )
    ),
}
"""Each command's allowed ragchunk modules. Add a module only when the command needs it."""

USES: Final[dict[str, frozenset[str]]] = {
    "split-token": frozenset({"tiktoken"}),
    "split-pdf": frozenset({"pypdfium2"}),
    "inspect": frozenset({"rich"}),  # the tables it shows
    "stats": frozenset({"rich"}),
}
"""The heavy modules a command may import because it reads or shows what needs them."""


def imported(tmp_path: Path, name: str, *argv: str, stdout: Path | None = None) -> set[str]:
    """Run ``ragchunk ARGV`` in a new interpreter; return the modules it had at its end."""
    dump = tmp_path / f"{name}.modules"
    with (stdout or tmp_path / f"{name}.out").open("wb") as out:
        subprocess.run(
            [sys.executable, "-c", PROBE, str(dump), *argv],
            stdout=out,
            stderr=subprocess.PIPE,
            check=True,
            timeout=120,
        )
    code, *modules = dump.read_text(encoding="utf-8").splitlines()
    assert code == "0", f"ragchunk {' '.join(argv)} exited {code}"
    return set(modules)


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, set[str]]:
    """The modules of each command: --help, split (text, token, PDF), inspect, stats."""
    tmp = tmp_path_factory.mktemp("imports")
    small = tmp / "small.txt"  # ~20 KB of prose
    text = (FIXTURES / "text" / "field-notes.txt").read_text(encoding="utf-8")
    licence = (FIXTURES / "text" / "apache-2.0.txt").read_text(encoding="utf-8")
    small.write_text(f"{licence}\n\n{text}\n\n{text}", encoding="utf-8")
    assert 15_000 < small.stat().st_size < 25_000
    chunks = tmp / "chunks.jsonl"
    pdf = FIXTURES / "pdf" / "report-plain.pdf"
    return {
        "help": imported(tmp, "help", "--help"),
        "split": imported(tmp, "split", "split", str(small), stdout=chunks),
        "split-token": imported(tmp, "split-token", "split", str(small), "-s", "token"),
        "split-pdf": imported(tmp, "split-pdf", "split", str(pdf)),
        "inspect": imported(tmp, "inspect", "inspect", str(small)),
        "stats": imported(tmp, "stats", "stats", str(chunks)),
    }


@pytest.mark.parametrize("command", list(ALLOWED))
def test_ragchunk_modules_are_those_allowed(runs: dict[str, set[str]], command: str) -> None:
    ours = {name for name in runs[command] if name == "ragchunk" or name.startswith("ragchunk.")}
    extra = sorted(ours - ALLOWED[command])
    assert not extra, f"{command} imports ragchunk modules it was not allowed: {extra}"
    assert "ragchunk.cli._app" in ours  # the probe ran the command line


@pytest.mark.parametrize("command", list(ALLOWED))
def test_no_heavy_or_unused_module(runs: dict[str, set[str]], command: str) -> None:
    loaded = runs[command]
    heavy = sorted(
        name for name in HEAVY if name in loaded and name not in USES.get(command, frozenset())
    )
    assert not heavy, f"{command} imports {heavy}"
    unused = sorted(
        name for name in loaded for never in NEVER if name == never or name.startswith(never + ".")
    )
    assert not unused, f"{command} imports {unused}"


def test_a_command_module_is_imported_only_to_run_it(runs: dict[str, set[str]]) -> None:
    commands = {name for name in runs["split"] if name.startswith("ragchunk.cli.")}
    assert {"ragchunk.cli.eval", "ragchunk.cli.view", "ragchunk.cli.inspect"}.isdisjoint(commands)
    helped = runs["help"] - {"ragchunk.cli._app"}
    assert not any(name.startswith("ragchunk.cli.") for name in helped)


def test_the_uses_are_real(runs: dict[str, set[str]]) -> None:
    """The exceptions in ``USES`` are imported where granted (else the test checks nothing)."""
    # bpe-openai's tokenizer when installed (the fast-tokens extra), else tiktoken's
    tokenizer = "bpe_openai._bindings" if importlib.util.find_spec("bpe_openai") else "tiktoken"
    assert {tokenizer} <= runs["split-token"]
    assert {"pypdfium2"} <= runs["split-pdf"]
