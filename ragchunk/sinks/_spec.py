"""What a sink is: the ``Sink`` protocol and the ``SinkSpec`` each sink module exposes.

A sink takes each input's records, in input order, and puts them somewhere: a JSONL stream or
file, a Parquet file, a table on the terminal, a vector store. Its module exposes
``SINK = SinkSpec(...)`` and has one line in the table of ``ragchunk.sinks`` (its module and
the ``-o`` suffixes and URL schemes that choose it); nothing else names it. The run opens it
with ``SinkSpec.open``, calls ``write`` once per input that has records, and leaves the block:
normally to finish the output, with an exception to discard it (no partial output is left).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import IO, TYPE_CHECKING, Protocol, TypeAlias

if TYPE_CHECKING:
    from ragchunk.model import Chunk
    from ragchunk.pipeline.results import FileResult

Destination: TypeAlias = "str | IO[str]"
"""Where a sink writes: the ``-o`` value (a file, or a URL for a store) or a text stream."""
Renderer: TypeAlias = "Callable[[Sequence[Chunk]], bytes]"
"""Chunks → the bytes a sink writes; a top-level function, so that workers can run it."""


class Sink(Protocol):
    """An open sink: it takes the records of one input at a time, in input order."""

    def write(self, result: FileResult) -> None:
        """Write the records of one input.

        A sink whose spec has a renderer finds them rendered in ``result.rendered`` (pieces
        of bytes, never decoded again); any other finds the chunks in ``result.chunks``.
        ``result.doc_id`` and ``result.source`` name the input.
        """
        ...


@dataclass(frozen=True, slots=True, kw_only=True, eq=False, repr=False)
class SinkSpec:
    """One kind of sink, as the run sees it.

    Attributes:
        name: the ``--output-format`` value and the table key.
        summary: one sentence for listings.
        open: a context manager yielding the open sink for a destination: a path or URL
            (``-o``) or a text stream (standard output).
        render: with a renderer, the sink takes rendered bytes: the workers render the chunks
            where they are made, and only bytes cross between processes. None: it takes the
            chunks.
        files: it can write a file (``-o FILE``, and one per input under ``-o DIR/``).
        stream: it can write a text stream (standard output).
        missing: returns what to install when the sink's library is missing, else None
            (checked before any input is read, without importing the library).
    """

    name: str
    summary: str
    open: Callable[[Destination], AbstractContextManager[Sink]]
    render: Renderer | None = None
    files: bool = True
    stream: bool = True
    missing: Callable[[], str | None] | None = None
