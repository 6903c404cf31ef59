"""Hostile e-mail, HTML and CSV inputs (issue 33: items 4, 11, 12, 15) through `ragchunk split`.

Each input is built here by a small generator and run as a real process between two good
inputs, in this process (``-j 1``), under an address-space limit of 1 GiB (``RLIMIT_AS``, set in
the child before it runs): it fails alone with one line, or is read with a warning, the good
inputs are written in full, and the run stays within its CPU time. Before the fixes these
crashed the run (SIGSEGV in the JSON encoder, every other input lost), failed with an
"internal error", needed gigabytes, or took minutes.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from email.message import EmailMessage
from pathlib import Path

import pytest

from tests.support import measured
from tests.support.measured import Outcome, assert_complete

pytestmark = pytest.mark.timeout(240)  # a hang guard; the bound checked is CPU_SECONDS

GIB = 1024**3
CPU_SECONDS = 15.0  # the whole run, on a loaded machine; the slow cases took 25 s to minutes
GOOD_MD = "# Good\n\nThis file is fine, and it comes first.\n"
GOOD_TXT = "Another good file.\n\nIt comes last, after the bad one.\n"


def run_split(*args: str, cwd: Path) -> Outcome:
    """Run `python -m ragchunk split ARGS -j 1` in ``cwd`` under the memory limit."""
    return measured.run_split(*args, "-j", "1", cwd=cwd, limit=GIB, timeout=200)


# --- the generators ---------------------------------------------------------------------------


def wide_csv() -> bytes:
    """A header of 40,000 column names over one row: every chunk copied every name (item 4)."""
    columns = 40_000
    header = ",".join(f"c{n:05d}" for n in range(columns))
    return f"{header}\n{','.join('x' * columns)}\n".encode()


def quoted_csv() -> bytes:
    """90 KB of `,"`: quotes that never close made the separator sniffer quadratic (item 12)."""
    return b',"' * 45_000


def one_row_csv() -> bytes:
    """One row of 8.7 million one-character fields: 64 times its size in memory (item 12)."""
    return b"a," * 8_700_000 + b"a\n"


def long_to() -> bytes:
    """A 2.3 MB To list: minutes in the standard library's address parser (items 4, 12)."""
    addresses = ", ".join(f"person{n}@example.org" for n in range(95_000))
    return f"From: a@example.org\nTo: {addresses}\nSubject: Many\n\nThe body.\n".encode()


def long_subject() -> bytes:
    """A 420 KB Subject of encoded words: gigabytes in the header parser (item 12)."""
    words = " ".join(f"=?utf-8?q?word{n}?=" for n in range(20_000))
    return f"From: a@example.org\nSubject: {words}\n\nThe body.\n".encode()


def deep_from() -> bytes:
    """20,000 nested parentheses in a From header: RecursionError (item 11)."""
    nested = "(" * 20_000 + "x" + ")" * 20_000
    return f"From: {nested} <a@example.org>\nSubject: Deep\n\nThe body.\n".encode()


def charset_email(charset: str) -> Callable[[], bytes]:
    """A message whose body names a codec that is not a text encoding (item 11)."""

    def build() -> bytes:
        return (
            f'From: a@example.org\nSubject: Odd\nContent-Type: text/plain; charset="{charset}"'
            "\n\nThe body.\n"
        ).encode()

    return build


def charset_html(charset: str) -> Callable[[], bytes]:
    """A page whose meta charset names a codec that is not a text encoding (item 11)."""

    def build() -> bytes:
        return f'<html><head><meta charset="{charset}"></head><body><p>The page.</p>'.encode()

    return build


def nested_messages() -> bytes:
    """A message forwarded eight times, invalid UTF-8 at the bottom (item 15)."""
    message = EmailMessage()
    message["Subject"] = "Bottom"
    message.set_content(b"bottom \xff text", maintype="text", subtype="plain", cte="8bit")
    for level in range(8):
        outer = EmailMessage()
        outer["Subject"] = f"Level {level}"
        outer.set_content(f"Text {level}.")
        outer.add_attachment(message)
        message = outer
    return bytes(message)


@dataclass(frozen=True, slots=True)
class Case:
    """A hostile input: its name, its generator, the exit code and stderr lines (regexes)."""

    name: str
    build: Callable[[], bytes]
    code: int
    stderr: Sequence[str]
    text: str | None = None  # a text the input's chunks must hold, when it is read


def warning(path: str, cause: str) -> str:
    return re.escape(f"warning: {path}: {cause}")


