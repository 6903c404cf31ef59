"""Which HTML elements are blocks, lists, unread, hidden or page furniture (``_htmltext``).

Boilerplate is navigation (``<nav>``), asides, page-level ``<header>``/``<footer>`` (not those
of an article or a section), landmark roles (banner, navigation, contentinfo, complementary,
dialogs, search), cookie or consent banners (by id or class), the furniture of wikis and blogs
named by a class or id (``FURNITURE``: sidebars, navboxes and their ``v t e`` links, category
boxes, interlanguage links, ``[edit]`` links, "Jump to navigation", share buttons...), a list of
links to the page in other languages (three or more, all with ``hreflang``), and blocks that are
furniture by their words alone (``furniture_text``: "Skip to content", ``v t e``), as they are
after trafilatura strips the classes. Hidden is the ``hidden`` attribute, ``aria-hidden="true"``,
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
    r"(?:catlinks|mw-(?:normal|hidden)-catlinks|cat-links|tags-links|cat-tags-links"
    r"|post-(?:categories|tags)|entry-(?:categories|tags)|navbox(?:-[\w-]+)?|vertical-navbox"
    r"|navbar|nv-(?:view|talk|edit)|sidebar|side-bar|widget-area|mw-editsection|mw-jump-link"
    r"|jump-to-nav|skip-link|interlanguage-link|interwiki-[\w-]+|mw-portlet-lang|p-lang(?:-btn)?"
    r"|printfooter|sitesub|mw-panel|mw-head|mw-navigation|breadcrumbs?|sharedaddy"
    r"|share-buttons|social-share|post-navigation|nav-links)",
    re.IGNORECASE,
)
"""A class or id of page furniture, matched against each class name and the id."""
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
    return any(FURNITURE.fullmatch(name) for name in names.split())


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

    A styled (classed) element right after a styled sibling, outside code, is laid out apart
    by the page's style sheet, which is never read: a byline's author and its date.
    """
    before = element.getprevious()
    if before is None or not isinstance(before.tag, str) or before.tail:
        return False
    if not element.get("class") or not before.get("class"):
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
