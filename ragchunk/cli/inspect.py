"""``ragchunk inspect``: parse one file and show its sections, or print its text exactly."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Annotated, Final, Optional

import typer

from ragchunk.cli._app import EXIT_FAILED_INPUTS, app, one_line, stdout_console, usage_errors
from ragchunk.cli.split import HIDDEN_SLIDES_HELP, KEEP_BOILERPLATE_HELP, NOTES_HELP

if TYPE_CHECKING:
    from rich.table import Table
    from rich.text import Text

    from ragchunk.engine import Diagnostic
    from ragchunk.model import Chunk, Document

_PREVIEW: Final = 60

INSPECT_HELP = """Show how ragchunk reads a file: its sections (kind, headings, pages, span, lines).

[bold]--text[/bold] prints the extracted document text exactly, with nothing added, so every
chunk's start and end can be checked by slicing it. A file holding several documents (an
mbox) shows each; with --text each text follows a line "==> DOC_ID <==".

[bold]Examples[/bold]

  ragchunk inspect report.pdf

  ragchunk inspect notes.md --text | head

  ragchunk inspect locked.pdf --password secret
"""


@app.command("inspect", help=INSPECT_HELP)
def inspect_command(
    path: Annotated[str, typer.Argument(help="The file to parse, or - for standard input.")],
    text: Annotated[
        bool, typer.Option("--text", help="Print the document text exactly, nothing else.")
    ] = False,
    input_format: Annotated[
        Optional[str],  # noqa: UP045 - Typer needs Optional on Python 3.11
        typer.Option(
            "--format", help="Force the input format instead of detecting it.", show_default=False
        ),
    ] = None,
    password: Annotated[
        Optional[str],  # noqa: UP045
        typer.Option(help="Password for encrypted PDFs.", show_default=False),
    ] = None,
    # What the parsers are asked (issue 16), as for `split`.
    keep_boilerplate: Annotated[
        bool, typer.Option("--keep-boilerplate", help=KEEP_BOILERPLATE_HELP)
    ] = False,
    notes: Annotated[bool, typer.Option("--notes", help=NOTES_HELP)] = False,
    hidden_slides: Annotated[
        bool, typer.Option("--hidden-slides", help=HIDDEN_SLIDES_HELP)
    ] = False,
) -> None:
    """Parse one file and render its sections (the help text is INSPECT_HELP)."""
    from ragchunk import engine, parsers
    from ragchunk.errors import InputError
    from ragchunk.parsers._spec import ParseOptions, ParseRequest
    from ragchunk.reading import parse_documents, read_input

    if input_format is not None:
        with usage_errors():
            parsers.check_name(input_format)
    diagnostics: list[Diagnostic] = []

    def warn(code: str, message: str) -> None:
        diagnostics.append(engine.Diagnostic(path, code, message))

    options = ParseOptions(
        keep_boilerplate=keep_boilerplate, notes=notes, hidden_slides=hidden_slides
    )
    request = ParseRequest(source=path, doc_id=path, password=password, options=options, warn=warn)
    try:
        found = list(parse_documents(read_input(path), request, format=input_format))
    except InputError as exc:
        _warn(diagnostics)
        sys.stderr.write(f"error: {one_line(str(exc))}\n")
        raise typer.Exit(EXIT_FAILED_INPUTS) from None
    _warn(diagnostics)
    documents = [doc for doc in found if not isinstance(doc, InputError)]
    for number, doc in enumerate(documents):
        if text:
            _show_text(doc, several=len(found) > 1, first=number == 0)
        else:
            _show(doc)
    failed = [str(error) for error in found if isinstance(error, InputError)]
    for message in failed:
        sys.stderr.write(f"error: {one_line(message)}\n")
    if failed:
        raise typer.Exit(EXIT_FAILED_INPUTS)


def _show_text(doc: Document, *, several: bool, first: bool) -> None:
    """Print the text exactly; the documents of a container each under a ``==> id <==`` line."""
    if several:
        sys.stdout.write(f"{'' if first else chr(10)}==> {doc.doc_id} <==\n")
    sys.stdout.write(doc.text)


def _show(doc: Document) -> None:
    from rich.text import Text

    console = stdout_console()
    console.print(Text(describe(doc)), soft_wrap=True)
    console.print(build_table(doc))
    if doc.metadata:
        fields = sorted(doc.metadata.items())
        console.print(Text(" · ".join(f"{k}: {v}" for k, v in fields)), soft_wrap=True)


def _warn(diagnostics: list[Diagnostic]) -> None:
    for diagnostic in diagnostics:
        sys.stderr.write(f"warning: {one_line(diagnostic.message)}\n")


def section_rows(doc: Document) -> list[Chunk]:
    """Return one record per section, with pages and lines derived as for chunks."""
    from ragchunk.chunks import assemble
    from ragchunk.model import Span

    spans = [Span(s.start, s.end, headings=s.headings) for s in doc.sections]
    return assemble(doc, spans, strategy="inspect", fingerprint="")


def describe(doc: Document) -> str:
    """Return the one-line summary printed above the table."""
    pages = f" · {len(doc.pages)} pages" if doc.pages else ""
    return (
        f"{doc.source} · {doc.format} · {len(doc.text)} chars · {len(doc.sections)} sections{pages}"
    )


def build_table(doc: Document) -> Table:
    """Return the rich table of a document's sections."""
    from rich.table import Table
    from rich.text import Text

    table = Table()
    columns = ["#", "kind", "headings", "pages", "span", "lines", "preview"]
    if not doc.pages:
        columns.remove("pages")
    if not doc.has_lines:
        columns.remove("lines")
    for name in columns:
        if name in ("headings", "preview"):
            table.add_column(name, overflow="fold", ratio=1, min_width=16)
        else:
            table.add_column(name, no_wrap=True)
    for section, row in zip(doc.sections, section_rows(doc), strict=True):
        cells: dict[str, str | Text] = {
            "#": str(row.index),
            "kind": section.kind if not section.level else f"{section.kind} {section.level}",
            "headings": Text(" › ".join(row.headings)),
            "pages": _range(row.page_start, row.page_end),
            "span": f"{row.start}–{row.end}",
            "lines": _range(row.line_start, row.line_end),
            "preview": Text(_preview(row.text)),
        }
        table.add_row(*(cells[name] for name in columns))
    return table


def _preview(text: str) -> str:
    """Return the start of a section on one line (a table cell must not hold a whole book)."""
    flat = " ".join(text[: _PREVIEW * 4].split())
    return flat if len(flat) <= _PREVIEW else flat[: _PREVIEW - 1] + "…"


def _range(first: int | None, last: int | None) -> str:
    if first is None:
        return ""
    return str(first) if first == last else f"{first}–{last}"
