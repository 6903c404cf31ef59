"""Sentence boundaries: where one sentence ends and the next begins, in linear time.

``split_sentences(text, start, end)`` returns the sentences of ``text[start:end]`` as absolute,
half-open spans without their surrounding whitespace. One regular expression finds every place a
sentence *may* end (terminal punctuation followed by whitespace, CJK full stops, blank lines, a
new line that opens a list item or a Markdown heading); each candidate is then judged from the
word before it and the character after it, never by rescanning the text:

- abbreviations (``Dr.``, ``e.g.``, ``etc.`` before a lower-case word, ``No. 5``), initials
  (``J. R. R. Tolkien``) and dotted acronyms (``U.S. Army``; but ``the U.S. The``) do not end one;
- decimals, versions, URLs and e-mail addresses hold no candidate (no whitespace after the dot);
- closing quotes and brackets after the stop stay with the sentence (``"Stop." He``);
- an ellipsis ends a sentence only before a capital, like ``?`` and ``!``;
- list items and Markdown headings are sentences of their own, and ``1.`` opening an item is
  not a sentence.

Spans start and end on grapheme cluster boundaries.
"""

from __future__ import annotations

import re
from typing import Final

from ragchunk.text.boundaries import grapheme_ceil, is_grapheme_boundary

# Closing quotes and brackets that may follow a full stop and still belong to its sentence.
_CLOSERS: Final = "\"'”’»›)\\]}」』）〕】"
# Opening quotes and brackets that may precede the first letter of a sentence.
_OPENERS: Final = "\"'“‘«‹(\\[{¿¡「『（〔【"

_HEADING: Final = r"[^\S\n]{0,3}+\#{1,6}+(?:[^\S\n][^\n]*+)?(?=\n|\Z)"
_FIRST_HEADING: Final = re.compile(_HEADING)
# The pattern opens with a plain character class, so the regex engine skips to the next place a
# candidate may begin in C (it cannot do that for an alternation of groups); a look-behind on
# that first character then picks the alternative. Groups: ``rest`` holds the rest of a Latin
# stop (after its first character) and the empty ``stop`` marks where its text resumes after
# the whitespace; ``cjk`` and ``heading`` name their alternatives.
# Possessive runs (``*+``) give nothing back: what follows them can never match what they
# would, so the match is the same, without retrying every indented line's spaces.
_CANDIDATE: Final = re.compile(
    rf"""
    [.!?‽…。！？｡\n]
    (?:
        (?<=[.!?‽…])(?P<rest>(?<=\.)(?:[ ]\.){{2,}}|[.!?‽…]*)  # Latin stop,
          [{_CLOSERS}]*+(?=\s|\Z)(?=\s*+(?P<stop>))               # then space or end
        | (?<=[。！？｡])[。！？｡]*[{_CLOSERS}]*(?P<cjk>)           # CJK: no space needed after
        | (?<=\n)(?:
            [^\S\n]*+\n                                  # a blank line
            | [^\S\n]*+(?=(?:[-*+•‣◦▪]|\d{{1,3}}[.)]|[A-Za-z][.)])[^\S\n])  # a new list item
            | (?P<heading>{_HEADING})                      # a Markdown heading line
        )
    )
    """,
    re.VERBOSE,
)
_NON_SPACE: Final = re.compile(r"\S")


def _word_set(words: str) -> frozenset[str]:
    return frozenset(words.split())


# Abbreviations after which a full stop never ends a sentence (lower case, without the stop).
_ABBREVIATIONS: Final = _word_set(
    """
    mr mrs ms mx dr prof rev hon gen col lt sgt capt cmdr adm gov sen rep pres messrs mme mlle
    st mt ft fr sr jr vs cf viz al approx ca dept univ est incl resp esp e.g i.e a.k.a ph.d
    """
)
# Abbreviations that precede a number (No. 5, p. 12, Jan. 5): a stop there ends no sentence.
_NUMBER_ABBREVIATIONS: Final = _word_set(
    """
    no nos nr p pp vol vols fig figs eq eqs ch chap sec art op tel ext
    jan feb mar apr jun jul aug sep sept oct nov dec
    """
)
# Dotted abbreviations that often end a sentence: judged like any other word.
_FINAL_DOTTED: Final = frozenset(("a.m", "p.m"))
# Words that usually open a sentence: after a dotted acronym (``U.S.``) they signal a boundary.
_STARTERS: Final = _word_set(
    """
    a an the this that these those it its he she we they i you there here in on at as for but
    and or so yet however then when while if although after before since thus also our my his
    her their one what why how who
    """
)
_EXTENDERS: Final = 0x300  # the first code point that may attach to the one before it
_LOOKBACK: Final = 40  # longer than any abbreviation: bounds the work per candidate
_DOTTED: Final = re.compile(r"(?:[^\W\d_]{1,2}\.)+[^\W\d_]{1,2}")
_LIST_NUMBER: Final = re.compile(r"\d{1,3}|[A-Za-z]")


