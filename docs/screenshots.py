"""Make the viewer screenshots in docs/ from the fixtures (shown by README.md and docs/).

    python docs/screenshots.py

Runs the `ragchunk view` commands below from the repository root, opens each page in
headless Chromium (Debian's `chromium`, driven by Playwright; no network), selects a chunk,
points at an overlap (in the first), and writes a PNG with a reduced palette (small files):

    ragchunk view fixtures/pdf/report-outline.pdf -o v.html
    ragchunk view fixtures/markdown/station-guide.md -s markdown --compare '-s recursive --size 300'
    ragchunk view fixtures/pdf/estuary-report.pdf -o v.html
"""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run"]
SHOTS = (
    (
        "view-report.png",
        ["fixtures/pdf/report-outline.pdf"],
        # Chunk 1 selected; the pointer on its overlap with chunk 0.
        ["click:#side0 .row[data-index='1']", "hover:#side0 .ov[data-with='1']"],
    ),
    (
        "view-compare.png",
        ["fixtures/markdown/station-guide.md", "-s", "markdown", "--compare",
         "-s recursive --size 300"],
        ["click:#side1 .row[data-index='6']", "hover:header h1"],
    ),
    (
        "view-pdf-boxes.png",
        ["fixtures/pdf/estuary-report.pdf"],
        # Chunk 3 selected: its boxes on page 2, beside its text.
        ["click:#side0 .row[data-index='3']", "hover:header h1"],
    ),
)  # fmt: skip


def chromium() -> str:
    """Return the Chromium executable ($RAGCHUNK_CHROMIUM first)."""
    for name in (os.environ.get("RAGCHUNK_CHROMIUM", ""), "/usr/lib/chromium/chromium", "chromium"):
        if name and (found := shutil.which(name)):
            return found
    sys.exit("Chromium is not installed (apt-get install chromium)")


def make_page(args: list[str], target: Path) -> None:
    """Run `ragchunk view` with `args` from the repository root, writing `target`."""
    command = [sys.executable, "-m", "ragchunk", "view", *args, "-o", str(target)]
    subprocess.run(command, cwd=ROOT, check=True, capture_output=True)


def small_png(png: bytes) -> bytes:
    """Return the screenshot with a 96-colour palette (text stays sharp: no dithering)."""
    from PIL import Image

    with Image.open(io.BytesIO(png)) as image:
        reduced = image.convert("RGB").quantize(colors=96, dither=Image.Dither.NONE)
    out = io.BytesIO()
    reduced.save(out, format="PNG", optimize=True)
    return out.getvalue()


def main() -> None:
    """Write docs/view-report.png, docs/view-compare.png and docs/view-pdf-boxes.png."""
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as temp, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium(), args=ARGS)
        for name, args, steps in SHOTS:
            page_file = Path(temp) / "page.html"
            make_page(args, page_file)
            page = browser.new_page(viewport={"width": 1280, "height": 760})
            page.route("**/*", lambda route: route.abort() if not route.request.url.startswith(
                ("file:", "data:")) else route.continue_())  # fmt: skip
            page.goto(page_file.as_uri())
            page.wait_for_selector("html[data-ready]")
            for step in steps:
                action, selector = step.split(":", 1)
                getattr(page, action)(selector)
            page.wait_for_timeout(200)
            (DOCS / name).write_bytes(small_png(page.screenshot()))
            page.close()
            sys.stdout.write(f"{DOCS / name}\n")
        browser.close()


if __name__ == "__main__":
    main()
