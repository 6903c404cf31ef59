"""Golden files: the code strategy on every code fixture, byte-compared.

Regenerate with ``pytest tests/golden --update-golden`` and review the diff like code.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ragchunk.pipeline.engine import process
from ragchunk.pipeline.plan import make_plan
from ragchunk.settings import shortcuts
from ragchunk.sinks.jsonl import lines
from tests.conftest import FIXTURES, ROOT
from tests.golden.test_golden import GOLDEN

DOCUMENTS = sorted((FIXTURES / "code").iterdir())
BUDGETS = [(128, 0, "tokens"), (600, 0, "chars")]


@pytest.mark.parametrize("budget", BUDGETS, ids=lambda b: f"{b[0]}{b[2]}")
@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda p: p.name)
def test_code_output_matches_golden(
    document: Path, budget: tuple[int, int, str], update_golden: bool
) -> None:
    size, overlap, unit = budget
    plan = make_plan(
        shortcuts({"strategy": "code", "size": size, "overlap": overlap, "unit": unit})
    )  # type: ignore[arg-type]
    result = process(document.relative_to(ROOT).as_posix(), document.name, plan)
    assert result.error is None
    actual = lines(result.chunks)
    golden = GOLDEN / "code" / f"{document.stem}__{size}{unit}.jsonl"
    if update_golden:
        golden.parent.mkdir(parents=True, exist_ok=True)
        golden.write_text(actual, encoding="utf-8")
    assert golden.is_file(), f"missing {golden}; run pytest --update-golden"
    assert actual == golden.read_text(encoding="utf-8")
