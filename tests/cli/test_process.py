"""ragchunk as a real process: standard streams, exit codes, broken pipes, import cost."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.conftest import FIXTURES

NOTES = FIXTURES / "text" / "field-notes.txt"
HEAVY = (
    "tiktoken",
    "pypdf",
    "docx",
    "markdown_it",
    "tree_sitter",
    "torch",
    "numpy",
    "sentence_transformers",
    "tokenizers",
    "httpx",
    "rich",
    "pyarrow",
    "ray",
)


def run(*args: str, stdin: bytes = b"") -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "ragchunk", *args],
        input=stdin,
        capture_output=True,
        timeout=60,
        check=False,
    )


def test_stdin_to_jsonl() -> None:
    text = "One sentence here. Another one there.\nA third line, longer than the others."
    result = run("split", "-", "--size", "40", "--overlap", "8", stdin=text.encode())
    assert result.returncode == 0, result.stderr
    for line in result.stdout.decode().splitlines():
        record = json.loads(line)
        assert record["text"] == text[record["start"] : record["end"]]
        assert record["chars"] <= 40


def test_usage_error_exits_2_without_traceback() -> None:
    result = run("split", str(NOTES), "--size", "10", "--overlap", "10")
    assert result.returncode == 2
    assert result.stderr.decode() == "Error: --overlap must be smaller than --size (got 10 >= 10)\n"


def test_closed_pipe_ends_quietly() -> None:
    big = ("A line of text that goes on. " * 40 + "\n\n") * 400
    with subprocess.Popen(
        [sys.executable, "-m", "ragchunk", "split", "-", "--size", "100"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    ) as reader:
        assert reader.stdin is not None
        assert reader.stdout is not None
        assert reader.stderr is not None
        reader.stdin.write(big.encode())
        reader.stdin.close()
        reader.stdout.readline()
        reader.stdout.close()
        reader.wait(timeout=60)
        assert reader.stderr.read() == b""
    assert reader.returncode == 0


def test_plain_text_split_imports_no_heavy_module(tmp_path: Path) -> None:
    probe = (
        "import sys\n"
        "from ragchunk.cli import main\n"
        f"sys.argv = ['ragchunk', 'split', {str(NOTES)!r}, '-o', {str(tmp_path / 'o.jsonl')!r}]\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        f"loaded = sorted(m for m in {HEAVY!r} if m in sys.modules)\n"
        "print(','.join(loaded))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, check=True, timeout=60
    )
    assert result.stdout.decode().strip() == ""
    assert (tmp_path / "o.jsonl").stat().st_size > 0


def test_help_loads_no_engine_module() -> None:
    engine = (
        "ragchunk.model",
        "ragchunk.measure",
        "ragchunk.options",
        "ragchunk.pipeline",
        "ragchunk.pipeline.plan",
        "ragchunk.pipeline.engine",
        "ragchunk.runs",
        "ragchunk.runs.workers",
        "ragchunk.runs.batch",
        "ragchunk.sinks",
        "ragchunk.strategies._spec",
        "ragchunk.parsers",
        "ragchunk.text.pack",
    )
    probe = (
        "import sys\n"
        "from ragchunk.cli import main\n"
        "sys.argv = ['ragchunk', '--help']\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        f"loaded = sorted(m for m in {(*HEAVY, *engine)!r} if m in sys.modules)\n"
        "print(','.join(loaded), file=sys.stderr)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, check=True, timeout=60
    )
    assert result.stdout.decode().startswith("Usage: ragchunk")
    assert result.stderr.decode().strip() == ""
