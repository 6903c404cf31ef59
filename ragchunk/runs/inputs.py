"""Inputs: the files a run chunks, found by walking the paths the user gave (SPEC §5, §6).

A file named on the command line is always an input. A directory is walked depth-first with
the entries of each directory sorted by name, so the order is stable.

Every input's ``doc_id`` follows one rule, however the file was reached (``doc_id_for``): its
path relative to the *root* (``--root``, default the current directory), ``/``-separated,
``.`` and ``..`` resolved and symbolic links left as they are; a file outside the root gets its
absolute path; standard input is ``-``. So ``split docs/a.md`` and ``split docs/`` give ``a.md``
the same ``doc_id`` (``docs/a.md``), two folders' ``tutorial/intro.md`` stay apart, and a run
from another directory with the same ``--root`` gives the same ids. A file reached twice in one
run (named and walked, or under two named folders) is chunked once, with a note, so a
``doc_id`` is unique within a run.

A directory named on the command line is always walked, whatever its name and whatever ignore
rules above it say; below it, the walk skips:

- hidden entries (a name starting with ``.``) unless an ``--include`` glob names them, and
  version-control directories (``.git``...) always;
- entries matched by an ``--exclude`` glob, and files matched by no ``--include`` glob (if any);
- paths ignored by ``.gitignore`` files (``ragchunk.runs.ignores``), unless ``gitignore`` is off;
- binary files that no parser claims by extension (with a note), special files (FIFOs, sockets)
  and broken symlinks (with a note);
- a symlink back to a directory being walked (a loop) or to one walked already, and directories
  nested deeper than ``MAX_DEPTH`` (with a note).

Skipped entries are counted by reason (``Found.skipped``; the reasons are ``SKIP_REASONS``), so
that a run can say what it left out and which flag would take it in. Globs: ``ragchunk.runs.globs``.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePath
from typing import Final

from ragchunk import parsers
from ragchunk.defaults import STDIN
from ragchunk.errors import InputError
from ragchunk.runs.globs import Glob
from ragchunk.runs.ignores import IgnoreFile, is_ignored, repository_ignores, tree_ignores

VCS_DIRECTORIES: Final = frozenset({".git", ".hg", ".svn", ".bzr", "_darcs"})
"""Version-control metadata: never walked, whatever the globs say (and not counted as skipped)."""
MAX_DEPTH: Final = 200
"""Directories nested deeper than this are skipped with a note (walks stay bounded)."""
SNIFF_BYTES: Final = 8192
"""How much of an unclaimed file is read to tell text from binary (as the text parser does)."""
SKIP_REASONS: Final = {
    "gitignore": ("", "ignored by .gitignore (use --no-gitignore)"),
    "hidden": ("hidden", "(use --include '*' --include '.*')"),
    "excluded": ("", "excluded by --exclude"),
    "not-included": ("", "not matched by --include"),
    "binary": ("binary", ""),
}
"""Why a walk skips an entry, in the order messages list them: reason → (adjective, phrase).

