"""One document's spans: its recipe's strategy, then the passes over them (SPEC §3 holds after).

Each pass's module is imported when a recipe asks for that pass: a plain split loads none.

``cut_spans`` is what the engine runs for a whole document, and for each parent's window under
``--parents`` (``ragchunk.pipeline.family``): the strategy's spans, ``--refine``, ``--min-size``,
``--contextualize``'s fit, and a chat model's rewrite.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ragchunk.model import Dropped
from ragchunk.pipeline.context import strategy_context

if TYPE_CHECKING:
    from collections.abc import Callable

    from ragchunk.backends.cache import CachedEmbedder
    from ragchunk.measure import Sizer
    from ragchunk.model import Document, Span
    from ragchunk.pipeline.plan import Recipe
    from ragchunk.pipeline.rewrite import Rewriter


def cut_spans(
    doc: Document,
    recipe: Recipe,
    warn: Callable[[str, str], None],
    drops: list[Dropped],
    embedder: CachedEmbedder | None,
    rewriter: Rewriter | None,
) -> tuple[list[Span], Callable[[], Sizer]]:
    """Return the spans of the recipe's strategy and passes over ``doc``, and its token sizer.

    What a template drops is appended to ``drops``; the rewriter (the chat model of a
    strategy that rewrites) has been made by the caller.

    Raises:
        TypeError: the recipe is a router's: run ``recipe.for_document(doc)``.
    """

    def drop(start: int, end: int, reason: str) -> None:
        drops.append(Dropped(start, end, reason))

    cutter = recipe.cutter
    ctx = strategy_context(doc, recipe, warn=warn, drop=drop, embedder=embedder, chat=rewriter)
    sizer, tokens = ctx.sizer, ctx.tokens
    if recipe.contextualize:
        from ragchunk.pipeline.passes import contextualized

        ctx = contextualized(doc, ctx)
    spans = cutter.cut(doc, recipe.options, ctx)
    drops.sort(key=lambda span: (span.start, span.end))
    if recipe.refine and recipe.capacity.hard:
        from ragchunk.pipeline.embedding import refine_spans

        spans = refine_spans(doc, spans, ctx, capacity=recipe.capacity)
    if recipe.min_size:
        from ragchunk.pipeline.passes import merge_small_spans

        spans = merge_small_spans(doc, spans, ctx, sizer, recipe, drops)
    if recipe.contextualize and recipe.capacity.hard:
        from ragchunk.pipeline.passes import fit_context_spans

        spans = fit_context_spans(doc, spans, ctx, sizer, recipe)
    if cutter.rewrites and rewriter is not None:  # the model rewrites what the passes settled
        spans = cutter.rewritten(doc, spans, recipe.options, ctx)
    if not recipe.capacity.hard:
        from ragchunk.pipeline.passes import warn_if_large

        warn_if_large(doc, spans, tokens, recipe.strategy.name, warn)
    return spans, tokens
