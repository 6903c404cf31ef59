"""``ragchunk view``: parse flags, build the plans, draw each input's page, print where it is."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional

import typer

from ragchunk.cli._app import EXIT_FAILED_INPUTS, app, one_line, usage_errors
from ragchunk.cli._options import ConfigFlag, parse_recipe_flags, settings_command
from ragchunk.cli._panels import OUTPUT, STRATEGY, PanelledCommand
from ragchunk.errors import UsageError
from ragchunk.settings import Settings

if TYPE_CHECKING:
    from collections.abc import Callable

    from ragchunk.pipeline.scopes import Plans
    from ragchunk.runs.inputs import Found
    from ragchunk.settings import Run
    from ragchunk.view import View

VIEW_HELP = """Draw a document's chunks as one self-contained HTML page.

The page shows the text with every chunk coloured, overlaps hatched, pages and heading paths,
a list of the chunks with their records, a size histogram with the limit and the settings.
It is one file: it loads nothing from the network. PATH is a file, - for standard input, or
a directory (one page per input and an index.html; an mbox is drawn as one, a page per
message). Without -o the page is NAME.view.html (a directory: NAME.view/) in the current
directory; its path is printed.

Examples:

\b
  ragchunk view report.pdf --open
  ragchunk view guide.md -s markdown --compare '-s recursive --size 300'
  ragchunk view notes.txt --size 200 --overlap 40 -o notes.html
  ragchunk view docs/ -o site/
