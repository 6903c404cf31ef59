"""``ragchunk inspect``: parse one file and show its sections, or print its text exactly."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Annotated, Final

import typer

from ragchunk.cli._app import (
    EXIT_FAILED_INPUTS,
    app,
    one_line,
    stdout_console,
    usage_errors,
)
from ragchunk.cli._options import READING_FLAGS, settings_command
from ragchunk.cli._panels import PanelledCommand
from ragchunk.settings import Settings

if TYPE_CHECKING:
    from rich.table import Table
    from rich.text import Text

    from ragchunk.model import Chunk, Document, JSONValue
    from ragchunk.pipeline.results import Diagnostic

_PREVIEW: Final = 60

INSPECT_HELP = """Show how ragchunk reads a file: its sections (kind, headings, pages, span, lines).

--text prints the extracted document text exactly, with nothing added, so every
chunk's start and end can be checked by slicing it. Below the sections, a PDF's page sizes in
points (chunks' boxes are drawn on them), and what reading left out or changed: a PDF's
removed running headers, footers and watermarks per page, joined hyphenation, OCR
confidence; a DOCX's comments, headers and footers. A file holding several documents (an
mbox) shows each; with --text each text follows a line "==> DOC_ID <==".

Examples:

\b
  ragchunk inspect report.pdf
  ragchunk inspect notes.md --text | head
  ragchunk inspect locked.pdf --password secret
  ragchunk inspect table.csv -O header=false --text
"""


@app.command(
    "inspect",
    cls=PanelledCommand,
    help=INSPECT_HELP,
)
# how inputs are read, as split; -O takes the parse options only (-O header=false)
@settings_command("text", "format", "password", "options", *READING_FLAGS)
def inspect_command(
    path: Annotated[
        str, typer.Argument(help="The file to parse, or - for standard input.", metavar="PATH")
    ],
    flags: Settings,
    text: Annotated[
        bool, typer.Option("--text", help="Print the document text exactly, nothing else.")
    ] = False,
) -> None:
    """Parse one file and render its sections (the help text is INSPECT_HELP)."""
    from ragchunk import parsers
    from ragchunk.errors import InputError
    from ragchunk.parsers._spec import ParseRequest
    from ragchunk.pipeline.plan import check_parse
    from ragchunk.pipeline.reading import parse_documents, read_input
    from ragchunk.pipeline.results import Diagnostic

    input_format, password, options = flags.chunking.format, flags.policy.password, flags.parsing
    with usage_errors():
        _only_parse_options(flags)
        if input_format is not None:
            parsers.check_name(input_format)
        check_parse(options)
    diagnostics: list[Diagnostic] = []

    def warn(code: str, message: str) -> None:
        diagnostics.append(Diagnostic(path, code, message))

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
        sys.stdout.write(f"{'' if first else chr(10)}==> {one_line(doc.doc_id)} <==\n")
    sys.stdout.write(doc.text)


def _show(doc: Document) -> None:
    from rich.text import Text

    console = stdout_console()
    console.print(Text(describe(doc)), soft_wrap=True)
    console.print(build_table(doc))
    if doc.metadata:
        fields = sorted(doc.metadata.items())
        console.print(Text(one_line(" · ".join(f"{k}: {v}" for k, v in fields))), soft_wrap=True)
    if doc.page_sizes:
        console.print(Text(page_sizes_line(doc.page_sizes)), soft_wrap=True)
    for line in extraction_lines(doc):
        console.print(Text(line), soft_wrap=True)


def _warn(diagnostics: list[Diagnostic]) -> None:
    for diagnostic in diagnostics:
        sys.stderr.write(f"warning: {one_line(diagnostic.message)}\n")


def section_rows(doc: Document) -> list[Chunk]:
    """Return one record per section, with pages and lines derived as for chunks."""
    from ragchunk.model import Span
    from ragchunk.pipeline.chunks import assemble

    spans = [Span(s.start, s.end, headings=s.headings) for s in doc.sections]
    return assemble(doc, spans, strategy="inspect", fingerprint="")


def page_sizes_line(sizes: tuple[tuple[float, float], ...]) -> str:
    """Return the pages' sizes in points, pages of one size together: ``612 × 792 pt (1–3)``."""
    groups: list[tuple[tuple[float, float], int, int]] = []
    for number, size in enumerate(sizes, start=1):
        if groups and groups[-1][0] == size:
            groups[-1] = (size, groups[-1][1], number)
        else:
            groups.append((size, number, number))
    return "page sizes: " + " · ".join(
        f"{width:g} × {height:g} pt ({_range(first, last)})"
        for (width, height), first, last in groups
    )


