"""PDF cleaning rules that over-fired (issue 31, finding 9).

- the watermark rule compared lines with digits read as ``#``, so numbered headings repeated
  across pages (``2 Bar`` / ``5 Bar``, ``1.5 Exercises`` / ``2.5 Exercises``) were deleted;
- de-hyphenation joined ``HER2-`` ``high-risk`` to ``HER2high-risk`` although the document
  writes ``HER2-high-risk`` elsewhere.
"""

from __future__ import annotations

from ragchunk.parsers.pdf.clean import remove_repeated
from ragchunk.parsers.pdf.hyphens import HyphenCounts, join_hyphenated
from ragchunk.parsers.pdf.lines import Line, PageLines


def page(*texts: str) -> PageLines:
    """A page of lines in its middle, far from the header and footer zones."""
    lines = tuple(
        Line(text, 10, 50, 300, 200 + 40 * k, 210 + 40 * k) for k, text in enumerate(texts)
    )
    return PageLines(lines, 600, 800)


def test_numbered_headings_repeated_across_pages_are_no_watermark() -> None:
    pages = [
        page(f"{n} Bar", f"Body of part {word}.", f"{n}.5 Exercises", f"Try {word} again.")
        for n, word in zip(range(1, 7), ["one", "two", "three", "four", "five", "six"], strict=True)
    ]
    kept, removed = remove_repeated(pages, headers=True, watermarks=True)
    assert removed == []
    assert kept == pages


def test_a_watermark_printed_the_same_on_every_page_is_still_removed() -> None:
    pages = [
        page(f"{n} Bar", "DRAFT 2024 - NOT FOR CITATION", f"Body of part {n}.") for n in range(1, 7)
    ]
    _, removed = remove_repeated(pages, headers=True, watermarks=True)
    assert [(r.page, r.kind, r.text) for r in removed] == [
        (n, "watermark", "DRAFT 2024 - NOT FOR CITATION") for n in range(1, 7)
    ]


def test_a_hyphen_the_document_writes_elsewhere_is_kept_in_a_compound() -> None:
    pages = [
        PageLines(
            tuple(
                Line(text)
                for text in (
                    "Patients with HER2-high-risk disease were treated first.",
                    "Of the HER2-",
                    "high-risk group, most responded; the labora-",
                    "tory confirmed it.",
                )
            ),
            600,
            800,
        )
    ]
    counts = HyphenCounts()
    out = join_hyphenated(pages, counts)
    assert [line.text for line in out[0].lines][1:] == [
        "Of the HER2-high-risk",
        "group, most responded; the laboratory",
        "confirmed it.",
    ]
    assert (counts.joined, counts.kept) == (1, 1)
