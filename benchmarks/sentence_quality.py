"""Sentence boundaries per language: ragchunk against pySBD on the same cases (issue 22).

``python benchmarks/sentence_quality.py [--update-readme]`` runs ragchunk's splitter and pySBD
(``pip install pysbd``; the ``bench`` extra has it) on the cases of
``tests/unit/text/sentence_cases.py``: the English golden rules and one set per language, each
case our own text for one case of pySBD's (Pragmatic Segmenter's) test files. It prints a
Markdown table of cases passed per language and, with ``--update-readme``, writes it into
docs/strategies.md between the ``sentence-quality`` markers.

ragchunk runs with ``language=<code>`` (``auto`` for zh, ja, hi, mr: their full stops need no
language) and, for comparison, with the English rules. pySBD runs each case the way its own
test ran the original: ``clean=False`` by default, ``clean=True`` for its "clean" sets and
``doc_type="pdf"`` for its PDF sets. Its sentences are not exact slices (cleaning rewrites the
text), so both sides are compared with all whitespace removed: what counts is where the cuts
fall. pySBD has no Portuguese; its Spanish rules stand in, labelled as such.
"""

from __future__ import annotations

import argparse
import re
import sys
from importlib.metadata import version
from pathlib import Path
from typing import TYPE_CHECKING, Final

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ragchunk.text.languages import LANGUAGES
from ragchunk.text.sentences import split_sentences
from tests.unit.text.sentence_cases import GOLDEN_RULES, LANGUAGE_CASES

if TYPE_CHECKING:
    from collections.abc import Callable

    from tests.unit.text.sentence_cases import Case

README: Final = Path(__file__).resolve().parent.parent / "docs" / "strategies.md"
START: Final = "<!-- sentence-quality:start -->"
END: Final = "<!-- sentence-quality:end -->"
NAMES: Final = {
    "en": "English (golden rules)",
    "de": "German",
    "fr": "French",
    "es": "Spanish",
    "it": "Italian",
    "pt": "Portuguese",
    "nl": "Dutch",
    "zh": "Chinese",
    "ja": "Japanese",
    "hi": "Hindi",
    "mr": "Marathi",
}
PYSBD_STAND_IN: Final = {"pt": "es"}
_SPACE: Final = re.compile(r"\s+")


def _squeeze(sentences: list[str]) -> list[str]:
    squeezed = (_SPACE.sub("", s) for s in sentences)
    return [s for s in squeezed if s]


def _ragchunk(language: str) -> Callable[[Case], list[str]]:
    def run(case: Case) -> list[str]:
        return [case.text[s:e] for s, e in split_sentences(case.text, language=language)]

    return run


def _pysbd(language: str) -> Callable[[Case], list[str]]:
    import pysbd

    segmenters = {
        "default": pysbd.Segmenter(language=language, clean=False),
        "clean": pysbd.Segmenter(language=language, clean=True),
        "pdf": pysbd.Segmenter(language=language, clean=True, doc_type="pdf"),
    }

    def run(case: Case) -> list[str]:
        return [str(s) for s in segmenters[case.pysbd_mode].segment(case.text)]

    return run


def passed(cases: list[Case], splitter: Callable[[Case], list[str]]) -> int:
    """Return how many cases ``splitter`` cuts where the case says (whitespace aside)."""
    return sum(_squeeze(splitter(c)) == _squeeze(c.sentences) for c in cases)


def _rate(n: int, total: int) -> str:
    return f"{n}/{total} ({100 * n / total:.1f} %)"


def table() -> str:
    """Return the Markdown table of cases passed per language."""
    sets = {"en": list(GOLDEN_RULES.values()), **LANGUAGE_CASES}
    lines = [
        f"| language | cases | ragchunk | ragchunk, English rules | pySBD {version('pysbd')} "
        "| target (pySBD − 3 points) |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for code, cases in sets.items():
        total = len(cases)
        ours = passed(cases, _ragchunk(code if code in LANGUAGES else "auto"))
        english = passed(cases, _ragchunk("en"))
        theirs = passed(cases, _pysbd(PYSBD_STAND_IN.get(code, code)))
        target = 100 * theirs / total - 3
        met = "met" if 100 * ours / total >= target else "MISSED"
        note = " (its Spanish rules)" if code in PYSBD_STAND_IN else ""
        lines.append(
            f"| {NAMES[code]} | {total} | {_rate(ours, total)} | {_rate(english, total)} | "
            f"{_rate(theirs, total)}{note} | ≥ {max(target, 0):.1f} %: {met} |"
        )
    return "\n".join(lines)


def main() -> None:
    """Print the table; with ``--update-readme``, also write it into docs/strategies.md."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--update-readme", action="store_true", help="rewrite the table in docs/strategies.md"
    )
    args = parser.parse_args()
    result = table()
    sys.stdout.write(result + "\n")
    if args.update_readme:
        text = README.read_text(encoding="utf-8")
        head, _, rest = text.partition(START)
        _, _, tail = rest.partition(END)
        README.write_text(f"{head}{START}\n{result}\n{END}{tail}", encoding="utf-8")


if __name__ == "__main__":
    main()
