"""markdown: heading sections packed from whole blocks; tables, fences and lists kept intact.

A section starts at every heading of level ``min_level`` or shallower and runs to the next one;
no chunk crosses it, and a heading-only section is a chunk. Inside a section whole blocks
(paragraphs, lists, quotes, tables, code fences...) are packed up to the size. A block larger
than the size is split at its own boundaries: a GFM table between rows (every piece's
``context`` repeats the header and delimiter rows), a list between items, a fence (backtick or
tilde) by lines, prose by sentences; pieces of a row, an item, a fence or a paragraph carry
``metadata.oversize_split``. A bold line opening a paragraph (``**Label**``) labels the text
after it until the next table, fence, heading or label: later chunks repeat it in ``context``.
A repeated header or label counts within the size when it takes at most half of it; otherwise
the chunk's ``context`` may exceed the size and says so with ``metadata.context_oversize``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Final

from ragchunk.errors import OptionError
from ragchunk.model import Span
from ragchunk.options import Budget
from ragchunk.strategies._spec import Context, Strategy
from ragchunk.strategies._structure import structure
from ragchunk.text.breadcrumb import with_prefix
from ragchunk.text.pack import Window
from ragchunk.text.refine import refine_by_sentences
from ragchunk.text.sections import scopes
from ragchunk.text.separators import DEFAULT_LEVELS, Levels, split_range
from ragchunk.text.spans import spans_from_windows
from ragchunk.text.units import pack_units

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from ragchunk.measure import Sizer
    from ragchunk.model import Document, JSONValue, Metadata, Section

# The first line of a paragraph that is nothing but bold text (an optional colon after it).
_LABEL: Final = re.compile(r"[ \t]*(\*\*|__)(?=\S)(?P<label>[^\n]*?\S)\1[ \t]*:?[ \t]*(?:\r?\n|\Z)")
# A line from its first character (indentation kept) to its last non-space character.
_LINE: Final = re.compile(r"[^\S\n]*\S(?:[^\n]*\S)?")
_CELL_LEVELS: Final = (("\n",), ("|",), (" ", "\t"))
_ENDS_LABEL: Final = frozenset(("table", "code", "heading"))


@dataclass(frozen=True, slots=True, kw_only=True)
class MarkdownOptions:
    """Options of the markdown strategy."""

    budget: Budget = Budget(size=512, overlap=0)
    min_level: int = field(
        default=6,
        metadata={
            "help": "The lowest heading level that starts a section, 1-6: with 2, # and ## "
            "start sections and ### and deeper stay inside them."
        },
    )

    def __post_init__(self) -> None:
        if not 1 <= self.min_level <= 6:
            raise OptionError("min_level", f"must be between 1 and 6 (got {self.min_level})")


@dataclass(frozen=True, slots=True)
class _Block:
    """A section with what a chunk starting inside it repeats in ``context``.

    ``prefix_at(start)`` is that repeated text (a label or table header), ``""`` for a context
    that is just the text, None for none; ``label`` is the label in force, if any, and
    ``opens_label`` marks the paragraph that opens it (it starts a chunk, like a heading).
    """

    section: Section
    prefix_at: Callable[[int], str | None]
    label: str | None = None
    opens_label: bool = False


def _no_prefix(_start: int) -> str | None:
    return None


def split(doc: Document, options: MarkdownOptions, ctx: Context) -> list[Span]:
    """Return spans of whole blocks, heading section by section, each within the budget."""
    found = structure(doc, ctx)
    packer = _Packer(doc.text, options.budget, found.ctx, found.headings_at)
    spans: list[Span] = []
    for run in scopes(found.sections, options.min_level):
        spans += packer.pack(_blocks(doc.text, run))
    return spans


def _blocks(text: str, sections: Sequence[Section]) -> list[_Block]:
    """Attach to each section the prefix its chunks repeat (labels, table headers)."""
    blocks: list[_Block] = []
    label: str | None = None
    line = ""
    for section in sections:
        found = _label(text, section)
        if found is not None:
            label, line = found
            blocks.append(_Block(section, _after(section.start, line), label, opens_label=True))
            continue
        if section.kind in _ENDS_LABEL:
            label = None
        if section.kind == "table" and section.parts:
            blocks.append(_Block(section, _table_prefix(text, section)))
        elif label is not None:
            blocks.append(_Block(section, _always(line), label))
        else:
            blocks.append(_Block(section, _no_prefix))
    return blocks


def _label(text: str, section: Section) -> tuple[str, str] | None:
    """Return the label opening a paragraph and its line (ending in a newline), if any."""
    if section.kind != "prose":
        return None
    found = _LABEL.match(text, section.start, section.end + 2)
    if found is None or found.group(1) in found.group("label"):
        return None  # not a paragraph opening with a bold line, or **two** **bolds**
    line = found.group(0).lstrip(" \t")
    return found.group("label"), line if line.endswith("\n") else line + "\n"


def _after(start: int, prefix: str) -> Callable[[int], str | None]:
    """A label's own paragraph: its first chunk holds the label; later ones repeat it."""
    return lambda s: None if s == start else prefix


