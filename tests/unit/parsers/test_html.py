"""The HTML parser: readable text, sections, metadata, charsets, what is left out, caps."""

from __future__ import annotations

import time

import pytest

from ragchunk.errors import LimitExceededError
from ragchunk.model import Document
from ragchunk.parsers import detect
from ragchunk.parsers._spec import ParseOptions, ParseRequest
from ragchunk.parsers.html import parse
from tests.conftest import FIXTURES


def html(markup: str | bytes, **options: bool) -> Document:
    data = markup.encode() if isinstance(markup, str) else markup
    return parse(data, ParseRequest(source="page.html", options=ParseOptions(**options)))


def kinds(doc: Document) -> list[tuple[str, str, tuple[str, ...]]]:
    return [(s.kind, doc.text[s.start : s.end], s.headings) for s in doc.sections]


def test_blocks_headings_lists_tables_and_code() -> None:
    doc = html(
        "<h1>Title</h1><p>One  <b>two</b>\n three.</p>"
        "<h2>Sub</h2><ul><li>a<ul><li>b</li></ul></li><li>c</li></ul>"
        "<table><tr><th>k</th><th>v</th></tr><tr><td>x|y</td><td>1</td></tr></table>"
        "<pre>  code\n    block\n</pre><p>a<br>b</p>"
    )
    assert doc.text == (
        "Title\n\nOne two three.\n\nSub\n\n- a\n  - b\n- c\n\n| k | v |\n| x\\|y | 1 |"
        "\n\n  code\n    block\n\na\nb"
    )
    assert kinds(doc) == [
        ("heading", "Title", ("Title",)),
        ("prose", "One two three.", ("Title",)),
        ("heading", "Sub", ("Title", "Sub")),
        ("list", "- a\n  - b\n- c", ("Title", "Sub")),
        ("table", "| k | v |\n| x\\|y | 1 |", ("Title", "Sub")),
        ("code", "  code\n    block", ("Title", "Sub")),
        ("prose", "a\nb", ("Title", "Sub")),
    ]
    table = doc.sections[4]
    assert table.header is not None
    assert doc.text[table.header[0] : table.header[1]] == "| k | v |"
    assert [doc.text[s:e] for s, e in table.parts] == ["| x\\|y | 1 |"]
    assert [doc.text[s:e] for s, e in doc.sections[3].parts] == ["- a", "  - b", "- c"]


def test_ordered_lists_count_from_their_start() -> None:
    doc = html('<ol start="4"><li>four</li><li>five</li></ol><dl><dt>t</dt><dd>d</dd></dl>')
    assert doc.text == "4. four\n5. five\n\nt\n  d"


def test_a_layout_table_is_read_as_blocks() -> None:
    doc = html("<table><tr><td><p>side</p></td><td><h2>Main</h2><p>body</p></td></tr></table>")
    assert kinds(doc) == [
        ("prose", "side", ()),
        ("heading", "Main", ("Main",)),
        ("prose", "body", ("Main",)),
    ]


def test_left_out_content_is_counted() -> None:
    doc = html(
        "<nav>Menu</nav><header>Site</header><main><header>Article head</header><p>Body</p>"
        '<p hidden>secret</p><p style="display: none">gone</p><span aria-hidden="true">x</span>'
        "</main><template>tpl</template><noscript>enable js</noscript><script>var a;</script>"
        '<style>p{}</style><!-- comment --><div class="cookie-banner">cookies</div>'
        "<footer>Foot</footer>"
    )
    assert doc.text == "Article head\n\nBody"
    assert doc.metadata["left_out"] == {
        "boilerplate": len("Menu") + len("Site") + len("cookies") + len("Foot"),
        "hidden": len("secret") + len("gone") + len("x"),
        "noscript": len("enable js"),
        "template": len("tpl"),
    }
    kept = html("<nav>Menu</nav><p>Body</p>", keep_boilerplate=True)
    assert kept.text == "Menu\n\nBody"
    assert "left_out" not in kept.metadata


def test_entities_and_content_after_the_closing_html_tag() -> None:
    doc = html("<p>a &amp; &rsquo;&#8217;&#x2019; b&nbsp;c</p></body></html><p>late</p>")
    assert doc.text == "a & ’’’ b\xa0c\n\nlate"


def test_metadata() -> None:
    doc = html(
        '<html lang="fr"><head><title> A  page </title><meta name="description" content="D">'
        '<meta name="author" content="Ann"><link rel="canonical" href="https://x.example/p">'
        "</head><body><p>x</p></body></html>"
    )
    assert dict(doc.metadata) == {
        "title": "A page",
        "language": "fr",
        "description": "D",
        "author": "Ann",
        "url": "https://x.example/p",
    }


def test_charsets_declared_guessed_and_by_bom() -> None:
    latin = '<meta charset="iso-8859-1"><p>caf\xe9 \x93q\x94</p>'.encode("latin-1")
    assert html(latin).text == "café “q”"  # ISO-8859-1 is read as windows-1252
    warnings: list[str] = []
    request = ParseRequest(source="p.html", warn=lambda code, _message: warnings.append(code))
    assert parse(b"<p>caf\xe9</p>", request).text == "café"
    assert warnings == ["charset-guessed"]
    assert html("\ufeff<p>é</p>".encode("utf-16")).text == "é"


def test_windows_1252_fixture_decodes_its_quotes_and_dashes() -> None:
    doc = parse((FIXTURES / "html" / "tide-api.htm").read_bytes(), ParseRequest())
    assert "“with regret”" in doc.text
    assert "\x93" not in doc.text
    assert "\ufffd" not in doc.text
    assert doc.metadata["title"] == "Tide Gauge Data Service – API reference"


def test_xhtml_fixture_reads_like_html() -> None:
    doc = parse((FIXTURES / "html" / "notice.xhtml").read_bytes(), ParseRequest())
    assert doc.text.startswith("Notice to Mariners No.\xa007 of 2024\n\nSurvey buoy")
    assert doc.sections[0].kind == "heading"


def test_deep_nesting_is_refused_quickly() -> None:
    deep = "<div>" * 100_000 + "x" + "</div>" * 100_000
    started = time.monotonic()
    with pytest.raises(LimitExceededError, match="nested more than 2048 levels deep"):
        html(deep)
    assert time.monotonic() - started < 2
    assert html("<div>" * 2000 + "x" + "</div>" * 2000).text == "x"


def test_empty_and_textless_pages() -> None:
    assert html("").text == ""
    assert html("<html><head><title>T</title></head><body></body></html>").text == ""


def test_detection_by_extension_and_content() -> None:
    assert detect("a.htm", b"") == "html"
    assert detect("a.xhtml", b"") == "html"
    assert detect("page", b"<!DOCTYPE html>\n<html>") == "html"
    assert detect("page", b"  <html lang=en>") == "html"
    assert detect("notes", b"Plain text") == "text"


def test_an_internal_dtd_subset_is_not_read_as_text() -> None:
    doc = html(
        '<?xml version="1.0"?>\n<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.1//EN" "x.dtd" [\n'
        "<!ENTITY a \"]>\">\n<!ATTLIST p x CDATA '>'>\n]>\n"
        "<html><head><title>T</title></head><body><p>Body.</p></body></html>"
    )
    assert doc.text == "Body."
    assert html("<!DOCTYPE html [ ]><p>Text [with] brackets]>.</p>").text == (
        "Text [with] brackets]>."
    )
