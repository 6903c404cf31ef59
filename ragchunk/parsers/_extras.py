"""Optional libraries of some formats, imported when a file needs them, with a clear error."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from ragchunk.errors import InputError

if TYPE_CHECKING:
    from types import ModuleType

    from ragchunk.parsers._spec import ParseRequest


def need(module: str, *, extra: str, what: str, request: ParseRequest) -> ModuleType:
    """Import ``module``, or fail this input with the ``pip install`` line that brings it.

    Raises:
        InputError: the module is not installed.
    """
    try:
        return importlib.import_module(module)
    except ImportError:
        raise InputError(
            f"{request.source}: reading {what} needs the {module.partition('.')[0]} package: "
            f"pip install 'ragchunk[{extra}]'"
        ) from None
