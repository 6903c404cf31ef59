"""Golden files: every shape strategy on the text fixtures, byte-compared.

Strategies that embed (semantic, late) are left out: where they cut follows a model's floating
point, which may differ in the last bits from one CPU to the next; their own tests pin what
must hold (the topic changes, the pooled vectors) and the invariant tests run them on every
fixture. Regenerate with ``pytest tests/golden --update-golden`` and review the diff like code.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ragchunk.pipeline.engine import process
from ragchunk.pipeline.plan import make_plan
from ragchunk.settings import shortcuts
from ragchunk.sinks.jsonl import lines
from tests.conftest import FIXTURES, ROOT
from tests.meaning import SHAPES

GOLDEN = ROOT / "tests" / "data" / "golden"
DOCUMENTS = [
    FIXTURES / "text" / "field-notes.txt",
    FIXTURES / "markdown" / "station-guide.md",
    FIXTURES / "markdown" / "git-readme.md",
    FIXTURES / "docx" / "report.docx",
    FIXTURES / "docx" / "memo.docx",
    FIXTURES / "docx" / "field-handbook.docx",
    FIXTURES / "pdf" / "report-outline.pdf",
    FIXTURES / "pdf" / "report-plain.pdf",
    FIXTURES / "pdf" / "estuary-report.pdf",
]
BUDGETS = [(300, 30, "chars"), (64, 8, "tokens")]


@pytest.mark.parametrize("budget", BUDGETS, ids=lambda b: f"{b[0]}{b[2]}")
@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda p: p.name)
@pytest.mark.parametrize("name", SHAPES)
def test_output_matches_golden(
    name: str, document: Path, budget: tuple[int, int, str], update_golden: bool
) -> None:
    size, overlap, unit = budget
    plan = make_plan(shortcuts({"strategy": name, "size": size, "overlap": overlap, "unit": unit}))  # type: ignore[arg-type]
    source = document.relative_to(ROOT).as_posix()
    result = process(source, document.name, plan)
    assert result.error is None
    actual = lines(result.chunks)
    golden = GOLDEN / name / f"{document.stem}__{size}{unit}.jsonl"
    if update_golden:
        golden.parent.mkdir(parents=True, exist_ok=True)
        golden.write_text(actual, encoding="utf-8")
    assert golden.is_file(), f"missing {golden}; run pytest --update-golden"
    assert actual == golden.read_text(encoding="utf-8")
