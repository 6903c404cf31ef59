"""The progress bar of a run on stderr, shown only on a terminal.

It counts inputs, chunks and files/s and, with embeddings, texts embedded per second and the
cache's hits.
"""

from __future__ import annotations

import contextlib
import sys
import time
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.console import Console

    from ragchunk.pipeline.results import FileResult


def shows_progress(*, quiet: bool, total: int, embeds: bool = False) -> bool:
    """Return whether progress is shown: on a terminal, unless ``--quiet``, for many inputs.

    A run that embeds shows it for one input too (the model's work takes a while).

    On Ray, Ray Data's own bars show it (inputs done, per operator) when stdout is a terminal
    too, else ragchunk's bar does, as in local runs.
    """
    return not quiet and (total > 1 or embeds) and sys.stderr.isatty()


@contextlib.contextmanager
def progress_bar(
    console: Callable[[], Console], total: int, *, quiet: bool, embeds: bool, shown: bool = True
) -> Iterator[Callable[[FileResult], None]]:
    """Yield ``advance(result)``, which counts one finished input.

    A bar is shown on stderr for multi-file runs and runs that embed, only when stderr is a
    terminal; with embeddings it counts the texts embedded per second and the cache's hits.
    ``console`` gives the console to draw on, made only when a bar is shown (rich is slow to
    import).
    """
    if not shown or not shows_progress(quiet=quiet, total=total, embeds=embeds):
        yield _ignore
        return
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    files = "files · {task.fields[chunks]} chunks · {task.fields[rate]} files/s ·"
    if embeds:
        files += " {task.fields[embedded]} embedded, {task.fields[speed]}/s · "
        files += "{task.fields[cached]} from cache ·"
    progress = Progress(
        TextColumn("chunking"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn(files),
        TimeElapsedColumn(),
        TextColumn("· eta"),
        TimeRemainingColumn(),
        console=console(),
        transient=True,
        # No refresh thread (worker processes may be forked while it would run), and hands off
        # sys.stdout: it carries the JSONL.
        auto_refresh=False,
        redirect_stdout=False,
        redirect_stderr=False,
    )
    started, counts = time.monotonic(), [0, 0, 0, 0]

    def advance(result: FileResult) -> None:
        counts[0] += 1
        counts[1] += result.chunk_count
        counts[2] += result.embedded
        counts[3] += result.cached
        seconds = max(time.monotonic() - started, 1e-6)
        progress.update(
            task,
            advance=1,
            chunks=counts[1],
            rate=f"{counts[0] / seconds:.1f}",
            embedded=counts[2],
            speed=f"{counts[2] / seconds:.0f}",
            cached=counts[3],
            refresh=True,
        )

    with progress:
        task = progress.add_task(
            "chunking", total=total, chunks=0, rate="–", embedded=0, speed="–", cached=0
        )
        progress.refresh()
        yield advance


def _ignore(result: FileResult) -> None:
    """Count nothing (no progress bar)."""
