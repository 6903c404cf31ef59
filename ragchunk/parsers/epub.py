"""epub: a book's spine documents in reading order, through the HTML parser, under its chapters.

The package (``META-INF/container.xml`` → the OPF) gives the metadata (title, creator,
language, publisher, date) and the spine; each spine document is read by the HTML parser and
its text follows the last one's after a blank line. The navigation document (EPUB 3 ``nav``,
else the NCX of EPUB 2) names the chapters, each starting where its entry points: at the
start of its file, or at the anchor inside it (``part-1.xhtml#chap03``, as Project Gutenberg
books do; the cut moves back over the tags opened just before the anchor, so the chapter holds
its heading). Each piece sits under its entry's title path (``Part One: Winter › Chapter 1.
The Weir in Flood``), the heading it starts with standing for that title (never repeated
below it); a heading as high, named by no entry, is a sibling. Text before the first entry is
under ``Front matter``, spine documents after the last one named under ``Back matter``, and a
file's text before its first anchor goes on with the chapter open before it (an entry whose
anchor is missing counts only when its file has no other: at the file's start). Sections carry
``metadata.file`` (the spine document's path). The zip caps (``_archive``) apply; XML is read
without loading DTDs or resolving entities, and nothing referenced is fetched. A spine entry
naming a document already read is left out with a warning (each is read once), and the book's
text counts against the input's ``--max-text``.
"""

from __future__ import annotations

import posixpath
import re
import zipfile
import zlib
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Final
from urllib.parse import unquote

from ragchunk.errors import CorruptDocumentError
from ragchunk.model import Document, Section
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
    entries = _navigation(archive, package, manifest, base, request)
    spine = _spine(package, manifest, base, names, request)
    named = {path for path, _, _ in entries}
    last_named = max((k for k, path in enumerate(spine) if path in named), default=-1)
    book = TextBuilder(spend=request.spend_text)
    state = _Open()
    by_file: dict[str, list[tuple[str, tuple[str, ...]]]] = {}
    for where, fragment, titles in entries:
        by_file.setdefault(where, []).append((fragment, titles))
    for k, path in enumerate(spine):
        if k > last_named >= 0 and path not in named:
            state = _Open(titles=(BACK_MATTER,))
        state = _add_file(book, archive, path, by_file.get(path, []), state, request)
    return book.document(request, "epub", _metadata(package))


FRONT_MATTER: Final = "Front matter"
"""The title path of what comes before the navigation's first entry (title page, a header)."""
BACK_MATTER: Final = "Back matter"
"""The title path of spine documents after the last one the navigation names."""


def _spine(
    package: Any, manifest: dict[str, Any], base: str, names: set[str], request: ParseRequest
) -> list[str]:
    """Return the spine's XHTML documents in reading order, each once (with warnings)."""
    spine: list[str] = []
    repeated: list[str] = []
    for itemref in package.iter(f"{_OPF}itemref"):
        item = manifest.get(itemref.get("idref"))
        if item is None or item.get("media-type") not in _XHTML:
            continue
        path = _resolve(base, item.get("href"))
        if path not in names:
            request.warn("missing-part", f"{request.source}: spine document {path} is missing")
        elif path in spine:  # a spine entry naming a document already read: read once
            repeated.append(path)
        else:
            spine.append(path)
    if repeated:
        request.warn(
            "repeated-part",
            f"{request.source}: {len(repeated)} spine entries name a document already read "
            f"(the first: {repeated[0]}); each document is read once",
        )
    return spine


def _add_file(
    book: TextBuilder,
    archive: zipfile.ZipFile,
    path: str,
    entries: list[tuple[str, tuple[str, ...]]],
    state: _Open,
    request: ParseRequest,
) -> _Open:
    """Add one spine document cut at its navigation entries; return what is open after it."""
    where = replace(request, source=f"{request.source}: {path}")
    markup = decode_html(archive.read(path), where)
    anchors = _anchors(markup) if any(fragment for fragment, _ in entries) else {}
    found = [(f, t) for f, t in entries if not f or f in anchors] or entries[:1]  # else the start
    cuts = sorted(
        {
            (_cut_before(markup, anchors[fragment]) if fragment in anchors else 0, k): titles
            for k, (fragment, titles) in enumerate(found)
        }.items()
    )
    starts: list[tuple[int, _Open | None]] = []
    for (at, _), titles in cuts:
        if not starts or starts[-1][0] != at:
            starts.append((at, _Open(titles=titles or state.titles)))
    if not starts or starts[0][0] > 0:
        starts.insert(0, (0, None))
    ends = [at for at, _ in starts[1:]] + [len(markup)]
    for (at, opened), end in zip(starts, ends, strict=True):
        if opened is None:  # the document's start continues what is open
            opened = state if state.titles else _Open(titles=(FRONT_MATTER,))
            state = _splice(book, parse_text(markup[at:end], where, format="epub"), opened, path)
        else:
            state = _splice(
                book, parse_text(markup[at:end], where, format="epub"), opened, path, strip=True
            )
    return state


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


Entry = tuple[str, str, tuple[str, ...]]
"""A navigation entry: the document's zip path, the fragment it points at, its title path."""


