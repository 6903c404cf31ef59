"""Right-to-left PDF text in reading order (issue 30, ``parsers/pdf/rtl.py``).

``reorder_line`` gets a line's characters as ``(text, left, right, generated)`` in PDFium's
order; the boxes below are PDFium's for Docling's ``right_to_left_01.pdf`` (Word's Arabic).
``rtl-notes.pdf`` is Chromium's print of Arabic prose (``fixtures/builders/rtl_pdf.py``).
"""

from __future__ import annotations

from ragchunk.parsers._spec import ParseOptions, ParseRequest
from ragchunk.parsers.pdf import parse
from ragchunk.parsers.pdf.pdfium import reorder_line
from tests.conftest import FIXTURES


def test_a_tanween_read_before_its_letter_goes_after_it() -> None:
    # أيضًا: PDFium reads "أي ًضا", the mark (over ض) first, after a space inside ض's box.
    chars = [
        ("\u0623", 221.09, 222.73, False),
        ("\u064a", 217.31, 220.63, False),
        (" ", 210.11, 210.11, False),
        ("\u064b", 208.51, 210.52, False),
        ("\u0636", 207.11, 217.66, False),
        ("\u0627", 204.85, 207.49, False),
    ]
    assert reorder_line(chars, 12) == "\u0623\u064a\u0636\u064b\u0627"


def test_a_word_space_is_read_after_a_latin_run_that_touches_the_next_word() -> None:
    # "R وPython من": Word draws the space between و and Python, none between Python and من.
    chars = [
        ("\u0648", 433.92, 438.81, False),
        (" ", 430.59, 433.59, False),
        *[(c, 396.74 + 5.6 * k, 396.74 + 5.6 * (k + 1), False) for k, c in enumerate("Python")],
        ("\u0645", 391.23, 396.36, False),
        ("\u0646", 385.65, 391.56, False),
    ]
    assert reorder_line(chars, 12) == "\u0648Python \u0645\u0646"


def test_a_latin_run_with_spaces_on_both_sides_keeps_them() -> None:
    chars = [("\u0641", 440.0, 446.0, False), (" ", 436.0, 440.0, False)]
    chars += [(c, 400.0 + 5 * k, 405.0 + 5 * k, False) for k, c in enumerate("pandas")]
    chars += [(" ", 396.0, 400.0, False), ("\u0641", 390.0, 396.0, False)]
    assert reorder_line(chars, 12) == "\u0641 pandas \u0641"


def test_chromium_s_arabic_is_read_in_reading_order() -> None:
    data = (FIXTURES / "pdf" / "rtl-notes.pdf").read_bytes()
    text = " ".join(
        parse(data, ParseRequest(options=ParseOptions(pdf_engine="pdfium"))).text.split()
    )
    assert text.startswith("تحسين الإنتاجية بلغة R وPython تعتبر البرمجة بلغة R وPython من")
    assert (
        "اتخاذ قرارات أكثر دقة بناءً على البيانات في الفترة (2024 - 2026) كما في عام 2023." in text
    )
    assert "يمكن استخدام مكتبة pandas في Python لإدارة البيانات بكفاءة" in text
