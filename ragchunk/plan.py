"""Plans: everything decided before the first file is read (SPEC §4: options validated first).

A ``Plan`` is a ``Recipe`` — what shapes the chunks: the strategy and its options, the size
limit resolved once, the tokenizer, forced format or language and the optional passes; what
chunk ids and the manifest's settings digest are made of — and a ``Policy``, how a run treats
its inputs without ever changing a chunk (a password, a timeout, a byte cap, ``--debug``,
``--check``). ``make_plan`` validates every option and loads the tokenizer; ``make_plans``
does so for every scope of a configuration file.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic

from ragchunk import parsers, strategies
from ragchunk.backends import EmbedderSpec, check_embedder
from ragchunk.backends.chat import ChatSpec
from ragchunk.code.languages import check_language
from ragchunk.defaults import DEFAULT_MAX_BYTES, DEFAULT_TIMEOUT, DEFAULT_TOKENIZER
from ragchunk.errors import OptionError, UsageError
from ragchunk.measure import load_tokenizer
from ragchunk.options import build_options
from ragchunk.strategies._spec import OptionsT, Strategy

if TYPE_CHECKING:
    from ragchunk.config import Config, Settings
    from ragchunk.globs import Glob
    from ragchunk.options import Budget, Unit


@dataclass(frozen=True, slots=True, kw_only=True)
class Recipe(Generic[OptionsT]):
    """What shapes the chunks of every input a plan is used for.

    Attributes:
        strategy: the strategy to run.
        options: its validated options (``options.budget`` holds size, overlap and unit).
        limit: the hard size limit (SPEC §3.3) in the budget's unit, or None when the
            strategy is unbounded by design and no ``--size`` was given. Resolved here once;
            strategies, passes and the checker all read it.
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
        embedder: the embedder semantic and late chunking, ``refine`` and ``embed`` use.
        refine: split chunks larger than the size semantically (``--refine``); a strategy
            unbounded by design then runs unbounded and this pass bounds it.
        embed: give every record an ``embedding`` of its ``context`` (else its text).
        chat: the chat endpoint a rewriting strategy (proposition, resume) asks.
        fingerprint: a digest of what changes spans, part of every chunk id.
    """

    strategy: Strategy[OptionsT]
    options: OptionsT
    limit: int | None
    tokenizer: str = DEFAULT_TOKENIZER
    count_tokens: bool = False
    format: str | None = None
    language: str | None = None
    hashes: bool = False
    contextualize: bool = False
    min_size: int = 0
    embedder: EmbedderSpec = field(default_factory=EmbedderSpec)
    refine: bool = False
    embed: bool = False
    chat: ChatSpec = field(default_factory=ChatSpec)
    fingerprint: str = field(init=False)

    def __post_init__(self) -> None:
        key = f"{self.strategy.name}\0{self.options!r}\0{self.tokenizer}"
        if self.format or self.language:  # forcing a parse changes the chunks, so their ids
            key += f"\0{self.format}\0{self.language}"
        if self.contextualize:
            key += "\0contextualize"
        if self.min_size:
            key += f"\0min_size={self.min_size}"
        if self.refine:
            key += "\0refine"
        if self.refine or self.strategy.embeds:  # the model decides where chunks end
            key += f"\0embedder={self.embedder.label}"
        if self.strategy.rewrites:  # the model writes the chunks
            key += f"\0chat={self.chat.label}"
        digest = hashlib.blake2b(key.encode(), digest_size=8).hexdigest()
        object.__setattr__(self, "fingerprint", digest)

    @property
    def budget(self) -> Budget:
        """The size, overlap and unit the strategy packs to."""
        return self.options.budget

    @property
    def strategy_limit(self) -> int | None:
        """The limit the strategy itself keeps: none for an unbounded one under ``--refine``."""
        if self.refine and not self.strategy.bounds(self.options).bounded:
            return None
        return self.limit

    @property
    def needs_embedder(self) -> bool:
        """Whether chunking or the records need the embedder."""
        return self.strategy.embeds or self.refine or self.embed

    @property
    def needs_tokens(self) -> bool:
        """Whether chunking or the records need the tokenizer (loaded when the plan is made)."""
        return self.budget.unit == "tokens" or self.count_tokens or self.strategy.tokenizes


@dataclass(frozen=True, slots=True, kw_only=True)
class Policy:
    """How a run treats its inputs; nothing here changes a chunk.

    Attributes:
        password: the PDF password from ``--password``.
        timeout: the most seconds one input may take (``--timeout``), or None for no limit.
        max_bytes: the largest input, and the most any decompressed part of it may expand to
            (``--max-bytes``).
        debug: let unexpected exceptions propagate with their traceback.
        check: run the invariant checker on every input's chunks (``--check``).
        cache: the directory vectors are cached in (``--cache-dir``), or None for no disk
            cache (``--no-cache``).
        dry_run: a rewriting strategy asks its model nothing and counts the calls and prompt
            tokens it would make (``--dry-run``).
    """

    password: str | None = None
    timeout: float | None = None
    max_bytes: int = DEFAULT_MAX_BYTES
    debug: bool = False
    check: bool = False
    cache: str | None = None
    dry_run: bool = False


@dataclass(frozen=True, slots=True)
class Plan:
    """A validated recipe and policy. Build it with ``make_plan``."""

    recipe: Recipe[Any]
    policy: Policy = Policy()


@dataclass(frozen=True, slots=True)
class Plans:
    """The plan of every scope of a configuration file, flags applied; see ``make_plans``.

    Attributes:
        default: the plan for inputs no rule matches.
        rules: ``(glob, plan)`` per ``[files."GLOB"]`` section, in file order; first match wins.
        config: the configuration they come from (for matching paths relative to it).
    """

    default: Plan
    rules: tuple[tuple[Glob, Plan], ...] = ()
    config: Config | None = None

    def for_input(self, source: str, doc_id: str) -> Plan:
        """Return the plan of the first rule whose glob matches the input, else the default."""
        if not self.rules or self.config is None:
            return self.default
        parts = self.config.match_parts(source, doc_id)
        for glob, plan in self.rules:
            if glob.matches(parts):
                return plan
        return self.default


def make_plan(
    strategy: str = strategies.DEFAULT_STRATEGY,
    *,
    size: int | None = None,
    overlap: int | None = None,
    unit: Unit | None = None,
    tokenizer: str = DEFAULT_TOKENIZER,
    options: Mapping[str, object] | None = None,
    count_tokens: bool = False,
    format: str | None = None,
    language: str | None = None,
    password: str | None = None,
    debug: bool = False,
    hashes: bool = False,
    timeout: float | None = None,
    max_bytes: int = DEFAULT_MAX_BYTES,
    check: bool = False,
    contextualize: bool = False,
    min_size: int | None = None,
    embedder: EmbedderSpec | None = None,
    refine: bool = False,
    embed: bool = False,
    cache_dir: str | None = None,
    no_cache: bool = False,
    chat: ChatSpec | None = None,
    dry_run: bool = False,
) -> Plan:
    """Validate every option and return the plan; loads the tokenizer when one is needed.

    ``timeout`` None (the library's default) sets no time limit: only the command line arms
    a timer unless asked, since it takes over ``SIGALRM`` while an input is processed.
    Vectors are cached under ``cache_dir`` (default: ragchunk's folder in the user's cache
    directory) unless ``no_cache``. The embedder's packages are checked here; its model is
    loaded where the first input that needs it is chunked.

    Raises:
        UsageError: an unknown strategy, format, language or tokenizer, or a bad option value.
    """
    policy = Policy(
        password=password,
        timeout=timeout,
        max_bytes=max_bytes,
        debug=debug,
        check=check,
        cache=_cache_dir(cache_dir, no_cache=no_cache),
        dry_run=dry_run,
    )
    check_limits(timeout=timeout, max_bytes=max_bytes)
    chosen: Strategy[Any] = strategies.get(strategy)
    budget = chosen.options().budget.with_flags(size=size, overlap=overlap, unit=unit)
    built = build_options(chosen.options, budget, dict(options or {}), strategy=chosen.name)
    # SPEC §3.3: a strategy unbounded by design becomes bounded when a size is given, or
    # when --refine bounds its chunks.
    bounded = size is not None or refine or chosen.bounds(built).bounded
    limit = budget.size if bounded else None
    _check_min_size(min_size, limit)
    if format is not None:
        parsers.check_name(format)
    if language is not None:
        check_language(language)
    recipe = Recipe(
        strategy=chosen,
        options=built,
        limit=limit,
        tokenizer=tokenizer,
        count_tokens=count_tokens,
        format=format,
        language=language,
        hashes=hashes,
        contextualize=contextualize,
        min_size=min_size or 0,
        embedder=embedder or EmbedderSpec(),
        refine=refine,
        embed=embed,
        chat=chat or ChatSpec(),
    )
    if chosen.rewrites and not recipe.chat.ready:
        raise OptionError(
            "--api-base", f"and --model are needed with --strategy {chosen.name} (a chat endpoint)"
        )
    if recipe.needs_tokens:
        load_tokenizer(tokenizer)
    if recipe.needs_embedder:
        why = "--refine" if refine else "--embed"
        if chosen.embeds:
            why = f"--strategy {chosen.name}"
        check_embedder(recipe.embedder, why=why, tokens=chosen.token_vectors)
    return Plan(recipe, policy)


def _cache_dir(cache_dir: str | None, *, no_cache: bool) -> str | None:
    if no_cache:
        return None
    if cache_dir is not None:
        return cache_dir
    from ragchunk.backends.cache import default_cache_dir

    return default_cache_dir()


def check_limits(*, timeout: float | None, max_bytes: int) -> None:
    """Raise ``OptionError`` unless ``--timeout`` and ``--max-bytes`` are positive."""
    if timeout is not None and not 0 < timeout < math.inf:  # refuses NaN and inf too
        raise OptionError("--timeout", f"must be a positive number of seconds (got {timeout})")
    if max_bytes < 1:
        raise OptionError("--max-bytes", f"must be at least 1 (got {max_bytes})")


def _check_min_size(min_size: int | None, limit: int | None) -> None:
    if min_size is None:
        return
    if min_size < 1:
        raise OptionError("--min-size", f"must be at least 1 (got {min_size})")
    if limit is not None and min_size > limit:
        raise OptionError("--min-size", f"must not exceed --size (got {min_size} > {limit})")


def make_plans(
    config: Config,
    flags: Settings,
    *,
    password: str | None = None,
    debug: bool = False,
    check: bool = False,
    dry_run: bool = False,
) -> Plans:
    """Return the plans of every scope of ``config`` with ``flags`` on top (flags win).

    Every scope of the file is first validated on its own, so a mistake in the file is reported
    with the file's name even when a flag overrides it; no input has been read yet.

    Raises:
        UsageError: a bad value in the file (named with the file and section) or in the flags.
    """
    for where, scope in config.scopes():
        try:
            plan_from_settings(scope)
        except UsageError as exc:
            raise UsageError(f"{where}: {exc}") from None
    default = plan_from_settings(
        flags.over(config.defaults), password=password, debug=debug, check=check, dry_run=dry_run
    )
    rules = []
    for rule in config.rules:
        settings = flags.over(rule.settings.over(config.defaults))
        try:
            plan = plan_from_settings(
                settings, password=password, debug=debug, check=check, dry_run=dry_run
            )
        except UsageError as exc:  # the flags do not fit this section (an -O of another strategy)
            raise UsageError(f"{exc} (for the inputs of {rule.where})") from None
        rules.append((rule.glob, plan))
    return Plans(default, tuple(rules), config)


def plan_from_settings(
    settings: Settings,
    *,
    password: str | None = None,
    debug: bool = False,
    check: bool = False,
    dry_run: bool = False,
) -> Plan:
    """Return the validated plan for merged settings (unset ones take their defaults).

    These are the command line's defaults: an unset timeout is ``DEFAULT_TIMEOUT``.

    Raises:
        UsageError: an unknown strategy, format or tokenizer, or a bad option value.
    """
    return make_plan(
        settings.strategy or strategies.DEFAULT_STRATEGY,
        size=settings.size,
        overlap=settings.overlap,
        unit=settings.unit,
        tokenizer=settings.tokenizer or DEFAULT_TOKENIZER,
        options=settings.options,
        count_tokens=bool(settings.count_tokens),
        format=settings.format,
        language=settings.language,
        password=password,
        debug=debug,
        check=check,
        hashes=bool(settings.hashes),
        timeout=DEFAULT_TIMEOUT if settings.timeout is None else settings.timeout,
        max_bytes=DEFAULT_MAX_BYTES if settings.max_bytes is None else settings.max_bytes,
        contextualize=bool(settings.contextualize),
        min_size=settings.min_size,
        embedder=embedder_from_settings(settings),
        refine=bool(settings.refine),
        embed=bool(settings.embed),
        cache_dir=settings.cache_dir,
        no_cache=bool(settings.no_cache),
        chat=chat_from_settings(settings),
        dry_run=dry_run,
    )


def chat_from_settings(settings: Settings) -> ChatSpec:
    """Return the chat endpoint the settings describe (unset fields take their defaults).

    Raises:
        OptionError: a bad URL or number.
    """
    given = {
        "url": settings.api_base,
        "model": settings.model,
        "key_env": settings.api_key_env,
        "timeout": settings.api_timeout,
        "concurrency": settings.api_concurrency,
        "retries": settings.api_retries,
    }
    return ChatSpec(**{name: value for name, value in given.items() if value is not None})  # type: ignore[arg-type]


def embedder_from_settings(settings: Settings) -> EmbedderSpec:
    """Return the embedder the settings describe (unset fields take their defaults).

    Raises:
        OptionError: a bad backend, device, URL or number.
    """
    given = {
        "backend": settings.embedder,
        "model": settings.embed_model,
        "url": settings.embed_url,
        "key_env": settings.embed_key_env,
        "device": settings.device,
        "batch_size": settings.embed_batch_size,
        "timeout": settings.embed_timeout,
        "concurrency": settings.embed_concurrency,
        "retries": settings.embed_retries,
    }
    return EmbedderSpec(**{name: value for name, value in given.items() if value is not None})  # type: ignore[arg-type]
