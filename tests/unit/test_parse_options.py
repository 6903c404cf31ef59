"""ParseOptions: validated like any option, part of the recipe (ids, manifest), set by flags or
configuration; and ``--allow-empty``, a policy that changes no chunk."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragchunk import ParseOptions, chunk_file
from ragchunk.errors import InputError, OptionError, UsageError
from ragchunk.pipeline.engine import process
from ragchunk.pipeline.plan import make_plan
from ragchunk.pipeline.scopes import make_plans
from ragchunk.runs.config import load_config
from ragchunk.runs.manifest import settings_digest
from ragchunk.settings import scope, shortcuts
from tests.conftest import FIXTURES

SCAN = FIXTURES / "pdf" / "inspection-letter-scan.pdf"
REPORT = FIXTURES / "pdf" / "estuary-report.pdf"


@pytest.mark.parametrize(
    ("given", "message"),
    [
        ({"pdf_engine": "mupdf"}, "--pdf-engine must be one of pdfium, pypdf (got 'mupdf')"),
        ({"ocr": "on"}, "--ocr must be one of off, auto, all (got 'on')"),
        (
            {"keep": ("footers",)},
            "--keep must be among headers, watermarks, hyphens, ligatures, linebreaks",
        ),
        ({"ocr_language": "eng; rm -rf"}, "--ocr-language must be Tesseract language names"),
    ],
)
def test_bad_values_name_their_flag(given: dict[str, object], message: str) -> None:
    with pytest.raises(OptionError) as caught:
        ParseOptions(**given)  # type: ignore[arg-type]
    assert str(caught.value).startswith(message)


def test_keep_is_sorted_without_repeats() -> None:
    options = ParseOptions(keep=("watermarks", "headers", "watermarks"))
    assert options.keep == ("headers", "watermarks")
    assert options == ParseOptions(keep=("headers", "watermarks"))
    assert not options.cleans("headers")
    assert options.cleans("hyphens")


def test_parse_options_shape_ids_and_the_manifest_digest_only_when_set() -> None:
    default = make_plan(shortcuts({"strategy": "recursive"})).recipe
    assert (
        default.fingerprint
        == make_plan(
            shortcuts({"strategy": "recursive", "parsing": ParseOptions()})
        ).recipe.fingerprint
    )
    kept = make_plan(
        shortcuts({"strategy": "recursive", "parsing": ParseOptions(keep=("headers",))})
    ).recipe
    assert kept.fingerprint != default.fingerprint
    assert settings_digest(kept) != settings_digest(default)
    first = process(str(REPORT), "r.pdf", make_plan(shortcuts({"strategy": "recursive"}))).chunks[0]
    other = process(
        str(REPORT), "r.pdf", make_plan(shortcuts({"strategy": "recursive", "parsing": kept.parse}))
    ).chunks[0]
    assert (first.start, first.end) == (other.start, other.end)  # the cover has no header
    assert first.id != other.id


def test_configuration_keys_set_parse_options_per_glob(tmp_path: Path) -> None:
    config = tmp_path / "ragchunk.toml"
    config.write_text(
        'pdf-engine = "pypdf"\nkeep = ["hyphens"]\n\n[files."scans/*.pdf"]\nocr = "auto"\n',
        encoding="utf-8",
    )
    plans = make_plans(load_config(str(config)), scope({}))
    assert plans.default.recipe.parse == ParseOptions(pdf_engine="pypdf", keep=("hyphens",))
    scans = plans.rules[0][1].recipe.parse
    assert scans == ParseOptions(pdf_engine="pypdf", keep=("hyphens",), ocr="auto")
    flags = scope({"pdf_engine": "pdfium", "comments": True})
    assert make_plans(load_config(str(config)), flags).default.recipe.parse == ParseOptions(
        pdf_engine="pdfium", keep=("hyphens",), comments=True
    )


def test_a_bad_configuration_value_names_the_key_and_file(tmp_path: Path) -> None:
    config = tmp_path / "ragchunk.toml"
    config.write_text('keep = ["everything"]\n', encoding="utf-8")
    with pytest.raises(UsageError) as caught:
        load_config(str(config))
    assert str(caught.value) == (
        f"{config}: keep must be one of headers, watermarks, hyphens, ligatures, linebreaks "
        "(got 'everything')"
    )


def test_no_text_fails_the_input_unless_empty_inputs_are_allowed() -> None:
    failed = process(str(SCAN), "scan.pdf", make_plan(shortcuts({"strategy": "recursive"})))
    assert failed.error is not None
    assert failed.error.startswith(f"{SCAN}: no text found")
    allowed = process(
        str(SCAN), "scan.pdf", make_plan(shortcuts({"strategy": "recursive", "allow_empty": True}))
    )
    assert (allowed.error, allowed.chunks) == (None, ())
    assert (
        make_plan(shortcuts({"strategy": "recursive", "allow_empty": True})).recipe
        == make_plan(shortcuts({"strategy": "recursive"})).recipe
    )


def test_an_empty_text_file_is_its_own_empty_text(tmp_path: Path) -> None:
    empty = tmp_path / "__init__.py"
    empty.write_text("", encoding="utf-8")
    result = process(str(empty), "__init__.py", make_plan(shortcuts({"strategy": "recursive"})))
    assert (result.error, result.chunks) == (None, ())


def test_chunk_file_takes_parse_options_and_allow_empty() -> None:
    with pytest.raises(InputError):
        chunk_file(str(SCAN))
    assert chunk_file(str(SCAN), allow_empty=True) == []
    kept = chunk_file(str(REPORT), parse=ParseOptions(keep=("headers",)), size=2000)
    assert any("Annual Report 2023 14 March 2024" in chunk.text for chunk in kept)
