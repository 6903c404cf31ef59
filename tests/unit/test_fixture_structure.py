"""Issue 31's fixtures still carry the shapes they were built for (fixtures/README.md)."""

from __future__ import annotations

import re
import zipfile
from email import message_from_bytes
from email.policy import default

from tests.conftest import FIXTURES


def test_the_gutenberg_epub_points_its_chapters_at_anchors_inside_files() -> None:
    with zipfile.ZipFile(FIXTURES / "epub" / "keepers-lamp.epub") as book:
        nav = book.read("OEBPS/nav.xhtml").decode()
        ncx = book.read("OEBPS/toc.ncx").decode()
        second = book.read("OEBPS/text/part-2.xhtml").decode()
    hrefs = re.findall(r'href="([^"]+)"', nav)
    assert len(hrefs) == 9
    assert all("#" in href for href in hrefs)
    assert len({href.partition("#")[0] for href in hrefs}) == 4  # 9 entries in 4 files
    assert re.findall(r'src="([^"]+)"', ncx) == hrefs
    assert re.search(r"<body>\s*<div class=\"chapter\"><p>Her father went up", second)


def test_the_wrapped_mail_is_wrapped_at_72_columns() -> None:
    message = message_from_bytes((FIXTURES / "email" / "wrapped-field-report.eml").read_bytes())
    body = message.get_payload()
    lines = [line for line in body.split("\n") if not line.startswith("  ")]
    lines = [line for line in lines if not line.endswith("wrote:")]  # the attribution
    assert max(len(line) for line in lines) <= 72
    assert sum(1 for line in lines if len(line) >= 65) >= 15


def test_the_forwarded_mail_holds_a_message_news_part_without_a_name() -> None:
    data = (FIXTURES / "email" / "forwarded-news.eml").read_bytes()
    message = message_from_bytes(data, policy=default)
    [part] = [p for p in message.iter_parts() if p.get_content_type() == "message/news"]
    assert part.get_filename() is None
    assert part.get_payload()[0]["Newsgroups"] == "uk.local.harwick"


def test_the_deck_has_content_placeholders_in_the_title_slot() -> None:
    with zipfile.ZipFile(FIXTURES / "pptx" / "harbour-works.pptx") as deck:
        second = deck.read("ppt/slides/slide2.xml").decode()
        third = deck.read("ppt/slides/slide3.xml").decode()
        fifth = deck.read("ppt/slides/slide5.xml").decode()
    assert second.index("<p:ph/>") < second.index('<p:ph type="title"/>')
    assert third.index('<p:ph type="body" idx="0"/>') < third.index('<p:ph type="title"/>')
    assert "<p:pic>" in fifth


def test_the_paper_names_neither_its_abstract_nor_its_references_in_a_heading() -> None:
    text = (FIXTURES / "templates" / "tidal-mixing-paper.md").read_text(encoding="utf-8")
    headings = re.findall(r"^#+ (.*)$", text, re.MULTILINE)
    assert not any(re.search(r"abstract|references", h, re.IGNORECASE) for h in headings)
    assert "\n**Abstract.** " in text
    assert "\n**References**\n\n[1] " in text
