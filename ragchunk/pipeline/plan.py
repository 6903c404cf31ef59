"""Plans: everything decided before the first file is read (SPEC §4: options validated first).

A ``Plan`` is a ``Recipe`` — what shapes the chunks: the strategy and its options, the
``Capacity`` resolved once (for every level and choice too), the tokenizer,
forced format or language, how parsers read (``ParseOptions``: the PDF engine, OCR, cleaning)
and the optional passes; what chunk ids and the manifest's settings digest are made of — and
a ``Policy``, how a run treats its inputs without ever changing a chunk (a password, a timeout,
a byte cap, ``--debug``, ``--check``, ``--allow-empty``). ``make_plan`` validates every setting
of a ``Settings`` tree and loads the tokenizer; ``ragchunk.pipeline.scopes`` makes the plan of
every scope of a configuration file.
"""

from __future__ import annotations

import dataclasses
import hashlib
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final

from ragchunk import parsers, strategies
from ragchunk.backends import ChatSpec, EmbedderSpec, check_embedder
from ragchunk.defaults import (
    DEFAULT_MAX_BYTES,
    DEFAULT_MAX_TEXT,
    DEFAULT_TOKENIZER,
    default_cache_dir,
)
from ragchunk.errors import OptionError
from ragchunk.measure import load_tokenizer, measure_for
from ragchunk.options import Capacity, build_options
from ragchunk.parsers._spec import DEFAULT_PARSE, ParseOptions
from ragchunk.pipeline.parents import parent_level
from ragchunk.settings import Settings, routed, spec_values
from ragchunk.strategies._spec import Router

if TYPE_CHECKING:
    from ragchunk.model import Document
    from ragchunk.options import Budget, Unit
    from ragchunk.pipeline.check import Limits
    from ragchunk.strategies._spec import AnyStrategy, Cutter, StrategyOptions


