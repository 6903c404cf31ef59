"""The progress bar on stderr (``ragchunk.cli._progress``): when it shows, and what it counts."""

from __future__ import annotations

import io
import sys
from collections.abc import Callable

import pytest
from rich.console import Console

from ragchunk.cli._progress import progress_bar, shows_progress
from ragchunk.pipeline.results import FileResult


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.fixture
def terminal(monkeypatch: pytest.MonkeyPatch) -> Callable[[], io.StringIO]:
    """Make stderr a terminal (call it in the test: pytest's capture resets stderr before)."""

    def make() -> io.StringIO:
        monkeypatch.setattr(sys, "stderr", _Terminal())
        return io.StringIO()  # where the bar is drawn

    return make


def test_it_shows_on_a_terminal_for_many_inputs_or_embeddings(
    terminal: Callable[[], io.StringIO],
) -> None:
    terminal()
    assert shows_progress(quiet=False, total=2)
    assert shows_progress(quiet=False, total=1, embeds=True)
    assert not shows_progress(quiet=False, total=1)
    assert not shows_progress(quiet=True, total=50, embeds=True)


def test_never_on_a_pipe(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stderr", io.StringIO())
    assert not shows_progress(quiet=False, total=50, embeds=True)


def test_the_bar_counts_inputs_chunks_and_embeddings(terminal: Callable[[], io.StringIO]) -> None:
    drawing = terminal()
    console = Console(file=drawing, force_terminal=True, width=160, color_system=None)
    made: list[Console] = []

    def make() -> Console:
        made.append(console)
        return console

    with progress_bar(make, 2, quiet=False, embeds=True) as advance:
        advance(FileResult("a.txt", "a.txt", chunk_count=3, embedded=4, cached=1))
        advance(FileResult("b.txt", "b.txt", chunk_count=2, embedded=2, cached=2))
        drawn = drawing.getvalue()
    assert made == [console]
    assert "2/2" in drawn
    assert "5 chunks" in drawn
    assert "6 embedded" in drawn
    assert "3 from cache" in drawn


def test_no_bar_makes_no_console(terminal: Callable[[], io.StringIO]) -> None:
    terminal()

    def make() -> Console:
        raise AssertionError("a console was made for a hidden bar")

    with progress_bar(make, 1, quiet=False, embeds=False) as advance:
        advance(FileResult("a.txt", "a.txt", chunk_count=1))
    with progress_bar(make, 9, quiet=False, embeds=False, shown=False) as advance:
        advance(FileResult("a.txt", "a.txt", chunk_count=1))
