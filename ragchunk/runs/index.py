"""``ragchunk index``: keep a vector store in step with a document tree, the same on every store.

For every input of the run, its bytes are hashed (by the worker that would chunk it): an input
whose ledger entry holds the same content hash and settings hash is skipped without being
parsed. The others are chunked exactly as ``ragchunk split`` chunks them (same ids, texts,
spans, pages, headings), then, in this process, each chunk gets its vector: the stored one when
its key is stored with the same text (an unchanged chunk, moved or not), else the embedder's
through the vector cache (only texts the cache has not seen reach the model), the texts of
several documents per call (``ragchunk.runs.index_embed``), each document written, in input
order, once its vectors are in. The records go to the store by key (``ragchunk.sinks._sync``):
new, rewritten and moved ones upserted, vanished keys deleted, the ledger entry last, all
through ``Store.apply``. A document under a walked root that the walk no longer finds is
removed (``prune=False`` keeps it); documents outside the run's roots are never touched. A
document that fails keeps its old chunks.

The store records the embedder that made its vectors (``Store.meta``), for ``ragchunk query``.
Vectors of another size than the store's are refused before they are written, naming both.
With ``dry_run`` the store is only read: the report says what would change.
"""

from __future__ import annotations

import dataclasses
import functools
import json
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, cast

from ragchunk.errors import BackendError, UsageError
from ragchunk.runs.batch import prepare, results
from ragchunk.runs.index_embed import Embedding, Waiting, embedded_text
from ragchunk.runs.inputs import doc_id_for
from ragchunk.sinks._store import Counts, LedgerEntry
from ragchunk.sinks._sync import (
    DIMENSION,
    EMBEDDER,
    apply_changes,
    changes,
    check_dimension,
    chunk_keys,
    make_record,
)

if TYPE_CHECKING:
    from ragchunk.backends import EmbedderSpec
    from ragchunk.backends.cache import CachedEmbedder
    from ragchunk.pipeline.plan import Plan, Recipe
    from ragchunk.pipeline.results import FileResult
    from ragchunk.runs.batch import Batch
    from ragchunk.runs.config import Config
    from ragchunk.runs.inputs import Note
    from ragchunk.settings import Settings
    from ragchunk.sinks._store import Store

OnDocument = Callable[[str, str], None]
"""Called with each document's source and what became of it (``added``, ``changed``,
``unchanged``, ``failed``, ``deleted``, ``kept``), in input order, then the pruned ones; a
document is told once the store holds its new state (Chroma writes several documents at once)."""
EMBEDDER_KEYS = ("embedder", "embed_model", "embed_url", "embed_key_env", "device")
"""The embedding settings a store records, so that ``query`` embeds as ``index`` did."""


@dataclass(slots=True)
class IndexReport:
    """What an ``index`` run did (or, with ``dry_run``, would do).

    Attributes:
        store: the store's URL, any password masked.
        added, changed, unchanged, deleted: documents new to the store, rewritten, skipped
            without being parsed, and removed (gone from a walked root).
        kept: documents gone from a walked root but kept (``prune=False``).
        failures: the inputs that failed, each keeping its old chunks in the store.
        counts: what the store wrote (records written, moved, deleted; ledger entries); a
            dry run's: what it would write.
        embedded: texts sent to the embedding model (a dry run's: that it would send).
        cached: texts the vector cache answered.
        reused: vectors kept from the store (a chunk stored with the same text).
        tokens: a dry run's: the tokens of the texts to embed (the run's tokenizer).
        notes: what the walk left out.
    """

    store: str
    dry_run: bool = False
    added: int = 0
    changed: int = 0
    unchanged: int = 0
    deleted: int = 0
    kept: int = 0
    failures: list[FileResult] = field(default_factory=list)
    counts: Counts = field(default_factory=Counts)
    embedded: int = 0
    cached: int = 0
    reused: int = 0
    tokens: int = 0
    notes: tuple[Note, ...] = ()


