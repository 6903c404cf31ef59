"""Sentence rules per language: a frozen table the sentence splitter reads, and a cheap detector.

A ``Language`` holds what a full stop after a word means in that language: abbreviations that
never end a sentence (titles such as ``Dr.``, ``Sra.``, ``Dott.``; in German most abbreviations,
since nouns are capitalised), abbreviations that end none before a number (``No. 5``, ``S. 225``),
words that usually open a sentence (they make ``the U.S. The`` a boundary), quotation marks and
a few switches (``z. B.``: lower-case initials; ``12. Juni``: ordinals). Rules that hold for
every language (decimals, URLs, ellipses, CJK and Devanagari full stops) live in the splitter.

``detect_language(text)`` counts distinctive stop words in three samples of 2,000 characters
(start, middle, end): well under a millisecond, once per document.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Final, Literal, TypeAlias

from ragchunk.defaults import DEFAULT_LANGUAGE as DEFAULT_LANGUAGE  # where its users find it
from ragchunk.errors import OptionError

# The values of the ``language`` option: a code of the table, or ``auto`` (detect per document).
LanguageOption: TypeAlias = Literal["auto", "en", "de", "fr", "es", "it", "pt", "nl"]


@dataclass(frozen=True, slots=True)
class Language:
    """What a full stop means in one language.

    Attributes:
        code: ISO 639-1 code, the value of ``-O language=``.
        name: the language's English name.
        abbreviations: words (lower case, inner dots kept, final dot dropped) after which a
            full stop never ends a sentence, even before a capital: titles, and words that are
            rarely last in a sentence.
        number_abbreviations: words whose stop ends no sentence before a number (``No. 5``).
        starters: words that usually open a sentence; after a dotted acronym (``U.S.``) or a
            lone capital after a lower-case word (``you and I.``) they make the stop a boundary.
        time_openers: words that open a time phrase (``At 5 a.m.``): such a phrase alone is not
            a sentence, so its ``a.m.`` ends none.
        stop_words: frequent words that no other language of the table shares: detection.
        quotes: quotation marks as pairs of (opening, closing) characters; a stop inside a
            quotation that closes soon after ends no sentence.
        lower_initials: a lone lower-case letter with a stop is an abbreviation (``z. B.``,
            ``p. ex.``) unless it follows a number (``3.5 m.``: a unit).
        ordinals: a number of one or two digits with a stop is an ordinal (``12. Juni``).
    """

    code: str
    name: str
    abbreviations: frozenset[str]
    number_abbreviations: frozenset[str]
    starters: frozenset[str]
    stop_words: frozenset[str]
    quotes: tuple[tuple[str, str], ...]
    time_openers: frozenset[str] = frozenset()
    lower_initials: bool = False
    ordinals: bool = False
    opening_marks: str = field(init=False, repr=False, compare=False)
    """The opening marks of ``quotes``, each once."""

    def __post_init__(self) -> None:
        marks = "".join(dict.fromkeys(opening for opening, _ in self.quotes))
        object.__setattr__(self, "opening_marks", marks)


def _words(words: str) -> frozenset[str]:
    return frozenset(words.split())


# Shared by every language: Latin and English abbreviations that turn up in any technical text.
_SHARED: Final = _words("e.g i.e a.k.a ph.d vs cf viz approx ca mt st dr prof")
_SHARED_NUMBERS: Final = _words("no nos nr n° nº p pp vol vols fig figs art op tel ext")
_STRAIGHT: Final = (('"', '"'),)

ENGLISH: Final = Language(
    code="en",
    name="English",
    abbreviations=_SHARED
    | _words(
        """
        mr mrs ms mx rev hon gen col lt sgt capt cmdr adm gov sen rep reps pres messrs mme mlle
        maj brig cpl supt det insp ft fr sr jr al dept univ est incl resp esp
        """
    ),
    number_abbreviations=_SHARED_NUMBERS
    | _words("eq eqs ch chap sec jan feb mar apr jun jul aug sep sept oct nov dec"),
    starters=_words(
        """
        a an the this that these those it its he she we they i you there here in on at as for
        but and or so yet however then when while if although after before since thus also our
        my his her their one what why how who where which did do does is are was were will can
        could would should has have had being more millions please
        """
    ),
    time_openers=_words("at by from until till before after around about since"),
    stop_words=_words(
        """
        the and of to is that with was this are have which from they you would there been were
        has
        """
    ),
    quotes=(("“", "”"), *_STRAIGHT),
)

GERMAN: Final = Language(
    code="de",
    name="German",
    abbreviations=_SHARED
    | _words(
        """
        hr hrn fr frl dipl ing med jur phil rer nat pol oec dent vet habil mag str bzw evtl ggf
        inkl exkl vgl sog bspw bzgl zzgl abzgl geb gest verh kath ev evang röm jh jhd jhdt mio
        mrd tsd mwst ust abs abt abb tab kap bd bde hrsg ausg aufl anm anh beil betr gem allg
        bes dgl dergl dt engl franz ital span eigtl einschl entspr erw etw gegr ggü hl insb jew
        kfm lat lfd mtl näml orig pers pkt rd sen spez stellv tägl
        urspr verf vers vorm wg zus zzt ff od
        z.b d.h u.a o.ä u.ä z.t i.a s.o s.u v.a z.zt i.d.r u.u o.g u.a.m
        """
    ),
    number_abbreviations=_SHARED_NUMBERS
    | _words("nrn kap tab abb anm ziff rn std min sek max mind jan feb apr aug sept okt nov dez"),
    starters=_words(
        """
        der die das ein eine es ich wir sie er in im am auf aus bei mit nach so und wenn wie was
        wer warum auch da dann dies diese dieser heute jetzt man mein nun über um vor zu zum
        """
    ),
    stop_words=_words(
        """
        der die das und ist nicht ein eine mit auf den dem sich auch wird für dass ich wir
        werden oder zu von
        """
    ),
    quotes=(("„", "“"), ("»", "«"), *_STRAIGHT),
    lower_initials=True,
    ordinals=True,
)

FRENCH: Final = Language(
    code="fr",
    name="French",
    abbreviations=_SHARED
    | _words(
        """
        mm mme mmes mlle mlles pr me mgr ste sts stes vve cie ex c.-à-d env av apr j.-c éd
        éds chap boul bd id ibid hab tél réf coll dir trad suiv sq sqq
        """
    ),
    number_abbreviations=_SHARED_NUMBERS | _words("t chap n"),
    starters=_words(
        """
        le la les un une il elle ils elles nous vous je on ce cette ces en dans de du des au
        aux pour mais et si quand alors puis après avant
        """
    ),
    stop_words=_words(
        """
        le les des est et une du dans qui pour pas sur au avec ce elle sont nous vous aux
        cette été
        """
    ),
    quotes=(("«", "»"), ("“", "”"), *_STRAIGHT),
    lower_initials=True,
)

SPANISH: Final = Language(
    code="es",
    name="Spanish",
    abbreviations=_SHARED
    | _words(
        """
        sr sra sras srs srta srtas dña dn dra drs lic lda ldo ing arq profa mtro mtra pbro
        sto sta ud uds vd vds av avda pza atte ee uu p.ej pág págs núm dpto depto gral
        excmo excma ilmo ilma sgto cnel tte mons
        """
    ),
    number_abbreviations=_SHARED_NUMBERS
    | _words(
        """
        núm pág págs cap cra párr párrf ene feb mar abr may jun jul ago sep sept oct nov dic lun
        mié jue vie sáb dom
        """
    ),
    starters=_words(
        """
        el la los las un una y pero en de del por para con se su sus este esta eso es fue hay
        no si cuando como que yo él ella nosotros ellos también sin
        """
    ),
    stop_words=_words("el los las y pero más también muy cuando hay ella fue sin puede"),
    quotes=(("«", "»"), ("“", "”"), *_STRAIGHT),
    lower_initials=True,
)

ITALIAN: Final = Language(
    code="it",
    name="Italian",
    abbreviations=_SHARED
    | _words(
        """
        sig sigg dott dottssa proff avv ing arch geom rag not on egr gent gentmo spett mons rev
        sen dep pres gen col dir psicol es pag pagg cap cfr ca
        """
    ),
    number_abbreviations=_SHARED_NUMBERS
    | _words("n nn pag pagg cap gen feb mar apr mag giu lug ago set ott nov dic lun gio ven sab"),
    starters=_words(
        """
        il lo la i gli le un una e ma se non che di in per con è sono questo questa quando poi
        anche
        """
    ),
    stop_words=_words(
        """
        di che per non della sono è gli nel alla anche questo questa sul dei delle più ma
        """
    ),
    quotes=(("«", "»"), ("“", "”"), *_STRAIGHT),
    lower_initials=True,
)

PORTUGUESE: Final = Language(
    code="pt",
    name="Portuguese",
    abbreviations=_SHARED
    | _words(
        """
        sr sra srs sras srta dra drs dras profa eng arq exmo exma exa ilmo ilma av pç p.ex pág
        págs núm obs ref dep depto sto sta cel ten gen
        """
    ),
    number_abbreviations=_SHARED_NUMBERS
    | _words("n núm pág págs cap jan fev mar abr mai jun jul ago set out nov dez"),
    starters=_words(
        """
        o a os as um uma e mas se não que de em para com por ele ela eles nós eu isso este esta
        quando depois também
        """
    ),
    stop_words=_words("os não em com uma ao pelo pela seu sua são também muito foi às à ele isso"),
    quotes=(("«", "»"), ("“", "”"), *_STRAIGHT),
    lower_initials=True,
)

DUTCH: Final = Language(
    code="nl",
    name="Dutch",
    abbreviations=_SHARED
    | _words(
        """
        dhr mevr mw mr drs ir ing ds bijv bv evt resp incl excl zgn zg vnw aanw bnw ww znw blz
        jl d.w.z m.a.w o.a a.u.b i.p.v t.a.v t.o.v m.b.t e.d
        """
    ),
    number_abbreviations=_SHARED_NUMBERS
    | _words("blz hfst jan feb mrt apr jun jul aug sep sept okt nov dec"),
    starters=_words(
        """
        de het een dit dat deze die ik wij we hij zij ze er in op aan voor maar en als toen nu
        ook daarom
        """
    ),
    stop_words=_words(
        "het een van niet op zijn voor maar ook aan wordt bij naar hij dit deze wij worden heeft"
    ),
    quotes=(("„", "”"), ("“", "”"), *_STRAIGHT),
    lower_initials=True,
)

LANGUAGES: Final[Mapping[str, Language]] = MappingProxyType(
    {lang.code: lang for lang in (ENGLISH, GERMAN, FRENCH, SPANISH, ITALIAN, PORTUGUESE, DUTCH)}
)

_SAMPLE: Final = 2000  # characters read from each of the start, middle and end
_MIN_HITS: Final = 3  # fewer stop words than this: too little text to tell, English rules


def get_language(code: str) -> Language:
    """Return the rules of the language ``code`` (``en``, ``de`` ...).

    Raises:
        OptionError: the code is not in the table.
    """
    try:
        return LANGUAGES[code]
    except KeyError:
        choices = ", ".join(("auto", *LANGUAGES))
        raise OptionError("language", f"must be one of {choices} (got {code!r})") from None


def detect_language(text: str, start: int = 0, end: int | None = None) -> str:
    """Return the code of the table's language that ``text[start:end]`` is most likely in.

    Counts each language's stop words in up to three samples (start, middle, end); text with
    too few of them (code, tables, other languages) gets ``DEFAULT_LANGUAGE``. Ties go to the
    language listed first.
    """
    end = len(text) if end is None else end
    if end - start <= 3 * _SAMPLE:
        samples = [text[start:end]]
    else:
        middle = (start + end - _SAMPLE) // 2
        samples = [text[lo : lo + _SAMPLE] for lo in (start, middle, end - _SAMPLE)]
    words: Counter[str] = Counter()
    for sample in samples:  # words split at whitespace only: punctuation costs a few hits
        words.update(sample.lower().split())
    counts = {
        code: sum(words.get(word, 0) for word in lang.stop_words)
        for code, lang in LANGUAGES.items()
    }
    best = max(counts, key=counts.__getitem__)
    return best if counts[best] >= _MIN_HITS else DEFAULT_LANGUAGE
