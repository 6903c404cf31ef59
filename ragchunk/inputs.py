"""Inputs: the files a run chunks, found by walking the paths the user gave (SPEC §5, §6).

A file named on the command line is always an input, as given (``doc_id`` = the path as given).
A directory is walked depth-first with the entries of each directory sorted by name, so the order
is stable; each file's ``doc_id`` is its path relative to that directory. The walk skips:

- hidden entries (a name starting with ``.``) unless an ``--include`` glob names them, and
  version-control directories (``.git``...) always;
- entries matched by an ``--exclude`` glob, and files matched by no ``--include`` glob (if any);
- paths ignored by ``.gitignore`` files (those in the tree, plus those of the enclosing git
  repository above it, and ``.git/info/exclude``), unless ``gitignore`` is off;
- binary files that no parser claims by extension (with a note), special files (FIFOs, sockets)
  and broken symlinks (with a note);
- a symlink back to a directory being walked (a loop) or to one walked already, and directories
  nested deeper than ``MAX_DEPTH`` (with a note).

Globs: ``/`` separates segments; ``*``, ``?`` and ``[...]`` match within a segment, ``**`` matches
any number of segments. A glob without a ``/`` matches a name at any depth (``*.md``); one with a
``/`` is anchored at the walked directory (``docs/*.md``, ``/README.md``); a trailing ``/`` matches
directories only; a glob matching a directory takes in what lies below it. Wildcards never match
a leading ``.``, so ``*`` never reaches into ``.cache`` while ``.github/**`` does.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePath
from typing import TYPE_CHECKING, Final

from ragchunk import parsers
from ragchunk.errors import InputError, UsageError

if TYPE_CHECKING:
    from pathspec import GitIgnoreSpec

STDIN: Final = "-"
VCS_DIRECTORIES: Final = frozenset({".git", ".hg", ".svn", ".bzr", "_darcs"})
"""Version-control metadata: never walked, whatever the globs say."""
MAX_DEPTH: Final = 200
"""Directories nested deeper than this are skipped with a note (walks stay bounded)."""
SNIFF_BYTES: Final = 8192
"""How much of an unclaimed file is read to tell text from binary (as the text parser does)."""


@dataclass(frozen=True, slots=True)
class Input:
    """One file to chunk: ``source`` is the path to read, ``doc_id`` its id in the output."""

    source: str
    doc_id: str


@dataclass(frozen=True, slots=True)
class Note:
    """Why a path found while walking is not an input; ``message`` is one sentence."""

    path: str
    code: str
    message: str


@dataclass(frozen=True, slots=True)
class Found:
    """The inputs of a run, in order, and the notes about what the walk left out."""

    inputs: tuple[Input, ...]
    notes: tuple[Note, ...]


@dataclass(frozen=True, slots=True)
class Glob:
    """A path glob as ``--include``/``--exclude`` and configuration files use it.

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


@dataclass(frozen=True, slots=True, kw_only=True)
class WalkOptions:
    """How directories are walked.

    Attributes:
        include: when given, only files matching one of these globs are inputs.
        exclude: files and directories matching one of these globs are left out.
        gitignore: honour ``.gitignore`` files.
        skip: absolute paths never taken as inputs (the run's own output and manifest).
    """

    include: tuple[Glob, ...] = ()
    exclude: tuple[Glob, ...] = ()
    gitignore: bool = True
    skip: frozenset[str] = frozenset()


def make_globs(texts: Sequence[str]) -> tuple[Glob, ...]:
    """Return the globs for ``texts``, validated.

    Raises:
        UsageError: an empty glob.
    """
    return tuple(Glob(text) for text in texts)


def find_inputs(paths: Sequence[str], options: WalkOptions | None = None) -> Found:
    """Return every input for ``paths`` (files as given, directories walked) and the notes."""
    options = options or WalkOptions()
    inputs: list[Input] = []
    notes: list[Note] = []
    for path in paths:
        if path != STDIN and Path(path).is_dir():
            for item in _Walk(Path(path), options).run():
                if isinstance(item, Input):
                    inputs.append(item)
                else:
                    notes.append(item)
        else:
            inputs.append(Input(path, path if path == STDIN else Path(path).as_posix()))
    return Found(tuple(inputs), tuple(notes))


