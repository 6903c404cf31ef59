"""The plans of a run: every scope of a configuration file, with the flags on top.

``make_plans`` validates each scope of the file on its own (a mistake is named with the file and
section), then makes the plan of the defaults and of every ``[files."GLOB"]`` rule from the
merged settings; ``Plans.for_input`` picks the one of an input (first matching rule wins).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ragchunk.errors import UsageError
from ragchunk.pipeline.plan import Plan, make_plan
from ragchunk.settings import Settings, command_line, merge

if TYPE_CHECKING:
    from ragchunk.runs.config import Config
    from ragchunk.runs.globs import Glob


@dataclass(frozen=True, slots=True, eq=False, repr=False)
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


def make_plans(config: Config, flags: Settings) -> Plans:
    """Return the plans of every scope of ``config`` with ``flags`` on top (flags win).

    Every scope of the file is first validated on its own, so a mistake in the file is reported
    with the file's name even when a flag overrides it; no input has been read yet. Under every
    scope lie the command line's defaults (``settings.command_line``).

    Raises:
        UsageError: a bad value in the file (named with the file and section) or in the flags.
    """
    for where, scope in config.scopes():
        try:
            plan_from_settings(scope)
        except UsageError as exc:
            raise UsageError(f"{where}: {exc}") from None
    default = plan_from_settings(merge(flags, config.defaults))
    rules = []
    for rule in config.rules:
        settings = merge(flags, merge(rule.settings, config.defaults))
        try:
            plan = plan_from_settings(settings)
        except UsageError as exc:  # the flags do not fit this section (an -O of another strategy)
            raise UsageError(f"{exc} (for the inputs of {rule.where})") from None
        rules.append((rule.glob, plan))
    return Plans(default, tuple(rules), config)


def plan_from_settings(settings: Settings) -> Plan:
    """Return the validated plan of a scope over the command line's defaults.

    Raises:
        UsageError: an unknown strategy, format or tokenizer, or a bad option value.
    """
    return make_plan(merge(settings, command_line()))
