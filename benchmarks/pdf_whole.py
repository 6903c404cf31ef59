"""Whole-process ``ragchunk split`` of PDFs against bare pypdf text extraction (issue 30).

``python benchmarks/pdf_whole.py`` runs, as whole processes in one run, round-robin after a
warm-up each (``whole_runs.rounds``), the median of ``--repeat`` (≥ 9) runs of CPU time (user +
system of the process and its workers) and wall time of:

- ``ragchunk split FILES -o out.jsonl`` (the default engine, PDFium; default ``--jobs``);
- the same with ``--jobs 1`` (no worker processes);
- ``pypdf_bare.py FILES``: ``PdfReader(path).pages[i].extract_text()`` for every page, nothing
  else (the acceptance's baseline);
- ``pdfium_bare.py FILES``: PDFium's text of every page (``get_text_range``), nothing else;
- with ``--baseline DIR``, ``ragchunk split`` from another source tree (``git archive`` of the
  commit before issue 30's change), to show what the change itself gained.

FILES are the born-digital PDFs of ``fixtures/pdf`` (the scan has no text to extract), or with
``--docling`` the 11 PDFs of ``../shared/benchdata/docling/pdf`` (real documents). The process
starts in a temporary directory (no project configuration) with .pyc caches read and written,
as on a user's machine. ``--update-readme`` writes the table into benchmarks/README.md between
the ``pdf-whole`` markers; the JSON goes to ``benchmarks/results/pdf_whole[_docling].json``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any, Final

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.suites import ragchunk_command
from benchmarks.whole_runs import rounds

HERE: Final = Path(__file__).resolve().parent
REPO: Final = HERE.parent
README: Final = HERE / "README.md"
FIXTURES: Final = REPO / "fixtures" / "pdf"
DOCLING: Final = REPO.parent.parent / "shared" / "benchdata" / "docling" / "pdf"
PYPDF_BARE: Final = """
import sys
from pypdf import PdfReader
for path in sys.argv[1:]:
    for page in PdfReader(path).pages:
        page.extract_text()
"""
PDFIUM_BARE: Final = """
import sys
import pypdfium2
for path in sys.argv[1:]:
    document = pypdfium2.PdfDocument(path)
    for page in document:
        textpage = page.get_textpage()
        textpage.get_text_range()
"""


def files(*, docling: bool) -> list[Path]:
    """Return the PDFs measured: the fixtures with a text layer, or the Docling test set."""
    if docling:
        return sorted(Path(os.environ.get("DOCLING_PDF", DOCLING)).glob("*.pdf"))
    return sorted(p for p in FIXTURES.glob("*.pdf") if not p.stem.endswith("-scan"))


def commands(paths: list[Path], tmp: Path, baseline: Path | None) -> dict[str, list[str]]:
    """Return the commands of one run, by name (the names are the table's rows)."""
    names = [str(p) for p in paths]
    (tmp / "pypdf_bare.py").write_text(PYPDF_BARE, encoding="utf-8")
    (tmp / "pdfium_bare.py").write_text(PDFIUM_BARE, encoding="utf-8")
    split = [*ragchunk_command(), "split", *names, "-q", "-o"]
    found = {
        "ragchunk split": [*split, str(tmp / "default.jsonl")],
        "ragchunk split --jobs 1": [*split, str(tmp / "one.jsonl"), "--jobs", "1"],
        "bare pypdf extract_text": [sys.executable, str(tmp / "pypdf_bare.py"), *names],
        "bare PDFium get_text_range": [sys.executable, str(tmp / "pdfium_bare.py"), *names],
    }
    if baseline is not None:
        path = os.pathsep.join([str(baseline), *os.environ.get("PYTHONPATH", "").split(":")[1:]])
        found["ragchunk split, before (baseline tree)"] = [
            "env",
            f"PYTHONPATH={path}",
            sys.executable,
            "-m",
            "ragchunk",
            "split",
            *names,
            "-q",
            "-o",
            str(tmp / "before.jsonl"),
        ]
    return found


def table(results: dict[str, dict[str, Any]], paths: list[Path], repeat: int) -> str:
    """Return the Markdown table: medians, and pypdf's time over each row's (× its speed)."""
    bare = results["bare pypdf extract_text"]
    lines = [
        f"{len(paths)} files ({', '.join(p.name for p in paths)}), medians of {repeat} runs:",
        "",
        "| whole process | CPU s | wall s | × bare pypdf (CPU) | × bare pypdf (wall) |",
        "|---|---:|---:|---:|---:|",
    ]
    for name, row in results.items():
        cpu, wall = row["cpu_median"], row["wall_median"]
        lines.append(
            f"| {name} | {cpu:.3f} | {wall:.3f} | {bare['cpu_median'] / cpu:.2f} | "
            f"{bare['wall_median'] / wall:.2f} |"
        )
    return "\n".join(lines)


def update_readme(text: str, *, docling: bool) -> None:
    tag = "pdf-whole-docling" if docling else "pdf-whole"
    start, end = f"<!-- {tag}:start -->", f"<!-- {tag}:end -->"
    readme = README.read_text(encoding="utf-8")
    if start not in readme:
        raise SystemExit(f"benchmarks/README.md has no {start} marker")
    head, rest = readme.split(start, 1)
    _, tail = rest.split(end, 1)
    README.write_text(f"{head}{start}\n{text}\n{end}{tail}", encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=9)
    parser.add_argument("--docling", action="store_true", help="the Docling test PDFs")
    parser.add_argument("--baseline", type=Path, help="a source tree of ragchunk to compare")
    parser.add_argument("--update-readme", action="store_true")
    args = parser.parse_args()
    paths = files(docling=args.docling)
    with tempfile.TemporaryDirectory(prefix="pdf_whole") as name:
        tmp = Path(name)
        results = rounds(commands(paths, tmp, args.baseline), args.repeat, tmp)
    text = table(results, paths, args.repeat)
    print(text)
    out = HERE / "results" / ("pdf_whole_docling.json" if args.docling else "pdf_whole.json")
    out.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    if args.update_readme:
        update_readme(text, docling=args.docling)


if __name__ == "__main__":
    main()
