"""Which HTML elements are blocks, lists, unread, hidden or page furniture (``_htmltext``).

Boilerplate is navigation (``<nav>``), asides, page-level ``<header>``/``<footer>`` (not those
of an article or a section), landmark roles (banner, navigation, contentinfo, complementary,
dialogs, search) and cookie or consent banners (by id or class). Hidden is the ``hidden``
attribute, ``aria-hidden="true"`` and inline ``display: none`` / ``visibility: hidden``.
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
        "tr", "td", "th", "table", "pre", "noscript", "option", "frameset", "frame",
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
_HIDDEN_STYLE: Final = re.compile(r"display\s*:\s*none|visibility\s*:\s*hidden", re.IGNORECASE)


def is_hidden(element: Any) -> bool:
    """Return whether an element is hidden from readers (``hidden``, a style, ``aria-hidden``)."""
    attributes = element.attrib
    if not attributes:
        return False
    if "hidden" in attributes or attributes.get("aria-hidden", "").lower() == "true":
        return True
    style = attributes.get("style")
    return style is not None and _HIDDEN_STYLE.search(style) is not None


def is_boilerplate(tag: str, element: Any) -> bool:
    """Return whether an element is page furniture: navigation, banners, asides, cookies."""
    if tag in BOILERPLATE:
        return True
    if tag in _PAGE_PARTS and not any(a.tag in _SECTIONING for a in element.iterancestors()):
        return True
    attributes = element.attrib
    if not attributes:
        return False
    if attributes.get("role", "").lower() in _BOILER_ROLES:
        return True
    names = attributes.get("id", "") + " " + attributes.get("class", "")
    return _BOILER_NAMES.search(names) is not None


def skip_reason(tag: str, element: Any, builder: HtmlBuilder) -> str | None:
    """Return why an element is not read (``""`` when its text is not counted), else None."""
    if tag in UNREAD:
        return COUNTED.get(tag, "")
    if is_hidden(element):
        return "hidden"
    if not builder.keep_boilerplate and is_boilerplate(tag, element):
        return "boilerplate"
    return None
