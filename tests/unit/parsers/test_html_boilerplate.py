"""HTML page furniture left out (wiki and blog shapes) and inline elements spaced as shown."""

from __future__ import annotations

import pytest

from ragchunk.model import Document
from ragchunk.parsers._spec import ParseOptions, ParseRequest
from ragchunk.parsers.html import parse
from tests.conftest import FIXTURES

WIKI = FIXTURES / "html" / "wiki-tide-gauge.html"
BLOG = FIXTURES / "html" / "blog-pegelmessung.html"
FURNITURE = (
    "Jump to",
    "Zum Inhalt springen",
    "[edit]",
    "\u200b",
    "Deutsch",
    "Languages",
    "Categories",
    "Measuring instruments",
    "Part of a series on",
    "Airy wave theory",
    "- v\n- t\n- e",
    "Navigation menu",
    "Retrieved from",
    "From Wikipedia",
    "User",
    "Anmelden",
    "Kategorien",
    "Schlagwörter",
    "Teilen mit",
    "Twitter",
    "Neueste Beiträge",
)


def html(markup: str | bytes, **options: bool) -> Document:
    data = markup.encode() if isinstance(markup, str) else markup
    return parse(data, ParseRequest(source="page.html", options=ParseOptions(**options)))


def headings(doc: Document) -> list[tuple[str, ...]]:
    return sorted({s.headings for s in doc.sections})


def test_a_wiki_page_keeps_its_article_and_nothing_around_it() -> None:
    doc = html(WIKI.read_bytes())
    assert doc.text.startswith("Tide gauge\n\nFor the device used in rivers, see Stream gauge.")
    assert doc.text.endswith('"A study of changes in high water levels at Sheerness".')
    for words in FURNITURE:
        assert words not in doc.text
    assert headings(doc) == [
        ("Tide gauge",),
        ("Tide gauge", "Applications"),
        ("Tide gauge", "History"),
        ("Tide gauge", "References"),
        ("Tide gauge", "Types"),
        ("Tide gauge", "Types", "Float gauges"),
        ("Tide gauge", "Types", "Pressure and radar gauges"),
    ]
    assert "History\n\nThe first tide gauges" in doc.text
    assert doc.metadata["left_out"]["boilerplate"] > 500  # type: ignore[index]


def test_a_blog_post_keeps_its_byline_apart_and_its_post_under_its_title() -> None:
    doc = html(BLOG.read_bytes())
    assert doc.text.startswith("Autor john Veröffentlicht am 3. Mai 2023\n\nPegelmessung an der")
    assert "Messintervall: 1 Minute\n\nAuflösung: 1 Millimeter" in doc.text
    assert "Fazit: Radar und Schwimmer ergänzen sich." in doc.text
    assert doc.text.endswith("Fazit: Radar und Schwimmer ergänzen sich.")
    for words in FURNITURE:
        assert words not in doc.text
    title = "Pegelmessung an der Küste: Radar statt Schwimmer"
    assert headings(doc)[0] == ()
    assert all(path[:1] == (title,) for path in headings(doc)[1:])


@pytest.mark.parametrize("page", [WIKI, BLOG], ids=lambda p: p.name)
def test_keep_boilerplate_keeps_it_all(page: object) -> None:
    kept = html(page.read_bytes(), keep_boilerplate=True)  # type: ignore[attr-defined]
    default = html(page.read_bytes())  # type: ignore[attr-defined]
    assert "left_out" not in kept.metadata or "boilerplate" not in kept.metadata["left_out"]
    assert len(kept.text) > len(default.text) + 200
    assert ("Deutsch" in kept.text) == (page == WIKI)
    assert ("Anmelden" in kept.text) == (page == BLOG)


@pytest.mark.parametrize("page", [WIKI, BLOG], ids=lambda p: p.name)
def test_main_content_leaves_out_all_of_it_too(page: object) -> None:
    pytest.importorskip("trafilatura")
    doc = html(page.read_bytes(), main_content=True)  # type: ignore[attr-defined]
    for words in FURNITURE:
        assert words not in doc.text
    assert "Radar" in doc.text or "float" in doc.text


