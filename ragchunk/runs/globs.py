"""Path globs, as ``--include``/``--exclude`` and configuration file sections use them.

``/`` separates segments; ``*``, ``?`` and ``[...]`` match within a segment, ``**`` matches any
number of segments. A glob without a ``/`` matches a name at any depth (``*.md``); one with a
``/`` is anchored at the walked directory (``docs/*.md``, ``/README.md``); a trailing ``/``
matches directories only; a glob matching a directory takes in what lies below it. Wildcards
never match a leading ``.``, so ``*`` never reaches into ``.cache`` while ``.github/**`` does.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from ragchunk.errors import UsageError


@dataclass(frozen=True, slots=True)
class Glob:
    """A path glob (see the module docstring).

    Raises:
        UsageError: the glob is empty.
    """

    text: str
    segments: tuple[str, ...] = field(init=False)
    dir_only: bool = field(init=False)

    def __post_init__(self) -> None:
        text = self.text.strip()
        if not text.strip("/"):
            raise UsageError(f"a glob must name something (got {self.text!r})")
        anchored = "/" in text.rstrip("/")
        segments = tuple(s for s in text.strip("/").split("/") if s)
        if not anchored:
            segments = ("**", *segments)
        object.__setattr__(self, "segments", segments)
        object.__setattr__(self, "dir_only", text.endswith("/"))

    def matches(self, parts: Sequence[str], *, is_dir: bool = False) -> bool:
        """Return whether the relative path ``parts`` matches the glob."""
        if self.dir_only and not is_dir:
            return False
        return _match(self.segments, tuple(parts), prefix=False)

    def covers(self, parts: Sequence[str], *, is_dir: bool = False) -> bool:
        """Return whether ``parts`` matches, or lies in a directory that matches.

        Below a matching directory, hidden names still need a glob that names them.
        """
        parts = tuple(parts)
        if self.matches(parts, is_dir=is_dir):
            return True
        for k in range(len(parts) - 1, 0, -1):
            if parts[k].startswith("."):
                return False
            if self.matches(parts[:k], is_dir=True):
                return True
        return False

    def may_match_below(self, parts: Sequence[str]) -> bool:
        """Return whether some path inside the directory ``parts`` could match the glob."""
        return _match(self.segments, tuple(parts), prefix=True)

    def excludes_contents(self, parts: Sequence[str]) -> bool:
        """Return whether the glob is ``X/**`` with ``X`` matching the directory ``parts``."""
        if len(self.segments) < 2 or self.segments[-1] != "**":
            return False
        return _match(self.segments[:-1], tuple(parts), prefix=False)


def make_globs(texts: Sequence[str]) -> tuple[Glob, ...]:
    """Return the globs for ``texts``, validated.

    Raises:
        UsageError: an empty glob.
    """
    return tuple(Glob(text) for text in texts)


def _match(segments: tuple[str, ...], parts: tuple[str, ...], *, prefix: bool) -> bool:
    """Match path ``parts`` against glob ``segments`` (``prefix``: could a deeper path match?)."""
    memo: dict[tuple[int, int], bool] = {}

    def at(i: int, j: int) -> bool:
        key = (i, j)
        if key not in memo:
            memo[key] = step(i, j)
        return memo[key]

    def step(i: int, j: int) -> bool:
        if j == len(parts):
            if prefix:
                return i < len(segments)
            return all(s == "**" for s in segments[i:])
        if i == len(segments):
            return False
        segment, name = segments[i], parts[j]
        if segment == "**":
            return at(i + 1, j) or (not name.startswith(".") and at(i, j + 1))
        return _segment_matches(segment, name) and at(i + 1, j + 1)

    return at(0, 0)


def _segment_matches(segment: str, name: str) -> bool:
    import fnmatch  # only runs with globs; imported late to keep start-up short

    # Like a shell: a wildcard never matches the leading dot of a hidden name.
    if name.startswith(".") and not segment.startswith("."):
        return False
    return fnmatch.fnmatchcase(name, segment)