def index(
    paths: Sequence[str],
    store: str,
    *,
    settings: Settings | None = None,
    config: Config | None = None,
    prune: bool = True,
    dry_run: bool = False,
    on_document: OnDocument | None = None,
) -> IndexReport:
    """Bring the store at URL ``store`` in step with ``paths`` (files, directories walked).

    ``settings`` shape the chunks as ``ragchunk split``'s flags do (``--embed`` is implied:
    the embedding settings choose the embedder), over the scopes of ``config``.

    Raises:
        UsageError: bad usage found before any input is read (a bad option, an unknown store,
            a missing extra, ``--parents``).
        StoreError: the store is down, locked by another run, refused a write, or holds
            vectors of another size (nothing of this run written then).
    """
    from ragchunk import sinks
    from ragchunk.runs.config import Config
    from ragchunk.settings import Settings, merge, scope

    config = Config() if config is None else config
    asked = {"embed": True, **({"dry_run": True} if dry_run else {})}
    settings = merge(scope(asked), Settings() if settings is None else settings)
    batch, run_root = _prepare(paths, config, settings)
    spec = sinks.get(sinks.choose(store, None))
    with spec.open(store) as sink:
        if not hasattr(sink, "ledger"):
            raise UsageError(f"{store}: {spec.name} is not a vector store")
        sync = _Sync(cast("Store", sink), batch, on_document, dry_run=dry_run)
        sync.run()
        if not sync.stopped:
            roots = [doc_id_for(root, run_root) for root in batch.roots]
            sync.prune(roots, prune=prune)
        if not dry_run:
            sync.report.counts = sync.store.counts
        return sync.report


def _prepare(paths: Sequence[str], config: Config, settings: Settings) -> tuple[Batch, str]:
    """Return the run's batch (plans checked: one embedder, no ``--parents``) and its root."""
    from ragchunk.pipeline.scopes import make_plans
    from ragchunk.settings import merge

    plans = make_plans(config, settings)
    every = [plans.default, *(plan for _, plan in plans.rules)]
    if any(plan.recipe.parents is not None for plan in every):
        raise UsageError("--parents: index does not store parent records yet; leave it out")
    if len({plan.recipe.embedder for plan in every}) > 1:
        raise UsageError("a store holds one embedder's vectors: give every scope the same one")
    run = dataclasses.replace(merge(settings, config.defaults).run, manifest=None)
    return prepare(list(paths), plans, run, output=None), run.root or "."


def settings_hash(recipe: Recipe) -> str:
    """Return the digest of what shapes a document's records: chunks, and the embedding model.

    The embedder counts by its identity (its model), not by how it is reached (batch size,
    timeout...), so changing those rewrites nothing.
    """
    import hashlib

    from ragchunk.backends import EmbedderSpec, identity_of
    from ragchunk.runs.manifest import settings_digest

    plain = EmbedderSpec()

    def without(one: Recipe) -> Recipe:
        choices = {name: without(choice) for name, choice in one.choices.items()}
        return dataclasses.replace(one, embed=False, embedder=plain, choices=choices)

    made = f"{settings_digest(without(recipe))}\0{identity_of(recipe.embedder)}"
    return hashlib.sha256(made.encode()).hexdigest()[:32]


def embedder_meta(spec: EmbedderSpec) -> str:
    """Return the embedder's settings as the store records them (``EMBEDDER``)."""
    from ragchunk.settings import from_spec

    values = from_spec("embedding", spec)
    return json.dumps({name: values[name] for name in EMBEDDER_KEYS}, sort_keys=True)


