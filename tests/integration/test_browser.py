"""Headless Chromium loads a local page offline, runs its script, clicks, and takes screenshots."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.support.browser import OfflinePage, distinct_colours

PAGE = """<!doctype html>
<html><head><meta charset="utf-8"><title>chunks</title>
<style>
  body { font: 16px sans-serif; margin: 0; }
  .chunk { background: #ffe08a; margin: 4px 0; }
  .chunk.selected { background: #7ab8ff; }
  #spacer { height: 3000px; }
</style>
<link rel="stylesheet" href="https://fonts.example.com/font.css">
</head><body>
<ol id="list"><li><button data-target="c1">one</button></li>
<li><button data-target="c2">two</button></li><li><button data-target="c3">three</button></li></ol>
<div id="spacer"></div>
<div class="chunk" id="c1" data-start="0" data-end="5">Alpha</div>
<div class="chunk" id="c2" data-start="5" data-end="9">Beta</div>
<div class="chunk" id="c3" data-start="9" data-end="14">Gamma</div>
<img src="http://127.0.0.1:9/pixel.png" alt="">
<script>
  for (const button of document.querySelectorAll("#list button")) {
    button.addEventListener("click", () => {
      const target = document.getElementById(button.dataset.target);
      target.classList.add("selected");
      target.scrollIntoView();
    });
  }
  fetch("https://example.org/beacon").catch(() => {});
  window.ready = true;
</script>
</body></html>
"""

OpenPage = Callable[..., OfflinePage]


@pytest.fixture
def page_file(tmp_path: Path) -> Path:
    path = tmp_path / "page.html"
    path.write_text(PAGE, encoding="utf-8")
    return path


def test_page_loads_offline_and_every_request_is_blocked(
    open_page: OpenPage, page_file: Path
) -> None:
    view = open_page(page_file)

    assert view.page.evaluate("window.ready") is True
    assert view.requests[0] == page_file.resolve().as_uri()
    assert sorted(view.blocked) == [
        "http://127.0.0.1:9/pixel.png",
        "https://example.org/beacon",
        "https://fonts.example.com/font.css",
    ]


def test_click_scrolls_the_third_chunk_into_view(open_page: OpenPage, page_file: Path) -> None:
    view = open_page(page_file)
    third = view.page.locator("#c3")
    assert not _in_viewport(view, "#c3")

    view.page.locator("#list button").nth(2).click()

    assert _in_viewport(view, "#c3")
    assert third.get_attribute("class") == "chunk selected"
    assert third.text_content() == "Gamma"
    assert (third.get_attribute("data-start"), third.get_attribute("data-end")) == ("9", "14")


@pytest.mark.parametrize(("width", "height"), [(1280, 800), (420, 900)])
def test_screenshot_is_not_blank(
    open_page: OpenPage, page_file: Path, tmp_path: Path, width: int, height: int
) -> None:
    blank = tmp_path / "blank.html"
    blank.write_text("<!doctype html><html><body></body></html>")

    shot = open_page(page_file, width=width, height=height).page.screenshot(full_page=False)
    empty = open_page(blank, width=width, height=height).page.screenshot(full_page=False)

    assert shot.startswith(b"\x89PNG")
    assert distinct_colours(shot) > 2
    assert distinct_colours(empty) == 1


def _in_viewport(view: OfflinePage, selector: str) -> bool:
    return bool(
        view.page.eval_on_selector(
            selector,
            "e => { const r = e.getBoundingClientRect();"
            " return r.top >= 0 && r.bottom <= window.innerHeight; }",
        )
    )