"""


@app.command(
    "view",
    cls=PanelledCommand,
    help=VIEW_HELP,
)
@settings_command(
    "strategy",
    "size",
    "overlap",
    "unit",
    "tokenizer",
    "options",
    "compare",
    "output",
    "open_page",
    "count_tokens",
    "contextualize",
    "min_size",
    "parents",
    "format",
    "password",
    "language",
    "timeout",
    "max_bytes",
    "max_text",
    "config",
    "include",
    "exclude",
    "gitignore",
    "debug",
)
def view_command(
    path: Annotated[
        str,
        typer.Argument(
            help="A file, a directory, or - for standard input.",
            show_default=False,
            metavar="PATH",
        ),
    ],
    flags: Settings,
    compare: Annotated[
        Optional[str],  # noqa: UP045 - Typer needs Optional on Python 3.11
        typer.Option(
            "--compare",
            help="Show a second chunking beside the first: its options in one quoted string, "
            "as split takes them ('-s recursive --size 300'); what it leaves out is the "
            "first one's.",
            metavar="OPTIONS",
            show_default=False,
            rich_help_panel=STRATEGY,
        ),
    ] = None,
    output: Annotated[
        Optional[str],  # noqa: UP045
        typer.Option(
            "--output",
            "-o",
            help="Write the page to this file; for a directory, the pages and index.html "
            "to this directory.",
            metavar="FILE|DIR/",
            show_default=False,
            rich_help_panel=OUTPUT,
        ),
    ] = None,
    open_page: Annotated[
        bool,
        typer.Option("--open", help="Open the page in the web browser.", rich_help_panel=OUTPUT),
    ] = False,
    config: ConfigFlag = None,
) -> None:
    """Draw the pages (the help text is VIEW_HELP)."""
    from ragchunk.pipeline.scopes import make_plans
    from ragchunk.runs.config import load_config
    from ragchunk.settings import merge

    with usage_errors():
        configuration = load_config(config)
        plans = make_plans(configuration, flags)
        compared = None
        if compare is not None:
            second = merge(parse_recipe_flags(compare, "--compare"), flags)
            try:
                compared = make_plans(configuration, second)
            except UsageError as exc:
                raise UsageError(f"--compare: {exc}") from None
        run = merge(flags, configuration.defaults).run
        directory = _directory_output(path, output) if _is_directory(path) else None
        found = None if directory is None else _walk(path, run, directory)
    if directory is not None and found is not None:
        shown, failed = _view_directory(path, found, plans, compared, directory)
    else:
        shown, failed = _view_file(path, plans, compared, output)
    if shown is not None:
        sys.stdout.write(f"{one_line(str(shown))}\n")
        if open_page:
            import webbrowser

            webbrowser.open(shown.resolve().as_uri())
    if failed:
        raise typer.Exit(EXIT_FAILED_INPUTS)


def _is_directory(path: str) -> bool:
    from ragchunk.defaults import STDIN

    return path != STDIN and Path(path).is_dir()


def _directory_output(path: str, output: str | None) -> Path:
    """Return the directory the pages of a directory go to.

    Raises:
        UsageError: ``-o`` names an existing file.
    """
    from ragchunk.view.site import default_output

    if output is None:
        return default_output(path, directory=True, cwd=Path())
    target = Path(output)
    if target.exists() and not target.is_dir():
        raise UsageError(f"-o {output} is a file; the pages of a directory need a directory")
    return target


def _walk(path: str, run: Run, directory: Path) -> Found:
    """Return the inputs under ``path``; the output directory itself is never an input."""
    from ragchunk.runs.globs import make_globs
    from ragchunk.runs.inputs import WalkOptions, absolute, find_inputs

    walk = WalkOptions(
        include=make_globs(run.include),
        exclude=make_globs(run.exclude),
        gitignore=run.gitignore,
        skip=frozenset({absolute(directory)}),
    )
    return find_inputs([path], walk)


def _views(source: str, doc_id: str, plans: Plans, compared: Plans | None) -> list[View]:
    """Return the views of one input (one per message of an mbox), its problems said."""
    from ragchunk.view import make_views

    plan = plans.for_input(source, doc_id)
    second = compared.for_input(source, doc_id).recipe if compared is not None else None
    views = make_views(source, doc_id, plan, second)
    for view in views:
        for diagnostic in view.diagnostics:
            _say(f"warning: {diagnostic.message}")
        if view.error is not None:
            _say(f"error: {view.error}")
    return views


def _view_file(
    path: str, plans: Plans, compared: Plans | None, output: str | None
) -> tuple[Path | None, bool]:
    """Draw one input's page; return it (None when the input failed) and whether it failed.

    A container (an mbox) is drawn as a directory is: a page per message and an index.
    """
    from ragchunk.runs.inputs import doc_id_for
    from ragchunk.view import render_page
    from ragchunk.view.site import file_output

    doc_id = doc_id_for(path)
    views = _views(path, doc_id, plans, compared)
    if len(views) > 1 or views[0].doc_id != doc_id:
        with usage_errors():
            directory = _directory_output(path, output)
        return _draw_pages(path, [(Path(path).name, doc_id, views)], directory, ())
    view = views[0]
    if view.error is not None:
        return None, True
    target = file_output(path, output, cwd=Path())
    html = _render(view, render_page)
    if html is None or not _write(target, html):
        return None, True
    return target, False


def _view_directory(
    path: str, found: Found, plans: Plans, compared: Plans | None, directory: Path
) -> tuple[Path | None, bool]:
    """Draw a page per input and the index; return the index and whether any input failed."""
    from ragchunk.view.site import relative_name

    for note in found.notes:
        _say(f"note: {note.message}")
    inputs = []
    for item in found.inputs:
        # Pages mirror the walked tree; the records keep the run's doc_id (as split gives).
        name = relative_name(item.source, path)
        inputs.append((name, item.doc_id, _views(item.source, item.doc_id, plans, compared)))
    notes = tuple(note.message for note in found.notes)
    return _draw_pages(path, inputs, directory, notes)


def _draw_pages(
    title: str,
    inputs: list[tuple[str, str, list[View]]],
    directory: Path,
    notes: tuple[str, ...],
) -> tuple[Path | None, bool]:
    """Write a page per view that has one and the index; return it and whether any failed.

    A page that cannot be drawn is an error in the index, not a stop.
    """
    from ragchunk.errors import InputError
    from ragchunk.view import IndexEntry, View, render_index, render_page
    from ragchunk.view.site import INDEX_NAME, page_path, relative_link

    index = directory / INDEX_NAME
    entries: list[IndexEntry] = []
    for name, doc_id, views in inputs:
        for view in views:
            page_name = name + view.doc_id[len(doc_id) :]  # a message of an mbox: NAME#N
            try:
                page = page_path(directory, page_name)
            except InputError as exc:
                refused = View(view.source, view.doc_id, error=f"{view.source}: {exc}")
                _say(f"error: {refused.error}")
                entries.append(IndexEntry(page_name, refused, None))
                continue
            if view.error is None:
                html = _render(view, render_page, index_href=relative_link(page, index))
                if html is None or not _write(page, html):
                    error = f"{view.doc_id}: its page was not written"
                    view = View(view.source, view.doc_id, error=error)
            href = relative_link(index, page) if view.error is None else None
            entries.append(IndexEntry(page_name, view, href))
    failed = any(entry.view.error is not None for entry in entries)
    if not _write(index, render_index(title, entries, notes)):
        return None, True
    return index, failed


def _render(view: View, render: Callable[..., str], **kwargs: str) -> str | None:
    """Return the page of a view, or None (said on stderr) when it cannot be drawn."""
    try:
        return render(view, **kwargs)
    except Exception as exc:  # noqa: BLE001 - a page is never worth a traceback: the run goes on
        _say(f"error: {view.doc_id}: cannot draw its page: {type(exc).__name__}: {exc}")
        return None


def _write(target: Path, html: str) -> bool:
    """Write one page; say why not and return False when it cannot be written."""
    from ragchunk.view.site import write_page

    try:
        write_page(target, html)
    except OSError as exc:
        _say(f"error: cannot write {target}: {exc.strerror or exc}")
        return False
    return True


def _say(message: str) -> None:
    sys.stderr.write(f"{one_line(message)}\n")
