"""epub: a book's spine documents in reading order, through the HTML parser, under its chapters.

The package (``META-INF/container.xml`` → the OPF) gives the metadata (title, creator,
language, publisher, date) and the spine; each spine document is read by the HTML parser and
its text follows the last one's after a blank line. The navigation document (EPUB 3 ``nav``,
else the NCX of EPUB 2) names the chapters: a spine document it names sits under its title
path (``Part One: Winter › Chapter 1. The Weir in Flood``), its first top heading standing for
that title at the navigation's depth, its other headings below. Sections carry
``metadata.file`` (the spine document's path). The zip caps (``_archive``) apply; XML is read
without loading DTDs or resolving entities, and nothing referenced is fetched. A spine entry
naming a document already read is left out with a warning (each is read once), and the book's
text counts against the input's ``--max-text``.
"""

from __future__ import annotations

import posixpath
import zipfile
import zlib
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Final
from urllib.parse import unquote

from ragchunk.errors import CorruptDocumentError
from ragchunk.model import Document
from ragchunk.parsers._archive import open_zip
from ragchunk.parsers._builder import TextBuilder
from ragchunk.parsers._spec import Format
from ragchunk.parsers.html import decode_html, parse_text

if TYPE_CHECKING:
    from ragchunk.model import JSONValue
    from ragchunk.parsers._spec import ParseRequest

_CONTAINER: Final = "META-INF/container.xml"
_OPF: Final = "{http://www.idpf.org/2007/opf}"
_DC: Final = "{http://purl.org/dc/elements/1.1/}"
_NCX: Final = "{http://www.daisy.org/z3986/2005/ncx/}"
_OPS: Final = "{http://www.idpf.org/2007/ops}"
_XHTML: Final = ("application/xhtml+xml", "text/html")
_DUBLIN_CORE: Final = {"title": "title", "creator": "author", "language": "language"}
_ALSO: Final = ("publisher", "date")


def parse(data: bytes, request: ParseRequest) -> Document:
    """Return the book's text: its spine documents in order, under the navigation's titles.

    Raises:
        CorruptDocumentError: not a zip, no container or package document, or malformed XML.
        LimitExceededError: a zip bomb, more data than ``request.max_bytes``, or a chapter
            nested too deeply.
    """
    with open_zip(data, request, kind="EPUB") as archive:
        try:
            return _read(archive, request)
        except (KeyError, zipfile.BadZipFile, zlib.error, EOFError, OSError) as exc:
            raise CorruptDocumentError(f"{request.source}: corrupt EPUB: {exc}") from exc


def _read(archive: zipfile.ZipFile, request: ParseRequest) -> Document:
    names = set(archive.namelist())
    if _CONTAINER not in names:
        raise CorruptDocumentError(f"{request.source}: not an EPUB: the zip has no {_CONTAINER}")
    container = _xml(archive, _CONTAINER, request)
    rootfile = container.find(".//{*}rootfile")
    opf_path = rootfile.get("full-path") if rootfile is not None else None
    if not opf_path or opf_path not in names:
        raise CorruptDocumentError(f"{request.source}: not an EPUB: no package document")
    package = _xml(archive, opf_path, request)
    base = posixpath.dirname(opf_path)
    manifest = {
        item.get("id"): item
        for item in package.iter(f"{_OPF}item")
        if item.get("id") and item.get("href")
    }
    titles = _navigation(archive, package, manifest, base, request)
    book = TextBuilder(spend=request.spend_text)
    read: set[str] = set()
    repeated: list[str] = []
    for itemref in package.iter(f"{_OPF}itemref"):
        item = manifest.get(itemref.get("idref"))
        if item is None or item.get("media-type") not in _XHTML:
            continue
        path = _resolve(base, item.get("href"))
        if path not in names:
            request.warn("missing-part", f"{request.source}: spine document {path} is missing")
            continue
        if path in read:  # a spine entry naming a document already read: read once
            repeated.append(path)
            continue
        read.add(path)
        _add_chapter(book, archive, path, titles.get(path, ()), request)
    if repeated:
        request.warn(
            "repeated-part",
            f"{request.source}: {len(repeated)} spine entries name a document already read "
            f"(the first: {repeated[0]}); each document is read once",
        )
    return book.document(request, "epub", _metadata(package))


