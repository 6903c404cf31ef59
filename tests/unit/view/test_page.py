"""The page and the index: self-contained, escaped, deterministic, with the run's settings."""

from __future__ import annotations

import base64
import hashlib
import re
from pathlib import Path

import pytest

from ragchunk.pipeline.plan import make_plan
from ragchunk.settings import shortcuts
from ragchunk.view import IndexEntry, View, make_view, render_index, render_page
from ragchunk.view.page import asset
from tests.conftest import FIXTURES

HOSTILE = (
    '<script>window.__pwned = 1</script>\n<img src=x onerror="window.__pwned = 2">\n'
    "</script><script>window.__pwned = 3</script> <!-- <script> --> &amp; \u2028 ]]>\n"
)
SCRIPT = re.compile(r"<script>(.*?)</script>", re.DOTALL)


def view_of(path: Path, strategy: str = "recursive", **flags: object) -> View:
    plan = make_plan(shortcuts({"strategy": strategy, **flags}))  # type: ignore[arg-type]
    return make_view(str(path), path.name, plan)


def test_the_page_is_the_same_for_the_same_input_and_options() -> None:
    guide = FIXTURES / "markdown" / "station-guide.md"
    compare = make_plan(shortcuts({"strategy": "recursive", "size": 300})).recipe
    first = render_page(
        make_view(str(guide), "guide", make_plan(shortcuts({"strategy": "markdown"})), compare)
    )
    second = render_page(
        make_view(str(guide), "guide", make_plan(shortcuts({"strategy": "markdown"})), compare)
    )
    assert first == second


def test_the_page_fetches_nothing() -> None:
    page = render_page(view_of(FIXTURES / "pdf" / "report-outline.pdf"))
    urls = set(re.findall(r"[a-z]+://[^\s\"'<>)]*", page))
    assert urls == {"http://www.w3.org/2000/svg"}  # the SVG namespace, never fetched
    assert re.findall(r"(?:src|href)=\"([^\"]*)\"", page) == ["data:,"]
    assert "url(" not in page
    assert "@import" not in page
    assert "@font-face" not in page


def test_only_the_page_script_may_run_by_its_hash() -> None:
    page = render_page(view_of(FIXTURES / "text" / "field-notes.txt"))
    (script,) = SCRIPT.findall(page)
    assert script == asset("viewer.js")
    digest = base64.b64encode(hashlib.sha256(script.encode()).digest()).decode()
    (policy,) = re.findall(r'http-equiv="Content-Security-Policy" content="([^"]*)"', page)
    assert f"script-src 'sha256-{digest}'" in policy
    assert "default-src 'none'" in policy
    assert "unsafe-inline" not in policy.split("script-src")[1].split(";")[0]


def test_a_hostile_document_stays_text(tmp_path: Path) -> None:
    source = tmp_path / '"><img src=x onerror=window.__pwned=9>.md'
    source.write_text(HOSTILE * 3, encoding="utf-8")
    page = render_page(view_of(source, size=80, overlap=10))
    assert "window.__pwned" in page  # the text is there...
    assert "<script>window" not in page  # ...never as markup
    assert "<img" not in page
    assert page.count("</script>") == 2  # the data block and the page's script
    assert page.count("<script") == 2
    assert "&quot;&gt;&lt;img src=x onerror=window.__pwned=9&gt;.md" in page


def test_settings_and_histogram_of_each_side(tmp_path: Path) -> None:
    source = tmp_path / "notes.txt"
    source.write_text("A sentence of some length here. " * 40, encoding="utf-8")
    plan = make_plan(shortcuts({"strategy": "recursive", "size": 200, "overlap": 20}))
    view = make_view(
        str(source),
        "notes.txt",
        plan,
        make_plan(shortcuts({"strategy": "fixed", "size": 100})).recipe,
    )
    page = render_page(view)
    assert page.count('<section class="side"') == 2
    assert '<body class="compare">' in page
    assert 'aria-label="A: recursive · 200 chars · overlap 20"' in page
    assert 'aria-label="B: fixed · 100 chars · overlap 10"' in page
    settings = dict(re.findall(r"<dt>([^<]*)</dt><dd>([^<]*)</dd>", page))
    assert settings["strategy"] == "fixed"  # the second side's rows come last
    assert settings["limit"] == "100 chars"
    assert "<dt>separators</dt><dd>default</dd>" in page
    assert page.count('<svg class="hist"') == 2
    assert "limit 200" in page
    assert "limit 100" in page


def test_a_failed_view_has_no_page() -> None:
    view = View("missing.txt", "missing.txt", error="missing.txt: no such file")
    with pytest.raises(ValueError, match=r"missing\.txt has no document"):
        render_page(view)


def test_the_index_links_each_page_and_names_each_failure(tmp_path: Path) -> None:
    source = tmp_path / "a b#.txt"
    source.write_text("Some text.\n" * 30, encoding="utf-8")
    good = view_of(source, size=100, overlap=0)
    bad = View("<b>.txt", "<b>.txt", error="<b>.txt: cannot read it")
    page = render_index(
        "docs", [IndexEntry(good.doc_id, good, "a b#.txt.html"), IndexEntry(bad.doc_id, bad, None)]
    )
    assert '<a href="a%20b%23.txt.html">a b#.txt</a>' in page
    assert '<td>&lt;b&gt;.txt</td><td colspan="4">&lt;b&gt;.txt: cannot read it</td>' in page
    assert "2 inputs, 1 failed · recursive · 100 chars" in page
    assert "<script" not in page