def is_binary(source: str, head: bytes) -> bool:
    """Return whether a file no parser claims by extension holds binary data.

    ``head`` is the file's first ``SNIFF_BYTES`` bytes. Content a parser recognises (a PDF, a
    DOCX) is not binary; otherwise the text decoder's own rule decides (zero bytes that are not
    UTF-16), so the walk skips exactly what the text parser would reject.
    """
    from ragchunk.parsers._decode import decode
    from ragchunk.parsers._spec import ParseRequest

    if parsers.detect(source, head, source) != "text":
        return False
    try:
        decode(head, ParseRequest(source=source))
    except InputError:
        return True
    return False


def absolute(path: str | os.PathLike[str]) -> str:
    """Return ``path`` made absolute and normalised, symbolic links left as they are."""
    return os.path.normpath(Path(path).absolute())


def _is_claimed(name: str) -> bool:
    suffix = PurePath(name).suffix.lower()
    return bool(suffix) and any(suffix in exts for _, exts in parsers.FORMATS.values())


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


@dataclass(frozen=True, slots=True)
class _Ignore:
    """One ``.gitignore``: paths below the walk root are checked as ``prefix + parts[strip:]``."""

    spec: GitIgnoreSpec
    strip: int
    prefix: tuple[str, ...]

    def check(self, parts: tuple[str, ...], *, is_dir: bool) -> bool | None:
        """Return True (ignored), False (re-included by ``!``) or None (no rule applies)."""
        path = "/".join((*self.prefix, *parts[self.strip :])) + ("/" if is_dir else "")
        return self.spec.check_file(path).include


