"""Which HTML elements are blocks, lists, unread, hidden or page furniture (``_htmltext``).

Boilerplate is navigation (``<nav>``), asides, page-level ``<header>``/``<footer>`` (not those
of an article or a section), landmark roles (banner, navigation, contentinfo, complementary,
dialogs, search), cookie or consent banners (by id or class), the furniture of wikis and blogs
named by a class or id (``FURNITURE``: sidebars, navboxes and their ``v t e`` links, category
boxes, interlanguage links, ``[edit]`` links, "Jump to navigation", share buttons...), a list of
links to the page in other languages (three or more, all with ``hreflang``), and blocks that are
furniture by their words alone (``furniture_text``: "Skip to content", ``v t e``), as they are
after trafilatura strips the classes; on a web page, a sidebar's ``<h1>`` that is not the page's
title (``stray_titles``). Hidden is the ``hidden`` attribute, ``aria-hidden="true"``,
inline ``display: none`` / ``visibility: hidden`` and screen-reader-only text (``sr-only``).
An element is a block by its tag or by an inline ``display`` style (block, flex, grid...).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from ragchunk.parsers._htmltext import HtmlBuilder

HEADINGS: Final = {f"h{n}": n for n in range(1, 7)}
LISTS: Final = frozenset({"ul", "ol", "dl", "menu", "dir"})
ITEMS: Final = frozenset({"li", "dt", "dd"})
BLOCKS: Final = frozenset(
    {
        "address", "article", "aside", "blockquote", "body", "caption", "center", "details",
        "dialog", "div", "fieldset", "figcaption", "figure", "footer", "form", "header", "hgroup",
        "hr", "legend", "main", "nav", "p", "section", "summary", "tbody", "tfoot", "thead",
        "tr", "td", "th", "table", "pre", "noscript", "option", "frameset", "frame", "search",
        "listing", "xmp", "plaintext", "optgroup",
    }
)  # fmt: skip
"""Elements whose start and end break the line (lists, items and headings are handled apart)."""
LAYOUT: Final = (
    "p", "div", "table", "ul", "ol", "dl", "pre", "blockquote", "section", "article",
    "h1", "h2", "h3", "h4", "h5", "h6", "hr", "form", "center", "main", "nav",
)  # fmt: skip
"""A table with one of these inside a cell is a layout table, read as blocks."""
UNREAD: Final = frozenset(
    {
        "head", "script", "style", "template", "noscript", "iframe", "object", "embed",
        "svg", "math", "canvas", "select", "button", "input", "textarea", "audio", "video",
        "map", "datalist", "param", "source", "track",
    }
)  # fmt: skip
"""Elements whose content is never read text."""
COUNTED: Final = {"template": "template", "noscript": "noscript"}
"""Unread elements whose text is counted as left out (what a reader might have seen)."""
BOILERPLATE: Final = frozenset({"nav", "aside"})
_PAGE_PARTS: Final = frozenset({"header", "footer"})
_SECTIONING: Final = frozenset(
    {"article", "aside", "main", "nav", "section", "blockquote", "figure", "details", "td",
     "fieldset", "dialog"}
)  # fmt: skip
_BOILER_ROLES: Final = frozenset(
    {"navigation", "banner", "contentinfo", "complementary", "dialog", "alertdialog", "search"}
)
_BOILER_NAMES: Final = re.compile(r"cookie|consent|gdpr", re.IGNORECASE)
FURNITURE: Final = re.compile(
    r"(?<!\S)(?:catlinks|mw-(?:normal|hidden)-catlinks|cat-links|tags-links|cat-tags-links"
    r"|post-(?:categories|tags)|entry-(?:categories|tags)|navbox(?:-[\w-]+)?|vertical-navbox"
    r"|navbar|nv-(?:view|talk|edit)|sidebar|side-bar|widget-area|mw-editsection|mw-jump-link"
    r"|jump-to-nav|skip-link|interlanguage-link|interwiki-[\w-]+|mw-portlet-lang|p-lang(?:-btn)?"
    r"|printfooter|sitesub|mw-panel|mw-head|mw-navigation|breadcrumbs?|sharedaddy"
    r"|share-buttons|social-share|post-navigation|nav-links|vector-sticky-header(?:-container)?"
    r"|ambox|related-posts|jp-relatedposts)(?!\S)",
    re.IGNORECASE,
)
"""A class or id of page furniture: a whole name among the id and the class names."""
_KEEP: Final = frozenset({"html", "body", "main", "article"})
"""Never page furniture by a class (``<body class="has-sidebar sidebar">``)."""
_SCREEN_READER: Final = frozenset({"sr-only", "screen-reader-text", "visually-hidden"})
_HIDDEN_STYLE: Final = re.compile(r"display\s*:\s*none|visibility\s*:\s*hidden", re.IGNORECASE)
_BLOCK_STYLE: Final = re.compile(
    r"(?:^|;)\s*display\s*:\s*(?:block|flex|grid|list-item|table|flow-root)\b", re.IGNORECASE
)
_FURNITURE_TEXT: Final = re.compile(
    r"(?:jump|skip)\s+to\s+(?:navigation|search|content|main\s+content|the\s+content)"
    r"|zum\s+inhalt\s+springen|v(?:\s*[·•|]\s*|\s+)t(?:\s*[·•|]\s*|\s+)e",
    re.IGNORECASE,
)
_EDIT_LINK: Final = re.compile(
    r"\s*\[\s*(?:edit|edit source|bearbeiten|quelltext bearbeiten|modifier|modifier le code"
    r"|editar|modifica|править|編集)(?:\s*[|·]\s*[^\]]{1,40})?\s*\]\s*$",
    re.IGNORECASE,
)
_INVISIBLE: Final = re.compile("[\u200b\u2060\ufeff\u00ad]")
_SIDEBAR_DEPTH: Final = 8
"""How many ``<div>``s up from a stray ``<h1>`` its sidebar may begin."""


def is_hidden(element: Any) -> bool:
    """Return whether an element is hidden from readers (``hidden``, a style, ``aria-hidden``)."""
    attributes = element.attrib
    if not attributes:
        return False
    if "hidden" in attributes or attributes.get("aria-hidden", "").lower() == "true":
        return True
    if not _SCREEN_READER.isdisjoint(attributes.get("class", "").lower().split()):
        return True
    style = attributes.get("style")
    return style is not None and _HIDDEN_STYLE.search(style) is not None


def is_block(tag: str, element: Any) -> bool:
    """Return whether an element starts and ends a line: by its tag or its ``display`` style."""
    if tag in BLOCKS:
        return True
    style = element.get("style") if element.attrib else None
    return style is not None and _BLOCK_STYLE.search(style) is not None


def is_boilerplate(tag: str, element: Any) -> bool:
    """Return whether an element is page furniture: navigation, banners, asides, cookies."""
    if tag in BOILERPLATE:
        return True
    if tag in _PAGE_PARTS and not any(a.tag in _SECTIONING for a in element.iterancestors()):
        return True
    if tag in ("ul", "ol") and (_language_links(element) or _view_talk_edit(element)):
        return True
    attributes = element.attrib
    if not attributes or tag in _KEEP:
        return False
    if attributes.get("role", "").lower() in _BOILER_ROLES:
        return True
    names = attributes.get("id", "") + " " + attributes.get("class", "")
    if _BOILER_NAMES.search(names) is not None:
        return True
    return FURNITURE.search(names) is not None


def _language_links(element: Any) -> bool:
    """A list of three or more links, each item one link with ``hreflang``: other languages."""
    items = [child for child in element if isinstance(child.tag, str)]
    if len(items) < 3:
        return False
    for item in items:  # each item a link, or a link in a span: nothing deeper is looked at
        link = item.find("a") if len(item) == 1 else None
        if link is None or not link.get("hreflang"):
            return False
    return True


def _view_talk_edit(element: Any) -> bool:
    """A wiki template's ``v t e`` links: a list of the three items ``v``, ``t`` and ``e``."""
    if len(element) != 3 or any(len(item) > 1 for item in element):
        return False
    return ["".join(item.itertext()).strip() for item in element] == ["v", "t", "e"]


