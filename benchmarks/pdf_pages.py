"""PDF pages per second per engine, with and without cleaning (issue 21).

``python benchmarks/pdf_pages.py`` reads the text PDFs of ``fixtures/pdf/`` and a generated
1,000-page PDF (``many_pages_pdf``: a report of numbered sections in Helvetica, with a running
header and a ``Page N of M`` footer on every page, so that cleaning has work to do) and times,
in this process and round-robin, the best of ``--repeat`` runs of: pypdf's ``extract_text`` of
every page (the peer), PDFium's raw text, and ragchunk's parser with each engine, with cleaning
(the default) and without (``--keep`` every part). Peak memory is measured in a fresh process
per page count (200 and 1,000 pages), to show that it stays flat: pages are read one at a time.
"""

from __future__ import annotations

import argparse
import io
import subprocess
import sys
import time
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
FIXTURES = sorted(p for p in (REPO / "fixtures" / "pdf").glob("*.pdf") if "scan" not in p.name)
CORPUS = HERE / "corpus" / "pdf"
PROSE = (
    "the survey measured dissolved oxygen at every site along the estuary while nitrate "
    "concentrations continued their slow decline and phosphate below the treatment works "
    "did not improve during the summer months of the monitoring programme"
)
WORDS = PROSE.split(" ")


