"""Fixtures written ahead of the code that reads them, kept out of the tests' walks for now.

The walks over ``fixtures/`` in the tests (``--check`` on the whole tree, the batch mirror, the
invariants and ``inspect`` over every fixture, the fuzz seeds) leave out what ``PENDING`` names,
so their counts and expectations stay those of the parsers that exist. When the code for an issue
lands, delete its entries (``fixtures/README.md`` says which fixture serves which issue).
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

from ragchunk.runs.globs import make_globs

FIXTURES: Final = Path(__file__).resolve().parent.parent / "fixtures"
PENDING: Final = (
    "/README.md",  # this directory's own README, not a fixture
    "/builders/",  # the builders' code, not a fixture
    "/questions.jsonl",  # ragchunk eval's question set over the fixtures, not a fixture
    "/make_questions.py",  # the script giving its excerpts their spans, not a fixture
    "/templates/figures/",  # the paper's figure, an image the builders use, not a fixture
    # Not pending, but read only with --ocr (no text layer): one OCR run checks it with every
    # strategy in tests/unit/parsers/test_pdf_ocr.py, rather than one per walk.
    "/pdf/inspection-letter-scan.pdf",
)
PENDING_GLOBS: Final = make_globs(PENDING)
EXCLUDE_PENDING: Final = tuple(arg for glob in PENDING for arg in ("--exclude", glob))
"""``ragchunk split`` arguments that leave the pending fixtures out of a walk."""


def settled(path: Path) -> bool:
    """Return whether the fixture file ``path`` is outside ``PENDING``."""
    parts = path.resolve().relative_to(FIXTURES).parts
    return not any(glob.covers(parts) for glob in PENDING_GLOBS)
