"""What a run did: counts for the summaries, and the manifest's entries.

A ``Tally`` counts what becomes of each input of a ``Batch`` and keeps the manifest's entries;
``Tally.recording`` saves the manifest when the run ends, even cut short, and removes the
outputs of inputs that are gone.
"""

from __future__ import annotations

import contextlib
import os
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ragchunk.defaults import STDIN
from ragchunk.pipeline.results import FileResult

if TYPE_CHECKING:
    from ragchunk.runs.batch import Batch
    from ragchunk.runs.manifest import Entry
    from ragchunk.runs.workers import Job


@dataclass(slots=True, eq=False, repr=False)
class Tally:
    """What a run did so far: counts for the summaries, and the manifest's entries.

    ``failures`` starts with the inputs ``prepare`` refused; ``entries`` with the manifest's.
    """

    batch: Batch
    done: int = 0
    chunked: int = 0
    chunks: int = 0
    unchanged: int = 0
    removed: int = 0
    violations: int = 0
    violating: int = 0
    duplicates: int = 0
    compared: int = 0  # the chunks --dedupe compared (not the parents of --parents)
    embedded: int = 0  # texts sent to the embedder
    cached: int = 0  # texts the embedding cache answered
    llm: Counter[str] = field(default_factory=Counter)  # what the chat model cost and made
    failures: list[FileResult] = field(default_factory=list)
    entries: dict[str, Entry] = field(default_factory=dict)
    output_kept: bool = False  # -o FILE: every input failed, the previous file was left alone
    dimensions: int = 0  # the size of the vectors written so far (--embed)

    @classmethod
    def start(cls, batch: Batch) -> Tally:
        """Return the tally of a run that has not begun."""
        entries = dict(batch.manifest.entries) if batch.manifest is not None else {}
        return cls(batch, failures=list(batch.refused), entries=entries)

    def fail(self, job: Job, result: FileResult) -> None:
        """Count a failed input; its manifest entry goes, so that the next run tries it again."""
        self.done += 1
        self.failures.append(result)
        manifest = self.batch.manifest
        if manifest is not None:
            self.entries.pop(manifest.key(job.source), None)

    def skip(self) -> None:
        """Count an input the manifest knows unchanged (not parsed, nothing written)."""
        self.done += 1
        self.unchanged += 1

    def add(self, job: Job, target: Path | None, result: FileResult) -> None:
        """Count an input whose output is written, and record it in the manifest.

        The documents of a container that failed (``result.failed_parts``) count as failures.
        """
        self.done += 1
        self.chunked += 1
        self.chunks += result.chunk_count
        self.duplicates += result.duplicates
        self.compared += result.compared
        self.embedded += result.embedded
        self.cached += result.cached
        self.llm.update(dict(result.llm))
        if result.violations:
            self.violations += len(result.violations)
            self.violating += 1
        # A container whose documents failed in part: they are failures too, and the input
        # is not recorded, so that the next run reads it again.
        self.failures += (
            FileResult(result.source, result.doc_id, error=failure)
            for failure in result.failed_parts
        )
        manifest = self.batch.manifest
        if manifest is not None and result.failed_parts:
            self.entries.pop(manifest.key(job.source), None)
        elif manifest is not None and job.source != STDIN:
            from ragchunk.runs.manifest import Entry, settings_digest

            self.entries[manifest.key(job.source)] = Entry(
                hash=result.content_hash or "",
                settings=settings_digest(job.plan.recipe),
                output=manifest.output_key(target),
                chunks=result.chunk_count,
            )

    def remove_gone(self) -> None:
        """Drop the entries of inputs that are gone, and their outputs under ``-o DIR/``."""
        manifest, output_dir = self.batch.manifest, self.batch.output_dir
        if manifest is None:
            return
        kept = set(self.batch.outputs)
        sources = (job.source for job in self.batch.jobs)
        for key, entry in manifest.gone(self.batch.roots, sources).items():
            self.entries.pop(key, None)
            self.removed += 1
            if entry.output is None or output_dir is None:
                continue
            output = manifest.resolve(entry.output)
            if output not in kept and _is_inside(output, output_dir):
                output.unlink(missing_ok=True)
                _remove_empty_parents(output.parent, output_dir)

    @contextlib.contextmanager
    def recording(self) -> Iterator[None]:
        """Save the manifest when the block ends, even when it is cut short.

        Per-input files are complete once renamed into place, so a run cut short still records
        them; one shared output file is discarded then, so nothing is recorded. Removals of
        gone inputs happen only when the run is complete.
        """
        complete = False
        try:
            yield
            complete = True
        finally:
            manifest = self.batch.manifest
            if manifest is not None and (complete or self.batch.output_dir is not None):
                from ragchunk.runs.manifest import save_manifest

                if complete:
                    self.remove_gone()
                save_manifest(manifest.path, self.entries)


def _remove_empty_parents(directory: Path, top: Path) -> None:
    """Remove ``directory`` and its parents up to ``top`` (excluded) while they are empty."""
    while _is_inside(directory, top) and directory.resolve() != top.resolve():
        try:
            directory.rmdir()
        except OSError:  # not empty (or not ours to remove): stop climbing
            return
        directory = directory.parent


def _is_inside(path: Path, directory: Path) -> bool:
    base = os.path.realpath(directory)
    return os.path.commonpath([os.path.realpath(path), base]) == base
