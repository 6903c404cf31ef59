"""What every strategy module exposes: ``STRATEGY = Strategy(...)``, and the ``Context`` it gets.

Three kinds. A cutter is a function ``split(doc, options, ctx) -> list[Span]`` plus a frozen
options type (``Strategy``); a rewriter is a cutter whose spans a chat model then rewrites
(``Strategy`` with ``rewrite``: ``proposition``, ``resume``); a router picks another strategy
per document when the plan is made (``Router``: ``auto``). The engine sees a cutter through
``Cutter``, which checks at run time that the options it is given are the strategy's own.

A strategy module may import ``ragchunk.text``, ``ragchunk.model``, ``ragchunk.options`` and
this module (a rewriter also its prompts, ``strategies._prompts``, and the request and
reply types of ``ragchunk.model``, data without a client), never another strategy, the
engine, a parser or the command line: whatever else it needs (the capacity, the tokenizer,
Markdown structure for a plain document, a warning sink, the embedder, the chat model) comes
in ``Context``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar, Generic, Literal, Protocol, TypeAlias, TypeVar

from ragchunk.defaults import DEFAULT_LANGUAGE
from ragchunk.options import Capacity

if TYPE_CHECKING:
    from ragchunk.backends import Embedder
    from ragchunk.measure import Measure, Sizer
    from ragchunk.model import ChatReply, ChatRequest, Document, Section, Span
    from ragchunk.options import Budget


class StrategyOptions(Protocol):
    """What the engine reads of any options object: its budget (size, overlap, unit)."""

    @property
    def budget(self) -> Budget:
        """The size, overlap and unit the user asked for (or the strategy's defaults)."""
        ...


OptionsT = TypeVar("OptionsT", bound=StrategyOptions)

Kind: TypeAlias = Literal["cutter", "rewriter", "router"]
"""How a strategy makes its chunks: it cuts them, a chat model rewrites what it cut, or it
picks another strategy per document."""


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


def _no_chat() -> Chat:
    """Refuse: this context was made without a chat model (the strategy rewrites nothing)."""
    from ragchunk.errors import BackendError

    raise BackendError("no chat model was set up for this run")


class Chat(Protocol):
    """The run's chat model as a rewriting strategy sees it (``Context.chat``).

    The engine's rewrite pass (``ragchunk.pipeline.rewrite.Rewriter``) is one: it caches answers,
    counts what a run spent and, in a dry run, asks nothing.
    """

    @property
    def endpoint(self) -> str:
        """The model's name and URL, for the message of a call that failed."""
        ...

    def ask(self, requests: Sequence[ChatRequest]) -> list[ChatReply] | None:
        """Return one reply per request, in order; None in a dry run (nothing is asked)."""
        ...

    def count(self, name: str, n: int = 1) -> None:
        """Add ``n`` to the run's count ``name`` (one of ``pipeline.rewrite.COUNT_NAMES``)."""
        ...


@dataclass(frozen=True, slots=True, eq=False, repr=False)
class Context:
    """Everything a strategy may use besides the document and its options.

    Attributes:
        measure: the unit of the capacity (characters or a tokenizer).
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
        chat: the run's chat model (``Chat``), for the ``rewrite`` of a rewriting strategy;
            strategies never open a client.
        min_size: ``--min-size`` in the capacity's unit (0: not given), for strategies that
            merge small chunks their own way (semantic: into the more similar neighbour).
    """

    measure: Measure
    sizer: Sizer
    capacity: Capacity
    tokens: Callable[[], Sizer]
    find_sections: Callable[[str], Sequence[Section]]
    warn: Callable[[str, str], None]
    breadcrumb: Callable[[int], str] = _no_breadcrumb
    contextualize: bool = False
    drop: Callable[[int, int, str], None] = _not_dropping
    embedder: Callable[[], Embedder] = _no_embedder
    chat: Callable[[], Chat] = _no_chat
    min_size: int = 0


@dataclass(frozen=True, slots=True, kw_only=True, eq=False, repr=False)
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


@dataclass(frozen=True, slots=True, kw_only=True, eq=False, repr=False)
class Strategy(Generic[OptionsT]):
    """A cutter: a name, its options type, and the function that splits.

    With ``rewrite`` it is a rewriter (``proposition``, ``resume``): a chat model then makes
    the records of the spans it cut.

    Attributes:
        name: the single lowercase word users pass to ``--strategy``.
        summary: one line for ``ragchunk strategies``.
        options: the frozen options dataclass; its first field is ``budget``.
        split: ``split(doc, options, ctx)`` returns absolute, half-open spans in document
            order that cover every non-whitespace character, within ``ctx.capacity``.
        bounds: what the chunks made with given options promise (``Bounds``).
        tokenizes: whether it cuts at token boundaries whatever the unit of its capacity (the
            tokenizer is then loaded when the plan is made).
        drops: whether it may leave text out on purpose through ``Context.drop`` (the
            templates that drop a table of contents, an index, references).
        stdin_format: the format standard input is parsed as when neither ``--format`` nor
            ``--language`` names one (``code``: its language then comes from a ``#!`` line,
            else the input fails asking for ``--language``); None reads it as text.
        embeds: whether it needs ``ctx.embedder()`` (checked when the plan is made).
        token_vectors: whether it needs token vectors (only a local model has them).
        rewrite: ``rewrite(doc, spans, options, ctx)`` returns the records' spans a chat model
            (``ctx.chat()``) makes of the spans ``split`` cut and the passes settled (a span
            whose ``text`` is set is the model's); None for a cutter.
    """

    name: str
    summary: str
    options: type[OptionsT]
    split: Callable[[Document, OptionsT, Context], list[Span]]
    bounds: Callable[[OptionsT], Bounds] = _usual_bounds
    tokenizes: bool = False
    drops: bool = False
    stdin_format: str | None = None
    embeds: bool = False
    token_vectors: bool = False
    rewrite: Callable[[Document, Sequence[Span], OptionsT, Context], list[Span]] | None = None

    @property
    def kind(self) -> Kind:
        """``rewriter`` when a chat model writes the records, else ``cutter``."""
        return "cutter" if self.rewrite is None else "rewriter"

    @property
    def rewrites(self) -> bool:
        """Whether a chat model writes the records (``rewrite``)."""
        return self.rewrite is not None

    @property
    def bounded(self) -> bool:
        """Whether ``--size`` binds with the default options (for ``ragchunk strategies``)."""
        return self.bounds(self.options()).bounded

    def bounds_of(self, options: StrategyOptions) -> Bounds:
        """Return what the chunks made with ``options`` promise."""
        return self.bounds(self._own(options))

    def capacity_of(self, options: StrategyOptions, *, sized: bool = True) -> Capacity:
        """Return the capacity of ``options.budget``: the one place a size becomes a limit.

        SPEC §3.3: the size binds unless the strategy is unbounded by design (``bounds``);
        it binds such a one too when ``sized`` (``--size`` given, ``--refine`` bounding its
        chunks, or a level always bounded: ``auto``'s choices, ``--parents``).
        """
        hard = sized or self.bounds_of(options).bounded
        return Capacity.of(options.budget, hard=hard)

    def cut(self, doc: Document, options: StrategyOptions, ctx: Context) -> list[Span]:
        """Return ``split(doc, options, ctx)``, its options checked to be this strategy's."""
        return self.split(doc, self._own(options), ctx)

    def rewritten(
        self, doc: Document, spans: Sequence[Span], options: StrategyOptions, ctx: Context
    ) -> list[Span]:
        """Return what ``rewrite`` makes of ``spans`` (``spans`` themselves for a cutter)."""
        if self.rewrite is None:
            return list(spans)
        return self.rewrite(doc, spans, self._own(options), ctx)

    def _own(self, options: StrategyOptions) -> OptionsT:
        """Return ``options``, refusing those of another strategy (a recipe built by hand)."""
        if not isinstance(options, self.options):
            wanted, got = self.options.__name__, type(options).__name__
            raise TypeError(f"the {self.name} strategy takes {wanted}, not {got}")
        return options


@dataclass(frozen=True, slots=True, kw_only=True, eq=False, repr=False)
class Router:
    """A strategy that picks another per document (``auto``); it cuts nothing itself.

    The plan makes the recipe of each strategy it may pick up front (``plan.make_plan``),
    and the engine runs the one ``choose`` names for a document: its capacity, unit and ids.

    Attributes:
        name: the single lowercase word users pass to ``--strategy``.
        summary: one line for ``ragchunk strategies``.
        options: the frozen options dataclass (its ``budget`` applies to every choice when
            the user gave ``--size``).
        choices: the names of the strategies it may pick.
        choose: ``choose(doc)`` names the one for ``doc``.
    """

    name: str
    summary: str
    options: type[StrategyOptions]
    choices: tuple[str, ...]
    choose: Callable[[Document], str]

    kind: ClassVar[Kind] = "router"
    rewrites: ClassVar[bool] = False
    drops: ClassVar[bool] = False
    embeds: ClassVar[bool] = False
    tokenizes: ClassVar[bool] = False
    token_vectors: ClassVar[bool] = False
    stdin_format: ClassVar[str | None] = None
    bounded: ClassVar[bool] = True

    def bounds_of(self, _options: StrategyOptions) -> Bounds:
        """Return the usual promises: a choice is always bounded."""
        return Bounds()

    def capacity_of(self, options: StrategyOptions, *, sized: bool = True) -> Capacity:  # noqa: ARG002 - as Strategy's
        """Return the hard capacity of ``options.budget`` (its choices' with ``--size``)."""
        return Capacity.of(options.budget)


class Cutter(Protocol):
    """What the engine sees of any ``Strategy``: its options typed by what all share.

    ``cut`` and ``rewritten`` check that the options are the strategy's own. The attributes
    are ``Strategy``'s.
    """

    @property
    def name(self) -> str: ...
    @property
    def summary(self) -> str: ...
    @property
    def options(self) -> type[StrategyOptions]: ...
    @property
    def kind(self) -> Kind: ...
    @property
    def rewrites(self) -> bool: ...
    @property
    def drops(self) -> bool: ...
    @property
    def embeds(self) -> bool: ...
    @property
    def tokenizes(self) -> bool: ...
    @property
    def token_vectors(self) -> bool: ...
    @property
    def stdin_format(self) -> str | None: ...
    @property
    def bounded(self) -> bool: ...

    def bounds_of(self, options: StrategyOptions) -> Bounds: ...

    def capacity_of(self, options: StrategyOptions, *, sized: bool = True) -> Capacity: ...

    def cut(self, doc: Document, options: StrategyOptions, ctx: Context) -> list[Span]: ...

    def rewritten(
        self, doc: Document, spans: Sequence[Span], options: StrategyOptions, ctx: Context
    ) -> list[Span]: ...


AnyStrategy: TypeAlias = "Cutter | Router"
"""What the strategy table holds: a cutter (or rewriter), or a router."""