def _always(prefix: str) -> Callable[[int], str | None]:
    return lambda _s: prefix


def _table_prefix(text: str, section: Section) -> Callable[[int], str | None]:
    """A table: pieces from the first row on repeat the header and delimiter rows."""
    if section.header is None or not section.parts:
        return _no_prefix
    first_row = section.parts[0][0]
    prefix = text[section.header[0] : first_row]
    return lambda s: prefix if s >= first_row else ""


class _Packer:
    """Packs the blocks of one heading section into spans."""

    def __init__(
        self,
        text: str,
        budget: Budget,
        ctx: Context,
        headings_at: Callable[[int], tuple[str, ...]],
    ) -> None:
        self.text = text
        self.budget = budget
        self.ctx = ctx
        self.headings_at = headings_at
        self._sizers: dict[int, Sizer] = {}  # by block identity: a block's sizer is fixed

    def pack(self, blocks: Sequence[_Block]) -> list[Span]:
        """Return spans of whole blocks; a block too large alone is split by its kind."""
        self._sizers.clear()  # ids of the previous section's blocks may be reused
        spans: list[Span] = []
        run: list[_Block] = []
        for block in blocks:
            joins = run and not block.opens_label
            if joins and self._fits(run[0], run[0].section.start, block.section.end):
                run.append(block)
                continue
            if self._fits(block, block.section.start, block.section.end):
                spans += self._flush(run)
                run = [block]
                continue
            pieces = self._split_block(block)
            if pieces and self._heading_joins(run, pieces[0]):
                # A heading never stands alone when the first piece of its content fits.
                first = pieces[0]
                pieces[0] = self._span(
                    run[0], run[0].section.start, first.end, dict(first.metadata)
                )
            else:
                spans += self._flush(run)
            run = []
            spans += pieces
        spans += self._flush(run)
        return spans

    def _heading_joins(self, run: Sequence[_Block], piece: Span) -> bool:
        """Whether the headings in ``run`` can lead the first piece of a split block."""
        if not run or piece.prefix is not None:
            return False
        if any(block.section.kind != "heading" for block in run):
            return False
        return self._fits(run[0], run[0].section.start, piece.end)

    def _counted(self, block: _Block, start: int) -> bool:
        """Whether the block's repeated prefix counts within the size: at most half of it."""
        prefix = block.prefix_at(start)
        if not prefix:
            return True
        lead = self.ctx.breadcrumb(start) + prefix
        return 2 * self.ctx.measure.count(lead) <= self.budget.size

    def _sizer(self, block: _Block) -> Sizer:
        """Return the sizer for chunks starting in ``block``, its prefix counted when it fits."""
        sizer = self._sizers.get(id(block))
        if sizer is None:
            sizer = self._sizers[id(block)] = self._new_sizer(block)
        return sizer

    def _new_sizer(self, block: _Block) -> Sizer:
        probe = self._probe(block)
        if probe is None or not self._counted(block, probe):
            return self.ctx.sizer
        return with_prefix(
            self.ctx.sizer,
            self.text,
            count=self.ctx.measure.count,
            prefix_at=lambda s: block.prefix_at(s) or "",
            additive=self.ctx.measure.is_length,
        )

    def _probe(self, block: _Block) -> int | None:
        """Return an offset inside the block where its repeated prefix applies, if any."""
        section = block.section
        for start in (section.start, section.end - 1):
            if block.prefix_at(start):
                return start
        return None

    def _fits(self, block: _Block, start: int, end: int) -> bool:
        return self._sizer(block).size(start, end) <= self.budget.size

    def _flush(self, run: Sequence[_Block]) -> list[Span]:
        if not run:
            return []
        first, last = run[0], run[-1]
        metadata = _metadata(first.section) if len(run) == 1 else {}
        return [self._span(first, first.section.start, last.section.end, metadata)]

    def _span(self, block: _Block, start: int, end: int, metadata: Metadata) -> Span:
        prefix = block.prefix_at(start)
        if block.label is not None:
            metadata = {**metadata, "label": block.label}
        if prefix and not self._counted(block, start):
            context = self.ctx.breadcrumb(start) + prefix + self.text[start:end]
            if self.ctx.measure.count(context) > self.budget.size:
                metadata = {**metadata, "context_oversize": True}
        return Span(start, end, self.headings_at(start), metadata, prefix)

    def _split_block(self, block: _Block) -> list[Span]:
        """Split one block larger than the size at the finest boundaries its kind allows."""
        section = block.section
        windows, whole_units = self._split_windows(section, self._sizer(block))
        pieces = spans_from_windows(
            self.text, windows, metadata=_metadata(section), split=not whole_units
        )
        return [self._span(block, p.start, p.end, p.metadata) for p in pieces]

    def _split_windows(self, section: Section, sizer: Sizer) -> tuple[list[Window], bool]:
        """Return the pieces of an oversize block, and whether they hold whole units.

        Table rows and list items are packed whole (a row or item too large alone is split,
        and flagged so); a fence is split between lines, prose between sentences, anything
        else at the separators: those pieces are all parts of one block that was split.
        """
        if section.kind == "table" and section.parts:
            units = [section.header, *section.parts] if section.header else section.parts
            return self._pack(units, sizer, _CELL_LEVELS, 0), True
        if section.kind == "list" and section.parts:
            return self._pack(section.parts, sizer, DEFAULT_LEVELS, self.budget.overlap), True
        if section.kind == "code":
            return self._lines(section, sizer), False
        if section.kind == "prose":
            refine = refine_by_sentences(sizer, self.budget, self.text)
            return list(refine(section.start, section.end)), False
        windows = split_range(
            self.text, section.start, section.end, sizer=sizer, budget=self.budget
        )
        return windows, False

    def _pack(
        self, units: Sequence[tuple[int, int]], sizer: Sizer, levels: Levels, overlap: int
    ) -> list[Window]:
        """Pack whole rows or items; one too large alone is split at cells or separators."""
        budget = Budget(size=self.budget.size, overlap=0, unit=self.budget.unit)

        def refine(start: int, end: int) -> Sequence[Window]:
            return split_range(self.text, start, end, sizer=sizer, budget=budget, levels=levels)

        return pack_units(units, sizer=sizer, size=self.budget.size, overlap=overlap, refine=refine)

    def _lines(self, section: Section, sizer: Sizer) -> list[Window]:
        """Split a code block by whole lines; a line too long alone is split at spaces."""
        lines = [m.span() for m in _LINE.finditer(self.text, section.start, section.end)]
        return pack_units(
            lines,
            sizer=sizer,
            size=self.budget.size,
            overlap=self.budget.overlap,
            refine=lambda s, e: split_range(self.text, s, e, sizer=sizer, budget=self.budget),
        )


def _metadata(section: Section) -> dict[str, JSONValue]:
    """Return what a chunk holding only this block says about it (tables, code)."""
    if section.kind == "table":
        return {"kind": "table"}
    if section.kind == "code":
        language = section.metadata.get("language")
        return {"kind": "code", "language": language} if language else {"kind": "code"}
    return {}


STRATEGY = Strategy(
    name="markdown",
    summary="Heading sections of whole blocks: tables split between rows with the header "
    "repeated in context, fences and list items kept whole, bold labels.",
    options=MarkdownOptions,
    split=split,
)
