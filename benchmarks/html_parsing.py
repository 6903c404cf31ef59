"""HTML parsing throughput: ragchunk's HTML path against the usual ways to get a page's text.

    python benchmarks/html_parsing.py [--pages 400] [--repeat 3]

The pages are the repository's HTML fixtures and its Markdown fixtures rendered to HTML by
markdown-it-py, each wrapped in the furniture of a real page (a head with styles and scripts,
a header with navigation, an aside, a footer, a cookie banner), repeated to ``--pages`` pages;
nothing is downloaded. Every contestant reads the same pages (bytes) one at a time:

- ``ragchunk html``: ``ragchunk.parsers.html.parse`` (text, sections and exact offsets, the
  Document every chunk slices);
- ``ragchunk split``: the same, then the recursive strategy's chunk records (512 chars);
- ``bs4 + lxml``: ``BeautifulSoup(page, "lxml").get_text()``, no structure and no offsets;
- ``html2text``: Markdown out of the page;
- ``trafilatura``: ``extract`` (main content only).

Prints one row per contestant: best-of-``--repeat`` seconds, MB/s of HTML and pages/s.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
FRAME = """<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>{title}</title>
<meta name="description" content="A page of the benchmark."><style>body{{margin:0}}
nav a{{color:#333}}</style><script>window.dataLayer=[];function t(e){{dataLayer.push(e)}}</script>
</head><body><div class="cookie-banner" role="dialog"><p>We use cookies.</p>
<button>Accept</button></div><header><a href="/">Home</a><nav><ul><li><a href="/a">Docs</a></li>
<li><a href="/b">Blog</a></li><li><a href="/c">About</a></li></ul></nav></header>
<main><article>{body}</article></main><aside><h2>Related</h2><ul><li><a href="/r">More</a></li>
</ul></aside><footer><p>&copy; 2024 Example &middot; <a href="/privacy">Privacy</a></p>
</footer></body></html>"""


def pages(count: int) -> list[bytes]:
    from markdown_it import MarkdownIt

    renderer = MarkdownIt("commonmark").enable("table")
    found = [path.read_bytes() for path in sorted((FIXTURES / "html").glob("*.htm*"))]
    for path in sorted(FIXTURES.rglob("*.md")):
        body = renderer.render(path.read_text(encoding="utf-8"))
        found.append(FRAME.format(title=path.stem, body=body).encode("utf-8"))
    return [found[k % len(found)] for k in range(count)]


def contestants() -> dict[str, Callable[[bytes], object]]:
    from ragchunk.parsers._spec import ParseRequest
    from ragchunk.parsers.html import parse
    from ragchunk.pipeline.engine import chunk_document
    from ragchunk.pipeline.plan import make_plan
    from ragchunk.settings import shortcuts

    request = ParseRequest(source="page.html")
    recipe = make_plan(shortcuts({"strategy": "recursive"})).recipe
    found: dict[str, Callable[[bytes], object]] = {
        "ragchunk html": lambda page: parse(page, request),
        "ragchunk split": lambda page: chunk_document(parse(page, request), recipe),
    }
    try:
        from bs4 import BeautifulSoup

        found["bs4 + lxml"] = lambda page: BeautifulSoup(page, "lxml").get_text()
    except ImportError:
        print("not measured: bs4 + lxml (pip install beautifulsoup4)")
    try:
        import html2text

        found["html2text"] = lambda page: html2text.html2text(page.decode("utf-8", "replace"))
    except ImportError:
        print("not measured: html2text (pip install html2text)")
    try:
        import trafilatura

        found["trafilatura"] = lambda page: trafilatura.extract(page)
    except ImportError:
        print("not measured: trafilatura (pip install trafilatura lxml_html_clean)")
    return found


def measure(run: Callable[[bytes], object], corpus: list[bytes], repeat: int) -> float:
    run(corpus[0])  # warm up: imports, caches
    best = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        for page in corpus:
            run(page)
        best = min(best, time.perf_counter() - started)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=400)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    corpus = pages(args.pages)
    megabytes = sum(len(page) for page in corpus) / 1e6
    print(f"{len(corpus)} pages, {megabytes:.1f} MB of HTML, best of {args.repeat}\n")
    print("| contestant | seconds | MB/s | pages/s |")
    print("| --- | ---: | ---: | ---: |")
    for name, run in contestants().items():
        seconds = measure(run, corpus, args.repeat)
        rate = megabytes / seconds
        print(f"| {name} | {seconds:.2f} | {rate:.1f} | {len(corpus) / seconds:.0f} |")


if __name__ == "__main__":
    main()
