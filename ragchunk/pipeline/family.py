"""Parent/child chunks (``--parents``): parents cut first, the children cut inside each one.

The parent level is cut over the whole document by the parent recipe
(``ragchunk.pipeline.parents``). Then the run's own recipe — its strategy and passes — runs on each
parent's span as if it were the whole document (``window``: the parent's text with the sections,
pages and wraps that fall in it, offsets shifted back when the spans return), so every child lies
inside its parent by construction and the children of one parent satisfy SPEC §3 over that parent's
text.

Records come in document order of the parents, each parent followed by its children:
``P0, c0, c1, P1, c2...``. ``index`` counts every record of the document in that order. A
parent's ``metadata.kind`` is ``parent``; a child has ``parent_id``, the id of its parent
record, and keeps its strategy's own metadata. Child ids hash the parent's id, so children of
two overlapping parents that share a span still differ.

``find_family_violations`` is ``--check`` for such records: the parents as one level, the
children of each parent as a level over that parent's span, and the links between them.
"""

from __future__ import annotations

import dataclasses
from bisect import bisect_left
from typing import TYPE_CHECKING

from ragchunk.model import Document, Dropped, Page, Section
from ragchunk.pipeline.chunks import assemble
from ragchunk.pipeline.context import strategy_context

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from ragchunk.model import Chunk, Span
    from ragchunk.pipeline.plan import Recipe

PARENT_KIND = "parent"
"""``metadata.kind`` of a parent record."""


def chunk_family(
    doc: Document,
    recipe: Recipe,
    cut: Callable[[Document, list[Dropped]], list[Span]],
    *,
    warn: Callable[[str, str], None],
    dropped: list[Dropped],
    counted: bool,
) -> list[Chunk]:
    """Return the parent and child records of ``doc`` (module docstring), in output order.

    ``cut(part, drops)`` runs the recipe's strategy and passes over one parent's window,
    appending what a template drops (in the window's offsets) to ``drops``. ``counted``: give
    every record its ``tokens``, counted over the whole document's encoding.
    """
    parent = recipe.parents
    if parent is None:
        raise ValueError("chunk_family needs a recipe with parents")
    ctx = strategy_context(doc, parent, warn=warn, drop=_keeps_all, embedder=None)
    spans = parent.cutter.cut(doc, parent.options, ctx)
    tokens = ctx.tokens() if counted else None
    name, fingerprint = parent.strategy.name, f"{recipe.fingerprint}/parents"
    parents = assemble(doc, spans, strategy=name, fingerprint=fingerprint, tokens=tokens)
    records: list[Chunk] = []
    for record in parents:
        drops: list[Dropped] = []
        start = record.start
        children = [_shifted(span, start) for span in cut(window(doc, start, record.end), drops)]
        for drop in drops:
            placed = Dropped(drop.start + start, drop.end + start, drop.reason)
            if placed not in dropped:  # overlapping parents report a drop once
                dropped.append(placed)
        metadata = {**record.metadata, "kind": PARENT_KIND}
        records.append(dataclasses.replace(record, metadata=metadata))
        made = assemble(
            doc,
            children,
            strategy=recipe.strategy.name,
            fingerprint=f"{recipe.fingerprint}/{record.id}",
            tokens=tokens,
            contextualize=recipe.contextualize,
        )
        records += (dataclasses.replace(child, parent_id=record.id) for child in made)
    dropped.sort(key=lambda span: (span.start, span.end))
    for index, record in enumerate(records):
        record.index = index  # records made here a moment ago, not yet anyone else's
    return records


def _keeps_all(start: int, end: int, reason: str) -> None:
    raise RuntimeError(f"a parent strategy dropped [{start}:{end}] {reason}")


def _shifted(span: Span, by: int) -> Span:
    return dataclasses.replace(span, start=span.start + by, end=span.end + by)