def split_sentences(text: str, start: int = 0, end: int | None = None) -> list[tuple[int, int]]:
    """Return the sentences of ``text[start:end]`` in order.

    Returns:
        Absolute, half-open ``(start, end)`` spans; each holds one sentence without the
        whitespace around it, and together they cover every non-whitespace character of the
        range. Empty when the range holds only whitespace.
    """
    end = len(text) if end is None else end
    spans: list[tuple[int, int]] = []
    head = start  # where the current sentence may begin
    if start == 0 or text[start - 1] == "\n":
        first = _FIRST_HEADING.match(text, start, end)
        if first is not None:
            _close(text, start, first.end(), spans)
            head = first.end()
    for match in _CANDIDATE.finditer(text, head, end):
        kind = match.lastgroup  # which alternative matched; None: a line break
        if kind == "stop":
            if not _ends_sentence(text, match, end):
                continue
            cut = match.end()
        elif kind == "cjk":
            cut = match.end()
        elif kind == "heading":
            cut = match.start("heading")
            _close(text, head, cut, spans)
            head = cut
            cut = match.end()
        else:
            cut = match.start()
        _close(text, head, cut, spans)
        head = cut
    _close(text, head, end, spans)
    return spans


def strip_span(text: str, lo: int, hi: int) -> tuple[int, int] | None:
    """Return ``[lo, hi)`` without its outer whitespace, or None if nothing else is left.

    The ends stay on grapheme cluster boundaries: a combining mark on a space keeps its space.
    """
    first = _NON_SPACE.search(text, lo, hi)
    if first is None:
        return None
    s = first.start()
    # Below U+0300 nothing extends a cluster: the common case needs no grapheme rules.
    if ord(text[s]) >= _EXTENDERS:
        while s > lo and not is_grapheme_boundary(text, s):
            s -= 1
    e = hi
    while e > s and text[e - 1].isspace():
        e -= 1
    if e < hi and (ord(text[e]) >= _EXTENDERS or ord(text[e - 1]) >= _EXTENDERS):
        e = grapheme_ceil(text, e, hi)
    return s, e


def _close(text: str, lo: int, hi: int, spans: list[tuple[int, int]]) -> None:
    """Append the sentence in ``text[lo:hi]``, if it holds anything."""
    span = strip_span(text, lo, hi)
    if span is None:
        return
    if spans and spans[-1][1] > span[0]:  # a cluster straddling a cut joins the sentence before
        spans[-1] = (spans[-1][0], max(spans[-1][1], span[1]))
        return
    spans.append(span)


def _ends_sentence(text: str, match: re.Match[str], end: int) -> bool:
    """Judge a Latin stop from the word before it and the first letter after it."""
    after = match.start("stop")  # the first character after the whitespace
    if after == end:
        return True
    if text.count("\n", match.end(), after) >= 2:  # a blank line follows
        return True
    following = _first_letter(text, after, end)
    if following.islower():
        return False
    stop = match.start()
    if text[stop] != "." or match.end("rest") > stop + 1:  # ?, !, an ellipsis
        return True  # before anything but a lower-case word
    return not _is_abbreviation(text, stop, after, end)


def _first_letter(text: str, p: int, end: int) -> str:
    """Return the first character at ``p`` that is not an opening quote or bracket."""
    while p < end - 1 and text[p] in _OPENERS:
        p += 1
    return text[p]


def _is_abbreviation(text: str, stop: int, after: int, end: int) -> bool:
    """Return whether the word before the full stop at ``stop`` makes it a non-boundary.

    The word is read from the whole text (not just the range), so a range gets the same
    answers as the text around it.
    """
    lo = max(0, stop - _LOOKBACK)
    word_start = max(text.rfind(" ", lo, stop), text.rfind("\n", lo, stop)) + 1
    if word_start <= lo:
        word_start = lo
    parts = text[word_start:stop].split()  # other whitespace (tabs, NBSP) separates too
    word = parts[-1].lstrip(_OPENERS) if parts else ""
    if not word:
        return False
    lower = word.lower()
    if lower in _ABBREVIATIONS:
        return True
    if lower in _NUMBER_ABBREVIATIONS:
        return text[after].isdigit()
    if len(word) == 1 and word.isupper():  # an initial: J. R. R. Tolkien
        return True
    if _DOTTED.fullmatch(word) and lower not in _FINAL_DOTTED:  # U.S. Army, but "in the U.S. The"
        return _next_word(text, after, end).lower() not in _STARTERS
    if _LIST_NUMBER.fullmatch(word):  # "1." opening a list item
        return _opens_item(text, stop - len(word))
    return False


def _next_word(text: str, p: int, end: int) -> str:
    """Return the letters starting at ``p`` (at most a few dozen)."""
    q = p
    limit = min(end, p + _LOOKBACK)
    while q < limit and text[q].isalpha():
        q += 1
    return text[p:q]


def _opens_item(text: str, word_start: int) -> bool:
    """Return whether a number or letter at ``word_start`` is a list marker, not a word.

    It is one when it begins the text or a line, or follows a colon or a sentence's end (a
    stop after an abbreviation such as ``Art.`` is none).
    """
    p = word_start
    lo = max(0, word_start - _LOOKBACK)
    while p > lo and text[p - 1] in " \t":
        p -= 1
    if p == 0 or text[p - 1] in "\n:;!?":
        return True
    if text[p - 1] != ".":
        return False
    q = p - 1
    while q > lo and not text[q - 1].isspace():
        q -= 1
    previous = text[q : p - 1].lstrip(_OPENERS).lower()
    return previous not in _ABBREVIATIONS and previous not in _NUMBER_ABBREVIATIONS
