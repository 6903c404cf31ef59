"""A real headless browser for the tests: Debian's Chromium driven by Playwright for Python.

Playwright's own browser download (`playwright install`) cannot run here, so the system Chromium
is the executable. Pages are opened offline: every request that is not `file:`, `data:` or
`about:` is aborted and recorded, so a test can assert that a page asks for nothing.
"""

from __future__ import annotations

import io
import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from tests.support.requirements import missing, require_module

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page, Route

INSTALL = "pip install 'ragchunk[integration]' (playwright)"
CHROMIUM_INSTALL = "apt-get install chromium (Debian's package; .ci/run installs it)"
CHROMIUM_ENV = "RAGCHUNK_CHROMIUM"
# The real binary first: /usr/bin/chromium is a shell launcher that adds flags from
# /etc/chromium.d (extension loading among them) and prints noise on stderr.
CHROMIUM_CANDIDATES = ("/usr/lib/chromium/chromium", "chromium", "chromium-browser")
CHROMIUM_ARGS = (
    "--no-sandbox",  # root in CI: Chromium refuses to start sandboxed as root
    "--disable-gpu",
    "--disable-dev-shm-usage",  # containers often have a 64 MB /dev/shm
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-default-apps",
    "--disable-extensions",
    "--disable-sync",
    "--disable-quic",
    "--no-first-run",
    "--no-default-browser-check",
    "--metrics-recording-only",
)
LOCAL_SCHEMES = ("file:", "data:", "about:", "blob:")


def find_chromium() -> str:
    """Return the Chromium executable ($RAGCHUNK_CHROMIUM first); skip (fail in CI) without one."""
    for candidate in (os.environ.get(CHROMIUM_ENV, ""), *CHROMIUM_CANDIDATES):
        if candidate and (found := shutil.which(candidate)):
            return found
    missing(f"Chromium is not installed: {CHROMIUM_INSTALL}")


@contextmanager
def chromium() -> Iterator[Browser]:
    """Launch headless Chromium through Playwright; close it (and Playwright's driver) on exit."""
    require_module("playwright", INSTALL)
    executable = find_chromium()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=executable, args=list(CHROMIUM_ARGS), headless=True
        )
        try:
            yield browser
        finally:
            browser.close()


@dataclass
class OfflinePage:
    """A page whose network is cut: `requests` lists every URL asked for, `blocked` the aborted."""

    page: Page
    requests: list[str] = field(default_factory=list)
    blocked: list[str] = field(default_factory=list)
    console_errors: list[str] = field(default_factory=list)

    def open(self, path: Path) -> None:
        """Load `path` as a file URL and wait until it has loaded."""
        self.page.goto(path.resolve().as_uri(), wait_until="load")


@contextmanager
def offline_page(browser: Browser, width: int = 1280, height: int = 800) -> Iterator[OfflinePage]:
    """Yield a page in a fresh context (no cookies, no service workers, network blocked)."""
    context = browser.new_context(
        viewport={"width": width, "height": height}, service_workers="block"
    )
    try:
        page = context.new_page()
        offline = OfflinePage(page)
        page.on("request", lambda req: offline.requests.append(req.url))
        page.on(
            "console",
            lambda msg: offline.console_errors.append(msg.text) if msg.type == "error" else None,
        )

        def route(route: Route) -> None:
            url = route.request.url
            if url.startswith(LOCAL_SCHEMES):
                route.continue_()
            else:
                offline.blocked.append(url)
                route.abort("blockedbyclient")

        context.route("**/*", route)
        yield offline
    finally:
        context.close()


def distinct_colours(png: bytes, limit: int = 1024) -> int:
    """Return how many different colours a PNG image has (up to `limit`); 1 means blank."""
    from PIL import Image

    with Image.open(io.BytesIO(png)) as image:
        colours = image.convert("RGB").getcolors(maxcolors=limit)
    return limit if colours is None else len(colours)
