"""Sentence rules per language: the pySBD-derived sets, the issue's abbreviations, detection.

``LANGUAGE_CASES`` holds one set per language (our own texts, one per case of pySBD's test file
for that language); each case is a test, and a known miss is an expected failure that names
its cause. docs/strategies.md's table states the pass rates next to pySBD's on the same cases
(``benchmarks/sentence_quality.py``).
"""

from __future__ import annotations

import re
import time
from typing import get_args

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ragchunk.errors import OptionError
from ragchunk.text.languages import (
    DEFAULT_LANGUAGE,
    LANGUAGES,
    LanguageOption,
    detect_language,
)
from ragchunk.text.sentences import split_sentences
from tests.unit.text.sentence_cases import LANGUAGE_CASES, Case, expected_spans


def _option(code: str) -> str:
    """The ``language`` a set runs with: its own rules, or auto (CJK, Devanagari)."""
    return code if code in LANGUAGES else "auto"


def _params() -> list[object]:
    params = []
    for code, cases in LANGUAGE_CASES.items():
        for i, case in enumerate(cases):
            marks = [pytest.mark.xfail(strict=True, reason=case.miss)] if case.miss else []
            params.append(pytest.param(code, case, id=f"{code}-{i}", marks=marks))
    return params


def _sentences(text: str, language: str) -> list[str]:
    return [text[s:e] for s, e in split_sentences(text, language=language)]


@pytest.mark.parametrize(("code", "case"), _params())
def test_language_case(code: str, case: Case) -> None:
    spans = split_sentences(case.text, language=_option(code))
    assert spans == expected_spans(case.text, case.sentences)


def test_every_set_is_well_formed() -> None:
    for cases in LANGUAGE_CASES.values():
        for case in cases:
            expected_spans(case.text, case.sentences)
            assert re.sub(r"\s", "", "".join(case.sentences)) == re.sub(r"\s", "", case.text)


