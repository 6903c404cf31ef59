"""Judging one Latin full stop (``.``, ``?``, ``!``, an ellipsis): does a sentence end there?

``judge_stop`` answers from a bounded neighbourhood of the stop: the word before it (at most
``_LOOKBACK`` characters), the first letters after the whitespace that follows it, the start of
the sentence so far (``head``) and, for quotations, ``_QUOTE_REACH`` characters either side. So
the splitter stays linear whatever the text. The language's abbreviations and switches come
from ``text.languages``; the rules here hold in every language.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from ragchunk.text.languages import Language

LATIN_STOPS: Final = ".!?‽…"
BULLETS: Final = "•‣◦▪⁃"
# Closing quotes and brackets that may follow a full stop and still belong to its sentence
# (“ and ‘ close German „quotations“, « closes »German and Danish« ones).
CLOSERS: Final = "\"'”’“‘»«›)\\]}」』）〕】"
# Opening quotes, brackets and dashes that may precede the first letter of a sentence.
_OPENERS: Final = "\"'“‘„‚«»‹›(\\[{¿¡「『（〔【—–"
_STRIPPED: Final = _OPENERS + BULLETS  # what may stand before a word's first letter
# Characters no sentence starts with: after them the stop was inside one (,,Wann?” ,,Das).
# A slash with a space after it (verse: "al andar. / [...]") too, but not a path (/etc).
_NEVER_FIRST: Final = ",;:)]}"
_LOOKBACK: Final = 40  # longer than any abbreviation: bounds the work per candidate
_QUOTE_REACH: Final = 200  # how far a quotation's opening and closing marks are looked for
_DOTTED: Final = re.compile(r"(?:[^\W\d_]{1,2}\.)+[^\W\d_]{1,2}")
_LIST_NUMBER: Final = re.compile(r"\d{1,3}")
_ORDINAL: Final = re.compile(r"-?\d{1,2}")
# A list marker (1. 2) 3.) a. b)) and the space after it.
ITEM: Final = re.compile(r"(\d{1,3}|[a-z])(\.\)|[.)])[^\S\n]")
_NON_SPACE: Final = re.compile(r"\S")
_BLANK_LINE: Final = re.compile(r"\n[^\S\n]*\n")
_TIMES: Final = frozenset(("a.m", "p.m"))


def judge_stop(text: str, match: re.Match[str], end: int, lang: Language, head: int) -> int:
    """Return where the sentence ends at the stop ``match`` found, or -1 if it goes on.

    ``match`` is the splitter's candidate: the stop run and its closers, with the group
    ``rest`` (the run after its first character) and the empty group ``stop`` placed after the
    whitespace that follows. The end is usually ``match.end()``; for ``word. . . . Next`` it is
    right after the word's own stop, and the spaced ellipsis opens the next sentence.
    """
    after = match.start("stop")  # the first character after the whitespace
    cut = match.end()
    if after == end or (after - cut > 1 and text.count("\n", cut, after) >= 2):  # blank line
        return cut
    following = text[after]
    if following in _OPENERS:
        following = _first_letter(text, after, end)
    if following.islower() or following in _NEVER_FIRST or text.startswith("/ ", after):
        return -1
    stop = match.start()
    if text[stop] in ".…":
        rest_end = match.end("rest")
        if rest_end > stop + 1 or text[stop] == "…":
            cut = _judge_ellipsis(text, stop, rest_end, cut)
        elif _is_abbreviation(text, stop, after, end, lang, head):
            return -1
    return cut


def _first_letter(text: str, p: int, end: int) -> str:
    """Return the first character at ``p`` that is not an opening quote, bracket or dash."""
    while p < end - 1 and text[p] in _OPENERS:
        p += 1
    return text[p]


def _judge_ellipsis(text: str, stop: int, rest_end: int, cut: int) -> int:
    """Return where a sentence ends at the ellipsis ``text[stop:rest_end]``, or -1.

    The caller has seen no lower-case word after it. ``[...]`` marks an omission; ``is . . . I``
    (a spaced ellipsis after a space) one inside a sentence; ``that. . . . The`` is the word's
    stop followed by an ellipsis that opens the next sentence.
    """
    before = text[stop - 1] if stop > 0 else ""
    if before in "[(" and rest_end < len(text) and text[rest_end] in "])":
        return -1
    run = text[stop:rest_end]
    if " " not in run:
        return cut
    if before.isspace():
        return -1 if run.count(".") == 3 else cut
    if run.count(".") == 4 and cut == rest_end:
        return stop + 1
    return cut


def _is_abbreviation(text: str, stop: int, after: int, end: int, lang: Language, head: int) -> bool:
    """Return whether the word before the full stop at ``stop`` makes it a non-boundary.

    The word is read from the whole text (not just the range), so a range gets the same
    answers as the text around it.
    """
    parts = text[max(0, stop - _LOOKBACK) : stop].rsplit(None, 1)
    if not parts:
        return False
    word = parts[-1].lstrip(_STRIPPED)
    if "'" in word or "’" in word:  # l'Ing., dell'Avv.: the abbreviation after the article
        elided = max(word.rfind("'"), word.rfind("’"))
        if 0 < elided < len(word) - 1:
            word = word[elided + 1 :]
    if not word:
        return False
    lower = word.lower()
    if lower in lang.abbreviations:
        return True
    if lower in lang.number_abbreviations:
        return _first_letter(text, after, end).isdigit()
    word_start = stop - len(word)
    if len(word) == 1 and word.isalpha():
        return _is_initial(text, word_start, after, end, lang, head)
    if "." in word:
        if lower in _TIMES:  # "At 5 a.m. Mr. Smith": a time phrase alone is no sentence
            return _is_opening_phrase(text, head, stop, lang)
        if _DOTTED.fullmatch(word):  # U.S. Army, but "in the U.S. The"
            return _next_word(text, after, end).lower() not in lang.starters
        return False
    if not word[-1].isdigit():  # most words: neither abbreviations nor numbers
        return False
    if lang.ordinals and _ORDINAL.fullmatch(word):  # vom 12. Juni, but not "auf S. 12."
        return not _follows_reference(text, word_start, lang)
    if _LIST_NUMBER.fullmatch(word):  # "1." opening a list item, or the next one: "1. x 2. y"
        return _opens_item(text, word_start, lang) or _continues_item(text, head, word_start)
    return False


def _is_initial(
    text: str, word_start: int, after: int, end: int, lang: Language, head: int
) -> bool:
    """Return whether the lone letter at ``word_start`` with a stop ends no sentence.

    A capital is an initial (``J. R. R. Tolkien``) unless a lower-case word precedes it and a
    word that opens sentences follows (``you and I. Did``, ``vitamin C. Then``). A lower-case
    letter is a list marker, or an abbreviation where the language has them (``z. B.``) and
    it does not follow a number (``3.5 m.``: a unit).
    """
    if text[word_start].isupper():
        previous = _word_ending_at(text, word_start)
        return not (
            previous[:1].islower() and _next_word(text, after, end).lower() in lang.starters
        )
    if _opens_item(text, word_start, lang) or _continues_item(text, head, word_start):
        return True
    return lang.lower_initials and not _word_ending_at(text, word_start)[-1:].isdigit()


def _follows_reference(text: str, word_start: int, lang: Language) -> bool:
    """Return whether the number at ``word_start`` follows ``Kap.``, ``Nr.``, ``S.``: a cardinal."""
    previous = _word_ending_at(text, word_start)
    if not previous.endswith("."):
        return False
    previous = previous[:-1].lower()
    return previous in lang.number_abbreviations or (len(previous) == 1 and previous.isalpha())


def _is_opening_phrase(text: str, head: int, stop: int, lang: Language) -> bool:
    """Return whether the sentence so far is a short time phrase such as ``At 5 a.m``."""
    if stop - head > _LOOKBACK:
        return False
    words = text[head:stop].split()
    return len(words) <= 3 and words[0].lower() in lang.time_openers


def _word_ending_at(text: str, p: int) -> str:
    """Return the word before the whitespace before ``p`` (at most a few dozen characters)."""
    lo = max(0, p - _LOOKBACK)
    while p > lo and text[p - 1] in " \t":
        p -= 1
    q = p
    while q > lo and not text[q - 1].isspace():
        q -= 1
    return text[q:p]


def _next_word(text: str, p: int, end: int) -> str:
    """Return the letters starting at ``p`` (at most a few dozen)."""
    q = p
    limit = min(end, p + _LOOKBACK)
    while q < limit and text[q].isalpha():
        q += 1
    return text[p:q]


def _opens_item(text: str, word_start: int, lang: Language) -> bool:
    """Return whether a number or letter at ``word_start`` is a list marker, not a word.

    It is one when it begins the text or a line, or follows a colon, a bullet or a sentence's
    end (a stop after an abbreviation such as ``Art.`` is none).
    """
    p = word_start
    lo = max(0, word_start - _LOOKBACK)
    while p > lo and text[p - 1] in " \t":
        p -= 1
    if p == 0 or text[p - 1] in "\n:;!?" + BULLETS:
        return True
    if text[p - 1] != ".":
        return False
    previous = _word_ending_at(text, p - 1).lstrip(_OPENERS).lower()
    return previous not in lang.abbreviations and previous not in lang.number_abbreviations


def _continues_item(text: str, head: int, word_start: int) -> bool:
    """Return whether the marker at ``word_start`` comes after the one the sentence opens with.

    ``1.) The first item 2.) The second``: ``2.)`` is a later item, not a sentence's end (the
    splitter then cuts the sentence before each marker that follows in sequence).
    """
    first = _NON_SPACE.search(text, head, min(word_start, head + _LOOKBACK))
    if first is None:  # (far after the head: not an indent, and not worth a longer search)
        return False
    item = ITEM.match(text, first.start(), word_start)
    if item is None:
        return False
    value, suffix = item.groups()
    later = ITEM.match(text, word_start)
    if later is None or later.group(2) != suffix or later.group(1).isdigit() != value.isdigit():
        return False
    if value.isdigit():
        return int(later.group(1)) > int(value)
    return later.group(1) > value


def is_quoted(text: str, head: int, match: re.Match[str], end: int, lang: Language) -> bool:
    """Return whether the stop ``match`` found sits inside a quotation that closes soon after.

    ``"Ei fu. Siccome immobile" (Manzoni).`` is one sentence. Marks are counted from the
    sentence's start ``head``, and only in a sentence of at most ``_QUOTE_REACH`` characters so
    far (counting from anywhere else could pair the marks wrongly); the closing mark must come
    within as many characters and before a blank line.
    """
    stop_end = match.end()
    if stop_end - head > _QUOTE_REACH:
        return False
    after = match.start("stop")
    for opening, closing in lang.quotes:
        first = text.find(opening, head, stop_end)
        if first < 0:
            continue
        if opening == closing:
            is_open = text.count(opening, first, stop_end) % 2 == 1
        else:
            is_open = text.count(opening, first, stop_end) > text.count(closing, first, stop_end)
        if is_open:
            close = text.find(closing, after, min(end, after + _QUOTE_REACH))
            if close >= 0 and _BLANK_LINE.search(text, after, close) is None:
                return True
    return False
