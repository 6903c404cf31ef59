"""qa: one chunk per question/answer pair of a table (CSV, TSV, XLSX rows) (SPEC §4, templates).

Each ``row`` section (see the tabular parsers) is one chunk: its question and answer lines and
its other cells. The question is the cell of ``question_column`` (a header name, matched
without case, or a 1-based column number for a table without a header; else the first
column), the answer that of ``answer_column`` (else the second). Every chunk has
``metadata.template = "qa"``, its ``row`` number and its ``question``; a row without an answer
is flagged ``unanswered``. Text outside rows (a sheet's name and title) is a chunk of its own.
A document with no rows (not a table) is split at paragraphs and sentences, without ``row``.
A row larger than the size is split at its lines (``oversize_split``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ragchunk.errors import OptionError
from ragchunk.options import Budget
from ragchunk.strategies._spec import Context, Strategy
from ragchunk.text.regions import Region, region_spans

if TYPE_CHECKING:
    from ragchunk.model import Document, JSONValue, Section, Span


@dataclass(frozen=True, slots=True, kw_only=True)
class QaOptions:
    """Options of the qa template."""

    budget: Budget = Budget(size=2000, overlap=0)
    question_column: str = field(
        default="question",
        metadata={"help": "The question's column: a header name, or a 1-based number."},
    )
    answer_column: str = field(
        default="answer",
        metadata={"help": "The answer's column: a header name, or a 1-based number."},
    )

    def __post_init__(self) -> None:
        for name in ("question_column", "answer_column"):
            if not getattr(self, name).strip():
                raise OptionError(name, "must name a column (got an empty string)")


def split(doc: Document, options: QaOptions, ctx: Context) -> list[Span]:
    """Return one span per row (or its pieces within ``ctx.capacity``), in document order.

    Spans are absolute and half-open; together they cover every non-space character.
    """
    rows = [s for s in doc.sections if s.kind == "row"]
    if not rows:  # not a table: its chunks carry no row or question
        regions = [Region(0, len(doc.text), None, {"template": "qa"})]
        return region_spans(doc.text, regions, sizer=ctx.sizer, capacity=ctx.capacity)
    regions = []
    covered = 0
    for row in rows:
        if row.start > covered:
            regions.append(Region(covered, row.start, None, {"template": "qa"}))
        regions.append(Region(row.start, row.end, None, _pair(doc, row, options)))
        covered = row.end
    regions.append(Region(covered, len(doc.text), None, {"template": "qa"}))
    return region_spans(doc.text, regions, sizer=ctx.sizer, capacity=ctx.capacity)


def _pair(doc: Document, row: Section, options: QaOptions) -> dict[str, JSONValue]:
    columns = row.metadata.get("columns")
    names = [str(c) for c in columns] if isinstance(columns, list) else []
    question = _cell(doc, row, names, options.question_column, fallback=0)
    answer = _cell(doc, row, names, options.answer_column, fallback=1)
    metadata: dict[str, JSONValue] = {"template": "qa", "row": row.metadata.get("row")}
    if question:
        metadata["question"] = question
    if not answer:
        metadata["unanswered"] = True
    return metadata


def _cell(doc: Document, row: Section, names: list[str], column: str, *, fallback: int) -> str:
    """Return the value of ``column`` in ``row`` (by name, else number, else position)."""
    wanted = column.strip().lower()
    index = next((k for k, name in enumerate(names) if name.lower() == wanted), None)
    if index is None and wanted.isdigit():
        index = next((k for k, name in enumerate(names) if name == wanted), None)
    has_names = any(not name.isdigit() for name in names)
    if index is None and not has_names and fallback < len(row.parts):
        index = fallback
    if index is None or index >= len(row.parts):
        return ""
    start, end = row.parts[index]
    line = doc.text[start:end]
    name = names[index]
    value = line[len(name) + 2 :] if line.startswith(f"{name}: ") else line
    return " ".join(value.split())


STRATEGY = Strategy(
    name="qa",
    summary="Template: one chunk per question/answer row of a CSV, TSV or XLSX "
    "(question_column, answer_column; a header or not), row number and question in metadata.",
    options=QaOptions,
    split=split,
)