def describe(doc: Document) -> str:
    """Return the one-line summary printed above the table."""
    pages = f" · {len(doc.pages)} pages" if doc.pages else ""
    return one_line(
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
            "headings": Text(one_line(" › ".join(row.headings))),
            "pages": _range(row.page_start, row.page_end),
            "span": f"{row.start}–{row.end}",
            "lines": _range(row.line_start, row.line_end),
            "preview": Text(one_line(_preview(row.text))),
        }
        table.add_row(*(cells[name] for name in columns))
    return table


def extraction_lines(doc: Document) -> list[str]:
    """Return ``Document.extraction`` as lines: counts on one line, then each list.

    A list of records that name a page is shown page by page (a PDF's removed lines).
    """
    counts = [f"{key}: {value}" for key, value in doc.extraction.items() if _is_scalar(value)]
    lines = ["extraction: " + " · ".join(counts)] if counts else []
    for key, value in doc.extraction.items():
        if isinstance(value, list) and value:
            lines += _listed(key, value)
        elif isinstance(value, dict) and value:
            lines.append(f"{key}: " + " · ".join(f"{k}: {v}" for k, v in value.items()))
    return [one_line(line) for line in lines]


def _is_scalar(value: JSONValue) -> bool:
    return not isinstance(value, list | dict)


def _listed(key: str, items: list[JSONValue]) -> list[str]:
    if not all(isinstance(item, dict) for item in items):
        return [f"{key}: " + ", ".join(str(item) for item in items)]
    records = [item for item in items if isinstance(item, dict)]
    if not all("page" in record for record in records):
        return [f"{key}: {len(records)}", *("  " + _record(record) for record in records)]
    pages: dict[JSONValue, list[str]] = {}
    for record in records:
        rest = {k: v for k, v in record.items() if k != "page"}
        pages.setdefault(record["page"], []).append(_record(rest))
    lines = [f"{key}: {len(records)} on {len(pages)} page(s)"]
    lines += [f"  page {page}: " + " · ".join(parts) for page, parts in pages.items()]
    return lines


def _record(record: dict[str, JSONValue]) -> str:
    shown = (
        f'"{value}"' if key == "text" else str(value) if key == "kind" else f"{key} {value}"
        for key, value in record.items()
    )
    return " ".join(shown)


def _preview(text: str) -> str:
    """Return the start of a section on one line (a table cell must not hold a whole book)."""
    flat = " ".join(text[: _PREVIEW * 4].split())
    return flat if len(flat) <= _PREVIEW else flat[: _PREVIEW - 1] + "…"


def _range(first: int | None, last: int | None) -> str:
    if first is None:
        return ""
    return str(first) if first == last else f"{first}–{last}"


def _only_parse_options(flags: Settings) -> None:
    """Refuse ``-O`` keys that name no parse option: inspect chunks nothing.

    Raises:
        OptionError: such a key, named with the parse options there are.
    """
    from ragchunk.errors import OptionError
    from ragchunk.settings.tree import settings

    left = sorted(flags.chunking.options)
    if left:
        names = sorted(found.name for found in settings() if found.group == "parsing")
        listed = ", ".join(names)
        raise OptionError("-O", f"{left[0]} is not a parse option (inspect takes: {listed})")