def spaced(element: Any) -> bool:
    """Whether a page shows a gap before an element, though no whitespace separates them.

    A styled (classed) element right after a styled sibling, a letter or digit on each side,
    outside code, is laid out apart by the page's style sheet, which is never read: a byline's
    author and its date (a citation mark after a linked word, ``Tides[1]``, stays joined).
    """
    before = element.getprevious()
    if before is None or before.tail or not isinstance(before.tag, str):
        return False
    if not element.get("class") or not before.get("class"):
        return False
    last = (before.text or "")[-1:] if not len(before) else "".join(before.itertext())[-1:]
    first = (element.text or "").lstrip()[:1]
    if not first and len(element):
        first = next((text for text in element.itertext() if text.strip()), "").lstrip()[:1]
    if not (last.isalnum() and first.isalnum()):
        return False
    return next(element.iterancestors("code", "kbd", "samp", "pre"), None) is None


def furniture_text(text: str) -> bool:
    """Return whether a block's whole text is page furniture ("Skip to content", ``v t e``)."""
    return len(text) <= 40 and _FURNITURE_TEXT.fullmatch(" ".join(text.split())) is not None


def clean_heading(text: str) -> str:
    """Return a heading without zero-width characters and soft hyphens, nor an ``[edit]`` link."""
    return _EDIT_LINK.sub("", _INVISIBLE.sub("", text)).strip()