def test_headings_lose_edit_links_and_zero_width_characters() -> None:
    doc = html(
        '<div class="mw-heading mw-heading2"><h2 id="H">Histo\u00adry\u200b</h2>'
        '<span class="mw-editsection"><span class="mw-editsection-bracket">[</span>'
        '<a href="?action=edit">edit</a><span class="mw-editsection-bracket">]</span></span></div>'
        "<p>x</p><h3>Geschichte [Bearbeiten | Quelltext bearbeiten]</h3><p>y</p>"
        "<h3>\u200b</h3><p>z</p>"
    )
    assert doc.text == "History\n\nx\n\nGeschichte\n\ny\n\nz"
    assert [s.headings for s in doc.sections][-1] == ("History", "Geschichte")


def test_furniture_known_by_its_words() -> None:
    doc = html(
        '<p><a href="#content">Skip to content</a></p><p>Jump to navigation</p>'
        "<ul><li>v</li><li>t</li><li>e</li></ul><p>v · t · e</p><p>Body</p>"
        '<ul><li><a hreflang="de" href="//de.x/a">Deutsch</a></li>'
        '<li><a hreflang="fr" href="//fr.x/a">Français</a></li>'
        '<li><a hreflang="nl" href="//nl.x/a">Nederlands</a></li></ul>'
    )
    assert doc.text == "Body"
    kept = html(
        "<p>Jump to navigation</p><ul><li>v</li><li>t</li><li>e</li></ul>", keep_boilerplate=True
    )
    assert kept.text == "Jump to navigation\n\n- v\n- t\n- e"


def test_inline_elements_are_spaced_as_a_page_shows_them() -> None:
    doc = html(
        '<div><span class="author">Autor john</span><span class="date">Veröffentlicht am</span>'
        '</div><p><span style="display:block">one</span><span style="display: flex">two</span>'
        "</p><p>a<search>b</search>c</p><p>H<sub>2</sub>O <b>bold</b><i>italic</i> "
        '<code><span class="n">x</span><span class="o">.</span><span class="n">y</span></code> '
        '<a class="mw-redirect" href="/wiki/Tide">Tides</a><sup class="reference">[1]</sup></p>'
    )
    assert doc.text == (
        "Autor john Veröffentlicht am\n\none\n\ntwo\n\na\n\nb\n\nc\n\nH2O bolditalic x.y Tides[1]"
    )


def test_an_h1_that_is_not_the_page_title_is_left_out_when_another_is() -> None:
    page = "<title>{}</title><div><h1>User</h1><p>Log in</p></div><h1>Tides</h1><p>Body</p>"
    doc = html(page.format("Tides - Wiki"))
    assert [s.headings for s in doc.sections] == [("Tides",), ("Tides",)]
    assert doc.text == "Tides\n\nBody"
    untitled = html(page.format("Something else"))
    assert [s.headings for s in untitled.sections][-1] == ("Tides",)
    assert untitled.text.startswith("User")


def test_a_sidebar_h1_over_links_goes_when_no_h1_is_the_page_title() -> None:
    page = (
        "<title>Tide gauge [MyWiki]</title><div class='col'><h1>User</h1>"
        "<ul><li><a href='/login'>Log in</a></li><li><a href='/register'>Register</a></li></ul>"
        "</div><h2>Overview</h2><p>A gauge.</p><h1>See also</h1><p>Tides, surges.</p>"
    )
    doc = html(page)
    assert doc.text == "Overview\n\nA gauge.\n\nSee also\n\nTides, surges."
    assert doc.sections[0].headings == ("Overview",)
    assert html(page, keep_boilerplate=True).text.startswith("User\n\n- Log in")


def test_a_vector_2022_article_keeps_its_title_bar_heading_but_not_its_tools() -> None:
    doc = html(
        "<title>Tide gauge - Wikipedia</title>"
        '<div class="vector-sticky-header-container"><div id="vector-sticky-header">'
        '<a href="#"><span>Talk</span></a><a href="#"><span>Add topic</span></a></div></div>'
        '<main id="content" class="mw-body"><header class="mw-body-header vector-page-titlebar">'
        '<h1 id="firstHeading"><span class="mw-page-title-main">Tide gauge</span></h1>'
        '<div id="p-lang-btn" class="vector-dropdown mw-portlet mw-portlet-lang">'
        '<label><span class="vector-dropdown-label-text">12 languages</span></label></div>'
        '</header><div id="siteSub" class="noprint">From Wikipedia, the free encyclopedia</div>'
        '<table class="box-More_citations_needed plainlinks metadata ambox ambox-content">'
        "<tr><td>This article needs additional citations.</td></tr></table>"
        "<p>A tide gauge measures the sea level.</p></main>"
    )
    assert doc.text == "Tide gauge\n\nA tide gauge measures the sea level."
