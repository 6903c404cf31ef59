"""What the engine gives for one input: its chunks or the error that stopped it, and warnings.

``FileResult`` travels from a worker to the run that writes it; ``Diagnostic`` is one warning
about one input; ``first_line`` keeps an exception's message to the one line users see.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from ragchunk.model import Chunk, Document, Dropped

LARGE_CHUNK: Final = "large-chunk"
"""The code of the warning about a chunk past an embedding model's window
(``pipeline.passes.warn_if_large``); the command line says it once per run."""


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """A warning about one input: ``code`` is stable, ``message`` is one sentence."""

    path: str
    code: str
    message: str


@dataclass(frozen=True, slots=True)
class FileResult:
    """The outcome for one input: its chunks, or the error that stopped it, plus warnings.

    ``content_hash`` is the SHA-256 of the input's bytes once they were read; ``unchanged``
    says the input was skipped because that hash equals the one a manifest recorded. When the
    job had a renderer, ``rendered`` holds its output (UTF-8 JSONL bytes), in pieces of at most
    ``workers.RENDER_BLOCK`` chunks (never one large string beside its parts), and ``chunks``
    is empty; ``chunk_count`` counts the chunks either way. With ``--check``, ``violations``
    lists what the invariant checker found (SPEC §3), one sentence each; the chunks are kept
    all the same. ``dropped`` lists the spans a template left out on purpose, with the id of
    the document they belong to. A container input (an mbox) gives the chunks of every
    document in it; ``failed_parts`` names those of its documents that could not be chunked,
    one sentence each, while the others were. ``embedded`` counts the texts sent to the
    embedder, ``cached`` those its cache answered. ``llm`` holds what a rewriting strategy's chat
    model cost and made (``ragchunk.pipeline.rewrite.COUNT_NAMES``; a dry run's planned calls and
    tokens). ``duplicates`` counts the chunks ``--dedupe`` found repeating earlier ones of the run
    (dropped, or kept and marked) among the ``compared`` (parents of ``--parents`` are not);
    ``chunk_count`` then counts those written. ``dimensions`` is the size of the records'
    vectors (``--embed``; 0 without), so the run can refuse to write two sizes.
    """

    source: str
    doc_id: str
    chunks: tuple[Chunk, ...] = ()
    diagnostics: tuple[Diagnostic, ...] = ()
    error: str | None = None
    document: Document | None = None
    content_hash: str | None = None
    unchanged: bool = False
    rendered: tuple[bytes, ...] | None = None
    chunk_count: int = 0
    violations: tuple[str, ...] = ()
    dropped: tuple[tuple[str, Dropped], ...] = ()
    failed_parts: tuple[str, ...] = ()
    embedded: int = 0
    cached: int = 0
    llm: tuple[tuple[str, int], ...] = ()
    duplicates: int = 0
    compared: int = 0
    dimensions: int = 0


def first_line(text: str) -> str:
    """Return the first non-blank line of an exception's text (messages are one line)."""
    return next((line.strip() for line in text.splitlines() if line.strip()), "")