@dataclass(frozen=True, slots=True, kw_only=True)
class Recipe:
    """What shapes the chunks of every input a plan is used for.

    Attributes:
        strategy: the strategy to run: a cutter, or a router (``auto``: see ``choices``).
        options: its validated options (``options.budget``: what was asked).
        capacity: the size chunks keep, resolved once from the budget (``capacity_of``):
            passes, the checker and (as ``strategy_capacity``) strategies read only it.
        tokenizer: the tokenizer name for token units, token strategies and ``count_tokens``.
        count_tokens: give every chunk a ``tokens`` count even when the unit is chars.
        format: a format forced with ``--format``, or None to detect it per file.
        language: a code language forced with ``--language`` (implies the ``code`` format).
        hashes: give every chunk ``doc_hash`` (SHA-256 of the input's bytes) and ``hash``
            (SHA-256 of its UTF-8 text).
        contextualize: give every chunk a ``context`` (heading breadcrumb + text) and count
            the breadcrumb within the size limit.
        min_size: merge chunks smaller than this (in the budget's unit) into a neighbour under
            the same heading; 0 turns merging off.
        choices: for a strategy that picks another per document (``auto``), the recipe of
            each strategy it may pick, by name; ``for_document`` returns the one to run.
        parse: how parsers read the inputs (PDF engine, OCR, cleaning, DOCX comments, HTML
            boilerplate, PPTX notes...).
        embedder: the embedder semantic and late chunking, ``refine`` and ``embed`` use.
        refine: split chunks larger than the size semantically (``--refine``); a strategy
            unbounded by design then runs unbounded and this pass bounds it.
        embed: give every record an ``embedding`` of its ``context`` (else its text).
        chat: the chat endpoint a rewriting strategy (proposition, resume) asks.
        parents: with ``--parents``, the recipe of the parent level (``ragchunk.pipeline.parents``);
            this recipe then cuts the children inside each parent (``ragchunk.pipeline.family``).
        fingerprint: a digest of what changes spans, part of every chunk id.
    """

    strategy: AnyStrategy
    options: StrategyOptions
    capacity: Capacity
    tokenizer: str = DEFAULT_TOKENIZER
    count_tokens: bool = False
    format: str | None = None
    language: str | None = None
    hashes: bool = False
    contextualize: bool = False
    min_size: int = 0
    choices: Mapping[str, Recipe] = field(default_factory=dict)
    parse: ParseOptions = DEFAULT_PARSE
    embedder: EmbedderSpec = field(default_factory=EmbedderSpec)
    refine: bool = False
    embed: bool = False
    chat: ChatSpec = field(default_factory=ChatSpec)
    parents: Recipe | None = None
    fingerprint: str = field(init=False)

    def __post_init__(self) -> None:
        key = f"{self.strategy.name}\0{self.options!r}\0{self.tokenizer}"
        if self.format or self.language:  # forcing a parse changes the chunks, so their ids
            key += f"\0{self.format}\0{self.language}"
        if self.contextualize:
            key += "\0contextualize"
        if self.min_size:
            key += f"\0min_size={self.min_size}"
        if self.parse != DEFAULT_PARSE:  # the default keeps the ids made before it existed
            key += f"\0{self.parse!r}"
        if self.refine:
            key += "\0refine"
        if self.refine or self.strategy.embeds:  # the model decides where chunks end
            key += f"\0embedder={self.embedder.label}"
        if self.strategy.rewrites:  # the model writes the chunks
            key += f"\0chat={self.chat.label}"
        if self.parents is not None:  # children's ids name their level (and so do parents')
            key += f"\0parents={self.parents.fingerprint}"
        digest = hashlib.blake2b(key.encode(), digest_size=8).hexdigest()
        object.__setattr__(self, "fingerprint", digest)

    def for_document(self, doc: Document) -> Recipe:
        """Return the recipe that chunks ``doc``: this one, or the choice a router made for it."""
        if not isinstance(self.strategy, Router) or not self.choices:
            return self
        choice = self.choices[self.strategy.choose(doc)]
        return choice if self.parents is None else dataclasses.replace(choice, parents=self.parents)

    @property
    def cutter(self) -> Cutter:
        """The strategy that cuts; a router's recipe has none (TypeError: ``for_document``)."""
        if isinstance(self.strategy, Router):
            raise TypeError(f"{self.strategy.name} picks a strategy per document: for_document")
        return self.strategy

    @property
    def limit(self) -> int | None:
        """The hard size limit (SPEC §3.3), or None when the capacity is soft."""
        return self.capacity.limit

    @property
    def strategy_capacity(self) -> Capacity:
        """The capacity the strategy keeps: soft for an unbounded one that ``--refine`` bounds."""
        if self.refine and not self.strategy.bounds_of(self.options).bounded:
            return dataclasses.replace(self.capacity, hard=False)
        return self.capacity

    @property
    def needs_embedder(self) -> bool:
        """Whether chunking or the records need the embedder."""
        return self.strategy.embeds or self.refine or self.embed

    @property
    def needs_tokens(self) -> bool:
        """Whether chunking or the records need the tokenizer (loaded when the plan is made)."""
        if any(choice.needs_tokens for choice in self.choices.values()):
            return True
        if self.parents is not None and self.parents.needs_tokens:
            return True
        return self.capacity.unit == "tokens" or self.count_tokens or self.strategy.tokenizes


@dataclass(frozen=True, slots=True, kw_only=True, eq=False, repr=False)
class Policy:
    """How a run treats its inputs; nothing here changes a chunk.

    Attributes:
        password: the PDF password from ``--password``.
        timeout: the most seconds one input may take (``--timeout``), or None for no limit.
        max_bytes: the largest input, and the most any decompressed part of it may expand to
            (``--max-bytes``).
        max_text: the most characters the parse of one input may build, its attachments and
            parts named many times included (``--max-text``).
        debug: let unexpected exceptions propagate with their traceback.
        check: run the invariant checker on every input's chunks (``--check``).
        allow_empty: accept an input that yields no text (zero chunks) instead of failing it
            (``--allow-empty``); a policy, since it changes no chunk, only whether none is an
            error.
        cache: the directory vectors are cached in (``--cache-dir``), or None for no disk
            cache (``--no-cache``).
        dry_run: a rewriting strategy asks its model nothing and counts the calls and prompt
            tokens it would make (``--dry-run``).
    """

    password: str | None = None
    timeout: float | None = None
    max_bytes: int = DEFAULT_MAX_BYTES
    max_text: int = DEFAULT_MAX_TEXT
    debug: bool = False
    check: bool = False
    allow_empty: bool = False
    cache: str | None = None
    dry_run: bool = False


