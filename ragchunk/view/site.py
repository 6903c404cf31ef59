"""Where the pages of a view run go: one file, or a directory of pages plus ``index.html``.

Without ``-o`` a file's page is ``NAME.view.html`` in the current directory (``NAME`` is the
file's name without its extension; standard input is ``stdin``) and a directory's pages go to
``NAME.view/``. Under a directory each input's page mirrors the input tree, as ``split -o DIR/``
does (``DIR/guide/intro.md.html``), never outside it; pages are written atomically.
"""

from __future__ import annotations

import os
import posixpath
from pathlib import Path, PurePath
from typing import Final

from ragchunk.defaults import STDIN
from ragchunk.errors import InputError
from ragchunk.sinks.atomic import atomic_writer
from ragchunk.sinks.tree import STDIN_NAME, SUFFIX, mirror_path

PAGE_SUFFIX: Final = ".html"
INDEX_NAME: Final = "index.html"
VIEW_SUFFIX: Final = ".view"


def default_output(path: str, *, directory: bool, cwd: Path) -> Path:
    """Return where the page of ``path`` goes without ``-o`` (a directory for a directory)."""
    if path == STDIN:
        name = STDIN_NAME
    else:
        given = Path(path).resolve() if directory else Path(path)
        name = given.name if directory else given.stem
    if directory:
        return cwd / f"{name or 'root'}{VIEW_SUFFIX}"
    return cwd / f"{name}{VIEW_SUFFIX}{PAGE_SUFFIX}"


def file_output(path: str, output: str | None, *, cwd: Path) -> Path:
    """Return the page of one file: ``-o FILE``, or the default name in ``-o DIR`` or here."""
    if output is None:
        return default_output(path, directory=False, cwd=cwd)
    target = Path(output)
    if output.endswith(("/", "\\")) or target.is_dir():
        return default_output(path, directory=False, cwd=target)
    return target


def relative_name(source: str, walked: str) -> str:
    """Return ``source``'s path below the walked directory ``walked``, ``/``-separated."""
    return PurePath(os.path.relpath(source, walked)).as_posix()


def page_path(directory: Path, doc_id: str) -> Path:
    """Return the page of ``doc_id`` under ``directory``: ``directory/doc_id.html``.

    Raises:
        InputError: the page would lie outside ``directory`` or be the index page itself.
    """
    mirrored = mirror_path(directory, doc_id)
    page = mirrored.with_name(mirrored.name.removesuffix(SUFFIX) + PAGE_SUFFIX)
    if page == directory / INDEX_NAME:
        raise InputError(f"its page {page} would replace the index page")
    return page


def relative_link(page: Path, target: Path) -> str:
    """Return a relative URL path from ``page`` to ``target`` (both under one directory)."""
    return posixpath.relpath(target.as_posix(), page.parent.as_posix())


def write_page(path: Path, html: str) -> None:
    """Write one page atomically (its parent directories are made)."""
    with atomic_writer(path) as handle:
        handle.write(html)
