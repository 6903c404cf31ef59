"""Every input of the bad-input corpus (tests/data/make_bad.py) through `ragchunk split`.

Each runs as a real process between two good inputs and must give the exact one-line messages
and exit code, stay within its time (10 s of CPU for the whole run, its processes included;
wall time only guards against a hang, since a loaded machine stretches it) and memory (the
process's peak RSS), and leave the good inputs written in full (SPEC §6).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.data import make_bad
from tests.support import measured
from tests.support.measured import Outcome, assert_complete

pytestmark = pytest.mark.timeout(60)  # a hang guard; the time bound is CPU_SECONDS

CPU_SECONDS = 10.0

MIB = 1024 * 1024
GOOD_MD = "# Good\n\nThis file is fine, and it comes first.\n"
GOOD_TXT = "Another good file.\n\nIt comes last, after the bad one.\n"


def run_split(*args: str, cwd: Path) -> Outcome:
    """Run `python -m ragchunk split ARGS` in ``cwd``; check its CPU time, note its peak memory."""
    outcome = measured.run_split(*args, cwd=cwd)
    assert outcome.cpu_seconds < CPU_SECONDS, f"{args}: {outcome.cpu_seconds:.1f} s of CPU"
    return outcome


@pytest.fixture(scope="session")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("bad")
    (root / "good.md").write_text(GOOD_MD, encoding="utf-8")
    (root / "good.txt").write_text(GOOD_TXT, encoding="utf-8")
    return root


@dataclass(frozen=True, slots=True)
class Expect:
    """What a corpus input must give: exit code, stderr lines (regexes), limits, its text."""

    code: int
    stderr: Sequence[str] = ()
    args: Sequence[str] = ()
    peak_mib: float = 100
    text: str | None = None  # the decoded text, when the input is chunked
    headings: Sequence[str] | None = None
    documents: Mapping[str, str] | None = None  # doc_id suffix → text, for a container


def error(path: str, cause: str) -> str:
    return re.escape(f"error: {path}: {cause}")


def warning(path: str, cause: str) -> str:
    return re.escape(f"warning: {path}: {cause}")


EXPECTED: dict[str, Expect] = {
    "pdf-corrupt": Expect(
        1, [error("corrupt.pdf", "corrupt or truncated PDF: Stream has ended unexpectedly")]
    ),
    "pdf-truncated": Expect(
        1, [error("truncated.pdf", "corrupt or truncated PDF: Stream has ended unexpectedly")]
    ),
    "pdf-no-header": Expect(1, [error("fake.pdf", "not a PDF (no %PDF- header)")]),
    "pdf-empty": Expect(1, [error("empty.pdf", "empty file, not a PDF")]),
    "pdf-encrypted": Expect(
        1,
        [error("encrypted.pdf", "encrypted PDF: a password is needed (give it with --password)")],
    ),
    "pdf-huge-length": Expect(
        1,
        [
            error(
                "huge-length.pdf",
                "refused: Declared stream length of 1000000000000 exceeds maximum allowed length.",
            )
        ],
    ),
    # PDFium (the default engine) reads arrays nested deep in a content stream, where pypdf
    # refuses them (tests/unit/parsers/test_pdf.py checks the pypdf engine's caps).
    "pdf-deep-nesting": Expect(0, text="Hello hostile world"),
    "pdf-deep-resources": Expect(
        1,
        [
            warning("deep-resources.pdf", "damaged PDF read with ")
            + r"\d+"
            + re.escape(" repair(s); first: PdfReadError('Error reading PDF file.')"),
            warning(
                "deep-resources.pdf",
                "1 of 1 page(s) have no text layer (scanned images?): page 1",
            ),
            error(
                "deep-resources.pdf",
                "no text found; its pages have no text layer (a scan? --ocr auto recognises "
                "it); --allow-empty accepts it",
            ),
        ],
    ),
    "pdf-bomb": Expect(
        1,
        [error("bomb.pdf", "refused: Limit reached while decompressing.") + ".*"],
        peak_mib=250,
    ),
    "pdf-stream-flood": Expect(
        1,
        [
            error(
                "stream-flood.pdf",
                "refused: its content streams expand past --max-bytes 536870912 "
                "(a decompression bomb?)",
            )
        ],
        peak_mib=250,
    ),
    "pdf-form-flood": Expect(
        1,
        [
            error(
                "form-flood.pdf",
                "refused: its content streams expand past --max-bytes 536870912 "
                "(a decompression bomb?)",
            )
        ],
        peak_mib=250,
    ),
    "pdf-font-bomb": Expect(
        1,
        [
            error(
                "font-bomb.pdf",
                "refused: a font maps one code to 256 characters (a font map expanding each byte?)",
            )
        ],
    ),
    "pdf-font-flood": Expect(
        1,
        [
            error(
                "font-flood.pdf",
                "refused: a font maps one code to 256 characters (a font map expanding each byte?)",
            )
        ],
        peak_mib=200,
    ),
    # PDFium leaves out the character a broken font map gives as a lone surrogate; with
    # pypdf it becomes U+FFFD with a warning (tests/unit/parsers/test_pdf.py).
    "pdf-surrogate": Expect(0, text="Hello world"),
    # pypdf takes seconds over its 40 MB of content (PDFium is fast enough to finish).
    "pdf-slow": Expect(
        1,
        [error("slow.pdf", "timed out after 1 s (--timeout)")],
        args=["--timeout", "1", "--pdf-engine", "pypdf"],
    ),
    "pdf-page-loop": Expect(
        1, [error("page-loop.pdf", "corrupt or truncated PDF: Detected cyclic page references.")]
    ),
    "pdf-outline-loop": Expect(
        0,
        [
            warning(
                "outline-loop.pdf",
                "damaged PDF read with 2 repair(s); first: Detected cycle in outline structure "
                "for {'/Title': 'Hello', '/Parent': IndirectObject(6, 0), '/Dest': "
                "[IndirectObject(4, 0), '/Fit'], '/Next': IndirectObject(7, 0), '/First': "
                "IndirectObject(7, 0)}",
            )
        ],
        text="Hello hostile world",
        # The entry's title is not printed as a heading, and its destination has no position:
        # it names no heading (never a whole page) and is reported by inspect.
        headings=[],
    ),
    "pdf-xref-loop": Expect(
        0,
        [
            warning(
                "xref-loop.pdf",
                "damaged PDF read with 6 repair(s); first: Circular xref chain detected at "
                "offset 600, stopping",
            )
        ],
        text="Hello hostile world",
    ),
    "docx-not-zip": Expect(1, [error("not-zip.docx", "not a DOCX (zip) file")]),
    "docx-empty": Expect(1, [error("empty.docx", "empty file, not a DOCX")]),
    "docx-truncated": Expect(
        1,
        [
            error(
                "truncated.docx",
                "corrupt DOCX: truncated or damaged zip archive (File is not a zip file)",
            )
        ],
    ),
    "docx-ole": Expect(
        1, [error("legacy.docx", "encrypted or legacy Word file (OLE container), not a DOCX")]
    ),
    "docx-no-document": Expect(
        1, [error("hollow.docx", "not a DOCX: the zip has no word/document.xml")]
    ),
    "docx-entity-bomb": Expect(
        1,
        [
            error(
                "laughs.docx",
                "refused: word/document.xml declares a DOCTYPE or entities (XML entity bomb?)",
            )
        ],
    ),
    "docx-external-entity": Expect(
        1,
        [
            error(
                "external-entity.docx",
                "refused: word/document.xml declares a DOCTYPE or entities (XML entity bomb?)",
            )
        ],
    ),
    "docx-renamed-part": Expect(
        1,
        [
            error(
                "renamed-part.docx",
                "refused: word/main.dat declares a DOCTYPE or entities (XML entity bomb?)",
            )
        ],
    ),
    "docx-zip-bomb": Expect(
        1,
        [
            error(
                "zip-bomb.docx",
                "refused: word/media/zeros.bin expands more than 200 times "
                "(8388608 bytes; a zip bomb?)",
            )
        ],
    ),
    "docx-many-members": Expect(
        1, [error("many-members.docx", "refused: the zip holds 10018 members (limit 10000)")]
    ),
    "docx-deep-xml": Expect(
        1,
        [
            error(
                "deep-xml.docx",
                "corrupt DOCX: Excessive depth in document: 256, use XML_PARSE_HUGE option",
            )
            + ".*"
        ],
    ),
    "html-malformed": Expect(
        0,
        text="Unclosed bold both italic?\n\n| cell one | cell two |\n\nAfter the table & "
        "&bogus; &#xZZ;\n\nAfter the end\n\nnever closed",
    ),
    "html-deep": Expect(
        1, [error("deep.html", "refused: HTML elements nested more than 2048 levels deep")]
    ),
    "pptx-broken-slide": Expect(
        1,
        [error("broken-slide.pptx", "corrupt PPTX: ppt/slides/slide3.xml cannot be read (") + ".*"],
    ),
    "pptx-zip-bomb": Expect(
        1,
        [
            error(
                "zip-bomb.pptx",
                "refused: ppt/media/zeros.bin expands more than 200 times "
                "(8388608 bytes; a zip bomb?)",
            )
        ],
    ),
    "xlsx-zip-bomb": Expect(
        1,
        [
            error(
                "zip-bomb.xlsx",
                "refused: xl/media/zeros.bin expands more than 200 times "
                "(8388608 bytes; a zip bomb?)",
            )
        ],
    ),
    "epub-zip-bomb": Expect(
        1,
        [
            error(
                "zip-bomb.epub",
                "refused: EPUB/zeros.bin expands more than 200 times (8388608 bytes; a zip bomb?)",
            )
        ],
    ),
    "mbox-broken-message": Expect(
        1,
        [error("broken.mbox#2", "binary data, not an e-mail (it holds zero bytes)")],
        documents={
            "#1": "Subject: First\n\nThe first message.",
            "#3": "Subject: Third\n\nThe third.",
        },
    ),
    "email-gigabyte-attachment": Expect(
        0,
        [
            warning(
                "claims-1gb.eml",
                "attachment report.docx left out: refused: the zip would expand to ",
            )
            + r"\d+"
            + re.escape(" bytes (limit 536870912)")
        ],
        text="From: a@example.org\nSubject: Report attached\n\nThe body survives.",
    ),
    "binary-txt": Expect(1, [error("binary.txt", "binary data, not text (it holds zero bytes)")]),
    "binary-md": Expect(1, [error("binary.md", "binary data, not text (it holds zero bytes)")]),
    "invalid-utf8": Expect(
        0,
        [
            warning(
                "invalid-utf8.txt",
                "invalid UTF-8 from byte 19; 3 sequence(s) replaced with U+FFFD",
            )
        ],
        text=make_bad.invalid_utf8().decode("utf-8", errors="replace"),
    ),
    "utf16-bom": Expect(0, text=make_bad.UTF16_TEXT),
    "utf16-no-bom": Expect(0, text=make_bad.UTF16_TEXT * 20),
    "utf16-be-no-bom": Expect(0, text=make_bad.UTF16_TEXT * 20),
    "line-50mb": Expect(
        0, args=["--size", "4000"], peak_mib=450, text=make_bad.line_50mb().decode()
    ),
    "nested-lists": Expect(0, text=make_bad.nested_lists().decode()),
    "nested-quotes": Expect(0, text=make_bad.nested_quotes().decode()),
    "table-5mb": Expect(0, peak_mib=300, text=make_bad.table_5mb().decode()),
    "minified-5mb": Expect(0, peak_mib=650, text=make_bad.minified_5mb().decode()),
    "empty-txt": Expect(0, text=""),
    "empty-md": Expect(0, text=""),
    "whitespace-txt": Expect(0, text=""),
    "whitespace-md": Expect(0, text=""),
    "name-spaces": Expect(0, text="Spaces in the name.\n"),
    "name-newline": Expect(0, text="A line feed in the name.\n"),
    "name-not-utf8": Expect(0, text="A Latin-1 name.\n"),
}


def test_every_corpus_input_has_an_expectation() -> None:
    assert sorted(EXPECTED) == sorted(make_bad.CORPUS)


@pytest.mark.parametrize("name", EXPECTED)
def test_corpus_input(name: str, corpus: Path) -> None:
    expect = EXPECTED[name]
    bad = make_bad.build(name, corpus).relative_to(corpus).as_posix()
    outcome = run_split("good.md", bad, "good.txt", "-j", "1", *expect.args, cwd=corpus)
    assert outcome.code == expect.code, outcome.stderr
    lines = outcome.stderr.splitlines()
    assert len(lines) == len(expect.stderr), outcome.stderr
    for line, pattern in zip(lines, expect.stderr, strict=True):
        assert re.fullmatch(pattern, line), line
    assert outcome.peak_mib < expect.peak_mib
    assert_complete(outcome, "good.md", GOOD_MD)
    assert_complete(outcome, "good.txt", GOOD_TXT)
    if expect.documents is not None:
        doc_ids = {str(r["doc_id"]) for r in outcome.records(bad)}
        assert doc_ids == {bad + suffix for suffix in expect.documents}
        for suffix, text in expect.documents.items():
            assert_complete(outcome, bad, text, doc_id=bad + suffix)
    elif expect.text is None:
        assert outcome.records(bad) == []
    else:
        assert_complete(outcome, bad, expect.text)
    if expect.headings is not None:
        assert [r["headings"] for r in outcome.records(bad)] == [expect.headings]


def test_file_names_are_exact_in_json_and_escaped_in_messages(corpus: Path) -> None:
    names = [make_bad.build(n, corpus) for n in ("name-spaces", "name-newline", "name-not-utf8")]
    broken = corpus / "names" / os.fsdecode(b"broken\n\xff.pdf")
    broken.write_bytes(b"not a pdf")
    outcome = run_split("names", cwd=corpus)
    assert outcome.code == 1
    assert outcome.stderr == "error: names/broken\\n\\xff.pdf: not a PDF (no %PDF- header)\n"
    sources = [r["source"] for r in map(json.loads, outcome.stdout.splitlines())]
    assert sources == [f"names/{p.name}" for p in sorted(names)]
    assert os.fsencode(sources[0]) == b"names/latin1-\xe9t\xe9.txt"  # \udce9 escapes round-trip
    assert "\\udce9" in outcome.stdout.splitlines()[0]


def test_a_symlink_loop_is_walked_once_with_a_note(corpus: Path) -> None:
    make_bad.build_loop_tree(corpus)
    outcome = run_split("loop", cwd=corpus)
    assert outcome.code == 0
    assert outcome.stderr == "note: loop/inner/back: skipped, a symbolic link loop\n"
    assert_complete(outcome, "loop/inner/note.txt", "Inside the loop.\n")
    assert len(outcome.stdout.splitlines()) == 1


@pytest.mark.skipif(not Path("/proc/self/mem").exists(), reason="needs Linux /proc")
def test_an_unreadable_file_fails_alone(corpus: Path) -> None:
    make_bad.build_unreadable_tree(corpus)
    outcome = run_split("unreadable", cwd=corpus)
    assert outcome.code == 1
    lines = outcome.stderr.splitlines()
    assert lines[0] == "error: unreadable/io-error.txt: cannot read (Input/output error)"
    assert_complete(outcome, "unreadable/fine.txt", "A readable neighbour.\n")
    if os.geteuid() != 0:  # root reads a file of mode 000; everyone else is refused
        assert lines[1] == "error: unreadable/no-access.txt: cannot read (Permission denied)"


@pytest.mark.skipif(os.geteuid() == 0, reason="root can read a file of mode 000")
def test_a_file_of_mode_000_fails_alone(corpus: Path) -> None:
    make_bad.build_unreadable_tree(corpus)
    outcome = run_split("unreadable/no-access.txt", "unreadable/fine.txt", cwd=corpus)
    assert outcome.code == 1
    assert outcome.stderr.splitlines()[0] == (
        "error: unreadable/no-access.txt: cannot read (Permission denied)"
    )


def test_workers_fail_hostile_inputs_alone(corpus: Path) -> None:
    names = ["pdf-slow", "docx-entity-bomb", "pdf-stream-flood", "invalid-utf8"]
    bad = [make_bad.build(n, corpus).relative_to(corpus).as_posix() for n in names]
    outcome = run_split(
        "good.md",
        *bad,
        "good.txt",
        "-j",
        "2",
        "--timeout",
        "1",
        "--pdf-engine",
        "pypdf",
        cwd=corpus,
    )
    assert outcome.code == 1
    assert outcome.stderr.splitlines()[:2] == [
        "error: slow.pdf: timed out after 1 s (--timeout)",
        "error: laughs.docx: refused: word/document.xml declares a DOCTYPE or entities "
        "(XML entity bomb?)",
    ]
    assert "3 of 6 inputs failed" in outcome.stderr
    assert_complete(outcome, "good.md", GOOD_MD)
    assert_complete(outcome, "good.txt", GOOD_TXT)
    assert outcome.records("invalid-utf8.txt")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_fifo_nobody_writes_and_an_endless_device_fail_alone(corpus: Path) -> None:
    fifo = corpus / "silent.fifo"
    if not fifo.exists():
        os.mkfifo(fifo)
    args = ["good.md", "silent.fifo", "/dev/zero", "good.txt", "--timeout", "1"]
    outcome = run_split(*args, "--max-bytes", "1000000", "-j", "1", cwd=corpus)
    assert outcome.code == 1
    assert outcome.stderr.splitlines()[:2] == [
        "error: silent.fifo: timed out after 1 s (--timeout)",
        "error: /dev/zero: refused: more than --max-bytes 1000000 bytes",
    ]
    assert outcome.peak_mib < 100
    assert_complete(outcome, "good.md", GOOD_MD)
    assert_complete(outcome, "good.txt", GOOD_TXT)