def _add_chapter(
    book: TextBuilder,
    archive: zipfile.ZipFile,
    path: str,
    titles: tuple[str, ...],
    request: ParseRequest,
) -> None:
    where = replace(request, source=f"{request.source}: {path}")
    doc = parse_text(decode_html(archive.read(path), where), where, format="epub")
    level = max(len(titles) - 1, 0)
    book.splice(doc, path=titles, level=level, metadata={"file": path}, keep_top=not titles)


def _xml(archive: zipfile.ZipFile, name: str, request: ParseRequest) -> Any:
    from lxml import etree

    parser = etree.XMLParser(
        resolve_entities=False, load_dtd=False, no_network=True, huge_tree=False
    )
    try:
        return etree.fromstring(archive.read(name), parser)
    except etree.XMLSyntaxError as exc:
        reason = str(exc).splitlines()[0]
        raise CorruptDocumentError(f"{request.source}: corrupt EPUB: {name}: {reason}") from exc


def _resolve(base: str, href: str | None) -> str:
    """Return the zip path of an href relative to ``base``, without its fragment."""
    target = unquote((href or "").partition("#")[0])
    return posixpath.normpath(posixpath.join(base, target)) if target else ""


def _navigation(
    archive: zipfile.ZipFile,
    package: Any,
    manifest: dict[str, Any],
    base: str,
    request: ParseRequest,
) -> dict[str, tuple[str, ...]]:
    """Return the title path of each spine document the navigation names (the first entry)."""
    nav = next(
        (item for item in manifest.values() if "nav" in (item.get("properties") or "").split()),
        None,
    )
    if nav is not None:
        path = _resolve(base, nav.get("href"))
        tree = _xml(archive, path, request)
        toc = next(
            (n for n in tree.iter("{*}nav") if n.get(f"{_OPS}type", "").split()[:1] == ["toc"]),
            None,
        )
        if toc is not None:
            return _nav_titles(toc, posixpath.dirname(path))
    spine = package.find(f"{_OPF}spine")
    ncx = manifest.get(spine.get("toc")) if spine is not None else None
    if ncx is None:
        return {}
    path = _resolve(base, ncx.get("href"))
    return _ncx_titles(_xml(archive, path, request), posixpath.dirname(path))


def _nav_titles(toc: Any, base: str) -> dict[str, tuple[str, ...]]:
    """Return each linked document's title path in an EPUB 3 ``nav`` (nested ``ol`` > ``li``)."""
    titles: dict[str, tuple[str, ...]] = {}
    stack: list[tuple[Any, tuple[str, ...]]] = [(toc, ())]
    while stack:
        element, path = stack.pop()
        items = [li for ol in element.findall("{*}ol") for li in ol.findall("{*}li")]
        for item in reversed(items):
            link = item.find("{*}a")
            label = link if link is not None else item.find("{*}span")
            title = " ".join("".join(label.itertext()).split()) if label is not None else ""
            here = (*path, title) if title else path
            if link is not None:
                titles.setdefault(_resolve(base, link.get("href")), here)
            stack.append((item, here))
    return titles


def _ncx_titles(ncx: Any, base: str) -> dict[str, tuple[str, ...]]:
    titles: dict[str, tuple[str, ...]] = {}
    for point in ncx.iter(f"{_NCX}navPoint"):
        path: list[str] = []
        node = point
        while node is not None and node.tag == f"{_NCX}navPoint":
            label = node.find(f"{_NCX}navLabel/{_NCX}text")
            path.insert(0, " ".join((label.text or "").split()) if label is not None else "")
            node = node.getparent()
        content = point.find(f"{_NCX}content")
        if content is not None:
            titles.setdefault(_resolve(base, content.get("src")), tuple(p for p in path if p))
    return titles


def _metadata(package: Any) -> dict[str, JSONValue]:
    metadata: dict[str, JSONValue] = {}
    block = package.find(f"{_OPF}metadata")
    if block is None:
        return metadata
    for name in (*_DUBLIN_CORE, *_ALSO):
        element = block.find(f"{_DC}{name}")
        text = " ".join((element.text or "").split()) if element is not None else ""
        if text:
            metadata[_DUBLIN_CORE.get(name, name)] = text
    return metadata


FORMAT = Format(name="epub", parse=parse)
