"""``ragchunk index``'s embedding: a local model's calls span documents, each written whole.

``ragchunk.runs.index`` hands over, in input order, each document it must write with the
texts whose vectors it lacks (``Waiting``). For a model run in this process, ``Embedding``
sends them in calls of ``LOCAL_CALL`` texts, across documents, so that the model runs full
batches whatever the size of the documents (an 11-chunk document no longer makes an 11-text
call, and ``encode`` sorts a longer call's texts by length, so its batches pad less).
An endpoint gets one document per call, as before: its client already sends a document's
texts in requests of ``batch_size``, ``concurrency`` at once, and each document is written as
soon as its own answer is in. The run writes each document, in input order, once its last
vector is in. A call that fails is tried again one document at a time, so that a failure stays
the failing document's (its old chunks are kept, the others are written).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ragchunk.errors import BackendError

if TYPE_CHECKING:
    from ragchunk.backends.cache import CachedEmbedder
    from ragchunk.measure import Measure
    from ragchunk.model import Chunk
    from ragchunk.pipeline.results import FileResult
    from ragchunk.runs.index import IndexReport
    from ragchunk.runs.workers import Job
    from ragchunk.sinks._store import StoreRecord

LOCAL_CALL = 128
"""Texts per call to a model run in this process (a batch, if ``--embed-batch-size`` is more)."""


@dataclass(eq=False, slots=True)
class Waiting:
    """One document of the run, in input order, and what it still waits for.

    Attributes:
        job, result, digest: the document, its chunking's result and its settings hash.
        chunks, keys: its chunks (no parents) and their store keys (``sync`` only).
        stored: its records as the store holds them, by key.
        vectors: each chunk's vector, None while the embedder has not answered for it.
        missing: how many of ``vectors`` are None.
        reused: vectors kept from the store.
        error: why the embedder failed for it (it is then not written).
    """

    job: Job
    result: FileResult
    digest: str
    chunks: list[Chunk] = field(default_factory=list)
    keys: list[str] = field(default_factory=list)
    stored: Mapping[str, StoreRecord] = field(default_factory=dict)
    vectors: list[Sequence[float] | None] = field(default_factory=list)
    missing: int = 0
    reused: int = 0
    error: str | None = None

    def known_vectors(self, stored: Mapping[str, StoreRecord]) -> list[int]:
        """Give each chunk the vector it has; return the indexes of the chunks left without.

        A chunk has its own (late chunking), else the stored one (its key, with its text).
        """
        self.stored = stored
        todo: list[int] = []
        for chunk, key in zip(self.chunks, self.keys, strict=True):
            old = stored.get(key)
            if chunk.embedding is not None:
                self.vectors.append(chunk.embedding)
            elif old is not None and old.text == chunk.text:
                self.vectors.append(old.vector)
                self.reused += 1
            else:
                todo.append(len(self.vectors))
                self.vectors.append(None)
        return todo

    @property
    def ready(self) -> bool:
        """Whether it can be written (or reported) now."""
        return self.missing == 0


@dataclass(slots=True)
class Embedding:
    """The texts waiting for the embedder, across documents (see the module docstring)."""

    embedder: CachedEmbedder
    report: IndexReport
    per_call: int
    counting: str | None = None
    pending: list[tuple[Waiting, int, str]] = field(default_factory=list)
    measure: Measure | None = None

    @classmethod
    def for_embedder(
        cls, embedder: CachedEmbedder, report: IndexReport, counting: str | None
    ) -> Embedding:
        """Return the queue for ``embedder`` (calls across documents for a local model).

        A local model gets calls of ``LOCAL_CALL`` texts, an endpoint calls of one document
        each (``per_call`` 0). With ``counting`` (a dry run's tokenizer) texts are
        only counted, with their tokens.
        """
        per_call = max(LOCAL_CALL, embedder.spec.batch_size or 0) if embedder.has_tokens else 0
        return cls(embedder, report, per_call, counting)

    def add(self, waiting: Waiting, todo: Sequence[int], texts: Sequence[str]) -> None:
        """Queue ``texts``, the ones to embed for ``waiting``'s chunks at ``todo``.

        A dry run's are counted (``report.embedded``, ``cached``, ``tokens``), not queued.
        """
        if self.counting is not None:
            self._count(texts, self.counting)
            return
        self.pending.extend((waiting, k, text) for k, text in zip(todo, texts, strict=True))
        waiting.missing += len(todo)

    @property
    def full(self) -> bool:
        """Whether a whole call's worth of texts is waiting."""
        return len(self.pending) >= self.per_call if self.per_call else bool(self.pending)

    def call(self) -> None:
        """Embed the next call's worth of waiting texts (one call; per document if it fails)."""
        size = self.per_call or sum(1 for item in self.pending if item[0] is self.pending[0][0])
        taken, self.pending = self.pending[:size], self.pending[size:]
        try:
            self._embed(taken)
        except BackendError as exc:
            owners = list(dict.fromkeys(waiting for waiting, _, _ in taken))
            if len(owners) == 1:
                self._failed(owners[0], exc)
                return
            for owner in owners:
                try:
                    self._embed([item for item in taken if item[0] is owner])
                except BackendError as alone:
                    self._failed(owner, alone)

    def _count(self, texts: Sequence[str], tokenizer: str) -> None:
        unseen = self.embedder.unseen(texts)
        self.report.embedded += len(unseen)
        self.report.cached += len(texts) - len(unseen)
        if self.measure is None:
            from ragchunk.measure import measure_for

            self.measure = measure_for("tokens", tokenizer)
        self.report.tokens += sum(self.measure.count(text) for text in unseen)

    def _embed(self, taken: Sequence[tuple[Waiting, int, str]]) -> None:
        before = (self.embedder.embedded, self.embedder.cached)
        try:
            made = self.embedder.embed([text for _, _, text in taken])
        finally:
            self.report.embedded += self.embedder.embedded - before[0]
            self.report.cached += self.embedder.cached - before[1]
        for (waiting, k, _), vector in zip(taken, made, strict=True):
            if waiting.error is None:
                waiting.vectors[k] = vector
                waiting.missing -= 1

    def _failed(self, waiting: Waiting, exc: BackendError) -> None:
        """Mark ``waiting`` failed: it is not written, and its other texts are not embedded."""
        if waiting.error is None:
            waiting.error = str(exc)
        self.pending = [item for item in self.pending if item[0] is not waiting]
        waiting.missing = 0


def embedded_text(chunk: Chunk) -> str:
    """Return what is embedded for a chunk (as ``split --embed``): its context, else its text."""
    return chunk.context if chunk.context is not None else chunk.text
