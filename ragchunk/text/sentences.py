"""Sentence boundaries: where one sentence ends and the next begins, in linear time.

``split_sentences(text, start, end, language=...)`` returns the sentences of ``text[start:end]``
as absolute, half-open spans without their surrounding whitespace. One regular expression finds
every place a sentence *may* end (terminal punctuation followed by whitespace; CJK and Devanagari
full stops; blank lines; a new line that opens a list item, a Markdown heading or a rule line; a
bullet inside a line). ``text.stops`` judges each Latin full stop from a bounded neighbourhood
(the word before it, the letters after it, the start of the sentence so far) with the rules of
the language (``text.languages``), so nothing is ever rescanned:

- abbreviations (``Dr.``, ``z. B.``, ``Sra.``, ``etc.`` before a lower-case word, ``No. 5``),
  initials (``J. R. R. Tolkien``, but ``you and I. Did``) and dotted acronyms (``U.S. Army``; but
  ``the U.S. The``) do not end one;
- decimals, versions, URLs and e-mail addresses hold no candidate (no whitespace after the dot);
- closing quotes and brackets after the stop stay with the sentence (``"Stop." He``), and a stop
  inside a short quotation that closes soon after ends none (``"Ei fu. Siccome…" (Manzoni).``);
- an ellipsis ends a sentence only before a capital, never inside a sentence (``is . . . I``,
  ``[...]``), and ``word. . . . Next`` ends after the word's own stop;
- list items (on their own lines, or inline in sequence: ``1) one 2) two``, ``a. x b. y``),
  bullets, Markdown headings and rule lines are sentences of their own, and so is a line
  ending in a colon before a line that opens with a capital (``Dear Sirs:`` above ``THE
  EMBASSY``).

Spans start and end on grapheme cluster boundaries.
"""

from __future__ import annotations

import re
from typing import Final

from ragchunk.text.boundaries import grapheme_ceil, is_grapheme_boundary
from ragchunk.text.languages import DEFAULT_LANGUAGE, detect_language, get_language
from ragchunk.text.stops import BULLETS, CLOSERS, ITEM, LATIN_STOPS, is_quoted, judge_stop