CASES = [
    Case("wide.csv", wide_csv, 0, [], text="c39999: x"),
    Case("quoted.csv", quoted_csv, 0, [], text=",\n,"),
    Case(
        "one-row.csv",
        one_row_csv,
        1,
        [
            re.escape(
                "error: one-row.csv: refused: line 1 holds 8700001 fields (limit 100000 per row)"
            )
        ],
    ),
    Case(
        "to.eml",
        long_to,
        0,
        [
            warning("to.eml", "the To header holds ")
            + r"\d+"
            + re.escape(" characters; only its first ")
            + r"\d+"
            + re.escape(" were read (limit 16384)")
        ],
        text="To: person0@example.org, person1@example.org",
    ),
    Case(
        "subject.eml",
        long_subject,
        0,
        [
            warning("subject.eml", "the Subject header holds ")
            + r"\d+"
            + re.escape(" characters; only its first ")
            + r"\d+"
            + re.escape(" were read (limit 16384)")
        ],
        text="Subject: word0word1word2",
    ),
    Case(
        "deep.eml",
        deep_from,
        0,
        [
            warning(
                "deep.eml",
                "the From header holds 40017 characters; only its first 16384 "
                "were read (limit 16384)",
            ),
            warning(
                "deep.eml",
                "the From header nests parentheses 16384 deep; those past 32 levels were dropped",
            ),
        ],
        text="The body.",
    ),
    *(
        Case(
            f"{charset}.eml",
            charset_email(charset),
            0,
            [
                warning(
                    f"{charset}.eml", f"charset {charset!r} is not a text encoding; read as UTF-8"
                )
            ],
            text="The body.",
        )
        for charset in ("rot13", "base64", "zlib", "undefined")
    ),
    *(
        Case(
            f"{charset}.html",
            charset_html(charset),
            0,
            [warning(f"{charset}.html", f"charset {charset!r} is not a text encoding")],
            text="The page.",
        )
        for charset in ("rot13", "hex", "undefined")
    ),
    Case(
        "nested.eml",
        nested_messages,
        0,
        [
            warning(
                "nested.eml",
                "attachment part 1"
                + " > part 1" * 7
                + ": invalid utf-8 from byte 7; replaced with U+FFFD",
            )
        ],
        text="bottom \ufffd text",
    ),
]


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    (tmp_path / "good.md").write_text(GOOD_MD, encoding="utf-8")
    (tmp_path / "good.txt").write_text(GOOD_TXT, encoding="utf-8")
    return tmp_path


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_hostile_input_between_two_good_ones(case: Case, corpus: Path) -> None:
    (corpus / case.name).write_bytes(case.build())
    outcome = run_split("good.md", case.name, "good.txt", cwd=corpus)
    assert outcome.code == case.code, outcome.stderr[-2000:]
    lines = outcome.stderr.splitlines()
    assert len(lines) == len(case.stderr), outcome.stderr[-2000:]
    for line, pattern in zip(lines, case.stderr, strict=True):
        assert re.fullmatch(pattern, line), line
    assert outcome.cpu_seconds < CPU_SECONDS, f"{outcome.cpu_seconds:.1f} s of CPU"
    assert_complete(outcome, "good.md", GOOD_MD)
    assert_complete(outcome, "good.txt", GOOD_TXT)
    records = outcome.records(case.name)
    if case.text is None:
        assert records == []
    else:
        assert any(case.text in str(r["text"]) for r in records), case.text


def test_metadata_copied_into_every_chunk_is_capped(corpus: Path) -> None:
    """The CSV's column names and the e-mail's To list: the first items, then a count."""
    (corpus / "wide.csv").write_bytes(wide_csv())
    (corpus / "to.eml").write_bytes(long_to())
    outcome = run_split("wide.csv", "to.eml", cwd=corpus)
    assert outcome.code == 0, outcome.stderr
    table = outcome.records("wide.csv")
    assert len(table) > 100
    for record in table:
        metadata = record["metadata"]
        assert isinstance(metadata, dict)
        assert metadata["columns"] == [f"c{n:05d}" for n in range(50)]
        assert metadata["columns_more"] == 40_000 - 50
    assert len(outcome.stdout.encode()) < 20 * 1024 * 1024  # was 66 MB from 169 KB
    for record in outcome.records("to.eml"):
        metadata = record["metadata"]
        assert isinstance(metadata, dict)
        assert len(str(metadata["to"])) == 1000
        assert str(metadata["to"]).startswith("person0@example.org, person1@example.org")
        assert isinstance(metadata["to_more"], int)
        assert metadata["to_more"] > 10_000


def test_an_amplifying_input_written_to_a_file_leaves_no_temporary_file(corpus: Path) -> None:
    """With -o, in this process: the good inputs written, nothing hidden left beside them."""
    (corpus / "wide.csv").write_bytes(wide_csv())
    outcome = run_split("good.md", "wide.csv", "good.txt", "-o", "out.jsonl", cwd=corpus)
    assert outcome.code == 0, outcome.stderr
    names = sorted(path.name for path in corpus.iterdir())
    assert names == ["good.md", "good.txt", "out.jsonl", "wide.csv"]
    written = (corpus / "out.jsonl").read_text(encoding="utf-8").splitlines()
    sources = [json.loads(line)["source"] for line in written]
    assert sources[0] == "good.md"
    assert sources[-1] == "good.txt"


@pytest.mark.parametrize("stats", [False, True], ids=["rendered-by-the-job", "by-the-run"])
def test_a_record_past_the_cap_fails_its_input_alone(
    stats: bool, corpus: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Rendered where the chunk is made, or by the run (--stats reads the chunks): one line."""
    from typer.testing import CliRunner

    from ragchunk.cli import app
    from ragchunk.sinks import jsonl

    monkeypatch.setattr(jsonl, "ORJSON_MOST_CHARS", 100)
    monkeypatch.setattr(jsonl, "MAX_RECORD_BYTES", 1000)
    monkeypatch.chdir(corpus)
    (corpus / "big.txt").write_text("word " * 400, encoding="utf-8")
    args = ["split", "good.md", "big.txt", "good.txt", "--size", "4000", "-j", "1"]
    result = CliRunner().invoke(app, [*args, *(["--stats"] if stats else [])])
    assert result.exit_code == 1, result.output
    errors = [line for line in result.stderr.splitlines() if line.startswith("error: ")]
    assert errors == [
        "error: big.txt: refused: chunk 0 makes a JSONL record of 2197 bytes (limit 1000)"
    ]
    outcome = Outcome(result.exit_code, result.stdout, result.stderr, 0.0, 0.0)
    assert outcome.records("big.txt") == []
    assert_complete(outcome, "good.md", GOOD_MD)
    assert_complete(outcome, "good.txt", GOOD_TXT)
