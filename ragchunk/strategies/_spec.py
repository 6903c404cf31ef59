"""What every strategy module exposes: ``STRATEGY = Strategy(...)``, and the ``Context`` it gets.

A strategy is a function ``split(doc, options, ctx) -> list[Span]`` plus a frozen options type.
It may import ``ragchunk.text``, ``ragchunk.model``, ``ragchunk.options`` and this module, never
another strategy, the engine, a parser or the command line: whatever else it needs (the
tokenizer, Markdown structure for a plain document, a warning sink) comes in ``Context``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Generic, Protocol, TypeVar

from ragchunk.text.languages import DEFAULT_LANGUAGE

if TYPE_CHECKING:
    from ragchunk.backends import Embedder
    from ragchunk.measure import Measure, Sizer
    from ragchunk.model import Document, Section, Span
    from ragchunk.options import Budget, Capacity


class StrategyOptions(Protocol):
    """What the engine reads of any options object: its budget (size, overlap, unit)."""

    @property
    def budget(self) -> Budget:
        """The size, overlap and unit the user asked for (or the strategy's defaults)."""
        ...


OptionsT = TypeVar("OptionsT", bound=StrategyOptions)


def _no_breadcrumb(_start: int) -> str:
    """Return no breadcrumb (``--contextualize`` is off)."""
    return ""


def _not_dropping(start: int, end: int, reason: str) -> None:
    """Refuse to drop text: only strategies declared with ``drops=True`` may."""
    raise RuntimeError(f"a strategy not declared as dropping text dropped [{start}:{end}] {reason}")


def _no_embedder() -> Embedder:
    """Refuse: this context was made without an embedder (the strategy did not ask for one)."""
    from ragchunk.errors import BackendError

    raise BackendError("no embedder was set up for this run")


@dataclass(frozen=True, slots=True)
class Context:
    """Everything a strategy may use besides the document and its options.

    Attributes:
        measure: the unit of the budget (characters or a tokenizer).
        sizer: ``measure`` prepared for this document's text. With ``--contextualize`` a
            span's size includes the heading breadcrumb of the chunk starting there, so the
            hard limit holds for the ``context`` that will be embedded.
        capacity: the size chunks pack to and whether it is the hard limit every chunk must
            keep (SPEC §3.3), resolved once when the plan was made: the one size a strategy
            reads (soft when it is unbounded by design and no ``--size`` was given).
        tokens: the tokenizer's sizer for this document, made on first call and shared with
            the record builder (so ``tokens`` counts never encode the text a second time).
        find_sections: reads the structure (headings, blocks) of text as Markdown, for
            strategies that need headings in a document parsed without any.
        delegate: ``delegate(name, budget, doc, ctx)`` runs the strategy registered as
            ``name`` with ``budget`` and its other options at their defaults (for strategies
            that choose another per document, as ``auto``).
        warn: a sink for warnings, ``warn(code, message)``; they reach the user as diagnostics.
        breadcrumb: ``breadcrumb(start)`` is the text ``context`` puts before a chunk starting
            at ``start``; empty when ``--contextualize`` is off.
        contextualize: whether ``--contextualize`` is on (a strategy that finds headings of
            its own must then count their breadcrumbs itself).
        drop: ``drop(start, end, reason)`` reports a span the strategy leaves out of every
            chunk on purpose (SPEC §3.2); only strategies declared with ``drops=True`` may
            call it, and the checker verifies that exactly the reported spans are missing.
        embedder: the run's embedder (``ragchunk.backends.Embedder``), made on first call and
            answered from the vector cache when it can; strategies never import a backend.
        min_size: ``--min-size`` in the budget's unit (0: not given), for strategies that
            merge small chunks their own way (semantic: into the more similar neighbour).
    """

    measure: Measure
    sizer: Sizer
    capacity: Capacity
    tokens: Callable[[], Sizer]
    find_sections: Callable[[str], Sequence[Section]]
    delegate: Callable[[str, Budget, Document, Context], list[Span]]
    warn: Callable[[str, str], None]
    breadcrumb: Callable[[int], str] = _no_breadcrumb
    contextualize: bool = False
    drop: Callable[[int, int, str], None] = _not_dropping
    embedder: Callable[[], Embedder] = _no_embedder
    min_size: int = 0


@dataclass(frozen=True, slots=True, kw_only=True)
class Bounds:
    """What a strategy's chunks promise beyond its budget, for the plan and the checker.

    Attributes:
        bounded: whether the budget's size binds without ``--size`` (False: unbounded by
            design, as hierarchical, or sentence-count mode).
        word_aligned: whether an overlap begins on a word where it holds one (False for
            token windows, which begin on a token).
        sentences: the most sentences a chunk holds (sentence-count mode), or None.
        overlap_sentences: with ``sentences``, the sentences a chunk repeats from the last.
        language: with ``sentences``, the sentence rules they are counted by (a code of
            ``text.languages``, or ``auto`` to detect them per document).
    """

    bounded: bool = True
    word_aligned: bool = True
    sentences: int | None = None
    overlap_sentences: int | None = None
    language: str = DEFAULT_LANGUAGE


def _usual_bounds(_options: object) -> Bounds:
    return Bounds()


@dataclass(frozen=True, slots=True, kw_only=True)
class Strategy(Generic[OptionsT]):
    """A chunking strategy: a name, its options type, and the function that splits.

    Attributes:
        name: the single lowercase word users pass to ``--strategy``.
        summary: one line for ``ragchunk strategies``.
        options: the frozen options dataclass; its first field is ``budget``.
        split: ``split(doc, options, ctx)`` returns absolute, half-open spans in document
            order that cover every non-whitespace character.
        bounds: what the chunks made with given options promise (``Bounds``).
        tokenizes: whether it cuts at token boundaries whatever the unit of its budget (the
            tokenizer is then loaded when the plan is made).
        choices: for a strategy that picks another per document (``auto``), the names it may
            pick; the plan makes each one's recipe up front, with that strategy's own
            defaults unless the user gave a size (``plan.make_plan``).
        choose: with ``choices``, ``choose(doc)`` names the one for ``doc``; the engine then
            runs that recipe (its size limit, unit and ids), never ``split``.
        drops: whether it may leave text out on purpose through ``Context.drop`` (the
            templates that drop a table of contents, an index, references).
        stdin_format: the format standard input is parsed as when neither ``--format`` nor
            ``--language`` names one (``code``: its language then comes from a ``#!`` line,
            else the input fails asking for ``--language``); None reads it as text.
        embeds: whether it needs ``ctx.embedder()`` (checked when the plan is made).
        token_vectors: whether it needs token vectors (only a local model has them).
        rewrites: what a chat model makes of its spans (``proposition``, ``resume``): the
            engine's rewrite pass (``ragchunk.rewrite``) asks the model; None for none.
    """

    name: str
    summary: str
    options: type[OptionsT]
    split: Callable[[Document, OptionsT, Context], list[Span]]
    bounds: Callable[[OptionsT], Bounds] = _usual_bounds
    tokenizes: bool = False
    choices: tuple[str, ...] = ()
    choose: Callable[[Document], str] | None = None
    drops: bool = False
    stdin_format: str | None = None
    embeds: bool = False
    token_vectors: bool = False
    rewrites: str | None = None

    @property
    def bounded(self) -> bool:
        """Whether ``--size`` binds with the default options (for ``ragchunk strategies``)."""
        return self.bounds(self.options()).bounded
