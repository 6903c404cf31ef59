"""PDFium's text kept as printed (issue 30): the glyph-order repair never garbles, sizes are real.

``reorder_line`` gets a line's characters as ``(text, left, right, generated)`` in PDFium's
order. A glyph drawn after its line but printed inside it (a ligature from a fallback font) is
moved back; anything else a line holds out of order (a running head PDFium joined to the first
body line, table cells, right-to-left text) is left as PDFium reads it.
"""

from __future__ import annotations

import ctypes
import io
import re
import unicodedata
from pathlib import Path

import pypdfium2
import pypdfium2.raw as pdfium_c
import pytest

from ragchunk.parsers._spec import ParseOptions, ParseRequest
from ragchunk.parsers.pdf import parse
from ragchunk.parsers.pdf.pdfium import reorder_line
from tests.conftest import FIXTURES

_WORD = re.compile(r"\w+(?:['\u2019.-]\w+)*")
_LIGATURES = ("ffi", "ffl", "ff", "fi", "fl")


def _glyphs(text: str, left: float, width: float = 5.0) -> list[tuple[str, float, float, bool]]:
    """Return ``text`` as glyphs printed left to right from ``left``, spaces generated."""
    out = []
    for k, char in enumerate(text):
        x = left + k * width
        out.append((char, x, x if char == " " else x + width, char == " "))
    return out


def test_a_ligature_drawn_late_is_put_back() -> None:
    chars = [
        ("d", 0, 5, False),
        ("i", 5, 8, False),
        (" ", 15, 15, True),
        ("e", 15.5, 20, False),
        (" ", 21, 21, True),
        ("f", 8, 15, False),
        ("f", 8, 15, False),
    ]
    assert reorder_line(chars, 11) == "diffe"


def test_a_ligature_printed_in_order_is_left_alone() -> None:
    # PDFium gives each letter of a ligature glyph the glyph's box.
    chars = [("e", 0, 5, False), ("f", 5, 12, False), ("f", 5, 12, False), ("i", 5, 12, False)]
    chars += [("c", 12, 16, False)]
    assert reorder_line(chars, 11) == "effic"


def test_a_kerned_comma_keeps_the_word_gap_after_it() -> None:
    # "winter, as": the comma is kerned under the r (it starts 0.8 pt inside it), then PDFium's
    # generated space and the next word; the comma is in place, and the space is a word gap.
    chars = [("e", 369.7, 375.1, False), ("r", 376.1, 380.9, False), (",", 380.1, 382.2, False)]
    chars += [(" ", 384.4, 384.4, True), ("a", 387.3, 393.0, False), ("s", 393.9, 398.4, False)]
    assert reorder_line(chars, 11) == "er, as"


def test_a_running_head_joined_to_a_body_line_is_not_interleaved() -> None:
    # The head is drawn after the body line but printed over the same x range.
    body = _glyphs("NT_USER is the user", 0)
    head = _glyphs("CURRENT_USER", 2)
    chars = [*body, (" ", 100, 100, True), *head]
    assert reorder_line(chars, 11) == "NT_USER is the user CURRENT_USER"


def test_a_title_laid_twice_is_read_once() -> None:
    title = _glyphs("the jubilee", 0)
    chars = [*title, (" ", 60, 60, True), *title]
    assert reorder_line(chars, 11) == "the jubilee"


def test_right_to_left_lines_keep_pdfium_order() -> None:
    # An Arabic line whose first letter's box lies right of the rest, the rest read from the
    # right as PDFium reports it (boxes running left to right would be a word in visual order).
    word = "\u062a\u062d\u0633\u064a\u0646"  # تحسين
    chars = [(word[0], 50, 55, False)]
    chars += [(c, 20 - 5 * k - 5, 20 - 5 * k, False) for k, c in enumerate(word[1:])]
    assert reorder_line(chars, 11) == word


Placed = tuple[str, float, float] | tuple[str, float, float, float]
"""Text, printed size, baseline from the page's bottom (and left edge: 72 points unless given)."""