# Full stops that end a sentence with or without a space after: CJK and Devanagari (danda).
_FULL_STOPS: Final = "。！？｡।॥"
# A heading or rule line after its indentation (at most three spaces, as in CommonMark).
_HEADING: Final = r"\#{1,6}+(?:[^\S\n][^\n]*+)?(?=\n|\Z)"
_RULE: Final = r"(?:-{3,}+|_{3,}+|\*{3,}+|={3,}+)[^\S\n]*+(?=\n|\Z)"
_FIRST_LINE: Final = re.compile(rf"[^\S\n]{{0,3}}+(?:{_HEADING}|{_RULE})")
# The pattern opens with a plain character class, so the regex engine skips to the next place a
# candidate may begin in C (it cannot do that for an alternation of groups); a look-behind on
# that first character then picks the alternative, the most frequent first (every alternative
# tried costs each candidate that fails), and a line's indentation is read once for all the
# kinds of line. Groups: ``rest`` holds the rest of a Latin stop (after its first character)
# and the empty ``stop`` marks where its text resumes after the whitespace; ``colon`` marks the
# first character of the line after a colon that ends one (a boundary when it is a capital);
# ``heading``, ``rule``, ``full`` and ``bullet`` name their alternatives.
# Possessive runs (``*+``) give nothing back: what follows them can never match what they
# would, so the match is the same, without retrying every indented line's spaces.
_CANDIDATE: Final = re.compile(
    rf"""
    [{LATIN_STOPS}{_FULL_STOPS}{BULLETS}\n]
    (?:
        (?<=[{LATIN_STOPS}])(?P<rest>(?<=\.)(?:[ ]\.){{2,}}|[{LATIN_STOPS}]*)  # Latin stop,
          [{CLOSERS}]*+(?:[ \u00a0\u202f]»[{CLOSERS}]*+)?          # closers (French: « Oui. »)
          (?=\s|\Z)(?=\s*+(?P<stop>))                               # then space or end
        | (?<=\n)(?:
            [^\S\n]*+(?:
                \n                                             # a blank line
                | (?=(?:[-*+{BULLETS}]|\d{{1,3}}[.)]|[A-Za-z][.)])[^\S\n])  # a list item
                | (?=[-_*=\#])(?<![^\S\n]{{4}})(?:           # indented by three at most:
                    (?P<heading>{_HEADING})                # a Markdown heading line
                    | (?P<rule>{_RULE})                    # a rule line: ---, ___, ***, ===
                )
            )
            | (?<=[:\s]\n)(?:(?<=:\n)|(?<=:[^\S\n]\n))[^\S\n]*+(?P<colon>)(?=\S)  # after "...:"
        )
        | (?<=[{_FULL_STOPS}{BULLETS}])(?:
            (?<=[{_FULL_STOPS}])[{_FULL_STOPS}]*[{CLOSERS}]*(?P<full>)  # no space needed after
            | (?<=[^\S\n][{BULLETS}])(?P<bullet>)                     # a bullet inside a line
        )
    )
    """,
    re.VERBOSE,
)
# A CJK stop inside a title mark (《走吧！朋友》) ends no sentence: the title closes soon after.
_TITLE_GOES_ON: Final = re.compile(r"[^《〈》〉。！？｡\n]{0,20}+[》〉]")
# A list marker opening a sentence: its successors (2), b.) later in the sentence start new ones.
_ITEM_FIRST: Final = "0123456789abcdefghijklmnopqrstuvwxyz"
_ITEM_SECOND: Final = "0123456789.)"
_EXTENDERS: Final = 0x300  # the first code point that may attach to the one before it


def split_sentences(
    text: str, start: int = 0, end: int | None = None, *, language: str = DEFAULT_LANGUAGE
) -> list[tuple[int, int]]:
    """Return the sentences of ``text[start:end]`` in order.

    Args:
        text: the whole text; words before ``start`` are read (never split) to judge the
            first candidates, so a range gets the same answers as the text around it.
        start: where the range begins.
        end: where it ends (the end of the text when None).
        language: a code of ``text.languages.LANGUAGES`` whose abbreviations and rules apply,
            or ``auto`` to detect it from the range.

    Returns:
        Absolute, half-open ``(start, end)`` spans; each holds one sentence without the
        whitespace around it, and together they cover every non-whitespace character of the
        range. Empty when the range holds only whitespace.

    Raises:
        OptionError: ``language`` is neither ``auto`` nor a code of the table.
    """
    end = len(text) if end is None else end
    lang = get_language(detect_language(text, start, end) if language == "auto" else language)
    spans: list[tuple[int, int]] = []
    head = start  # where the current sentence may begin
    if start == 0 or text[start - 1] == "\n":
        first = _FIRST_LINE.match(text, start, end)
        if first is not None:
            _close(text, start, first.end(), spans)
            head = first.end()
    mark = -1  # the first opening quotation mark at or after head; end when there is none
    marks = [-1] * len(lang.opening_marks)  # the next position of each opening mark
    for match in _CANDIDATE.finditer(text, head, end):
        kind = match.lastgroup  # which alternative matched; None: a line break
        if kind == "stop":
            cut = judge_stop(text, match, end, lang, head)
            if cut < 0:
                continue
            if mark < head:
                mark = _next_mark(text, head, end, lang.opening_marks, marks)
            if mark < cut and is_quoted(text, head, match, end, lang):
                continue
        elif kind is None or kind == "bullet":
            cut = match.start()
        elif kind == "full":
            cut = match.end()
            if _TITLE_GOES_ON.match(text, cut, end):
                continue
        elif kind == "colon":  # "Dear Sirs:\nTHE EMBASSY", "Options:\nVerbose mode ..."
            cut = match.start()
            if not text[match.end()].isupper():  # "as follows:\nand", code ("if x:\n  y")
                continue
        elif kind == "heading":
            cut = match.start(kind)
            _close(text, head, cut, spans)
            head = cut
            cut = match.end()
        else:  # a rule line closes what it underlines (Title\n=====)
            cut = match.end()
        _close(text, head, cut, spans)
        head = cut
    _close(text, head, end, spans)
    return spans


