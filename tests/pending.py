"""Fixtures written ahead of the code that reads them, kept out of the tests' walks for now.

The walks over ``fixtures/`` in the tests (``--check`` on the whole tree, the batch mirror, the
invariants and ``inspect`` over every fixture, the fuzz seeds) leave out what ``PENDING`` names,
so their counts and expectations stay those of the parsers that exist. When the code for an issue
lands, delete its entries (``fixtures/README.md`` says which fixture serves which issue).
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

from ragchunk.globs import make_globs

FIXTURES: Final = Path(__file__).resolve().parent.parent / "fixtures"
PENDING: Final = (
    "/README.md",  # this directory's own README, not a fixture
    "/builders/",  # the builders' code, not a fixture
    "/docs-site/",  # issue 13
    "/docx/field-handbook.docx",  # issue 12
    "/email/",  # issue 16
    "/epub/",  # issue 16
    "/html/",  # issue 16
    "/pdf/estuary-report.pdf",  # issue 12
    "/pdf/inspection-letter.pdf",  # issue 12: the text PDF the scan is made from
    "/pdf/inspection-letter-scan.pdf",  # issue 12
    "/pptx/",  # issue 16
    "/tables/",  # issue 16
    "/templates/basin-oxygen-paper.*",  # issue 16
    "/templates/estuary-year.txt",  # issue 16
    "/templates/figures/",  # issue 16
    "/templates/services-agreement.*",  # issue 16
)
PENDING_GLOBS: Final = make_globs(PENDING)
EXCLUDE_PENDING: Final = tuple(arg for glob in PENDING for arg in ("--exclude", glob))
"""``ragchunk split`` arguments that leave the pending fixtures out of a walk."""


def settled(path: Path) -> bool:
    """Return whether the fixture file ``path`` is outside ``PENDING``."""
    parts = path.resolve().relative_to(FIXTURES).parts
    return not any(glob.covers(parts) for glob in PENDING_GLOBS)
