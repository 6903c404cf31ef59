"""html: the readable text of a page, with heading paths, lists, tables and code blocks.

The bytes are decoded by their BOM, else the charset the page declares (``<meta charset>``,
``http-equiv``, an XML declaration; Latin-1 read as windows-1252, as browsers do), else UTF-8,
else windows-1252 with a warning. lxml (libxml2's HTML5 tokenizer) builds the tree, which is read
without recursion (``_htmltext``): blocks separated by blank lines, ``<br>`` as line breaks,
entities decoded; scripts, styles, templates, ``<noscript>``, comments and hidden elements are
left out, and so is boilerplate (navigation, page headers and footers, asides, cookie banners,
the furniture of wikis and blogs as ``_htmltags`` knows it, an ``<h1>`` that is not the page's
title when another is) unless ``keep_boilerplate``; ``main_content`` hands trafilatura the page
without it. What readable text is left out is counted in ``metadata.left_out``.
Title, language, description, author and canonical URL become metadata. Nothing the page
references is ever fetched. Nesting deeper than libxml2's 2048 levels is refused.
"""

from __future__ import annotations

import codecs
import re
from typing import TYPE_CHECKING, Any, Final

from ragchunk.errors import InputError, LimitExceededError
from ragchunk.model import Document
from ragchunk.parsers._decode import charset_problem, decode, text_codec
from ragchunk.parsers._extras import need
from ragchunk.parsers._htmltags import is_block, is_boilerplate, is_hidden, spaced, stray_titles
from ragchunk.parsers._htmltext import HtmlBuilder, walk
from ragchunk.parsers._spec import Format

if TYPE_CHECKING:
    from ragchunk.model import JSONValue
    from ragchunk.parsers._spec import ParseRequest

_SNIFF: Final = 4096
_META_CHARSET: Final = re.compile(
    rb"""<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9_:.\-]+)""", re.IGNORECASE
)
_XML_ENCODING: Final = re.compile(rb"""^<\?xml[^>]+encoding\s*=\s*["']([A-Za-z0-9_.\-]+)""")
# libxml2 stops reading at </html>; HTML5 puts what follows into the body all the same.
_CLOSING_ROOT: Final = re.compile(r"</(?:html|body)\s*>", re.IGNORECASE)
# An internal DTD subset (``<!DOCTYPE html [<!ENTITY ...>]>``, legal in XHTML): libxml2's HTML
# parser ends the doctype at its first ``>`` and reads the rest, ``]>`` included, as text. The
# subset goes (nothing in it is ever used: entities are not resolved); quoted strings may hold
# ``]`` or ``>``.
_DTD_SUBSET: Final = re.compile(
    r"""(\A\s*(?:<\?xml[^>]*>\s*)?<!DOCTYPE[^\[>]*)\[(?:[^\]"']++|"[^"]*+"|'[^']*+')*+\]\s*>""",
    re.IGNORECASE,
)
_LEGACY: Final = {"iso-8859-1": "cp1252", "latin-1": "cp1252", "ascii": "cp1252"}
_DEPTH_ERROR: Final = "ERR_RESOURCE_LIMIT"
MAX_DEPTH: Final = 2048
"""libxml2's nesting limit (with its huge-tree option): deeper elements are refused."""
_METADATA: Final = {"description": "description", "author": "author"}


def parse(data: bytes, request: ParseRequest) -> Document:
    """Return the page's readable text, sections and metadata.

    Offsets are absolute, half-open code-point indices into the built text.

    Raises:
        InputError: binary data.
        LimitExceededError: elements nested deeper than ``MAX_DEPTH``.
    """
    return parse_text(decode_html(data, request), request)


def parse_text(markup: str, request: ParseRequest, *, format: str = "html") -> Document:
    """Return the Document of decoded HTML (e-mail bodies and EPUB chapters come this way).

    Raises:
        LimitExceededError: elements nested deeper than ``MAX_DEPTH``.
    """
    keep = request.options.keep_boilerplate
    title = None
    if request.options.main_content:
        root = parse_tree(markup, request)
        if root is not None:
            title = page_metadata(root).get("title")
            markup = _main_content(_without_furniture(root, keep=keep), request)
    root = parse_tree(markup, request)
    builder = HtmlBuilder(keep_boilerplate=keep)
    metadata: dict[str, JSONValue] = {}
    if root is not None:
        from lxml import etree

        metadata = page_metadata(root)
        body = root.find("body")
        body = root if body is None else body
        if not keep and format == "html":  # a web page, not a chapter or a message
            builder.furniture = stray_titles(body, metadata.get("title", title))
        walk(body, builder, etree)
        builder.end_line()
        while builder.lists:
            builder.close_list()
    if builder.left_out:
        metadata["left_out"] = dict(sorted(builder.left_out.items()))
    return builder.document(request, format, metadata)


def parse_tree(markup: str, request: ParseRequest) -> Any:
    """Return the root element of ``markup`` parsed as HTML, or None for an empty page.

    Raises:
        LimitExceededError: elements nested deeper than ``MAX_DEPTH``.
    """
    from lxml import etree

    if not markup.strip():
        return None
    parser = etree.HTMLParser(
        remove_comments=True,
        remove_pis=True,
        no_network=True,
        huge_tree=True,  # long text nodes are fine: the input is capped by --max-bytes
        default_doctype=False,
        encoding="utf-8",
    )
    markup = _DTD_SUBSET.sub(r"\1>", markup, count=1)
    cleaned = _CLOSING_ROOT.sub("", markup).encode("utf-8", "surrogatepass")
    try:
        root = etree.fromstring(cleaned, parser)
    except etree.XMLSyntaxError as exc:  # recover mode leaves only the empty document here
        if _DEPTH_ERROR in str(exc):
            raise _too_deep(request) from None
        return None
    if any(_DEPTH_ERROR in str(error) for error in parser.error_log):
        raise _too_deep(request)
    return root