DEFAULTS: Final = Settings()
"""The library's settings: every leaf at its default."""


@dataclass(frozen=True, slots=True, eq=False, repr=False)
class Plan:
    """A validated recipe and policy. Build it with ``make_plan``."""

    recipe: Recipe
    policy: Policy = Policy()


def make_plan(settings: Settings = DEFAULTS) -> Plan:
    """Validate every setting and return the plan; loads the tokenizer when one is needed.

    The strategy options (``settings.chunking.options``: strings from ``-O`` or typed values)
    are converted here, once, by the strategy's declared options type; entries that name a
    parse option (``main_content``...) set that option.

    ``policy.timeout`` None (the library's default) sets no time limit: only the command line
    arms a timer unless asked, since it takes over ``SIGALRM`` while an input is processed.
    Vectors are cached under ``embedding.cache_dir`` (default: ragchunk's folder in the user's
    cache directory) unless ``embedding.no_cache``. The embedder's packages are checked here;
    its model is loaded where the first input that needs it is chunked. ``chunking.parents``
    (``--parents``) adds the parent level.

    Raises:
        UsageError: an unknown strategy, format, language or tokenizer, or a bad option value.
    """
    tree = routed(settings)
    chunking, asked, refine = tree.chunking, tree.policy, tree.embedding.refine
    size, overlap, unit, min_size = (
        chunking.size,
        chunking.overlap,
        chunking.unit,
        chunking.min_size,
    )
    timeout, max_bytes = asked.timeout, asked.max_bytes
    policy = Policy(
        password=asked.password,
        timeout=timeout,
        max_bytes=max_bytes,
        max_text=asked.max_text,
        debug=asked.debug,
        check=asked.check,
        allow_empty=asked.allow_empty,
        cache=_cache_dir(tree.embedding.cache_dir, no_cache=tree.embedding.no_cache),
        dry_run=asked.dry_run,
    )
    check_limits(timeout=timeout, max_bytes=max_bytes, max_text=asked.max_text)
    chosen = strategies.get(chunking.strategy)
    budget = chosen.options().budget.with_flags(size=size, overlap=overlap, unit=unit)
    built = build_options(chosen.options, budget, dict(chunking.options), strategy=chosen.name)
    capacity = chosen.capacity_of(built, sized=size is not None or refine)
    _check_min_size(min_size, capacity.limit)
    if chunking.format is not None:
        parsers.check_name(chunking.format)
    if tree.parsing.main_content:
        _check_installed("trafilatura", "-O main_content=true", extra="html")
    if chunking.language is not None:
        from ragchunk.code.languages import check_language

        check_language(chunking.language)
    check_parse(tree.parsing)
    common: dict[str, Any] = {
        "tokenizer": chunking.tokenizer,
        "count_tokens": chunking.count_tokens,
        "format": chunking.format,
        "language": chunking.language,
        "hashes": chunking.hashes,
        "contextualize": chunking.contextualize,
        "min_size": min_size or 0,
        "parse": tree.parsing,
        "embedder": embedder_spec(tree),
        "refine": refine,
        "embed": tree.embedding.embed,
        "chat": chat_spec(tree),
    }
    given = budget if size is not None else None
    picks = chosen.choices if isinstance(chosen, Router) else ()
    choices = {name: _choice(name, given, overlap, unit, common) for name in picks}
    for choice in choices.values():
        _check_min_size(min_size, choice.limit)
    level = parent_level(chunking.parents, chosen, budget.unit, capacity.limit)
    family = None
    if level is not None:
        keep = {name: common[name] for name in ("tokenizer", "format", "language", "parse")}
        parent, made = level
        family = Recipe(strategy=parent, options=made, capacity=parent.capacity_of(made), **keep)
    recipe = Recipe(
        strategy=chosen, options=built, capacity=capacity, choices=choices, parents=family, **common
    )
    if chosen.rewrites and not recipe.chat.ready:
        raise OptionError(
            "--api-base", f"and --model are needed with --strategy {chosen.name} (a chat endpoint)"
        )
    if chosen.rewrites:  # a key no HTTP header can carry: refused before any input is read
        from ragchunk.backends.keys import check_key

        check_key(recipe.chat.key_env or None, "--api-key-env")
    if recipe.needs_tokens:
        load_tokenizer(chunking.tokenizer)
    if recipe.needs_embedder:
        why = "--refine" if refine else "--embed"
        if chosen.embeds:
            why = f"--strategy {chosen.name}"
        check_embedder(recipe.embedder, why=why, tokens=chosen.token_vectors)
    return Plan(recipe, policy)


