"""Windows: a document's sentences packed into stretches one chat request shows, and shares.

Sentences come from ``text.sentences`` (spans without their surrounding whitespace); a window
is a run of whole sentences at most ``size`` characters long from its first sentence's start
to its last one's end, so every span here is absolute and half-open into the document text.
``allot`` decides how many questions each window of a document is asked for.
"""

from __future__ import annotations

from dataclasses import dataclass

from ragchunk.text.sentences import split_sentences


@dataclass(frozen=True, slots=True)
class Window:
    """A stretch of one document asked about: absolute ``[start, end)`` and its sentences' spans."""

    document: int
    start: int
    end: int
    sentences: tuple[tuple[int, int], ...]


def cut_windows(text: str, size: int, *, document: int = 0) -> list[Window]:
    """Return ``text``'s sentences packed greedily into windows of at most ``size`` characters.

    A sentence longer than ``size`` is cut into pieces that fit (at whitespace when it can).
    """
    pieces: list[tuple[int, int]] = []
    for start, end in split_sentences(text, language="auto"):
        pieces.extend(_fit(text, start, end, size))
    windows: list[Window] = []
    group: list[tuple[int, int]] = []
    for piece in pieces:
        if group and piece[1] - group[0][0] > size:
            windows.append(Window(document, group[0][0], group[-1][1], tuple(group)))
            group = []
        group.append(piece)
    if group:
        windows.append(Window(document, group[0][0], group[-1][1], tuple(group)))
    return windows


def allot(windows: int, wanted: int, seed: int = 0) -> list[int]:
    """Return how many questions each of ``windows`` windows is asked for (they sum to wanted).

    Each gets an even share; the remainder goes to windows evenly spaced from the middle of
    their stretches, rotated by ``seed``.
    """
    if windows == 0:
        return []
    shares = [wanted // windows] * windows
    extra = wanted % windows
    for i in range(extra):
        shares[(((2 * i + 1) * windows) // (2 * extra) + seed) % windows] += 1
    return shares


def _fit(text: str, start: int, end: int, size: int) -> list[tuple[int, int]]:
    pieces: list[tuple[int, int]] = []
    while end - start > size:
        cut = text.rfind(" ", start + size // 2, start + size)
        cut = start + size if cut < 0 else cut
        pieces.append((start, cut))
        start = cut
        while start < end and text[start].isspace():
            start += 1
    if start < end:
        pieces.append((start, end))
    return pieces
