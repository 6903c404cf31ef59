"""ONE typed settings tree: every setting of ragchunk, declared once, grouped by owner.

Each leaf declares its flag, its configuration key, its default, its help and its help panel
once (``leaf(...)``, ``ragchunk.settings._leaf``); the command line's options, the
configuration files' keys and ``-O`` are all made from these declarations. A configuration
scope is the same tree with unset leaves, and ``merge`` is the one way scopes combine.
``ragchunk.pipeline.plan.make_plan`` turns a tree into a validated plan.

This package sits low: it imports only ``options``, ``defaults`` and ``errors``.
"""

from __future__ import annotations

from ragchunk.settings._leaf import PANELS, Leaf, leaf
from ragchunk.settings.backends import Chat, Embedding
from ragchunk.settings.chunking import Chunking
from ragchunk.settings.parsing import DEFAULT_PARSE, PARSE_OPTION_NAMES, ParseOptions
from ragchunk.settings.run import Run, RunPolicy
from ragchunk.settings.tree import (
    GROUPS,
    OPTIONS,
    Setting,
    Settings,
    command_line,
    from_spec,
    given,
    merge,
    routed,
    scope,
    setting,
    settings,
    shortcuts,
    spec_values,
    value_of,
    with_values,
)

__all__ = [
    "DEFAULT_PARSE",
    "GROUPS",
    "OPTIONS",
    "PANELS",
    "PARSE_OPTION_NAMES",
    "Chat",
    "Chunking",
    "Embedding",
    "Leaf",
    "ParseOptions",
    "Run",
    "RunPolicy",
    "Setting",
    "Settings",
    "command_line",
    "from_spec",
    "given",
    "leaf",
    "merge",
    "routed",
    "scope",
    "setting",
    "settings",
    "shortcuts",
    "spec_values",
    "value_of",
    "with_values",
]
