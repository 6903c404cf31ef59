"""markdown: heading sections packed from whole blocks; tables, fences and lists kept intact.

A section starts at every heading of level ``min_level`` or shallower and runs to the next one;
no chunk crosses it, and a heading-only section is a chunk. Inside a section whole blocks
(paragraphs, lists, quotes, tables, code fences...) are packed up to the size. A block larger
than the size is split at its own boundaries: a GFM table between rows (every piece's
``context`` repeats the header and delimiter rows), a row of a sheet or CSV between its lines
(every piece after the first repeats the row's first line, its label, in ``context``), a list
between items, a fence (backtick or tilde) by lines, prose by sentences; pieces of a row, an
item, a fence or a paragraph carry ``metadata.oversize_split``. A bold line opening a paragraph
(``**Label**``) labels the text after it until the next table, fence, heading or label: later
chunks repeat it in ``context``.
A repeated header or label counts within the size when it takes at most half of it; otherwise
the chunk's ``context`` may exceed the size and says so with ``metadata.context_oversize``.
A data file's members (``value`` sections: JSON, JSONL, YAML, TOML) are packed as whole
objects (``text/keytree``): an object or list that fits is never cut, and one too large is
split between its members, recursively; only a member too large alone is split.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Final

from ragchunk.errors import OptionError
from ragchunk.model import Span
from ragchunk.options import Budget
from ragchunk.strategies._spec import Context, Strategy
from ragchunk.strategies._structure import structure
from ragchunk.strategies.markdown.blocks import split_block
from ragchunk.strategies.markdown.markup import find_label, glue
from ragchunk.text.breadcrumb import with_prefix
from ragchunk.text.keytree import is_data, object_groups
from ragchunk.text.sections import scopes
from ragchunk.text.spans import spans_from_windows

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from ragchunk.measure import Sizer
    from ragchunk.model import Document, JSONValue, Metadata, Section

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
    leads: bool = False
    trails: bool = False


def _no_prefix(_start: int) -> str | None:
    return None


def split(doc: Document, options: MarkdownOptions, ctx: Context) -> list[Span]:
    """Return spans of whole blocks, heading section by section, each within the capacity.

    A heading never stands alone when what lies beside it fits: a heading whose section holds
    only deeper sections (``## Recap`` then ``### Step 1``) leads the first of them; an empty
    section (the next heading is as shallow or shallower, or the document ends) joins the chunk
    before it, else the one after it.
    """
    found = structure(doc, ctx)
    packer = _Packer(doc.text, found.ctx, found.headings_at)
    spans: list[Span] = []
    pending: list[Section] = []
    for run in scopes(found.sections, options.min_level):
        if all(section.kind == "heading" for section in run):
            pending += run
            continue
        if pending and run[0].level <= pending[-1].level and packer.attach(spans, pending):
            pending = []
        spans += packer.pack_any([*pending, *run])
        pending = []
    if pending and not packer.attach(spans, pending):
        spans += packer.pack_any(pending)
    return spans


def _blocks(text: str, sections: Sequence[Section]) -> list[_Block]:
    """Attach to each section the prefix its chunks repeat (labels, table headers) and its glue."""
    blocks: list[_Block] = []
    label: str | None = None
    line = ""
    indented = False  # inside an admonition or tab whose body is indented
    for section in sections:
        leads, trails, indented = glue(text, section, indented=indented)
        found = find_label(text, section)
        if found is not None:
            label, line = found
            block = _Block(section, _after(section.start, line), label, opens_label=True)
        else:
            if section.kind in _ENDS_LABEL:
                label = None
            if section.kind == "table" and section.parts:
                block = _Block(section, _table_prefix(text, section))
            elif section.kind == "row" and len(section.parts) > 1:
                block = _Block(section, _row_prefix(text, section))
            elif label is not None:
                block = _Block(section, _always(line), label)
            else:
                block = _Block(section, _no_prefix)
        blocks.append(replace(block, leads=leads or section.kind == "heading", trails=trails))
    return blocks


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


def _row_prefix(text: str, section: Section) -> Callable[[int], str | None]:
    """A row of a sheet or CSV: pieces after its first line repeat that line (its label)."""
    first = section.parts[0]
    label = text[first[0] : first[1]] + "\n"
    return lambda s: label if s >= first[1] else None


class _Packer:
    """Packs the blocks of one heading section into spans."""

    def __init__(
        self,
        text: str,
        ctx: Context,
        headings_at: Callable[[int], tuple[str, ...]],
    ) -> None:
        self.text = text
        self.capacity = ctx.capacity
        self.ctx = ctx
        self.headings_at = headings_at
        self._sizers: dict[int, Sizer] = {}  # by block identity: a block's sizer is fixed

    def attach(self, spans: list[Span], headings: Sequence[Section]) -> bool:
        """Extend the last span over empty heading sections after it, if it then fits.

        Returns whether it did (a span with a repeated prefix is never extended).
        """
        if not spans or spans[-1].prefix is not None:
            return False
        last, end = spans[-1], headings[-1].end
        if self.ctx.sizer.size(last.start, end) > self.capacity.size:
            return False
        spans[-1] = Span(last.start, end, last.headings, {}, None)
        return True

    def pack_any(self, sections: Sequence[Section]) -> list[Span]:
        """Pack one heading section's blocks; a data file's members by whole objects."""
        if not is_data(sections):
            return self.pack(_blocks(self.text, sections))
        spans: list[Span] = []
        for group in object_groups(sections, self._fits_range):
            start, end = group[0].start, group[-1].end
            if self._fits_range(start, end):
                spans.append(Span(start, end, self.headings_at(start)))
            else:
                spans += self.pack(_blocks(self.text, group))
        return spans

    def _fits_range(self, start: int, end: int) -> bool:
        return self.ctx.sizer.size(start, end) <= self.capacity.size

    def pack(self, blocks: Sequence[_Block]) -> list[Span]:
        """Return spans of whole blocks; a block too large alone is split by its kind.

        A chunk never ends with a block that leads (a heading, a container's opener) nor starts
        with one that trails (a closer) while moving them to their neighbour fits.
        """
        self._sizers.clear()  # ids of the previous section's blocks may be reused
        spans: list[Span] = []
        run: list[_Block] = []
        index = 0
        while index < len(blocks):
            block = blocks[index]
            index += 1
            joins = run and not block.opens_label
            if joins and self._fits(run[0], run[0].section.start, block.section.end):
                run.append(block)
                continue
            kept, moved = self._regroup(run, block)
            if moved:
                spans += self._flush(kept)
                run = [*moved, block]
                continue
            if self._fits(block, block.section.start, block.section.end):
                shared = self._share_headings(run, block)
                if shared is None:
                    spans += self._flush(run)
                    run = [block]
                    continue
                kept, pieces = shared
                spans += self._flush(kept)
                spans += pieces
                run = []
                continue
            cut = len(run)
            while cut > 0 and run[cut - 1].leads:
                cut -= 1
            # Headings and openers before a block that must be split, and closers after it,
            # are split with it as units of their own: they share its first and last pieces
            # whenever something fits beside them.
            spans += self._flush(run[:cut])
            last = index
            while last < len(blocks) and blocks[last].trails and not blocks[last].leads:
                last += 1
            start = run[cut].section.start if cut < len(run) else block.section.start
            end = blocks[last - 1].section.end if last > index else block.section.end
            spans += self._split_block(block, start, end)
            run = []
            index = last
        spans += self._flush(run)
        return spans

    def _share_headings(
        self, run: Sequence[_Block], block: _Block
    ) -> tuple[Sequence[_Block], list[Span]] | None:
        """Split a block that fits alone but not beside the headings ending ``run``.

        Headings would stand alone: the block (prose, a list, a table) is split into whole
        sentences, items or rows so that they lead its first piece. Returns what stays in the
        run and the pieces, or None when no such split exists (a fence, one long sentence).
        """
        cut = len(run)
        while cut > 0 and run[cut - 1].section.kind == "heading":
            cut -= 1
        if cut == len(run) or block.section.kind not in ("prose", "list", "table"):
            return None
        start = run[cut].section.start
        section = block.section
        windows, _ = split_block(
            self.text, section, start, section.end, sizer=self._sizer(block), capacity=self.capacity
        )
        if len(windows) < 2 or any(w.split or w.oversize for w in windows):
            return None
        if windows[0].end <= run[-1].section.end:
            return None  # the headings would still be alone
        pieces = spans_from_windows(self.text, windows, metadata=_metadata(section))
        return run[:cut], [self._span(block, p.start, p.end, p.metadata) for p in pieces]

    def _regroup(
        self, run: Sequence[_Block], block: _Block
    ) -> tuple[Sequence[_Block], Sequence[_Block]]:
        """Split ``run`` when ``block`` does not join it: what stays, and what moves on.

        Blocks that lead at the end of the run (headings, openers) move on to ``block``; a
        ``block`` that trails takes the run's last block with it. Nothing moves unless the
        moved blocks and ``block`` fit together and something stays behind.
        """
        cut = len(run)
        while cut > 0 and run[cut - 1].leads:
            cut -= 1
        if block.trails and cut == len(run):
            cut -= 1
        if cut <= 0 or cut == len(run):
            return run, ()
        moved = run[cut:]
        if not self._fits(moved[0], moved[0].section.start, block.section.end):
            return run, ()
        return run[:cut], moved

    def _counted(self, block: _Block, start: int) -> bool:
        """Whether the block's repeated prefix counts within the size: at most half of it."""
        prefix = block.prefix_at(start)
        if not prefix:
            return True
        lead = self.ctx.breadcrumb(start) + prefix
        return 2 * self.ctx.measure.count(lead) <= self.capacity.size

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
        return self._sizer(block).size(start, end) <= self.capacity.size

    def _flush(self, run: Sequence[_Block]) -> list[Span]:
        if not run:
            return []
        first, last = run[0], run[-1]
        metadata = _metadata(first.section) if len(run) == 1 else {}
        return [self._span(first, first.section.start, last.section.end, metadata)]

    def _span(self, block: _Block, start: int, end: int, metadata: Metadata) -> Span:
        # A piece that starts on the headings before the block repeats what its start would.
        prefix = block.prefix_at(max(start, block.section.start))
        if block.label is not None:
            metadata = {**metadata, "label": block.label}
        if prefix and not self._counted(block, start):
            context = self.ctx.breadcrumb(start) + prefix + self.text[start:end]
            if self.ctx.measure.count(context) > self.capacity.size:
                metadata = {**metadata, "context_oversize": True}
        return Span(start, end, self.headings_at(start), metadata, prefix)

    def _split_block(self, block: _Block, start: int, end: int) -> list[Span]:
        """Split one block larger than the size at the finest boundaries its kind allows.

        ``[start, end)`` is the block with the headings and openers right before it and the
        closers right after it: they belong to its first and last units (a heading to its first
        row, line or sentence; ``</div>`` to its last), so they never stand alone.
        """
        section = block.section
        windows, whole_units = split_block(
            self.text, section, start, end, sizer=self._sizer(block), capacity=self.capacity
        )
        pieces = spans_from_windows(
            self.text, windows, metadata=_metadata(section), split=not whole_units
        )
        return [self._span(block, p.start, p.end, p.metadata) for p in pieces]


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