def _pdf(pages: list[list[Placed]]) -> bytes:
    """Return a PDF made by PDFium whose text is set in 1-point type scaled by the text matrix."""
    pdf = pypdfium2.PdfDocument.new()
    font = pdfium_c.FPDFText_LoadStandardFont(pdf.raw, b"Helvetica")
    for lines in pages:
        page = pdf.new_page(612, 792)
        for text, size, y, *x in lines:
            obj = pdfium_c.FPDFPageObj_CreateTextObj(pdf.raw, font, 1.0)
            data = (text + "\0").encode("utf-16-le")
            chars = (ctypes.c_ushort * (len(data) // 2)).from_buffer_copy(data)
            pdfium_c.FPDFText_SetText(obj, chars)
            pdfium_c.FPDFPageObj_Transform(obj, size, 0, 0, size, x[0] if x else 72, y)
            pdfium_c.FPDFPage_InsertObject(page.raw, obj)
        pdfium_c.FPDFPage_GenerateContent(page.raw)
    out = io.BytesIO()
    pdf.save(out)
    return out.getvalue()


def _scaled_pdf(lines: list[Placed]) -> bytes:
    return _pdf([lines])


def test_headings_are_found_when_the_text_matrix_sets_the_size() -> None:
    data = _scaled_pdf(
        [
            ("Harbour Survey", 24, 700),
            ("The survey of the harbour ran from March to May of that year.", 11, 660),
            ("Findings", 16, 620),
            ("Silt built up at the north pier, where the flow slowed down.", 11, 590),
        ]
    )
    doc = parse(data, ParseRequest(options=ParseOptions(pdf_engine="pdfium")))
    headings = [s.headings for s in doc.sections if s.kind == "heading"]
    assert headings == [("Harbour Survey",), ("Harbour Survey", "Findings")]


def test_a_line_s_size_is_the_size_most_of_it_is_printed_in() -> None:
    # The heading opens with a small mark drawn apart from it, as a symbol font or drop cap is.
    data = _scaled_pdf(
        [
            ("Harbour Survey", 24, 700),
            ("The survey of the harbour ran from March to May of that year.", 11, 660),
            ("\u00a7", 6, 620, 72),
            ("Findings of the survey", 16, 620, 80),
            ("Silt built up at the north pier, where the flow slowed down.", 11, 590),
        ]
    )
    doc = parse(data, ParseRequest(options=ParseOptions(pdf_engine="pdfium")))
    headings = [s.headings[-1] for s in doc.sections if s.kind == "heading"]
    assert headings == ["Harbour Survey", "\u00a7 Findings of the survey"]


_MARK_AFTER_SPACE = re.compile(" ([\u064b-\u065f\u0670])(?=\\w)")
_MARKS = re.compile("[\u064b-\u065f\u0670]")
_SCRIPTS = re.compile("(?<=[a-z0-9])(?=[\u0590-\u08ff])|(?<=[\u0590-\u08ff])(?=[a-z0-9])")
_LAM_ALEF = re.compile("\u0644([\u0622\u0623\u0625\u0627])|([\u0622\u0623\u0625\u0627])\u0644")


def _words(text: str) -> list[str]:
    """Return the words of ``text`` as compared: in right-to-left text (``parsers/pdf/rtl``)
    harakat marks and the space between a Latin run and a right-to-left letter do not count."""
    return _WORD.findall(_SCRIPTS.sub(" ", _MARKS.sub("", unicodedata.normalize("NFKC", text))))


def _canon(word: str) -> str:
    """Return ``word`` with lam-alef's two letters in one order (PDFium gives them drawn)."""
    return _LAM_ALEF.sub(lambda m: "\u00a7" + (m.group(1) or m.group(2)), word.casefold())


def _read(word: str, raw: set[str]) -> bool:
    """Whether ``word`` is PDFium's, or a ligature put back between two of PDFium's pieces, or
    the letters of a right-to-left word PDFium read (in part) in visual order, as printed."""
    if _canon(word) in raw or "".join(sorted(_canon(word))) in raw:
        return True
    return any(
        all(not piece or _canon(piece) in raw for piece in word.casefold().split(ligature, 1))
        for ligature in _LIGATURES
        if ligature in word
    )


@pytest.mark.parametrize("path", sorted(FIXTURES.rglob("*.pdf")), ids=lambda path: path.name)
def test_every_word_is_one_pdfium_read(path: Path) -> None:
    data = path.read_bytes()
    document = pypdfium2.PdfDocument(data)
    pages = [document[k].get_textpage().get_text_range() for k in range(len(document))]
    text = "\n".join(p.replace("\ufffe\r\n", "").replace("\ufffe", "") for p in pages)
    raw = {_canon(w) for w in _words(text) + _words(_MARK_AFTER_SPACE.sub(r"\1", text))}
    raw |= {"".join(sorted(word)) for word in raw if not word.isascii()}
    doc = parse(data, ParseRequest(options=ParseOptions(pdf_engine="pdfium")))
    made = [word for word in _words(doc.text) if not _read(word, raw)]
    assert made == []


def test_lam_alef_is_read_in_logical_order() -> None:
    # الإنتاجية: PDFium reads the line in logical order, but the lam-alef glyph's two letters
    # (sharing its box) in drawing order, alef first.
    chars = [
        ("\u0627", 486.6, 488.2, False),
        ("\u0625", 479.5, 485.6, False),
        ("\u0644", 479.5, 485.6, False),
        ("\u0646", 475.1, 479.2, False),
        ("\u062a", 471.4, 475.5, False),
    ]
    assert reorder_line(chars, 12) == "\u0627\u0644\u0625\u0646\u062a"


BODY = [
    "At the north pier the silt had built up over the winter until the channel was no deeper",
    "than a metre at low water, and the survey boat had to wait for the tide to cross it.",
]


def _parsed(data: bytes):  # type: ignore[no-untyped-def]
    return parse(data, ParseRequest(options=ParseOptions(pdf_engine="pdfium")))


def test_two_pages_starting_with_one_body_line_keep_it() -> None:
    first = "The survey of the harbour ran from March to May and its findings follow in de-"
    page = [
        (first, 10, 740),
        ("tail, site by site, with the tables that give each reading.", 10, 728),
    ]
    page += [(line, 10, 700 - 12 * k) for k, line in enumerate(BODY)]
    doc = _parsed(_pdf([page, page]))
    assert doc.text.count("The survey of the harbour ran from March") == 2
    assert doc.extraction.get("removed", []) == []


def test_a_running_head_that_changes_with_each_chapter_is_removed() -> None:
    pages = []
    for number in range(30):
        chapter = ("Tides", "Silt", "Birds")[number // 10]
        name = "abcdefghijklmnopqrstuvwxyz"[number % 26] + "xyz"[number // 26]
        body = [f"On day {name} of the survey: {line}" for line in BODY]  # digits read as #
        lines: list[Placed] = [(line, 10, 600 - 12 * k) for k, line in enumerate(body)]
        if number % 2 == 0:  # on odd pages only: 5 of 30, under a fifth of the pages
            lines.insert(0, (f"Chapter {chapter}: the estuary in {chapter.lower()}", 9, 760))
        pages.append(lines)
    doc = _parsed(_pdf(pages))
    assert "Chapter" not in doc.text
    removed = doc.extraction["removed"]
    assert len(removed) == 15
    assert {item["kind"] for item in removed} == {"header"}
    assert doc.text.count(BODY[0]) == 30
    assert doc.text.count(BODY[1]) == 30


_UCS_CMAP = b"""/CIDInit /ProcSet findresource begin 12 dict begin begincmap
/CIDSystemInfo << /Registry (Adobe) /Ordering (UCS) /Supplement 0 >> def
/CMapName /Adobe-Identity-UCS def /CMapType 2 def
1 begincodespacerange <00> <FF> endcodespacerange
1 beginbfchar <02> <0002> endbfchar
1 beginbfrange <20> <7E> <0020> endbfrange
endcmap CMapName currentdict /CMap defineresource pop end end"""


def _bullet_pdf(lines: list[tuple[str, float, float]]) -> bytes:
    """Return a PDF written by pypdf whose font maps code 2 to U+0002, as IBM's BookMaster
    bullets do: PDFium keeps the character in its list but leaves it out of its text."""
    import pypdf
    from pypdf.generic import DecodedStreamObject, DictionaryObject, NameObject

    writer = pypdf.PdfWriter()
    page = writer.add_blank_page(612, 792)
    cmap = DecodedStreamObject()
    cmap.set_data(_UCS_CMAP)
    font = DictionaryObject(
        {
            NameObject("/Type"): NameObject("/Font"),
            NameObject("/Subtype"): NameObject("/Type1"),
            NameObject("/BaseFont"): NameObject("/Helvetica"),
            NameObject("/ToUnicode"): writer._add_object(cmap),
        }
    )
    fonts = DictionaryObject({NameObject("/F1"): writer._add_object(font)})
    page[NameObject("/Resources")] = DictionaryObject({NameObject("/Font"): fonts})
    content = DecodedStreamObject()
    content.set_data(
        "\n".join(f"BT /F1 10 Tf {x} {y} Td ({text}) Tj ET" for text, x, y in lines).encode(
            "latin-1"
        )
    )
    page[NameObject("/Contents")] = writer._add_object(content)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def test_control_characters_pdfium_leaves_out_do_not_shift_the_lines() -> None:
    # redp5110: three bullets drawn as U+0002 are in PDFium's character list but not in its
    # text, so every later line was read with the boxes of characters three places on, and
    # the glyph-order repair made "usage," into "age, u".
    bullets = ["Work Function Usage lists them.", "Change Function Usage sets them."]
    bullets.append("Display Function Usage shows them.")
    lines = [(f"\x02 {text}", 72.0, 700.0 - 14 * k) for k, text in enumerate(bullets)]
    code = ["SELECT function_id,", "       user_name,", "       usage,", "       user_type"]
    code += ["FROM function_usage", "ORDER BY user_name;"]
    lines += [(text, 90.0, 650.0 - 12 * k) for k, text in enumerate(code)]
    doc = _parsed(_bullet_pdf(lines))
    assert " ".join(doc.text.split()) == " ".join(" ".join(bullets + code).split())
    assert "\x02" not in doc.text
