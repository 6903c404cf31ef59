"""What ``ragchunk eval`` shows on a terminal: its tables, and a status line while it works."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

from ragchunk.cli._app import one_line, stderr_console, stdout_console

if TYPE_CHECKING:
    from rich.table import Table

    from ragchunk.evaluation.metrics import Scores
    from ragchunk.evaluation.run import Report


def show_report(report: Report, *, per_document: bool = False) -> None:
    """Print the scores per setup in characters and in tokens (and per document if asked)."""
    from rich.text import Text

    console = stdout_console()
    console.print(
        f"{report.questions} questions over {report.documents} documents · top {report.top_k} "
        f"by cosine similarity · {report.embedder}"
    )
    for unit in ("chars", "tokens"):
        table = _table(f"Scores on {'characters' if unit == 'chars' else 'tokens (cl100k_base)'}")
        table.add_column("setup", overflow="fold")
        table.add_column("chunks", justify="right")
        table.add_column("mean size", justify="right")
        _score_columns(table)
        for setup in report.setups:
            scores = setup.chars if unit == "chars" else setup.tokens
            mean = setup.mean_chars if unit == "chars" else setup.mean_tokens
            table.add_row(setup.name, str(setup.chunks), f"{mean:.0f}", *_cells(scores))
        console.print(table)
    if per_document:
        for setup in report.setups:
            table = _table(f"{setup.name}: per document (characters)")
            table.add_column("document", overflow="fold")
            table.add_column("q", justify="right")
            table.add_column("chunks", justify="right")
            _score_columns(table)
            for doc in setup.documents:
                if doc.questions:
                    cells = _cells(doc.chars)
                    name = Text(one_line(doc.name))  # a file name: no markup, no controls
                    table.add_row(name, str(doc.questions), str(doc.chunks), *cells)
            console.print(table)


def _table(title: str) -> Table:
    from rich import box
    from rich.table import Table

    return Table(title=title, box=box.SIMPLE_HEAD, title_justify="left", pad_edge=False)


def _score_columns(table: Table) -> None:
    for name in ("recall", "precision", "IoU", "prec. Ω"):
        table.add_column(name, justify="right")


def _cells(scores: Scores) -> tuple[str, ...]:
    values = (scores.recall, scores.precision, scores.iou, scores.precision_omega)
    return tuple(f"{value:.3f}" for value in values)


@contextlib.contextmanager
def progress(total: int, *, quiet: bool) -> Iterator[Callable[[str], None]]:
    """Yield ``tell(setup_name)``, which shows what is being scored (on a terminal only)."""
    if quiet or not sys.stderr.isatty():
        yield lambda _name: None
        return
    done = [0]
    with stderr_console().status("reading the questions") as status:

        def tell(name: str) -> None:
            done[0] += 1
            status.update(f"chunking, embedding and scoring {name} ({done[0]}/{total})")

        yield tell