def skip_reason(tag: str, element: Any, builder: HtmlBuilder) -> str | None:
    """Return why an element is not read (``""`` when its text is not counted), else None."""
    if tag in UNREAD:
        return COUNTED.get(tag, "")
    if is_hidden(element):
        return "hidden"
    if not builder.keep_boilerplate and (
        element in builder.furniture or is_boilerplate(tag, element)
    ):
        return "boilerplate"
    return None


def stray_titles(body: Any, title: object) -> frozenset[Any]:
    """Return the sidebars (or the ``<h1>`` alone) of each ``<h1>`` that is not the page's title.

    A wiki's or blog's sidebar may open with an ``<h1>`` ("User") that would head every chunk.
    When another ``<h1>`` is the title (its words are in ``<title>``), each ``<h1>`` before it
    goes, with the ``<div>``s holding it but not the title (up to ``_SIDEBAR_DEPTH``). When none
    is, an ``<h1>`` not in the title over nothing but lists of links goes with its ``<div>``.
    """
    if not isinstance(title, str):
        return frozenset()
    page = _words(title)
    h1s = list(body.iter("h1"))
    titles = [
        h1 for h1 in h1s if len(words := _words("".join(h1.itertext()))) > 2 and words in page
    ]
    if not titles:
        return frozenset(h1.getparent() for h1 in h1s if _over_links(h1, page))
    holding = {ancestor for h1 in titles for ancestor in h1.iterancestors()}
    stray = set()
    for h1 in h1s[: h1s.index(titles[0])]:
        box = h1
        for _ in range(_SIDEBAR_DEPTH):
            parent = box.getparent()
            if parent is None or parent.tag != "div" or parent in holding:
                break
            box = parent
        stray.add(box)
    return frozenset(stray)


def _words(text: str) -> str:
    return " ".join(_INVISIBLE.sub("", text).split()).casefold()


def _over_links(h1: Any, page: str) -> bool:
    """Whether an ``<h1>`` not in the page's title heads nothing but lists of links in its box."""
    words = _words("".join(h1.itertext()))
    parent = h1.getparent()
    if not words or words in page or parent is None or parent.tag != "div":
        return False
    others = [child for child in parent if child is not h1 and isinstance(child.tag, str)]
    return bool(others) and all(_links_only(child) for child in others)


def _links_only(element: Any) -> bool:
    """A list whose every item is one link and nothing else (a menu, not a "See also")."""
    if element.tag not in ("ul", "ol") or not len(element):
        return False
    for item in element:
        link = item.find("a") if len(item) == 1 else None
        if link is None or (item.text or "").strip() or (link.tail or "").strip():
            return False
    return True