def _navigation(
    archive: zipfile.ZipFile,
    package: Any,
    manifest: dict[str, Any],
    base: str,
    request: ParseRequest,
) -> list[Entry]:
    """Return the navigation's entries in order: the EPUB 3 ``nav``, else the NCX."""
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
            return _nav_entries(toc, posixpath.dirname(path))
    spine = package.find(f"{_OPF}spine")
    ncx = manifest.get(spine.get("toc")) if spine is not None else None
    if ncx is None:
        return []
    path = _resolve(base, ncx.get("href"))
    return _ncx_entries(_xml(archive, path, request), posixpath.dirname(path))


def _fragment(href: str | None) -> str:
    return unquote((href or "").partition("#")[2])


def _items(element: Any) -> list[Any]:
    return [li for ol in element.findall("{*}ol") for li in ol.findall("{*}li")]


def _nav_entries(toc: Any, base: str) -> list[Entry]:
    """Return the entries of an EPUB 3 ``nav`` (nested ``ol`` > ``li``), parents first."""
    entries: list[Entry] = []
    stack: list[tuple[Any, tuple[str, ...]]] = [(li, ()) for li in reversed(_items(toc))]
    while stack:
        item, path = stack.pop()
        link = item.find("{*}a")
        label = link if link is not None else item.find("{*}span")
        title = " ".join("".join(label.itertext()).split()) if label is not None else ""
        here = (*path, title) if title else path
        if link is not None:
            href = link.get("href")
            entries.append((_resolve(base, href), _fragment(href), here))
        stack.extend((li, here) for li in reversed(_items(item)))
    return entries


def _ncx_entries(ncx: Any, base: str) -> list[Entry]:
    entries: list[Entry] = []
    for point in ncx.iter(f"{_NCX}navPoint"):
        path: list[str] = []
        node = point
        while node is not None and node.tag == f"{_NCX}navPoint":
            label = node.find(f"{_NCX}navLabel/{_NCX}text")
            path.insert(0, " ".join((label.text or "").split()) if label is not None else "")
            node = node.getparent()
        content = point.find(f"{_NCX}content")
        if content is not None:
            src = content.get("src")
            entries.append((_resolve(base, src), _fragment(src), tuple(p for p in path if p)))
    return entries


_ANCHOR: Final = re.compile(r"""<[A-Za-z][^<>]*?\s(?:id|name)\s*=\s*["']([^"'<>]*)["']""")
_BACK_OVER: Final = 32
"""At most this many tags opened right before an anchor are moved back over."""


def _anchors(markup: str) -> dict[str, int]:
    """Return where each element with an ``id`` (or ``name``) opens (its first one), one pass."""
    found: dict[str, int] = {}
    for match in _ANCHOR.finditer(markup):
        found.setdefault(match.group(1), match.start())
    return found


def _cut_before(markup: str, at: int) -> int:
    """Return ``at`` moved back over the tags opened just before it (``<div><h2><a id=...>``).

    So a chapter starts with its heading and the element that holds it.
    """
    for _ in range(_BACK_OVER):
        end = at
        while end and markup[end - 1].isspace():
            end -= 1
        if not end or markup[end - 1] != ">":
            break
        start = markup.rfind("<", 0, end)
        if start < 0 or not markup[start + 1 : start + 2].isalpha():
            break  # a closing tag, a comment or a declaration: what comes before is not ours
        at = start
    return at


@dataclass(frozen=True, slots=True)
class _Open:
    """What the text being read lies in: its title path, and the heading rank of its entry.

    A heading as high as the rank of the heading that stands for the last title, and named
    by no navigation entry, is that title's sibling, not its child.
    """

    titles: tuple[str, ...] = ()
    rank: int | None = None


def _splice(
    book: TextBuilder, doc: Document, opened: _Open, path: str, *, strip: bool = False
) -> _Open:
    """Add one piece of a spine document under ``opened``; return what is open after it.

    With ``strip`` the piece starts a navigation entry: its first heading, when the piece
    starts with one, stands for the entry's title (it is not repeated below it).
    """
    text = doc.text.rstrip()
    titles = opened.titles
    if not text:
        return opened
    offset = book.append(text)
    last = book.length
    sections = [s for s in doc.sections if s.start < len(text)]
    top = sections[0] if strip and sections and sections[0].kind == "heading" else None
    rank = top.level if top is not None else opened.rank
    base = top.headings[:-1] if top is not None else ()
    depth = len(titles)
    low = min((s.level for s in sections if s.kind == "heading"), default=1)
    inside = True
    metadata = {"file": path}
    for k, s in enumerate(sections):
        if s.kind == "heading" and k and rank is not None and s.level <= rank:
            inside = False  # a heading as high as the entry's, not in the navigation
        own = s.headings[len(base) :] if s.headings[: len(base)] == base else s.headings
        if top is not None and inside:
            own = own[1:]
        heads = (*titles, *own) if inside else (*titles[:-1], *own)
        if s.kind != "heading":
            level = 0
        elif rank is not None:
            level = max(depth + s.level - rank, 1)
        else:
            level = depth + 1 + s.level - low
        book.sections.append(
            Section(
                s.start + offset,
                min(s.end + offset, last),
                s.kind,
                heads,
                level,
                {**s.metadata, **metadata},
                None if s.header is None else (s.header[0] + offset, s.header[1] + offset),
                tuple((a + offset, b + offset) for a, b in s.parts),
            )
        )
    if not sections:
        book.sections.append(Section(offset, last, "prose", titles, 0, metadata))
    return _Open(titles=titles, rank=rank) if inside else _Open(titles=titles[:-1], rank=None)


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