def chat_spec(settings: Settings) -> ChatSpec:
    """Return the chat endpoint the settings describe.

    Raises:
        OptionError: a bad URL or number.
    """
    return ChatSpec(**spec_values(settings, "chat"))  # type: ignore[arg-type]  # typed per leaf


def embedder_spec(settings: Settings) -> EmbedderSpec:
    """Return the embedder the settings describe.

    Raises:
        OptionError: a bad backend, device, URL or number.
    """
    return EmbedderSpec(**spec_values(settings, "embedding"))  # type: ignore[arg-type]


def _choice(
    name: str,
    given: Budget | None,
    overlap: int | None,
    unit: Unit | None,
    common: Mapping[str, Any],
) -> Recipe:
    """Return the recipe of strategy ``name`` when a router picks it for a document.

    With a size given (``given``, the picking strategy's budget with the user's flags), every
    choice packs to it; otherwise each keeps its own defaults, with ``--overlap`` and
    ``--unit`` applied. A choice is always bounded: by the size, else by its own default size.
    """
    chosen = strategies.get(name)
    budget = given or chosen.options().budget.with_flags(overlap=overlap, unit=unit)
    built = build_options(chosen.options, budget, {}, strategy=name)
    return Recipe(strategy=chosen, options=built, capacity=chosen.capacity_of(built), **common)


def check_parse(parse: ParseOptions) -> None:
    """Raise ``OptionError`` when ``--ocr`` is asked for and Tesseract cannot do it."""
    if parse.ocr != "off":
        from ragchunk.parsers.pdf.ocr import check_ocr

        check_ocr(parse.ocr_language)


def _check_installed(module: str, option: str, *, extra: str) -> None:
    """Raise ``OptionError`` when the library an option needs is not installed."""
    import importlib.util

    if importlib.util.find_spec(module) is None:
        raise OptionError(option, f"needs {module}: pip install 'ragchunk[{extra}]'")


def _cache_dir(cache_dir: str | None, *, no_cache: bool) -> str | None:
    if no_cache:
        return None
    if cache_dir is not None:
        return cache_dir
    return default_cache_dir()


def check_limits(
    *, timeout: float | None, max_bytes: int, max_text: int = DEFAULT_MAX_TEXT
) -> None:
    """Raise ``OptionError`` unless ``--timeout``, ``--max-bytes``, ``--max-text`` are positive."""
    if timeout is not None and not 0 < timeout < math.inf:  # refuses NaN and inf too
        raise OptionError("--timeout", f"must be a positive number of seconds (got {timeout})")
    if max_bytes < 1:
        raise OptionError("--max-bytes", f"must be at least 1 (got {max_bytes})")
    if max_text < 1:
        raise OptionError("--max-text", f"must be at least 1 (got {max_text})")


def _check_min_size(min_size: int | None, limit: int | None) -> None:
    if min_size is None:
        return
    if min_size < 1:
        raise OptionError("--min-size", f"must be at least 1 (got {min_size})")
    if limit is not None and min_size > limit:
        raise OptionError("--min-size", f"must not exceed --size (got {min_size} > {limit})")


def limits_for(recipe: Recipe) -> Limits:
    """Return what the chunks of ``recipe`` must respect (the checker's view of it)."""
    from ragchunk.pipeline.check import Limits

    bounds = recipe.strategy.bounds_of(recipe.options)
    capacity = recipe.capacity
    return Limits(
        size=capacity.limit,
        overlap=capacity.overlap,
        measure=measure_for(capacity.unit, recipe.tokenizer),
        word_aligned=bounds.word_aligned,
        sentences=bounds.sentences,
        overlap_sentences=bounds.overlap_sentences,
        contextualize=recipe.contextualize,
        language=bounds.language,
        drops=recipe.strategy.drops,
    )