The phrase names the flag that would take the entries in, where one would."""


@dataclass(frozen=True, slots=True, eq=False, repr=False)
class Input:
    """One file to chunk: ``source`` is the path to read, ``doc_id`` its id in the output."""

    source: str
    doc_id: str


@dataclass(frozen=True, slots=True, eq=False, repr=False)
class Note:
    """Why a path found while walking is not an input; ``message`` is one sentence."""

    path: str
    code: str
    message: str


@dataclass(frozen=True, slots=True)
class Skipped:
    """How many files and directories the walks skipped for one reason (``SKIP_REASONS``).

    A skipped directory counts once: the walk does not enter it.
    """

    reason: str
    files: int = 0
    directories: int = 0


@dataclass(frozen=True, slots=True, eq=False, repr=False)
class Found:
    """The inputs of a run, in order, the notes about what the walk left out, and the counts.

    ``skipped`` holds one entry per reason that skipped anything, in ``SKIP_REASONS`` order.
    """

    inputs: tuple[Input, ...]
    notes: tuple[Note, ...]
    skipped: tuple[Skipped, ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True, eq=False, repr=False)
class WalkOptions:
    """How directories are walked.

    Attributes:
        include: when given, only files matching one of these globs are inputs.
        exclude: files and directories matching one of these globs are left out.
        gitignore: honour ``.gitignore`` files.
        skip: absolute paths never taken as inputs (the run's own output and manifest).
        root: the directory ``doc_id``s are relative to (``--root``; see ``doc_id_for``).
    """

    include: tuple[Glob, ...] = ()
    exclude: tuple[Glob, ...] = ()
    gitignore: bool = True
    skip: frozenset[str] = frozenset()
    root: str = "."


def doc_id_for(path: str, root: str = ".") -> str:
    """Return the ``doc_id`` of the file at ``path``: its path relative to ``root``.

    The path is made absolute and normalised (``..`` resolved, symbolic links kept) and taken
    relative to ``root`` the same way, ``/``-separated; a file outside ``root`` keeps its
    absolute path. Standard input (``-``) is ``-``. How the file was named or reached does not
    matter: this is the one rule for every input of every run (see the module docstring).
    """
    if path == STDIN:
        return STDIN
    full = absolute(path)
    base = absolute(root)
    if os.path.commonpath([full, base]) == base:
        return PurePath(os.path.relpath(full, base)).as_posix()
    return PurePath(full).as_posix()


def find_inputs(paths: Sequence[str], options: WalkOptions | None = None) -> Found:
    """Return every input for ``paths`` (files as given, directories walked) and the notes.

    A file reached a second time (same ``doc_id``) is left out with a note.
    """
    options = options or WalkOptions()
    inputs: list[Input] = []
    notes: list[Note] = []
    seen: dict[str, str] = {}
    counts = {reason: [0, 0] for reason in SKIP_REASONS}
    for path in paths:
        if path != STDIN and Path(path).is_dir():
            found: Iterator[Input | Note] = _Walk(Path(path), options, counts).run()
        else:
            found = iter((Input(path, doc_id_for(path, options.root)),))
        for item in found:
            if isinstance(item, Note):
                notes.append(item)
            elif item.doc_id in seen and item.doc_id != STDIN:
                message = (
                    f"{item.source}: skipped, the same file as {seen[item.doc_id]} (taken once)"
                )
                notes.append(Note(item.source, "duplicate-input", message))
            else:
                seen[item.doc_id] = item.source
                inputs.append(item)
    skipped = tuple(Skipped(r, f, d) for r, (f, d) in counts.items() if f or d)
    return Found(tuple(inputs), tuple(notes), skipped)


def describe_skipped(skipped: Sequence[Skipped]) -> str:
    """Return what the walks skipped as one phrase, each reason with the flag that takes it in.

    For example ``12 files ignored by .gitignore (use --no-gitignore), 3 binary files``.
    """
    described = []
    for item in skipped:
        adjective, phrase = SKIP_REASONS[item.reason]
        counted = [
            " ".join(filter(None, (str(n), adjective, noun if n == 1 else plural)))
            for n, noun, plural in (
                (item.files, "file", "files"),
                (item.directories, "directory", "directories"),
            )
            if n
        ]
        described.append(" ".join(filter(None, (" and ".join(counted), phrase))))
    return ", ".join(described)


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


class _Walk:
    """One directory walk: sorted, filtered, loop-safe (see the module docstring)."""

    def __init__(self, root: Path, options: WalkOptions, counts: dict[str, list[int]]) -> None:
        self.root = root
        self.options = options
        self.counts = counts  # skipped entries by reason: [files, directories], shared by walks
        self.seen: dict[tuple[int, int], str] = {}

    def run(self) -> Iterator[Input | Note]:
        """Yield the inputs under the root in order, and notes as they arise."""
        ignores = repository_ignores(Path(absolute(self.root))) if self.options.gitignore else []
        stat = self.root.stat()
        yield from self._directory((), ignores, [(stat.st_dev, stat.st_ino)])

    def _directory(
        self,
        parts: tuple[str, ...],
        ignores: list[IgnoreFile],
        active: list[tuple[int, int]],
    ) -> Iterator[Input | Note]:
        directory = self.root.joinpath(*parts)
        self.seen.setdefault(active[-1], "/".join(parts) or ".")
        if self.options.gitignore:
            ignores = [*ignores, *tree_ignores(directory, len(parts))]
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
        ignores: list[IgnoreFile],
        active: list[tuple[int, int]],
    ) -> Iterator[Input | Note]:
        path = str(self.root.joinpath(*parts))
        if self.options.skip and absolute(path) in self.options.skip:
            return
        is_dir = entry.is_dir()
        if is_dir and parts[-1] in VCS_DIRECTORIES:
            return
        reason = self._skip_reason(parts, is_dir=is_dir, ignores=ignores)
        if reason is not None:
            self.counts[reason][is_dir] += 1
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
        ignores: list[IgnoreFile],
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
                self.counts["binary"][0] += 1
                yield Note(path, "binary", f"{path}: skipped, binary data")
                return
        yield Input(path, doc_id_for(path, self.options.root))

    def _skip_reason(
        self, parts: tuple[str, ...], *, is_dir: bool, ignores: list[IgnoreFile]
    ) -> str | None:
        """Return why the entry ``parts`` is skipped (a ``SKIP_REASONS`` key), or None."""
        options = self.options
        if any(g.matches(parts, is_dir=is_dir) for g in options.exclude):
            return "excluded"
        if is_dir and any(g.excludes_contents(parts) for g in options.exclude):
            return "excluded"
        if is_ignored(ignores, parts, is_dir=is_dir):
            return "gitignore"
        if not options.include:
            return "hidden" if parts[-1].startswith(".") else None
        # With --include, the globs decide; their wildcards never match a leading dot, so a
        # hidden entry is taken only when a glob names it.
        if is_dir:
            wanted = any(
                g.covers(parts, is_dir=True) or g.may_match_below(parts) for g in options.include
            )
        else:
            wanted = any(g.covers(parts) for g in options.include)
        return None if wanted else "not-included"