class _Sync:
    """One run over one open store (see the module docstring)."""

    def __init__(
        self, store: Store, batch: Batch, on_document: OnDocument | None, *, dry_run: bool
    ) -> None:
        from ragchunk.backends import open_embedder

        self.store = store
        self.batch = batch
        self.on_document = on_document
        self.dry_run = dry_run
        self.report = IndexReport(store.url, dry_run=dry_run, notes=batch.notes)
        self.stopped = False
        default = batch.jobs[0].plan if batch.jobs else None
        self.embedder: CachedEmbedder | None = None
        self.embedding: Embedding | None = None
        if default is not None:
            self.embedder = open_embedder(default.recipe.embedder, default.policy.cache)
            counting = default.recipe.tokenizer if dry_run else None
            self.embedding = Embedding.for_embedder(self.embedder, self.report, counting)
        self.queue: deque[Waiting] = deque()
        self.unsaid: list[tuple[str, str]] = []  # documents done, told once written (``_tell``)
        self.ledger = dict(store.ledger())

    @functools.cached_property
    def dimension(self) -> int | None:  # read before the first write: a rerun never reads it
        return self.store.dimension()

    @functools.cached_property
    def meta(self) -> dict[str, str]:  # the same
        return dict(self.store.meta())

    def run(self) -> None:
        """Sync every input, in input order."""
        from ragchunk.runs.worker import unchanged

        hashes: dict[int, str] = {}
        plans: dict[int, Plan] = {}
        jobs = []
        for job in self.batch.jobs:
            key = id(job.plan)
            if key not in plans:
                hashes[key] = settings_hash(job.plan.recipe)
                plans[key] = _chunking_only(job.plan)
            entry = self.ledger.get(job.doc_id)
            known = entry.content_hash if entry and entry.settings_hash == hashes[key] else None
            jobs.append(dataclasses.replace(job, plan=plans[key], known_hash=known))
        digests = [hashes[id(job.plan)] for job in self.batch.jobs]
        # Unchanged documents are told here, their bytes hashed in this process: a rerun with
        # nothing to chunk starts no worker process (forking one costs more than hashing).
        same = [unchanged(job) for job in jobs]
        todo = [k for k, result in enumerate(same) if result is None]
        if todo and not self.dry_run:  # a store that locks at its first write locks now
            getattr(self.store, "will_write", lambda: None)()
            getattr(self.store, "gather", lambda: None)()  # writes documents together (Chroma)
        outputs = tuple(self.batch.outputs[k] for k in todo)
        batch = dataclasses.replace(self.batch, jobs=tuple(jobs[k] for k in todo), outputs=outputs)
        with results(batch) as outcomes:
            made = iter(outcomes)
            for job, result, digest in zip(jobs, same, digests, strict=True):
                if result is None:
                    job, _, result = next(made)
                self._take(Waiting(job, result, digest))
                if self.stopped:
                    break
            self._flush(final=True)

    def _take(self, waiting: Waiting) -> None:
        """Queue a document (in input order); write those whose vectors are all in."""
        if any(queued.job.doc_id == waiting.job.doc_id for queued in self.queue):
            self._flush(final=True)  # its stored records are read once the other is written
        result = waiting.result
        if not (result.error or result.failed_parts or result.unchanged or self.stopped):
            self._prepare(waiting)
        self.queue.append(waiting)
        self._flush(final=False)

    def _flush(self, *, final: bool) -> None:
        """Write the ready documents at the head of the queue; embed while a call is full.

        With ``final``, embed what waits (a last, shorter call) until the queue is empty.
        """
        while True:
            while self.queue and self.queue[0].ready and not self.stopped:
                self._document(self.queue.popleft())
            getattr(self.store, "flush", lambda: None)()  # a store that gathers writes them
            self._tell()
            if self.stopped or self.embedding is None or not self.embedding.pending:
                break
            if not (final or self.embedding.full):
                break
            self.embedding.call()

    def _document(self, waiting: Waiting) -> None:
        result = waiting.result
        if result.error is not None or result.failed_parts:
            # A container with a part that failed keeps its old chunks whole, like any failure.
            self._failed(result, result.error or "; ".join(result.failed_parts))
        elif result.unchanged:
            self.report.unchanged += 1
            self._said(result.source, "unchanged")
        elif waiting.error is not None:
            self._failed(result, f"{result.source}: {waiting.error}")
        else:
            try:
                self._sync(waiting)
            except BackendError as exc:
                self._failed(result, f"{result.source}: {exc}")

    def _failed(self, result: FileResult, error: str) -> None:
        self.report.failures.append(dataclasses.replace(result, chunks=(), error=error))
        self._said(result.source, "failed")
        self.stopped = self.batch.fail_fast

    def _sync(self, waiting: Waiting) -> None:
        job, result, digest, keys = waiting.job, waiting.result, waiting.digest, waiting.keys
        vectors = [vector if vector is not None else () for vector in waiting.vectors]
        self.report.reused += waiting.reused
        model = self.embedder.model if self.embedder is not None else ""
        records = [
            make_record(chunk, key, vector, model)
            for chunk, key, vector in zip(waiting.chunks, keys, vectors, strict=True)
        ]
        found = changes(records, waiting.stored)
        entry = LedgerEntry(
            doc_id=job.doc_id,
            source=job.source,
            content_hash=result.content_hash or "",
            settings_hash=digest,
            keys=tuple(keys),
        )
        known = self.ledger.get(job.doc_id)
        status = "changed" if known is not None else "added"
        if self.dry_run:
            self._count_plan(found.written, found.moved, len(found.delete), ledger=known != entry)
        else:
            if found.upsert:
                size = len(found.upsert[0].vector)
                check_dimension(self.store, self.dimension, size)
                self._record_embedder(size)
                self.dimension = size
            apply_changes(self.store, entry, found, known)
        if status == "added":
            self.report.added += 1
        else:
            self.report.changed += 1
        self._said(job.source, status)

    def _prepare(self, waiting: Waiting) -> None:
        """Give each chunk its vector: its own (late chunking), the stored one, or queue it.

        The texts to embed go to ``self.embedding`` (a dry run's counts them).
        """
        waiting.chunks = [chunk for chunk in waiting.result.chunks if not chunk.is_parent]
        waiting.keys = chunk_keys(waiting.chunks, waiting.digest)
        todo = waiting.known_vectors(self.store.records(waiting.job.doc_id))
        texts = [embedded_text(waiting.chunks[k]) for k in todo]
        if texts and self.embedding is not None:
            self.embedding.add(waiting, todo, texts)

    def _count_plan(self, written: int, moved: int, deleted: int, *, ledger: bool) -> None:
        counts = self.report.counts
        counts.written += written
        counts.moved += moved
        counts.deleted += deleted
        counts.ledger += int(ledger)

    def _record_embedder(self, size: int) -> None:
        """Record the embedder and the vectors' size in the store, unless it holds them."""
        if self.embedder is None:
            return
        wanted = {EMBEDDER: embedder_meta(self.embedder.spec), DIMENSION: str(size)}
        if any(self.meta.get(name) != value for name, value in wanted.items()):
            self.store.set_meta(wanted)
            self.meta.update(wanted)

    def prune(self, roots: Sequence[str], *, prune: bool) -> None:
        """Remove (or with ``prune`` False, count) the documents gone from a walked root."""
        found = {job.doc_id for job in self.batch.jobs}
        gone = sorted(
            doc_id
            for doc_id in self.ledger
            if doc_id not in found and any(_is_under(doc_id, root) for root in roots)
        )
        for doc_id in gone:
            entry = self.ledger[doc_id]
            if not prune:
                self.report.kept += 1
                self._said(entry.source, "kept")
                continue
            if self.dry_run:
                self._count_plan(0, 0, len(entry.keys), ledger=True)
            else:
                self.store.remove(doc_id)
            self.report.deleted += 1
            self._said(entry.source, "deleted")
            self._tell()

    def _said(self, source: str, status: str) -> None:
        """Note what became of a document; ``_tell`` says it once the store has written it."""
        self.unsaid.append((source, status))

    def _tell(self) -> None:
        """Call ``on_document`` for what the store now holds (a gathering store: after flush)."""
        said, self.unsaid = self.unsaid, []
        if self.on_document is not None:
            for source, status in said:
                self.on_document(source, status)


def _chunking_only(plan: Plan) -> Plan:
    """Return ``plan`` without ``--embed``: workers chunk, this process gives the vectors."""

    def without(recipe: Recipe) -> Recipe:
        choices = {name: without(choice) for name, choice in recipe.choices.items()}
        return dataclasses.replace(recipe, embed=False, choices=choices)

    return dataclasses.replace(plan, recipe=without(plan.recipe))


def _is_under(doc_id: str, root: str) -> bool:
    """Whether ``doc_id`` lies under the walked root whose own ``doc_id`` is ``root``."""
    if root == ".":
        return not doc_id.startswith("/") and doc_id != "-"
    return doc_id.startswith(root.rstrip("/") + "/")