def window(doc: Document, start: int, end: int) -> Document:
    """Return ``doc.text[start:end]`` as a document of its own: offsets count from ``start``.

    Sections, pages and wraps that fall in the window are kept, clipped to it; a table's
    header rows outside the window are forgotten (the rows inside still split between rows).
    """
    if start == 0 and end == len(doc.text):
        return doc
    sections = tuple(
        _clip(section, start, end)
        for section in doc.sections
        if section.start < end and section.end > start
    )
    pages = tuple(
        Page(page.number, max(page.start, start) - start, min(page.end, end) - start)
        for page in doc.pages
        if page.start < end and page.end > start
    )
    first, last = bisect_left(doc.wraps, start), bisect_left(doc.wraps, end)
    return dataclasses.replace(
        doc,
        text=doc.text[start:end],
        sections=sections,
        pages=pages,
        wraps=tuple(offset - start for offset in doc.wraps[first:last]),
    )


def _clip(section: Section, start: int, end: int) -> Section:
    header = section.header
    if header is not None:
        header = (
            (header[0] - start, header[1] - start)
            if start <= header[0] < header[1] <= end
            else None
        )
    parts = tuple(
        (max(a, start) - start, min(b, end) - start)
        for a, b in section.parts
        if a < end and b > start
    )
    return dataclasses.replace(
        section,
        start=max(section.start, start) - start,
        end=min(section.end, end) - start,
        header=header,
        parts=parts,
    )


def find_family_violations(
    doc: Document, chunks: Sequence[Chunk], recipe: Recipe, dropped: Sequence[Dropped]
) -> list[str]:
    """Return the violations of SPEC §3 per level and of the parent/child links.

    The parents are checked as one level over the whole document; the children of each parent
    as one level over that parent's span (offsets in those messages count from the parent's
    start). Links: every record is a parent (``metadata.kind``, no ``parent_id``) or a child
    whose ``parent_id`` is the id of the parent just before it in the output, and lies inside
    that parent's span; ``index`` counts the records in output order.
    """
    from ragchunk.pipeline.check import find_violations
    from ragchunk.pipeline.plan import limits_for

    parent_recipe = recipe.parents
    if parent_recipe is None:
        raise ValueError("find_family_violations needs a recipe with parents")
    found = list(_link_problems(chunks))
    families = _families(chunks)
    parents = [_reindexed(parent, n) for n, (parent, _) in enumerate(families)]
    found += (f"parents: {v}" for v in find_violations(doc, parents, limits_for(parent_recipe)))
    child_limits = limits_for(recipe)
    for parent, children in families:
        part = window(doc, parent.start, parent.end)
        shifted = [_reindexed(child, n, parent.start) for n, child in enumerate(children)]
        drops = [
            Dropped(
                max(d.start, parent.start) - parent.start,
                min(d.end, parent.end) - parent.start,
                d.reason,
            )
            for d in dropped
            if d.start < parent.end and d.end > parent.start
        ]
        name = f"children of parent {parent.index} [{parent.start}:{parent.end}]"
        found += (f"{name}: {v}" for v in find_violations(part, shifted, child_limits, drops))
    return found


def _families(chunks: Sequence[Chunk]) -> list[tuple[Chunk, list[Chunk]]]:
    families: list[tuple[Chunk, list[Chunk]]] = []
    for chunk in chunks:
        if chunk.parent_id is None:
            families.append((chunk, []))
        elif families:
            families[-1][1].append(chunk)
    return families


def _link_problems(chunks: Sequence[Chunk]) -> list[str]:
    problems: list[str] = []
    parent: Chunk | None = None
    for position, chunk in enumerate(chunks):
        name = f"record {position} [{chunk.start}:{chunk.end}]"
        if chunk.index != position:
            problems.append(f"{name}: index {chunk.index} where {position} was expected")
        if chunk.parent_id is None:
            parent = chunk
            if chunk.metadata.get("kind") != PARENT_KIND:
                problems.append(f"{name}: has no parent_id and is not kind {PARENT_KIND!r}")
            continue
        if parent is None or chunk.parent_id != parent.id:
            problems.append(f"{name}: parent_id {chunk.parent_id} is not the parent before it")
        elif not parent.start <= chunk.start < chunk.end <= parent.end:
            problems.append(f"{name}: lies outside its parent [{parent.start}:{parent.end}]")
    return problems


def _reindexed(chunk: Chunk, index: int, by: int = 0) -> Chunk:
    return dataclasses.replace(chunk, index=index, start=chunk.start - by, end=chunk.end - by)
