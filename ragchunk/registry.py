"""Lazy name → module tables: modules are imported only when their name is asked for."""

from __future__ import annotations

import difflib
import importlib
from collections.abc import Iterable, Mapping
from typing import Any

from ragchunk.errors import OptionError


def load(table: Mapping[str, str], name: str, *, option: str, attribute: str) -> Any:
    """Import the module registered under ``name`` and return its ``attribute``.

    Raises:
        OptionError: ``name`` is not in the table; the message lists the choices and the
            closest match.
    """
    module_name = table.get(name)
    if module_name is None:
        raise OptionError(option, unknown_name_message(name, table))
    return getattr(importlib.import_module(module_name), attribute)


def unknown_name_message(name: str, table: Mapping[str, object]) -> str:
    """Return ``"'x' is unknown (choose from a, b; did you mean 'y'?)"``."""
    choices = sorted(table)
    return f"{name!r} is unknown (choose from {', '.join(choices)}){did_you_mean(name, choices)}"


def did_you_mean(name: str, choices: Iterable[str]) -> str:
    """Return ``"; did you mean 'y'?"`` for the choice closest to ``name``, or ``""`` if none is.

    Every "unknown name" message ends with this hint: strategies, formats, options, config keys.
    """
    close = difflib.get_close_matches(name, list(choices), n=1)
    return f"; did you mean {close[0]!r}?" if close else ""


def names(table: Mapping[str, str]) -> tuple[str, ...]:
    """Return the registered names, sorted."""
    return tuple(sorted(table))