def _next_mark(text: str, head: int, end: int, openings: str, marks: list[int]) -> int:
    """Return where the first of ``openings`` at or after ``head`` is (``end``: none).

    ``marks`` keeps each mark's next position, so no part of the text is searched twice for
    the same mark: finding them all costs one pass, however many sentences ask.
    """
    for i, opening in enumerate(openings):
        if marks[i] < head:
            found = text.find(opening, head, end)
            marks[i] = end if found < 0 else found
    return min(marks)


def strip_span(text: str, lo: int, hi: int) -> tuple[int, int] | None:
    """Return ``[lo, hi)`` without its outer whitespace, or None if nothing else is left.

    The ends stay on grapheme cluster boundaries: a combining mark on a space keeps its space.
    """
    # The range stripped in C, a copy: cheaper than searching for its first non-space (a
    # line break and an indentation open most ranges), and linear (ranges do not overlap).
    rest = text[lo:hi].lstrip()
    if not rest:
        return None
    s = hi - len(rest)
    e = s + len(rest.rstrip())
    # Below U+0300 nothing extends a cluster: the common case needs no grapheme rules.
    if ord(text[s]) >= _EXTENDERS:
        while s > lo and not is_grapheme_boundary(text, s):
            s -= 1
    if e < hi and (ord(text[e]) >= _EXTENDERS or ord(text[e - 1]) >= _EXTENDERS):
        e = grapheme_ceil(text, e, hi)
    return s, e


def _close(text: str, lo: int, hi: int, spans: list[tuple[int, int]]) -> None:
    """Append the sentence in ``text[lo:hi]``, if it holds anything."""
    span = strip_span(text, lo, hi)
    if span is None:
        return
    s, e = span
    if text[s] in _ITEM_FIRST and text[s + 1 : s + 2] in _ITEM_SECOND and ITEM.match(text, s, e):
        for piece in _list_items(text, *span):  # an inline list: 1) one 2) two
            _append(piece, spans)
    elif spans and spans[-1][1] > s:
        _append(span, spans)
    else:
        spans.append(span)


def _append(span: tuple[int, int], spans: list[tuple[int, int]]) -> None:
    if spans and spans[-1][1] > span[0]:  # a cluster straddling a cut joins the sentence before
        spans[-1] = (spans[-1][0], max(spans[-1][1], span[1]))
        return
    spans.append(span)


def _list_items(text: str, s: int, e: int) -> list[tuple[int, int]]:
    """Split the sentence ``[s, e)`` before each marker that follows its opening one in sequence.

    ``1) The first 2) The second`` holds two items; ``1. Buy 2 eggs`` holds one (a successor
    marker has the same form, ``2)``, and a space after it).
    """
    item = ITEM.match(text, s, e)
    if item is None:
        return [(s, e)]
    value, suffix = item.groups()
    pieces = []
    lo, pos = s, item.end()
    while True:
        value = str(int(value) + 1) if value.isdigit() else chr(ord(value) + 1)
        needle = f" {value}{suffix}"
        q = text.find(needle, pos, e)
        while q >= 0 and not (q + len(needle) < e and text[q + len(needle)] in " \t"):
            q = text.find(needle, q + 1, e)
        if q < 0:
            break
        pieces.append((lo, q))
        lo, pos = q + 1, q + len(needle)
    pieces.append((lo, e))
    stripped = (strip_span(text, a, b) for a, b in pieces)
    return [span for span in stripped if span is not None]
