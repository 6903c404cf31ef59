"""How one setting declares itself, once: its flag, configuration key, default, help and panel.

A leaf of the settings tree is a dataclass field made with
``leaf("--flag", default=..., help=...)``. Its default is the field's default; everything else
lives in ``Leaf``, in the field's metadata, where the command line (options generated from it),
configuration files (``key``), ``-O`` and the documentation read it. The field's type is the
one values are converted by.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

LEAF: Final = "leaf"
"""The metadata key of a leaf's ``Leaf``."""

# The help panels of `split --help`, in the order they are shown.
INPUT: Final = "Input"
STRATEGY: Final = "Strategy and size"
FORMATS: Final = "PDF and other formats"
EMBEDDINGS: Final = "Embeddings (semantic, late, --refine, --embed)"
LLM: Final = "LLM: the chat model (proposition, resume)"
OUTPUT: Final = "Output"
RUN: Final = "Run"
PANELS: Final = (INPUT, STRATEGY, FORMATS, EMBEDDINGS, LLM, OUTPUT, RUN)


@dataclass(frozen=True, slots=True, kw_only=True, eq=False, repr=False)
class Leaf:
    """What a setting says about itself besides its name, type and default.

    Attributes:
        flags: its command-line option names, the long one first (none: no flag).
        help: one or two sentences: the flag's help, the configuration key's, the docs'.
        panel: the help panel of ``split --help`` it is listed in.
        key: whether a configuration file may set it (as its name with dashes).
        more: text the flag's help adds after ``help`` (``[default: pdfium]``, ``Repeatable.``).
        metavar: how the flag's value is named in help (default: its type).
        show_default: whether help shows the default after the text.
        completions: values shell completion offers.
        command_line: the default on the command line when it differs from the library's
            (``--timeout``: 300 seconds there, no limit in the library).
        negative: the flag turns the setting off (``--no-gitignore`` sets ``gitignore`` false).
        param: the command's parameter name when it is not the field's (``--format`` is
            ``input_format``: ``format`` is a builtin).
        follows: for a mapping, the leaf it belongs to: a lower scope's entries are kept only
            when both scopes give that leaf the same value (``options`` follow ``strategy``).
        spec: the field of its owner's spec it fills (``api_base`` is the chat spec's ``url``),
            for a group a backend checks as a whole (``ragchunk.pipeline.plan``).
    """

    flags: tuple[str, ...] = ()
    help: str = ""
    panel: str = ""
    key: bool = True
    more: str = ""
    metavar: str | None = None
    show_default: bool = True
    completions: tuple[str, ...] = ()
    command_line: object = None
    negative: bool = False
    param: str | None = None
    follows: str | None = None
    spec: str | None = None

    @property
    def flag_help(self) -> str:
        """The help the flag shows."""
        return self.help + self.more


def leaf(
    *flags: str,
    default: object = None,
    factory: Callable[[], object] | None = None,
    help: str,
    panel: str,
    key: bool = True,
    more: str = "",
    metavar: str | None = None,
    show_default: bool = True,
    completions: tuple[str, ...] = (),
    command_line: object = None,
    negative: bool = False,
    param: str | None = None,
    follows: str | None = None,
    spec: str | None = None,
) -> Any:  # a dataclass field; Any so that it stands for the field's type
    """Return a settings-tree field: its default (or ``factory``) and its ``Leaf``."""
    declared = Leaf(
        flags=flags,
        help=help,
        panel=panel,
        key=key,
        more=more,
        metavar=metavar,
        show_default=show_default,
        completions=completions,
        command_line=command_line,
        negative=negative,
        param=param,
        follows=follows,
        spec=spec,
    )
    metadata = {LEAF: declared, "help": help}
    if factory is not None:  # a mutable default (a mapping) is made afresh for each tree
        return dataclasses.field(default_factory=factory, metadata=metadata)
    return dataclasses.field(default=default, metadata=metadata)


def leaf_of(field: dataclasses.Field[Any]) -> Leaf:
    """Return the ``Leaf`` of a settings-tree field (an undeclared field: no flag, no key)."""
    found = field.metadata.get(LEAF)
    if isinstance(found, Leaf):
        return found
    return Leaf(help=field.metadata.get("help", ""), key=False)
