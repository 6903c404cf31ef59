"""notebook: a Jupyter notebook (``.ipynb``) as the Markdown its cells make.

Markdown cells are kept as they are written; each code cell becomes a fenced block in the
kernel's language (``metadata.kernelspec.language``, else ``metadata.language_info.name``), a
raw cell a fenced block marked ``raw``; cells are separated by a blank line. The text is then
read by the Markdown parser (``markdown.find_sections``), so headings give heading paths and a
code cell is a ``code`` section with its ``language`` that the structure-aware strategies keep
whole where it fits. Outputs are left out unless ``-O outputs=true``: then each text output (a
stream, a result's or display's ``text/plain``) follows its cell as a fenced block marked
``output``; images, HTML and errors are never text. nbformat 4 and the ``worksheets`` of
nbformat 3 are read; the document's metadata holds the kernel's ``language``.
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Final

from ragchunk.errors import CorruptDocumentError, LimitExceededError
from ragchunk.model import Document
from ragchunk.parsers._builder import TextBuilder
from ragchunk.parsers._decode import decode
from ragchunk.parsers._spec import Format
from ragchunk.parsers.markdown import find_sections

if TYPE_CHECKING:
    from ragchunk.parsers._spec import ParseRequest

_BACKTICKS: Final = re.compile(r"`{3,}")
_TEXT_OUTPUTS: Final = ("execute_result", "display_data")


def parse(data: bytes, request: ParseRequest) -> Document:
    """Return the notebook's cells as Markdown text with its sections.

    Raises:
        InputError: binary data.
        CorruptDocumentError: not JSON, or JSON that is not a notebook.
        LimitExceededError: JSON nested too deeply to read.
    """
    notebook = _load(decode(data, request), request.source)
    language = _language(notebook)
    builder = TextBuilder(spend=request.spend_text)
    for cell in _cells(notebook, request.source):
        kind = cell.get("cell_type")
        source = _joined(cell.get("source", cell.get("input", ""))).rstrip()
        if kind == "markdown" and source:
            builder.append(source)
        elif kind == "heading" and source:  # nbformat 3
            builder.append("#" * _level(cell) + " " + " ".join(source.split()))
        elif kind == "code":
            if source:
                builder.append(_fence(source, language))
            if request.options.outputs:
                for text in _outputs(cell):
                    builder.append(_fence(text, "output"))
        elif kind == "raw" and source:
            builder.append(_fence(source, "raw"))
    text = builder.text()
    return Document(
        text=text,
        source=request.source,
        doc_id=request.doc_id,
        format="notebook",
        sections=tuple(find_sections(text)),
        has_lines=False,
        metadata={"language": language} if language else {},
    )


def _load(text: str, source: str) -> dict[str, object]:
    try:
        notebook = json.loads(text)
    except json.JSONDecodeError as exc:
        raise CorruptDocumentError(
            f"{source}: not a Jupyter notebook: invalid JSON at line {exc.lineno}:{exc.colno}: "
            f"{exc.msg}"
        ) from None
    except RecursionError:
        raise LimitExceededError(f"{source}: JSON nested too deeply to read") from None
    if not isinstance(notebook, dict) or not (
        isinstance(notebook.get("cells"), list) or isinstance(notebook.get("worksheets"), list)
    ):
        raise CorruptDocumentError(f"{source}: not a Jupyter notebook (no cells)")
    return notebook


def _cells(notebook: dict[str, object], source: str) -> list[dict[str, object]]:
    cells = notebook.get("cells")
    if cells is None:  # nbformat 3: the cells of every worksheet, in order
        sheets = notebook.get("worksheets")
        cells = [
            cell
            for sheet in (sheets if isinstance(sheets, list) else [])
            if isinstance(sheet, dict)
            for cell in sheet.get("cells", [])
        ]
    if not isinstance(cells, list) or not all(isinstance(cell, dict) for cell in cells):
        raise CorruptDocumentError(f"{source}: not a Jupyter notebook (a cell is not an object)")
    return cells


def _language(notebook: dict[str, object]) -> str:
    metadata = notebook.get("metadata")
    if not isinstance(metadata, dict):
        return ""
    for key in ("kernelspec", "language_info"):
        entry = metadata.get(key)
        if isinstance(entry, dict):
            name = entry.get("language" if key == "kernelspec" else "name")
            if isinstance(name, str) and name.strip():
                return name.strip().split()[0].lower()
    return ""


def _level(cell: dict[str, object]) -> int:
    level = cell.get("level")
    return level if isinstance(level, int) and 1 <= level <= 6 else 1


def _joined(value: object) -> str:
    """Return a multi-line string as nbformat stores it: a string or a list of lines."""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "".join(item for item in value if isinstance(item, str))
    return ""


def _fence(body: str, info: str) -> str:
    """Return ``body`` fenced with more backticks than any run inside it, marked ``info``."""
    longest = max((len(run) for run in _BACKTICKS.findall(body)), default=2)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{info}\n{body}\n{fence}"


def _outputs(cell: dict[str, object]) -> list[str]:
    """Return the text outputs of a code cell: streams and ``text/plain`` data."""
    found: list[str] = []
    outputs = cell.get("outputs")
    for output in outputs if isinstance(outputs, list) else []:
        if not isinstance(output, dict):
            continue
        kind = output.get("output_type")
        if kind == "stream":
            text = _joined(output.get("text"))
        elif kind in _TEXT_OUTPUTS or kind == "pyout":  # pyout: nbformat 3
            data = output.get("data", output)
            plain = data.get("text/plain", data.get("text")) if isinstance(data, dict) else None
            text = _joined(plain)
        else:
            continue
        text = text.rstrip()
        if text:
            found.append(text)
    return found


FORMAT = Format(name="notebook", parse=parse)