class _Walk:
    """One directory walk: sorted, filtered, loop-safe (see the module docstring)."""

    def __init__(self, root: Path, options: WalkOptions) -> None:
        self.root = root
        self.options = options
        self.seen: dict[tuple[int, int], str] = {}

    def run(self) -> Iterator[Input | Note]:
        """Yield the inputs under the root in order, and notes as they arise."""
        ignores = self._repository_ignores() if self.options.gitignore else []
        stat = self.root.stat()
        yield from self._directory((), ignores, [(stat.st_dev, stat.st_ino)])

    def _directory(
        self,
        parts: tuple[str, ...],
        ignores: list[_Ignore],
        active: list[tuple[int, int]],
    ) -> Iterator[Input | Note]:
        directory = self.root.joinpath(*parts)
        self.seen.setdefault(active[-1], "/".join(parts) or ".")
        if self.options.gitignore:
            ignores = [*ignores, *self._load_ignore(directory, len(parts))]
        try:
            with os.scandir(directory) as scan:
                entries = sorted(scan, key=lambda e: e.name)
        except OSError as exc:
            yield Note(str(directory), "unreadable", f"{directory}: cannot list ({exc.strerror})")
            return
        for entry in entries:
            yield from self._entry(entry, (*parts, entry.name), ignores, active)

    def _entry(
        self,
        entry: os.DirEntry[str],
        parts: tuple[str, ...],
        ignores: list[_Ignore],
        active: list[tuple[int, int]],
    ) -> Iterator[Input | Note]:
        path = str(self.root.joinpath(*parts))
        if self.options.skip and absolute(path) in self.options.skip:
            return
        is_dir = entry.is_dir()
        if not self._wanted(parts, is_dir=is_dir, ignores=ignores):
            return
        if is_dir:
            yield from self._subdirectory(entry, path, parts, ignores, active)
        elif entry.is_file():
            yield from self._file(path, parts)
        elif entry.is_symlink():
            yield Note(path, "broken-symlink", f"{path}: skipped, a broken symbolic link")
        else:
            yield Note(path, "special-file", f"{path}: skipped, not a regular file")

    def _subdirectory(
        self,
        entry: os.DirEntry[str],
        path: str,
        parts: tuple[str, ...],
        ignores: list[_Ignore],
        active: list[tuple[int, int]],
    ) -> Iterator[Input | Note]:
        try:
            stat = entry.stat()
        except OSError as exc:
            yield Note(path, "unreadable", f"{path}: cannot read ({exc.strerror})")
            return
        key = (stat.st_dev, stat.st_ino)
        if len(parts) > MAX_DEPTH:
            message = f"{path}: skipped, nested deeper than {MAX_DEPTH} directories"
            yield Note(path, "too-deep", message)
            return
        if key in active:
            yield Note(path, "symlink-loop", f"{path}: skipped, a symbolic link loop")
            return
        if key in self.seen:
            message = f"{path}: skipped, the same directory as {self.seen[key]} (walked already)"
            yield Note(path, "duplicate-directory", message)
            return
        active.append(key)
        try:
            yield from self._directory(parts, ignores, active)
        finally:
            active.pop()

    def _file(self, path: str, parts: tuple[str, ...]) -> Iterator[Input | Note]:
        if not _is_claimed(parts[-1]):
            try:
                with Path(path).open("rb") as handle:
                    head = handle.read(SNIFF_BYTES)
            except OSError:
                head = b""  # unreadable: let processing report it as this input's failure
            if is_binary(path, head):
                yield Note(path, "binary", f"{path}: skipped, binary data")
                return
        yield Input(path, "/".join(parts))

    def _wanted(self, parts: tuple[str, ...], *, is_dir: bool, ignores: list[_Ignore]) -> bool:
        options = self.options
        if is_dir and parts[-1] in VCS_DIRECTORIES:
            return False
        if any(g.matches(parts, is_dir=is_dir) for g in options.exclude):
            return False
        if is_dir and any(_excludes_contents(g, parts) for g in options.exclude):
            return False
        if _is_ignored(ignores, parts, is_dir=is_dir):
            return False
        if not options.include:
            return not parts[-1].startswith(".")
        # With --include, the globs decide; their wildcards never match a leading dot, so a
        # hidden entry is taken only when a glob names it.
        if is_dir:
            return any(
                g.covers(parts, is_dir=True) or g.may_match_below(parts) for g in options.include
            )
        return any(g.covers(parts) for g in options.include)

    def _load_ignore(self, directory: Path, depth: int) -> list[_Ignore]:
        spec = _read_ignore_file(directory / ".gitignore")
        return [] if spec is None else [_Ignore(spec, depth, ())]

    def _repository_ignores(self) -> list[_Ignore]:
        """Return the ignore files above the root, up to the enclosing repository's top."""
        root = Path(absolute(self.root))
        top = next((d for d in (root, *root.parents) if (d / ".git").exists()), None)
        if top is None:
            return []
        ignores = []
        spec = _read_ignore_file(top / ".git" / "info" / "exclude")
        if spec is not None:
            ignores.append(_Ignore(spec, 0, root.relative_to(top).parts))
        for directory in reversed(root.parents):
            if directory == top or top in directory.parents:
                spec = _read_ignore_file(directory / ".gitignore")
                if spec is not None:
                    ignores.append(_Ignore(spec, 0, root.relative_to(directory).parts))
        return ignores


def _excludes_contents(glob: Glob, parts: tuple[str, ...]) -> bool:
    """Return whether ``glob`` is ``X/**`` with ``X`` matching the directory ``parts``."""
    if len(glob.segments) < 2 or glob.segments[-1] != "**":
        return False
    return _match(glob.segments[:-1], parts, prefix=False)


def _is_ignored(ignores: list[_Ignore], parts: tuple[str, ...], *, is_dir: bool) -> bool:
    # The deepest .gitignore with a matching rule decides, as in git.
    for ignore in reversed(ignores):
        verdict = ignore.check(parts, is_dir=is_dir)
        if verdict is not None:
            return verdict
    return False


def _read_ignore_file(path: Path) -> GitIgnoreSpec | None:
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return None
    from pathspec import GitIgnoreSpec

    return GitIgnoreSpec.from_lines(lines)
