"""The plans of a run: every scope of a configuration file, with the flags on top.

``make_plans`` validates each scope of the file on its own (a mistake is named with the file and
section), then makes the plan of the defaults and of every ``[files."GLOB"]`` rule from the
merged settings; ``Plans.for_input`` picks the one of an input (first matching rule wins).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ragchunk import strategies
from ragchunk.backends import EmbedderSpec
from ragchunk.backends.chat import ChatSpec
from ragchunk.defaults import DEFAULT_MAX_BYTES, DEFAULT_TIMEOUT, DEFAULT_TOKENIZER
from ragchunk.errors import UsageError
from ragchunk.pipeline.plan import Plan, Policy, make_plan

if TYPE_CHECKING:
    from ragchunk.runs.config import Config, Settings
    from ragchunk.runs.globs import Glob


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


def make_plans(
    config: Config,
    flags: Settings,
    *,
    password: str | None = None,
    debug: bool = False,
    check: bool = False,
    allow_empty: bool = False,
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
    policy = Policy(
        password=password, debug=debug, check=check, allow_empty=allow_empty, dry_run=dry_run
    )
    default = plan_from_settings(flags.over(config.defaults), policy)
    rules = []
    for rule in config.rules:
        settings = flags.over(rule.settings.over(config.defaults))
        try:
            plan = plan_from_settings(settings, policy)
        except UsageError as exc:  # the flags do not fit this section (an -O of another strategy)
            raise UsageError(f"{exc} (for the inputs of {rule.where})") from None
        rules.append((rule.glob, plan))
    return Plans(default, tuple(rules), config)


def plan_from_settings(settings: Settings, policy: Policy = Policy()) -> Plan:
    """Return the validated plan for merged settings (unset ones take their defaults).

    These are the command line's defaults: an unset timeout is ``DEFAULT_TIMEOUT``. Of
    ``policy`` only what the command line gives besides the settings is read (the password,
    ``--debug``, ``--check``, ``--allow-empty``, ``--dry-run``).

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
        password=policy.password,
        debug=policy.debug,
        check=policy.check,
        hashes=bool(settings.hashes),
        timeout=DEFAULT_TIMEOUT if settings.timeout is None else settings.timeout,
        max_bytes=DEFAULT_MAX_BYTES if settings.max_bytes is None else settings.max_bytes,
        contextualize=bool(settings.contextualize),
        min_size=settings.min_size,
        parents=settings.parents,
        parse=settings.parse_options(),
        allow_empty=policy.allow_empty,
        embedder=embedder_from_settings(settings),
        refine=bool(settings.refine),
        embed=bool(settings.embed),
        cache_dir=settings.cache_dir,
        no_cache=bool(settings.no_cache),
        chat=chat_from_settings(settings),
        dry_run=policy.dry_run,
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
