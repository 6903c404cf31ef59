"""A strategy that kills its worker process on a document holding ``KILL`` (a crash on Ray).

Shipped to Ray's workers by value (``ray.cloudpickle.register_pickle_by_value``), so they need
not import the tests.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from ragchunk.strategies import recursive
from ragchunk.strategies._spec import Strategy

if TYPE_CHECKING:
    from ragchunk.model import Document, Span
    from ragchunk.strategies._spec import Context


def split(doc: Document, options: recursive.RecursiveOptions, ctx: Context) -> list[Span]:
    if "KILL" in doc.text:
        os._exit(3)  # as the kernel's OOM killer would end it: no exception, no cleanup
    return recursive.split(doc, options, ctx)


KILLER = Strategy(
    name="recursive",
    summary="recursive, but kills its process on a document holding KILL",
    options=recursive.RecursiveOptions,
    split=split,
)
