"""OCR of scanned pages (``--ocr``, Tesseract): the scan of the inspection letter reads as its text.

``inspection-letter-scan.pdf`` is ``inspection-letter.pdf`` rendered to images (fixtures/README.md),
so the text PDF's words are the ground truth. Tesseract must be installed (``.ci/run`` does it).
"""

from __future__ import annotations

from functools import cache

import pytest
from typer.testing import CliRunner

from benchmarks.extraction_metrics import word_scores
from ragchunk.cli import app
from ragchunk.errors import OptionError
from ragchunk.model import Document
from ragchunk.parsers._spec import ParseOptions, ParseRequest
from ragchunk.parsers.pdf import parse
from ragchunk.parsers.pdf.ocr import check_ocr
from ragchunk.pipeline.plan import make_plan
from ragchunk.settings import shortcuts
from tests.conftest import FIXTURES
from tests.invariants import assert_invariants
from tests.meaning import every_strategy

pytestmark = pytest.mark.timeout(120)
SCAN = FIXTURES / "pdf" / "inspection-letter-scan.pdf"
LETTER = FIXTURES / "pdf" / "inspection-letter.pdf"
runner = CliRunner()


@cache
def read(path: str, ocr: str = "auto") -> Document:
    options = ParseOptions(ocr=ocr)  # type: ignore[arg-type]
    data = (FIXTURES / "pdf" / path).read_bytes()
    return parse(data, ParseRequest(source=path, options=options))


def test_the_scan_reads_as_the_letter() -> None:
    scan, letter = read(SCAN.name), read(LETTER.name, "off")
    scores = word_scores(scan.text, letter.text)
    assert scores.f1 >= 0.98, scores
    assert [page.number for page in scan.pages] == [1, 2]
    assert "Tanner's Reach sampling pontoon" in scan.text


def test_recognised_text_is_marked_with_its_confidence() -> None:
    scan = read(SCAN.name)
    pages = scan.extraction["ocr_pages"]
    assert isinstance(pages, list)
    assert [page["page"] for page in pages] == [1, 2]  # type: ignore[index]
    assert all(80 <= page["confidence"] <= 100 for page in pages)  # type: ignore[index,operator]
    assert scan.metadata["ocr"] == "tesseract"
    confidence = scan.metadata["ocr_confidence"]
    assert isinstance(confidence, float)
    assert 80 <= confidence <= 100
    assert scan.wraps  # recognised lines wrap paragraphs like any page's


def test_auto_leaves_pages_with_a_text_layer_alone() -> None:
    letter = read(LETTER.name, "auto")
    assert "ocr_pages" not in letter.extraction
    assert "ocr_confidence" not in letter.metadata
    assert letter.text == read(LETTER.name, "off").text


def test_all_recognises_every_page() -> None:
    letter = read(LETTER.name, "all")
    assert [p["page"] for p in letter.extraction["ocr_pages"]] == [1, 2]  # type: ignore[index,union-attr]
    assert word_scores(letter.text, read(LETTER.name, "off").text).f1 >= 0.98


@pytest.mark.parametrize("unit", ["chars", "tokens"])
@pytest.mark.parametrize("name", every_strategy())
def test_every_strategy_keeps_the_invariants_on_the_recognised_scan(name: str, unit: str) -> None:
    size, overlap = (300, 30) if unit == "chars" else (64, 8)
    plan = make_plan(shortcuts({"strategy": name, "size": size, "overlap": overlap, "unit": unit}))  # type: ignore[arg-type]
    assert_invariants(read(SCAN.name), plan)


def test_a_scan_without_ocr_is_a_failed_input_named_in_the_summary() -> None:
    result = runner.invoke(app, ["split", str(SCAN), "-q"])
    assert result.exit_code == 1
    assert result.stdout == ""
    assert result.stderr == (
        f"error: {SCAN}: no text found; its pages have no text layer (a scan? --ocr auto "
        "recognises it); --allow-empty accepts it\n"
    )


def test_allow_empty_accepts_a_scan_with_no_chunks() -> None:
    result = runner.invoke(app, ["split", str(SCAN), "-q", "--allow-empty"])
    assert (result.exit_code, result.stdout, result.stderr) == (0, "", "")


def test_ocr_on_the_command_line() -> None:
    result = runner.invoke(app, ["split", str(SCAN), "--ocr", "auto", "--size", "2000"])
    assert result.exit_code == 0, result.stderr
    assert '"ocr_confidence":' in result.stdout.splitlines()[0]


def test_without_tesseract_ocr_is_a_usage_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", "/nonexistent")
    with pytest.raises(OptionError) as caught:
        check_ocr("eng")
    assert str(caught.value).startswith("--ocr needs the tesseract program, which is not installed")


def test_a_language_tesseract_lacks_is_a_usage_error() -> None:
    with pytest.raises(OptionError) as caught:
        check_ocr("eng+xyz")
    assert str(caught.value).startswith("--ocr-language Tesseract has no 'xyz' data installed")