def many_pages_pdf(pages: int) -> bytes:
    """Return a text PDF of ``pages`` A4 pages: a header, 46 lines of prose, a footer each."""
    objects: list[bytes] = [b"", b""]  # 1: catalog, 2: page tree; filled in at the end
    font = _add(objects, b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    kids = []
    word = 0
    for number in range(1, pages + 1):
        lines = [f"Wend Estuary Partnership - Annual report {pages // 100 + 2020}"]
        if number % 7 == 1:
            lines.append(f"{number // 7 + 1}. Results of survey round {number // 7 + 1}")
        while len(lines) < 47:
            line = " ".join(WORDS[(word + k) % len(WORDS)] for k in range(13))
            word += 13
            lines.append(line[0].upper() + line[1:] + ("." if len(lines) % 4 == 0 else ""))
        lines.append(f"Page {number} of {pages}")
        stream = ["BT /F1 10 Tf 14 TL 56 800 Td"]
        stream += [f"({line}) Tj T*" for line in lines]
        stream.append("ET")
        data = zlib.compress("\n".join(stream).encode("latin-1"))
        content = _add(
            objects,
            b"<< /Length %d /Filter /FlateDecode >>\nstream\n%s\nendstream" % (len(data), data),
        )
        kids.append(
            _add(
                objects,
                b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents %d 0 R "
                b"/Resources << /Font << /F1 %d 0 R >> >> >>" % (content, font),
            )
        )
    objects[0] = b"<< /Type /Catalog /Pages 2 0 R >>"
    refs = b" ".join(b"%d 0 R" % kid for kid in kids)
    objects[1] = b"<< /Type /Pages /Kids [%s] /Count %d >>" % (refs, len(kids))
    out = io.BytesIO()
    out.write(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(out.tell())
        out.write(b"%d 0 obj\n%s\nendobj\n" % (number, body))
    xref = out.tell()
    out.write(b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1))
    out.writelines(b"%010d 00000 n \n" % offset for offset in offsets)
    out.write(
        b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    )
    return out.getvalue()


def _add(objects: list[bytes], body: bytes) -> int:
    objects.append(body)
    return len(objects)


def generated(pages: int) -> Path:
    """Write (once) and return the generated PDF of ``pages`` pages."""
    path = CORPUS / f"generated-{pages}-pages.pdf"
    if not path.exists():
        CORPUS.mkdir(parents=True, exist_ok=True)
        path.write_bytes(many_pages_pdf(pages))
    return path


def _pypdf(data: bytes) -> int:
    import pypdf

    pages = [page.extract_text() for page in pypdf.PdfReader(io.BytesIO(data)).pages]
    return len(pages)


def _pdfium_raw(data: bytes) -> int:
    import pypdfium2

    document = pypdfium2.PdfDocument(data)
    count = 0
    for k in range(len(document)):
        page = document[k]
        textpage = page.get_textpage()
        textpage.get_text_range()
        textpage.close()
        page.close()
        count += 1
    document.close()
    return count


ALL_PARTS = ("headers", "watermarks", "hyphens", "ligatures")


def _ragchunk(engine: str, *, clean: bool) -> Callable[[bytes], int]:
    def read(data: bytes) -> int:
        from ragchunk.parsers._spec import ParseOptions, ParseRequest
        from ragchunk.parsers.pdf import parse

        keep = () if clean else ALL_PARTS
        options = ParseOptions(pdf_engine=engine, keep=keep)  # type: ignore[arg-type]
        return len(parse(data, ParseRequest(options=options)).pages)

    return read


CONTESTANTS: dict[str, Callable[[bytes], int]] = {
    "pypdf extract_text (peer)": _pypdf,
    "PDFium raw text": _pdfium_raw,
    "ragchunk pdfium, cleaning on (default)": _ragchunk("pdfium", clean=True),
    "ragchunk pdfium, cleaning off": _ragchunk("pdfium", clean=False),
    "ragchunk pypdf, cleaning on": _ragchunk("pypdf", clean=True),
    "ragchunk pypdf, cleaning off": _ragchunk("pypdf", clean=False),
}


def measure(sets: dict[str, list[Path]], repeat: int) -> dict[str, Any]:
    """Time every contestant on every set of PDFs: CPU seconds, best of ``repeat`` rounds."""
    results: dict[str, Any] = {}
    for label, paths in sets.items():
        blobs = [p.read_bytes() for p in paths]
        best: dict[str, float] = {}
        pages: dict[str, int] = {}
        for round_ in range(repeat):
            names = list(CONTESTANTS)
            names = names[round_ % len(names) :] + names[: round_ % len(names)]
            for name in names:
                started = time.process_time()
                pages[name] = sum(CONTESTANTS[name](blob) for blob in blobs)
                seconds = time.process_time() - started
                best[name] = min(best.get(name, seconds), seconds)
        peer = pages["pypdf extract_text (peer)"] / best["pypdf extract_text (peer)"]
        results[label] = {
            "files": [p.name for p in paths],
            "rows": [
                {
                    "name": name,
                    "pages": pages[name],
                    "seconds": best[name],
                    "pages_per_second": pages[name] / best[name],
                    "ratio_to_pypdf": pages[name] / best[name] / peer,
                }
                for name in CONTESTANTS
            ],
        }
    return results


def peak_memory(pages: int) -> float:
    """Return the peak RSS (MB) of a fresh process that chunks the generated PDF."""
    code = (
        "import resource, sys; from ragchunk import chunk_file; "
        "n = len(chunk_file(sys.argv[1])); "
        "print(n, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, str(generated(pages))],
        capture_output=True,
        text=True,
        check=True,
        cwd=REPO,
    ).stdout.split()
    return int(out[1]) / 1024


def table(results: dict[str, Any], memory: dict[int, float]) -> str:
    lines = []
    for label, data in results.items():
        lines += [
            f"**{label}** ({', '.join(data['files'])})",
            "",
            "| reader | pages | CPU s (best) | pages/s | × pypdf |",
            "| --- | --- | --- | --- | --- |",
        ]
        lines += [
            f"| {r['name']} | {r['pages']:,} | {r['seconds']:.3f} | {r['pages_per_second']:,.0f} "
            f"| {r['ratio_to_pypdf']:.1f}× |"
            for r in data["rows"]
        ]
        lines.append("")
    lines.append(
        "Peak memory of `chunk_file` on the generated PDF, fresh process: "
        + ", ".join(f"{pages:,} pages {mb:.0f} MB" for pages, mb in memory.items())
        + "."
    )
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--pages", type=int, default=1000, help="pages of the generated PDF")
    args = parser.parse_args(argv)
    sets = {
        "fixtures/pdf": FIXTURES,
        f"generated, {args.pages:,} pages": [generated(args.pages)],
    }
    results = measure(sets, args.repeat)
    memory = {pages: peak_memory(pages) for pages in (200, args.pages)}
    sys.stdout.write(table(results, memory))
    return 0


if __name__ == "__main__":
    sys.exit(main())
