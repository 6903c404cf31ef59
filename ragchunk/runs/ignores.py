"""``.gitignore`` rules for directory walks, with ripgrep's rule for the directory named.

Every ``.gitignore`` in a walked tree applies below its own directory, as in git; the deepest
file with a rule that matches decides, and ``!`` rules re-include. The ``.gitignore`` files
above the walked directory, up to the top of the enclosing git repository, and that
repository's ``.git/info/exclude`` apply too, with one exception: they decide what the walk
finds *below* the directory the user named, and never exclude that directory itself. So
``data/`` in a repository's ``.gitignore`` leaves ``split .`` without ``data``, while ``split
data/`` chunks it (a ``.gitignore`` inside ``data/``, and a rule such as ``*.log`` or
``data/*.tmp`` above it, still apply to what lies below).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathspec import GitIgnoreSpec

IGNORE_FILE = ".gitignore"


@dataclass(frozen=True, slots=True, eq=False, repr=False)
class IgnoreFile:
    """One ignore file's rules, checked against paths relative to the walked directory.

    A path below the walked directory (its ``parts``) is checked as ``prefix +
    parts[strip:]``: ``strip`` is the depth of a ``.gitignore`` inside the tree, ``prefix`` the
    walked directory's path relative to an ignore file above it (empty for those inside).
    """

    spec: GitIgnoreSpec
    strip: int
    prefix: tuple[str, ...]

    def check(self, parts: tuple[str, ...], *, is_dir: bool) -> bool | None:
        """Return True (ignored), False (re-included by ``!``) or None (no rule applies)."""
        path = "/".join((*self.prefix, *parts[self.strip :])) + ("/" if is_dir else "")
        if not self.prefix:
            return self.spec.check_file(path).include
        return _check_below(self.spec, path, len("/".join(self.prefix)))


def read_ignore_file(path: Path) -> GitIgnoreSpec | None:
    """Return the rules of the ignore file at ``path``, or None when it cannot be read."""
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return None
    from pathspec import GitIgnoreSpec

    return GitIgnoreSpec.from_lines(lines)


def tree_ignores(directory: Path, depth: int) -> list[IgnoreFile]:
    """Return the ``.gitignore`` of a directory ``depth`` levels inside the walked one."""
    spec = read_ignore_file(directory / IGNORE_FILE)
    return [] if spec is None else [IgnoreFile(spec, depth, ())]


def repository_ignores(root: Path) -> list[IgnoreFile]:
    """Return the ignore files above ``root`` up to its repository's top, outermost first.

    ``root`` is absolute. Outside a git repository there are none.
    """
    top = next((d for d in (root, *root.parents) if (d / ".git").exists()), None)
    if top is None:
        return []
    ignores = []
    spec = read_ignore_file(top / ".git" / "info" / "exclude")
    if spec is not None:
        ignores.append(IgnoreFile(spec, 0, root.relative_to(top).parts))
    for directory in reversed(root.parents):
        if directory == top or top in directory.parents:
            spec = read_ignore_file(directory / IGNORE_FILE)
            if spec is not None:
                ignores.append(IgnoreFile(spec, 0, root.relative_to(directory).parts))
    return ignores


def is_ignored(ignores: list[IgnoreFile], parts: tuple[str, ...], *, is_dir: bool) -> bool:
    """Return whether ``parts`` (relative to the walked directory) is ignored."""
    # The deepest ignore file with a matching rule decides, as in git.
    for ignore in reversed(ignores):
        verdict = ignore.check(parts, is_dir=is_dir)
        if verdict is not None:
            return verdict
    return False


def _check_below(spec: GitIgnoreSpec, path: str, floor: int) -> bool | None:
    """Check ``path`` as ``spec.check_file`` does, minus matches on ``path[:floor]`` or above.

    pathspec matches a path below an ignored directory through a directory mark: the regular
    expression's named group that matched the ``/`` after that directory. A mark at or before
    ``floor`` means that the rule matched the walked directory (or one above it), not anything
    the walk finds below it: that match is dropped. The rest mirrors pathspec's own loop for
    ``GitIgnoreSpec`` (a file rule outranks a directory rule, except that an ignored directory
    cannot have a file re-included).
    """
    from pathspec.patterns.gitignore.spec import _DIR_MARK

    include: bool | None = None
    priority = 0
    for pattern in spec.patterns:
        if pattern.include is None:
            continue
        result = pattern.match_file(path)
        if result is None:
            continue
        match = result.match
        dir_mark = match.groupdict().get(_DIR_MARK)
        if dir_mark and match.start(_DIR_MARK) <= floor:
            continue
        rank = 1 if dir_mark else 2
        if (pattern.include and dir_mark) or rank >= priority:
            include, priority = pattern.include, rank
    return include
