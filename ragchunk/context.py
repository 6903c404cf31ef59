"""The ``Context`` a strategy runs in: what the engine gives it instead of imports.

``strategy_context`` makes it for one document and recipe: the measure and the document's
sizer, the capacity, the shared token sizer (encoded once, on first use), Markdown
structure for plain documents, ``delegate`` to run another strategy by name, the warning sink,
``drop`` for templates and the run's embedder for the strategies that embed.
"""

from __future__ import annotations

import functools
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ragchunk import strategies
from ragchunk.measure import load_tokenizer, measure_for
from ragchunk.options import build_options
from ragchunk.strategies._spec import Context

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from ragchunk.backends.cache import CachedEmbedder
    from ragchunk.measure import Sizer
    from ragchunk.model import Document, Section, Span
    from ragchunk.options import Budget
    from ragchunk.plan import Recipe


def strategy_context(
    doc: Document,
    recipe: Recipe[Any],
    *,
    warn: Callable[[str, str], None],
    drop: Callable[[int, int, str], None],
    embedder: CachedEmbedder | None,
) -> Context:
    """Return the context the recipe's strategy splits ``doc`` in."""
    measure = measure_for(recipe.capacity.unit, recipe.tokenizer)
    sizer = measure.prepare(doc.text)
    tokens = _token_sizer(doc.text, recipe, sizer)
    ctx = Context(
        measure=measure,
        sizer=sizer,
        capacity=recipe.strategy_capacity,
        tokens=tokens,
        find_sections=_markdown_sections,
        delegate=_delegate,
        warn=warn,
        min_size=recipe.min_size,
    )
    if recipe.strategy.drops:
        ctx = replace(ctx, drop=drop)
    if embedder is not None:
        ctx = replace(ctx, embedder=functools.partial(_identity, embedder))
    return ctx


def _identity(embedder: CachedEmbedder) -> CachedEmbedder:
    return embedder


def _token_sizer(text: str, recipe: Recipe[Any], sizer: Sizer) -> Callable[[], Sizer]:
    """Return the document's token sizer, made on first use and shared by all who ask.

    In tokens it is the budget's own sizer; otherwise the text is encoded once, only if a
    token strategy or ``--count-tokens`` asks for it.
    """
    if recipe.capacity.unit == "tokens":
        return lambda: sizer
    return functools.cache(lambda: load_tokenizer(recipe.tokenizer).prepare(text))


def _markdown_sections(text: str) -> Sequence[Section]:
    from ragchunk.parsers.markdown import find_sections

    return find_sections(text)


def _delegate(name: str, budget: Budget, doc: Document, ctx: Context) -> list[Span]:
    """Run the strategy ``name`` with ``budget`` and its other options at their defaults."""
    chosen = strategies.get(name)
    options = build_options(chosen.options, budget, {}, strategy=name)
    spans: list[Span] = chosen.split(doc, options, ctx)
    return spans