def _too_deep(request: ParseRequest) -> LimitExceededError:
    return LimitExceededError(
        f"{request.source}: refused: HTML elements nested more than {MAX_DEPTH} levels deep"
    )


def page_metadata(root: Any) -> dict[str, JSONValue]:
    """Return title, language, description, author and canonical URL, where the page has them."""
    metadata: dict[str, JSONValue] = {}
    title = root.find(".//title")
    if title is not None and (text := " ".join("".join(title.itertext()).split())):
        metadata["title"] = text
    language = root.get("lang") or root.get("{http://www.w3.org/XML/1998/namespace}lang")
    if language:
        metadata["language"] = language.strip()
    for meta in root.iter("meta"):
        name = (meta.get("name") or "").strip().lower()
        content = " ".join((meta.get("content") or "").split())
        if name in _METADATA and content and _METADATA[name] not in metadata:
            metadata[_METADATA[name]] = content
    for link in root.iter("link"):
        relations = (link.get("rel") or "").lower().split()
        if "canonical" in relations and link.get("href") and "url" not in metadata:
            metadata["url"] = link.get("href").strip()
    return metadata


def decode_html(data: bytes, request: ParseRequest) -> str:
    """Decode a page: BOM, else its declared charset, else UTF-8, else windows-1252.

    Raises:
        InputError: binary data (zero bytes that are not UTF-16).
    """
    if data.startswith((codecs.BOM_UTF8, codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return decode(data, request)
    declared = _declared_charset(data[:_SNIFF])
    if declared is not None and declared not in ("utf-8", "utf8"):
        codec = text_codec(_LEGACY.get(declared, declared))
        if codec is None:
            request.warn("unknown-charset", f"{request.source}: {charset_problem(declared)}")
        else:
            if b"\x00" in data[:_SNIFF] and not codec.startswith("utf-16"):
                raise InputError(f"{request.source}: binary data, not HTML (it holds zero bytes)")
            return _decode_as(data, codec, request)
    if b"\x00" in data[:_SNIFF]:
        return decode(data, request)  # UTF-16 without a BOM, or binary data
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        request.warn(
            "charset-guessed",
            f"{request.source}: no charset declared and not UTF-8; read as windows-1252",
        )
        return _decode_as(data, "cp1252", request)


def _declared_charset(head: bytes) -> str | None:
    match = _XML_ENCODING.match(head.lstrip()) or _META_CHARSET.search(head)
    return match.group(1).decode("ascii").lower() if match else None


def _decode_as(data: bytes, codec: str, request: ParseRequest) -> str:
    try:
        return data.decode(codec)
    except UnicodeDecodeError as exc:
        request.warn(
            "invalid-encoding",
            f"{request.source}: invalid {codec} from byte {exc.start}; replaced with U+FFFD",
        )
        return data.decode(codec, errors="replace")


def _without_furniture(root: Any, *, keep: bool) -> str:
    """Return a page as HTML for trafilatura, without its furniture unless ``keep``.

    Blocks and gaps as ``_htmltext`` reads them are made explicit: trafilatura drops classes
    and styles.
    """
    from lxml import etree

    body = root.find("body")
    title = page_metadata(root).get("title")
    stray = frozenset() if keep else stray_titles(root if body is None else body, title)
    dropped, spaces = [], []
    walker = etree.iterwalk(root, events=("start",))
    for _event, element in walker:
        tag = element.tag.rpartition("}")[2].lower() if isinstance(element.tag, str) else ""
        if not tag:
            continue
        if is_hidden(element) or (not keep and (element in stray or is_boilerplate(tag, element))):
            dropped.append(element)
            walker.skip_subtree()
            continue
        if tag == "span" and is_block(tag, element):
            element.tag = "div"
        if spaced(element):
            spaces.append(element.getprevious())
    for element in spaces:
        element.tail = " "
    for element in dropped:
        _drop(element)
    return str(etree.tostring(root, encoding="unicode", method="html"))


def _drop(element: Any) -> None:
    """Remove an element and its subtree, keeping the text after it."""
    parent = element.getparent()
    if parent is None:
        return
    if element.tail:
        before = element.getprevious()
        if before is not None:
            before.tail = (before.tail or "") + element.tail
        else:
            parent.text = (parent.text or "") + element.tail
    parent.remove(element)


def _main_content(markup: str, request: ParseRequest) -> str:
    """Return the page's main content as HTML, as trafilatura finds it (headings kept)."""
    trafilatura = need("trafilatura", extra="html", what="main content", request=request)
    found = trafilatura.extract(
        markup,
        output_format="html",
        include_tables=True,
        include_formatting=False,
        include_comments=False,
        include_links=False,
        favor_recall=True,
    )
    if not found:
        request.warn(
            "no-main-content", f"{request.source}: trafilatura found no main content; page kept"
        )
        return markup
    return str(found)


FORMAT = Format(name="html", parse=parse)
