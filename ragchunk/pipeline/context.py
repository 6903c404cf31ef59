"""The ``Context`` a strategy runs in: what the engine gives it instead of imports.

``strategy_context`` makes it for one document and recipe: the measure and the document's
sizer, the strategy's capacity (resolved when the plan was made), the shared token sizer
(encoded once, on first use), Markdown structure for plain documents, the warning sink,
``drop`` for templates, the run's embedder for the strategies that embed and its chat model
for the strategies that rewrite.
"""

from __future__ import annotations

import functools
from dataclasses import replace
from typing import TYPE_CHECKING, TypeVar

from ragchunk.measure import load_tokenizer, measure_for
from ragchunk.strategies._spec import Context

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from ragchunk.backends.cache import CachedEmbedder
    from ragchunk.measure import Sizer
    from ragchunk.model import Document, Section
    from ragchunk.pipeline.plan import Recipe
    from ragchunk.strategies._spec import Chat

T = TypeVar("T")


def strategy_context(
    doc: Document,
    recipe: Recipe,
    *,
    warn: Callable[[str, str], None],
    drop: Callable[[int, int, str], None],
    embedder: CachedEmbedder | None,
    chat: Chat | None = None,
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
        warn=warn,
        min_size=recipe.min_size,
    )
    if recipe.strategy.drops:
        ctx = replace(ctx, drop=drop)
    if embedder is not None:
        ctx = replace(ctx, embedder=functools.partial(_identity, embedder))
    if chat is not None:
        ctx = replace(ctx, chat=functools.partial(_identity, chat))
    return ctx


def _identity(made: T) -> T:
    return made


def _token_sizer(text: str, recipe: Recipe, sizer: Sizer) -> Callable[[], Sizer]:
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
