"""PDF text against Docling's reviewed output (issue 30): words, words PDFium never read, headings.

Run from the repository root, with ``../shared/benchdata/`` beside the checkout (or
``--data DIR``) and the bench extra installed::

    python benchmarks/docling.py             # the table, one row per reader and per file
    python benchmarks/docling.py --files right_to_left_01.pdf
    python benchmarks/docling.py --docx      # the Word files, beside python-docx and mammoth

Scoring follows ``benchdata/README.md``: both sides normalised (Unicode NFKC, Markdown syntax
dropped, case folded), then bag-of-words F1 (``Counter`` intersection, so order does not count),
and headings found: the ground truth's ``#`` lines that are among ragchunk's section headings
(normalised the same way; a heading's number ``1.`` reads ``1``: Docling drops the dot Word
prints, and the Markdown list rule would drop the number). "Outside" counts ragchunk's words
that are not words of PDFium's own raw text of the same file (PDF only) after the documented
cleaning (NFKC, hyphenated line ends joined, and in right-to-left text: lam-alef in one order,
harakat marks read before their letter with PDFium's space between put after it, the space at
a Latin run's end on either side of it, the letters of a word PDFium read (in part) in visual
order put in printed order;
``parsers/pdf/rtl.py``): a word there was made by ragchunk, not read.
"""

from __future__ import annotations

import argparse
import re
import sys
import unicodedata
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT)]

DATA = ROOT.parent / "shared" / "benchdata" / "docling"
_MARKUP = re.compile(r"^\s*(#+|[-*+]|\d+\.)\s+|[*_`|]+|^\s*:?-{3,}:?\s*$|<!--.*?-->", re.M)
_WORD = re.compile(r"\w+(?:['\u2019.-]\w+)*")
_LABEL = re.compile(r"^\s*(\d+(?:\.\d+)*)\.(?=\s)")
_LAM_ALEF = re.compile("\u0644[\u0622\u0623\u0625\u0627]")


def normal(text: str) -> str:
    """Return ``text`` as scored: NFKC, Markdown syntax dropped, case folded."""
    return _MARKUP.sub(" ", unicodedata.normalize("NFKC", text)).casefold()


def words(text: str) -> list[str]:
    """Return the scored words of ``text``."""
    return _WORD.findall(normal(text))


_MARK_AFTER_SPACE = re.compile(" ([\u064b-\u065f\u0670])(?=\\w)")
_MARKS = re.compile("[\u064b-\u065f\u0670]")
_SCRIPTS = re.compile("(?<=[a-z0-9])(?=[\u0590-\u08ff])|(?<=[\u0590-\u08ff])(?=[a-z0-9])")


def checked_words(text: str, *, raw: bool = False) -> list[str]:
    """Return ``text``'s words as the outside check compares them (documented cleaning)."""
    if raw:
        text = _MARK_AFTER_SPACE.sub(r"\1", text)
    text = _SCRIPTS.sub(" ", _MARKS.sub("", normal(text)))
    return [_lam_alef(word) for word in _WORD.findall(text)]


def words_outside(text: str, raw_text: str) -> list[str]:
    """Return the words of ``text`` that are not words of PDFium's ``raw_text``."""
    raw = set(checked_words(raw_text, raw=True)) | set(checked_words(raw_text))
    raw |= {"".join(sorted(word)) for word in raw if not word.isascii()}
    return [w for w in checked_words(text) if w not in raw and "".join(sorted(w)) not in raw]


def _lam_alef(word: str) -> str:
    """Return ``word`` with lam-alef in one order: PDFium gives the ligature's letters reversed."""
    return _LAM_ALEF.sub(lambda match: match.group()[::-1], word)


def f1(found: list[str], truth: list[str]) -> float:
    """Return the bag-of-words F1 of ``found`` against ``truth``, in percent."""
    common = sum((Counter(found) & Counter(truth)).values())
    if not common:
        return 0.0
    precision, recall = common / len(found), common / len(truth)
    return 200 * precision * recall / (precision + recall)


def heading_words(heading: str) -> str:
    """Return a heading's scored words; a leading number keeps its digits (``1.`` reads ``1``)."""
    return " ".join(words(_LABEL.sub(r"\1", heading)))


def gt_headings(markdown: str) -> list[str]:
    """Return the ground truth's headings, normalised."""
    return [
        heading_words(line.lstrip("#"))
        for line in markdown.splitlines()
        if line.startswith("#") and words(line.lstrip("#"))
    ]


def _ragchunk(engine: str) -> Callable[[bytes], tuple[str, list[str]]]:
    def read(data: bytes) -> tuple[str, list[str]]:
        from ragchunk.parsers._spec import ParseOptions, ParseRequest
        from ragchunk.parsers.pdf import parse

        doc = parse(data, ParseRequest(options=ParseOptions(pdf_engine=engine)))  # type: ignore[arg-type]
        headings = [s.headings[-1] for s in doc.sections if s.kind == "heading" and s.headings]
        return doc.text, headings

    return read


def pdfium_raw(data: bytes) -> tuple[str, list[str]]:
    """PDFium's own text of every page, hyphenated line ends joined."""
    import pypdfium2

    document = pypdfium2.PdfDocument(data)
    pages = [document[k].get_textpage().get_text_range() for k in range(len(document))]
    return "\n\n".join(p.replace("\ufffe\r\n", "").replace("\ufffe", "") for p in pages), []


def pypdf_raw(data: bytes) -> tuple[str, list[str]]:
    """pypdf's text of every page."""
    import io

    import pypdf

    return "\n\n".join(p.extract_text() for p in pypdf.PdfReader(io.BytesIO(data)).pages), []


