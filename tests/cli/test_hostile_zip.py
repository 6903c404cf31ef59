"""Hostile zip-based inputs of issue 33 (tests/data/make_hostile_zip.py) through `ragchunk split`.

Each runs as a real process between two good inputs, under an address-space limit of 1 GiB
(``RLIMIT_AS``, set in the child before it runs: past it a bomb fails with MemoryError), and
must give the exact one-line messages and exit code, leave the good inputs written in full, and
stay within its CPU time and peak memory (the run's own ``ru_maxrss``, from ``wait4``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.data import make_hostile_zip
from tests.support import measured
from tests.support.measured import Outcome, assert_complete

pytestmark = pytest.mark.timeout(120)  # a hang guard; the bounds are CPU_SECONDS and LIMIT

LIMIT = 1024 * 1024 * 1024
"""The address space the run may use (bytes): a bomb past it fails with MemoryError."""
CPU_SECONDS = 15.0
GOOD_MD = "# Good\n\nThis file is fine, and it comes first.\n"
GOOD_TXT = "Another good file.\n\nIt comes last, after the bad one.\n"
BUDGET = (
    "refused: its text grows past --max-text 67108864 characters (a part or string repeated "
    "many times?)"
)


def run_split(*args: str, cwd: Path) -> Outcome:
    """Run `python -m ragchunk split ARGS` in ``cwd`` under ``LIMIT``; measure it alone."""
    outcome = measured.run_split(*args, cwd=cwd, limit=LIMIT)
    assert outcome.cpu_seconds < CPU_SECONDS, f"{args}: {outcome.cpu_seconds:.1f} s of CPU"
    return outcome


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("hostile-zip")
    (root / "good.md").write_text(GOOD_MD, encoding="utf-8")
    (root / "good.txt").write_text(GOOD_TXT, encoding="utf-8")
    return root


@dataclass(frozen=True, slots=True)
class Expect:
    """Exit code, stderr lines (regexes), extra flags, the most MiB, and what must be read."""

    code: int
    stderr: Sequence[str] = ()
    args: Sequence[str] = ()
    peak_mib: float = 300
    contains: Sequence[str] = ()  # text found in the input's chunks (none when it fails)
    max_output: int = 5_000_000  # bytes of JSONL at most for the input


def error(path: str, cause: str) -> str:
    return re.escape(f"error: {path}: {cause}")


def warning(path: str, cause: str) -> str:
    return re.escape(f"warning: {path}: {cause}")


def method(path: str, member: str, name: str, number: int, kind: str) -> list[str]:
    cause = f"refused: {member} is compressed with {name} (method {number}), not stored or "
    return [error(path, cause + f"deflated as {kind} requires")]


EXPECTED: dict[str, Expect] = {
    "docx-bzip2": Expect(1, method("bzip2.docx", "word/document.xml", "bzip2", 12, "DOCX")),
    "pptx-bzip2": Expect(1, method("bzip2.pptx", "ppt/presentation.xml", "bzip2", 12, "PPTX")),
    "xlsx-bzip2": Expect(1, method("bzip2.xlsx", "xl/worksheets/sheet1.xml", "bzip2", 12, "XLSX")),
    "epub-bzip2": Expect(1, method("bzip2.epub", "EPUB/chapter-01.xhtml", "bzip2", 12, "EPUB")),
    "xlsx-lzma": Expect(1, method("lzma.xlsx", "xl/workbook.xml", "LZMA", 14, "XLSX")),
    "xlsx-shared-string-flood": Expect(1, [error("shared-string-flood.xlsx", BUDGET)]),
    "xlsx-sheets-on-one-part": Expect(
        0,
        [
            warning(
                "sheets-on-one-part.xlsx",
                "1999 sheet(s) name a worksheet part already read (the first: Sheet 2); "
                "each part is read once",
            )
        ],
        contains=["Sheet 1", "gauge 99"],
    ),
    "pptx-repeated-slide": Expect(
        0,
        [
            warning(
                "repeated-slide.pptx",
                "199 slide id(s) name a slide already read (the first: slide 2); "
                "each slide is read once",
            )
        ],
        contains=["tide0 tide1"],
    ),
    "epub-repeated-spine": Expect(
        0,
        [
            warning(
                "repeated-spine.epub",
                "200 spine entries name a document already read (the first: "
                "EPUB/chapter-01.xhtml); each document is read once",
            )
        ],
        contains=["Flood", "The Estuary Year"],
    ),
    "email-repeated-workbook": Expect(
        1, [error("repeated-workbook.eml", "attachment readings-6.xlsx: " + BUDGET)]
    ),
    "xlsx-row-gap": Expect(
        1,
        [
            error(
                "row-gap.xlsx",
                "refused: sheet Gap has rows past row 1048576, the last a workbook may have",
            )
        ],
    ),
    "xlsx-declared-huge": Expect(0, contains=["Station: gauge 19999", "Reading: 19999"]),
    "pptx-no-geometry": Expect(0, contains=["Read without geometry.", "Boxed."]),
    "docx-svg-main-part": Expect(
        1,
        [
            error(
                "svg-main-part.docx",
                "refused: word/document.svg declares a DOCTYPE or entities (XML entity bomb?)",
            )
        ],
    ),
    "html-dtd-subset": Expect(0, contains=["Only this."]),
    "xlsx-good": Expect(0, contains=["Station: Harwick", "Note: in flood"]),
}


def test_every_case_has_an_expectation() -> None:
    assert sorted(EXPECTED) == sorted(make_hostile_zip.CASES)


@pytest.mark.parametrize("name", EXPECTED)
def test_hostile_zip_input(name: str, corpus: Path) -> None:
    expect = EXPECTED[name]
    bad = make_hostile_zip.build(name, corpus).relative_to(corpus).as_posix()
    outcome = run_split("good.md", bad, "good.txt", "-j", "1", *expect.args, cwd=corpus)
    assert outcome.code == expect.code, outcome.stderr
    lines = outcome.stderr.splitlines()
    assert len(lines) == len(expect.stderr), outcome.stderr
    for line, pattern in zip(lines, expect.stderr, strict=True):
        assert re.fullmatch(pattern, line), line
    assert outcome.peak_mib < expect.peak_mib
    assert_complete(outcome, "good.md", GOOD_MD)
    assert_complete(outcome, "good.txt", GOOD_TXT)
    records = outcome.records(bad)
    text = "".join(str(record["text"]) for record in records)
    assert bool(records) == bool(expect.contains)
    for piece in expect.contains:
        assert piece in text
    assert "]>" not in text
    written = sum(len(json.dumps(record)) for record in records)
    assert written < expect.max_output


def test_max_text_names_its_cap_and_raising_it_reads_the_input(corpus: Path) -> None:
    path = make_hostile_zip.build("xlsx-good", corpus).relative_to(corpus).as_posix()
    low = run_split(path, "--max-text", "40", cwd=corpus)
    assert low.code == 1
    assert low.stderr == (
        f"error: {path}: refused: its text grows past --max-text 40 characters "
        "(a part or string repeated many times?)\n"
    )
    assert low.stdout == ""
    assert run_split(path, "--max-text", "400", cwd=corpus).code == 0