@pytest.mark.parametrize(
    ("language", "text", "expected"),
    [
        # German: abbreviations before capitalised nouns, ordinals, „quotes“
        (
            "de",
            "Wir brauchen z. B. Mehl usw. Dann backen wir.",
            ["Wir brauchen z. B. Mehl usw.", "Dann backen wir."],
        ),
        (
            "de",
            "Der Termin ist am 3. Mai. Bitte kommen Sie.",
            ["Der Termin ist am 3. Mai.", "Bitte kommen Sie."],
        ),
        ("de", "Das ist d.h. Unsinn. Nein.", ["Das ist d.h. Unsinn.", "Nein."]),
        ("de", "Er sagte: „Ich komme.“ Dann ging er.", ["Er sagte: „Ich komme.“", "Dann ging er."]),
        (
            "de",
            "Siehe Abb. 4 und Kap. 2. Danach weiter.",
            ["Siehe Abb. 4 und Kap. 2.", "Danach weiter."],
        ),
        # French: titles, p. ex., spaced guillemets and question marks
        (
            "fr",
            "M. Dupont est arrivé. Mme Martin aussi.",
            ["M. Dupont est arrivé.", "Mme Martin aussi."],
        ),
        (
            "fr",
            "Prenez des fruits, p. ex. des pommes. Puis partez.",
            ["Prenez des fruits, p. ex. des pommes.", "Puis partez."],
        ),
        (
            "fr",
            "« Tu viens ? » demanda-t-il. Elle se tut.",
            ["« Tu viens ? » demanda-t-il.", "Elle se tut."],
        ),
        ("fr", "Il a dit « Oui. » Puis il est parti.", ["Il a dit « Oui. »", "Puis il est parti."]),
        # Spanish: titles, ¿¡ openers, dialogue dashes
        ("es", "La Sra. Gómez llegó. El Sr. Ruiz no.", ["La Sra. Gómez llegó.", "El Sr. Ruiz no."]),
        (
            "es",
            "—¿Vienes? —preguntó Ana. No contesté.",
            ["—¿Vienes? —preguntó Ana.", "No contesté."],
        ),
        ("es", "Lo vi en EE. UU. el año pasado.", ["Lo vi en EE. UU. el año pasado."]),
        # Italian: titles after an elided article
        (
            "it",
            "Ho visto l'Avv. Rossi. Poi sono uscito.",
            ["Ho visto l'Avv. Rossi.", "Poi sono uscito."],
        ),
        (
            "it",
            "C'era il Dott. Bianchi, ecc. Tutti presenti.",
            ["C'era il Dott. Bianchi, ecc.", "Tutti presenti."],
        ),
        # Portuguese
        (
            "pt",
            "A Dra. Souza atendeu. O Sr. Lima esperou.",
            ["A Dra. Souza atendeu.", "O Sr. Lima esperou."],
        ),
        # Dutch
        (
            "nl",
            "Dhr. Jansen komt morgen. Mevr. Smit ook.",
            ["Dhr. Jansen komt morgen.", "Mevr. Smit ook."],
        ),
        ("nl", "Neem bijv. Appels mee. Dat is goed.", ["Neem bijv. Appels mee.", "Dat is goed."]),
        # every language: CJK and Devanagari full stops, inline lists and bullets
        ("de", "我们走吧。好！", ["我们走吧。", "好！"]),
        ("fr", "यह सच है। वह झूठ है॥", ["यह सच है।", "वह झूठ है॥"]),
        ("en", "Steps: 1) mix 2) bake 3) eat", ["Steps: 1) mix 2) bake 3) eat"]),
        ("en", "Home • About • Contact", ["Home", "• About", "• Contact"]),
        # a colon ending a line, before a capital; a slash opening a path, or a verse's next line
        ("en", "Options:\n  Verbose mode prints more.", ["Options:", "Verbose mode prints more."]),
        (
            "en",
            "It works as follows:\nthe parser reads.",
            ["It works as follows:\nthe parser reads."],
        ),
        ("en", "if ready:\n    start()", ["if ready:\n    start()"]),
        (
            "en",
            "Edit the file. /etc/hosts maps names.",
            ["Edit the file.", "/etc/hosts maps names."],
        ),
        ("en", "I came. / I saw.", ["I came. / I saw."]),
        # a long sentence is not searched for the quotation it might sit in
        (
            "en",
            'A "work based on the Program" means the Program or any work containing it, either '
            "verbatim or with modifications, translated into another language, which is "
            'sometimes called a "derivative work" in other licences.  Each licensee is '
            'addressed as "you".',
            [
                'A "work based on the Program" means the Program or any work containing it, '
                "either verbatim or with modifications, translated into another language, which "
                'is sometimes called a "derivative work" in other licences.',
                'Each licensee is addressed as "you".',
            ],
        ),
    ],
)
def test_rules_of_a_language(language: str, text: str, expected: list[str]) -> None:
    assert _sentences(text, language) == expected


def test_the_language_rules_matter() -> None:
    text = "Wir trafen Dr. med. Schulz. Er kam z. B. am 3. Mai."
    assert _sentences(text, "de") == ["Wir trafen Dr. med. Schulz.", "Er kam z. B. am 3. Mai."]
    assert len(_sentences(text, "en")) > 2


def test_the_option_names_exactly_the_table() -> None:
    assert get_args(LanguageOption) == ("auto", *LANGUAGES)
    assert DEFAULT_LANGUAGE in LANGUAGES


def test_an_unknown_language_is_an_option_error() -> None:
    with pytest.raises(OptionError, match=r"language must be one of auto, en, de.* \(got 'xx'\)"):
        split_sentences("Hello.", language="xx")


def test_stop_words_belong_to_one_language_each() -> None:
    seen: dict[str, str] = {}
    for code, lang in LANGUAGES.items():
        for word in lang.stop_words:
            assert word not in seen, f"{word!r} is a stop word of {seen[word]} and {code}"
            seen[word] = code


_PARAGRAPHS = {
    "en": "The committee met on Monday and agreed that the new bridge would be built within "
    "two years. They have not yet chosen a design, which is expected from the council.",
    "de": "Der Ausschuss hat sich am Montag getroffen und ist sich einig, dass die neue Brücke "
    "in zwei Jahren gebaut wird. Ein Entwurf wurde noch nicht ausgewählt.",
    "fr": "Le comité s'est réuni lundi et a convenu que le nouveau pont sera construit dans "
    "les deux ans. Il n'a pas encore choisi de projet pour cette raison.",
    "es": "El comité se reunió el lunes y acordó que el nuevo puente se construirá en dos "
    "años. Pero todavía no hay un diseño, y ella fue muy clara sobre eso.",
    "it": "Il comitato si è riunito lunedì e ha deciso che il nuovo ponte sarà costruito "
    "entro due anni. Non è stato ancora scelto il progetto della città.",
    "pt": "O comitê se reuniu na segunda-feira e concordou que a nova ponte será construída "
    "em dois anos. Ainda não foi escolhido um projeto, e isso é muito importante.",
    "nl": "Het comité is maandag bijeengekomen en heeft besloten dat de nieuwe brug binnen "
    "twee jaar wordt gebouwd. Er is nog geen ontwerp gekozen voor de stad.",
}