def pymupdf4llm(data: bytes) -> tuple[str, list[str]]:
    """pymupdf4llm's Markdown (its headings are its ``#`` lines)."""
    import pymupdf
    import pymupdf4llm as peer

    markdown = peer.to_markdown(pymupdf.open(stream=data, filetype="pdf"), show_progress=False)
    return markdown, gt_headings(markdown)


READERS: dict[str, Callable[[bytes], tuple[str, list[str]]]] = {
    "ragchunk": _ragchunk("pdfium"),
    "ragchunk-pypdf": _ragchunk("pypdf"),
    "pdfium-raw": pdfium_raw,
    "pypdf": pypdf_raw,
    "pymupdf4llm": pymupdf4llm,
}


def ragchunk_docx(data: bytes) -> tuple[str, list[str]]:
    """ragchunk's DOCX text and its section headings (as printed, numbers included)."""
    from ragchunk.parsers._spec import ParseRequest
    from ragchunk.parsers.docx import parse

    doc = parse(data, ParseRequest())
    return doc.text, [s.headings[-1] for s in doc.sections if s.kind == "heading" and s.headings]


def python_docx_raw(data: bytes) -> tuple[str, list[str]]:
    """python-docx's body paragraphs, raw (no tables, numbers, boxes); headings by style name."""
    import io

    import docx

    paragraphs = docx.Document(io.BytesIO(data)).paragraphs
    headings = [
        p.text
        for p in paragraphs
        if p.style is not None and p.style.name.startswith(("Heading", "Title"))
    ]
    return "\n\n".join(p.text for p in paragraphs), headings


def mammoth_html(data: bytes) -> tuple[str, list[str]]:
    """mammoth's HTML, tags dropped; its headings are its ``<hN>`` elements."""
    import html
    import io

    import mammoth  # type: ignore[import-untyped]

    markup = mammoth.convert_to_html(io.BytesIO(data)).value
    headings = re.findall(r"<h[1-6][^>]*>(.*?)</h[1-6]>", markup, re.S)
    text = html.unescape(re.sub(r"<[^>]+>", " ", markup.replace("</p>", "\n\n")))
    return text, [html.unescape(re.sub(r"<[^>]+>", "", h)) for h in headings]


DOCX_READERS: dict[str, Callable[[bytes], tuple[str, list[str]]]] = {
    "ragchunk": ragchunk_docx,
    "python-docx": python_docx_raw,
    "mammoth": mammoth_html,
}


def _read(reader: Callable[[bytes], tuple[str, list[str]]], data: bytes) -> tuple[str, list[str]]:
    """Run one reader; a file it cannot read scores as empty text (counted, not hidden)."""
    try:
        return reader(data)
    except ImportError:
        raise
    except Exception as exc:  # noqa: BLE001 - a peer's failure on one file is a score of 0
        print(f"  {getattr(reader, '__name__', reader)}: {type(exc).__name__}: {exc}"[:160])
        return "", []


def score(
    files: list[Path],
    readers: list[str],
    table: dict[str, Callable[[bytes], tuple[str, list[str]]]] = READERS,
    *,
    pdf: bool = True,
) -> list[dict[str, Any]]:
    """Return one row per reader and file, and one ``ALL`` row per reader."""
    rows: list[dict[str, Any]] = []
    for name in readers:
        total: dict[str, Any] = {"reader": name, "file": "ALL", "found": [], "truth": []}
        hits = heads = outside = 0
        for path in files:
            data = path.read_bytes()
            try:
                text, headings = _read(table[name], data)
            except ImportError:
                break
            truth_md = path.with_suffix(".gt.md").read_text(encoding="utf-8")
            found, truth = words(text), words(truth_md)
            out = len(words_outside(text, pdfium_raw(data)[0])) if pdf else 0
            expected = gt_headings(truth_md)
            seen = {heading_words(h) for h in headings}
            hit = sum(1 for h in expected if h in seen)
            rows.append(
                {
                    "reader": name,
                    "file": path.name,
                    "f1": f1(found, truth),
                    "outside": out,
                    "headings": f"{hit}/{len(expected)}",
                    "claimed": len(seen),
                }
            )
            total["found"] += found
            total["truth"] += truth
            hits, heads, outside = hits + hit, heads + len(expected), outside + out
            total["claimed"] = total.get("claimed", 0) + len(seen)
        else:
            per_file = [row["f1"] for row in rows if row["reader"] == name]
            rows.append(
                {
                    "reader": name,
                    "file": "MEAN (per-file F1)",
                    "f1": sum(per_file) / max(len(per_file), 1),
                    "outside": outside,
                    "headings": f"{hits}/{heads}",
                    "claimed": total.get("claimed", 0),
                }
            )
            rows.append(
                {
                    "reader": name,
                    "file": "ALL",
                    "f1": f1(total["found"], total["truth"]),
                    "outside": outside,
                    "headings": f"{hits}/{heads}",
                    "claimed": total.get("claimed", 0),
                }
            )
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--files", nargs="*", default=None)
    parser.add_argument("--readers", default=None)
    parser.add_argument("--docx", action="store_true", help="score the Word files instead")
    args = parser.parse_args(argv)
    table = DOCX_READERS if args.docx else READERS
    readers = args.readers.split(",") if args.readers else list(table)
    pdfs = sorted(
        (args.data / "docx").glob("*.docx") if args.docx else (args.data / "pdf").glob("*.pdf")
    )
    if args.files:
        pdfs = [p for p in pdfs if p.name in args.files]
    print(f"{'reader':15} {'file':34} {'F1':>6} {'outside':>8} {'headings':>9} {'claimed':>8}")
    for row in score(pdfs, readers, table, pdf=not args.docx):
        print(
            f"{row['reader']:15} {row['file']:34} {row['f1']:6.1f} {row['outside']:8} "
            f"{row['headings']:>9} {row['claimed']:8}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