@pytest.mark.parametrize("code", sorted(_PARAGRAPHS))
def test_detection_finds_the_language_of_a_paragraph(code: str) -> None:
    assert detect_language(_PARAGRAPHS[code]) == code
    padded = "x" * 50_000 + " " + _PARAGRAPHS[code] * 60  # samples from start, middle and end
    assert detect_language(padded) == code


def test_detection_falls_back_to_english_without_evidence() -> None:
    assert detect_language("") == DEFAULT_LANGUAGE
    assert detect_language("def main():\n    return 0\n") == DEFAULT_LANGUAGE
    assert detect_language("我们明天一起去看电影。") == DEFAULT_LANGUAGE


def test_detection_reads_only_the_range() -> None:
    text = _PARAGRAPHS["de"] + "\n\n" + _PARAGRAPHS["fr"]
    assert detect_language(text, len(_PARAGRAPHS["de"]) + 2) == "fr"
    assert detect_language(text, 0, len(_PARAGRAPHS["de"])) == "de"


def test_auto_applies_the_detected_rules() -> None:
    text = _PARAGRAPHS["de"] + " Wir brauchen z. B. Stahl usw. Dann bauen wir."
    assert split_sentences(text, language="auto") == split_sentences(text, language="de")
    assert split_sentences(text, language="auto") != split_sentences(text, language="en")


def test_a_range_is_split_like_the_text_around_it_in_every_language() -> None:
    for code, cases in LANGUAGE_CASES.items():
        text = "\n\n".join(case.text for case in cases)
        whole = split_sentences(text, language=_option(code))
        if len(whole) < 3:
            continue
        inner = split_sentences(text, whole[1][0], whole[-2][1], language=_option(code))
        assert inner == whole[1:-1], code


_TOKENS = st.sampled_from(
    [
        "Dr.",
        "z. B.",
        "usw.",
        "M.",
        "Sra.",
        "l'Avv.",
        "1.",
        "2)",
        "a.",
        "b)",
        "N°.",
        "U.S.",
        "a.m.",
        "I.",
        "...",
        ". . .",
        "....",
        "[...]",
        "«",
        "»",
        "„",
        "“",
        "”",
        '"',
        "(",
        ")",
        "?",
        "!",
        "¿",
        "。",
        "！",
        "।",
        "•",
        ":",
        ";",
        ",",
        "—",
        "The",
        "der",
        "word",
        "3.5",
        "12.",
        " ",
        " ",
        "  ",
        "\n",
        "\n\n",
        "\t",
        "\u00a0",
        "# Title",
        "---",
        "Ä",
        "é",
    ]
)


@given(st.lists(_TOKENS, max_size=60), st.sampled_from(get_args(LanguageOption)))
def test_sentences_tile_the_non_space_characters_in_every_language(
    tokens: list[str], language: str
) -> None:
    text = " ".join(tokens)
    spans = split_sentences(text, language=language)
    covered = "".join(text[s:e] for s, e in spans)
    assert re.sub(r"\s", "", covered) == re.sub(r"\s", "", text)
    previous = 0
    for s, e in spans:
        assert previous <= s < e
        assert not text[s].isspace()
        assert not text[e - 1].isspace()
        previous = e


@pytest.mark.parametrize("language", sorted(LANGUAGES))
def test_pathological_runs_stay_fast_in_every_language(language: str) -> None:
    for text in (
        '"a. B ' * 40_000,
        "„a. B " * 40_000,
        "1) x " * 40_000,
        "a. b. " * 40_000,
        "x.\n" + " " * 100_000 + "1. a 2. b 3. c " * 2_000,
        "• " * 100_000,
        ":\n" * 100_000,
        ". . . . " * 40_000,
        "z. B. " * 40_000,
        "《走！" * 40_000,
    ):
        began = time.process_time()
        split_sentences(text, language=language)
        assert time.process_time() - began < 2.0, (language, text[:12])
