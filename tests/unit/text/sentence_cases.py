"""Sentence-boundary cases: the English golden rules and the per-language sets.

The Pragmatic Segmenter (and its Python port pySBD) states its rules as test cases: 48 English
"Golden Rules" and a file of cases per language. The cases here are our own sentences written
to exercise the same rule, one for one and in the same order, so pass rates can be compared
with pySBD's on exactly these texts (``benchmarks/sentence_quality.py`` measures both).

A case names the sentences a careful reader finds; they must appear in the text in order, and
each must be an exact slice of it (``expected_spans``). ``pysbd_mode`` records how pySBD's own
test ran the original case (``default``, ``clean`` or ``pdf``), for that comparison. ``miss``
explains why our splitter gets a case wrong, when it does: the test marks it as an expected
failure (strict, so a fix shows).
"""

from __future__ import annotations

from typing import Literal, NamedTuple

PysbdMode = Literal["default", "clean", "pdf"]


class Case(NamedTuple):
    """One text and the sentences in it."""

    text: str
    sentences: list[str]
    pysbd_mode: PysbdMode = "default"
    miss: str = ""


def expected_spans(text: str, sentences: list[str]) -> list[tuple[int, int]]:
    """Return the spans of ``sentences`` found in order in ``text``."""
    spans = []
    position = 0
    for sentence in sentences:
        start = text.index(sentence, position)
        position = start + len(sentence)
        spans.append((start, position))
    return spans


# Wrapped lines are one sentence for us (SPEC: chunk text verbatim); pySBD splits at every line.
_LINE = "a single line break without a stop is a wrapped line for us, not a boundary"

# The 48 English golden rules, in the order of the Pragmatic Segmenter's list.
GOLDEN_RULES: dict[str, Case] = {
    "simple period": Case(
        "The sun rose early. Birds began to sing.", ["The sun rose early.", "Birds began to sing."]
    ),
    "question mark": Case(
        "Where is the station? It is two blocks away.",
        ["Where is the station?", "It is two blocks away."],
    ),
    "exclamation point": Case("Look out! The ice is thin.", ["Look out!", "The ice is thin."]),
    "one-letter upper-case abbreviation": Case(
        "Our guide was Maria K. Lopez.", ["Our guide was Maria K. Lopez."]
    ),
    "one-letter lower-case abbreviation": Case(
        "The table is on p. 214.", ["The table is on p. 214."]
    ),
    "two-letter lower-case abbreviation inside": Case(
        "Did Tom and co. come to dinner?", ["Did Tom and co. come to dinner?"]
    ),
    "two-letter upper-case abbreviation inside": Case(
        "We signed with Baker, Hale & Co. on Friday.",
        ["We signed with Baker, Hale & Co. on Friday."],
    ),
    "two-letter lower-case abbreviation at the end": Case(
        "We should ask Tom and co. They were there.",
        ["We should ask Tom and co.", "They were there."],
    ),
    "two-letter upper-case abbreviation at the end": Case(
        "We signed with Baker, Hale & Co. The ink is dry.",
        ["We signed with Baker, Hale & Co.", "The ink is dry."],
    ),
    "prepositive two-letter abbreviation": Case(
        "We climbed Mt. Rainier last summer.", ["We climbed Mt. Rainier last summer."]
    ),
    "prepositive and postpositive abbreviations": Case(
        "St. Anne's School sits on Oak st. by the park.",
        ["St. Anne's School sits on Oak st. by the park."],
    ),
    "possessive abbreviation": Case(
        "This is Martin Jr.'s bicycle.", ["This is Martin Jr.'s bicycle."]
    ),
    "multi-period abbreviation inside": Case(
        "She flew to the U.S.A. on Monday.", ["She flew to the U.S.A. on Monday."]
    ),
    "multi-period abbreviation at the end": Case(
        "They moved to the U.K. Where did you go?", ["They moved to the U.K.", "Where did you go?"]
    ),
    "U.S. as a boundary": Case(
        "My cousin studies in the U.S. What about yours?",
        ["My cousin studies in the U.S.", "What about yours?"],
    ),
    "U.S. before a capitalised word, no boundary": Case(
        "She joined the U.S. Navy after school.", ["She joined the U.S. Navy after school."]
    ),
    "U.S. before a lower-case word, no boundary": Case(
        "He has worked in the U.S. since 2010.", ["He has worked in the U.S. since 2010."]
    ),
    "a.m. and P.M. inside and at the end": Case(
        "By 7 a.m. Mrs. Lee was at her desk. She went home at 5 P.M. Mrs. Lee then cooked.",
        ["By 7 a.m. Mrs. Lee was at her desk.", "She went home at 5 P.M.", "Mrs. Lee then cooked."],
    ),
    "number, no boundary": Case(
        "The ticket costs $45.50 at the door.", ["The ticket costs $45.50 at the door."]
    ),
    "number as a boundary": Case(
        "The ticket costs $45.50. Children get in free.",
        ["The ticket costs $45.50.", "Children get in free."],
    ),
    "parenthetical sentence inside": Case(
        "She studies law (She spent three years as a nurse.) at the city college.",
        ["She studies law (She spent three years as a nurse.) at the city college."],
    ),
    "e-mail address": Case(
        "My address is Tom.Baker@example.org. Write to me soon.",
        ["My address is Tom.Baker@example.org.", "Write to me soon."],
    ),
    "web address": Case(
        "The docs live at: https://docs.example.io/v2/getting_started.html. Read them first.",
        ["The docs live at: https://docs.example.io/v2/getting_started.html.", "Read them first."],
    ),
    "single quotation inside": Case(
        "He looked up, 'That was fast.' he said.", ["He looked up, 'That was fast.' he said."]
    ),
    "double quotation inside": Case(
        'He looked up, "That was fast." he said.', ['He looked up, "That was fast." he said.']
    ),
    "double quotation at the end": Case(
        'He looked up, "That was fast." He put the phone down.',
        ['He looked up, "That was fast."', "He put the phone down."],
    ),
    "double exclamation point": Case("Wow!! That was close.", ["Wow!!", "That was close."]),
    "double question mark": Case("Really?? Are you sure?", ["Really??", "Are you sure?"]),
    "exclamation point and question mark": Case("What!? You sold it?", ["What!?", "You sold it?"]),
    "question mark and exclamation point": Case(
        "Who?! Nobody told me.", ["Who?!", "Nobody told me."]
    ),
    "list: period and parenthesis, no stop after items": Case(
        "1.) Preheat the oven 2.) Mix the flour", ["1.) Preheat the oven", "2.) Mix the flour"]
    ),
    "list: period and parenthesis, stop after items": Case(
        "1.) Preheat the oven. 2.) Mix the flour.",
        ["1.) Preheat the oven.", "2.) Mix the flour."],
    ),
    "list: parenthesis, no stop after items": Case(
        "1) Preheat the oven 2) Mix the flour", ["1) Preheat the oven", "2) Mix the flour"]
    ),
    "list: parenthesis, stop after items": Case(
        "1) Preheat the oven. 2) Mix the flour.", ["1) Preheat the oven.", "2) Mix the flour."]
    ),
    "list: period, no stop after items": Case(
        "1. Preheat the oven 2. Mix the flour", ["1. Preheat the oven", "2. Mix the flour"]
    ),
    "list: period, stop after items": Case(
        "1. Preheat the oven. 2. Mix the flour.", ["1. Preheat the oven.", "2. Mix the flour."]
    ),
    "list with bullets": Case(
        "• 4. Preheat the oven • 5. Mix the flour", ["• 4. Preheat the oven", "• 5. Mix the flour"]
    ),
    "list with hyphen bullets": Case(
        "⁃4. Preheat the oven ⁃5. Mix the flour", ["⁃4. Preheat the oven", "⁃5. Mix the flour"]
    ),
    "alphabetical list": Case(
        "a. Preheat the oven b. Mix the flour c. Bake it for an hour",
        ["a. Preheat the oven", "b. Mix the flour", "c. Bake it for an hour"],
    ),
    "number sign and dotted figures": Case(
        "The parcel is listed as N°. 2048.117.930. The owner lives abroad.",
        ["The parcel is listed as N°. 2048.117.930.", "The owner lives abroad."],
    ),
    "name with an exclamation point": Case(
        "He works at Yahoo! in the sales team.", ["He works at Yahoo! in the sales team."]
    ),
    "I as a sentence's end and as an initial": Case(
        "It was just you and I. Did you meet Henry I. Walsh later?",
        ["It was just you and I.", "Did you meet Henry I. Walsh later?"],
    ),
    "ellipsis at the end of a quotation": Case(
        "Emerson wrote that each life, “in its own way, seeks a quiet kind of freedom. . . .”",
        ["Emerson wrote that each life, “in its own way, seeks a quiet kind of freedom. . . .”"],
    ),
    "ellipsis in square brackets": Case(
        '"Darwin [...] compared the finches of each island [...]" (Jones 12).',
        ['"Darwin [...] compared the finches of each island [...]" (Jones 12).'],
    ),
    "spaced ellipsis and a stop as a boundary": Case(
        "When the end of a quoted sentence is left out, write spaced dots and then a full stop "
        ". . . . Then go on.",
        [
            "When the end of a quoted sentence is left out, write spaced dots and then a full "
            "stop . . . .",
            "Then go on.",
        ],
    ),
    "four dots as a boundary": Case(
        "I never said that.... He walked out.", ["I never said that....", "He walked out."]
    ),
    "ellipses inside a sentence": Case(
        "I was not really ... well, what I meant...look . . . what I am saying is . . . I was "
        "tired.",
        [
            "I was not really ... well, what I meant...look . . . what I am saying is . . . I "
            "was tired."
        ],
    ),
    "stop then an ellipsis opening the next sentence": Case(
        "The old custom faded slowly . . . and newer rituals replaced it. . . . The festival was "
        "not forgotten. . . .",
        [
            "The old custom faded slowly . . . and newer rituals replaced it.",
            ". . . The festival was not forgotten. . . .",
        ],
    ),
}

# One case per case of pySBD's tests/lang/test_deutsch.py (golden, clean and PDF sets, in order).
GERMAN: list[Case] = [
    Case(
        "„Heute bleibe ich zu Hause“, sagte der Mann und fügte leise hinzu: „Und morgen auch.“ "
        "Wir sparen 2.500.000 Euro.",
        [
            "„Heute bleibe ich zu Hause“, sagte der Mann und fügte leise hinzu: „Und morgen auch.“",
            "Wir sparen 2.500.000 Euro.",
        ],
    ),
    Case(
        "Es gibt ein paar einfache Regeln, z. B. ist es gut, wenn Du jeden Tag genug Wasser "
        "trinkst.",
        [
            "Es gibt ein paar einfache Regeln, z. B. ist es gut, wenn Du jeden Tag genug Wasser "
            "trinkst."
        ],
    ),
    Case("Was folgt aus der Wahl vom 14. März?", ["Was folgt aus der Wahl vom 14. März?"]),
    Case(
        "„Heute bleibe ich zu Hause“, sagte die Nachbarin, „und morgen vielleicht auch.“ "
        "Wir zahlen 3.000.000 Euro.",
        [
            "„Heute bleibe ich zu Hause“, sagte die Nachbarin, „und morgen vielleicht auch.“",
            "Wir zahlen 3.000.000 Euro.",
        ],
        "clean",
    ),
    Case(
        "Jonas fragte: ,,Kommst Du heute?” ,,Das weiß ich nicht“, sagte Anna, ,,vielleicht am "
        "Abend.“ Wir haben 3.000 Euro.",
        [
            "Jonas fragte: ,,Kommst Du heute?” ,,Das weiß ich nicht“, sagte Anna, ,,vielleicht "
            "am Abend.“",
            "Wir haben 3.000 Euro.",
        ],
        "clean",
    ),
    Case(
        "„Komm, wir gehen jetzt spazieren!“, rief der Vater seiner Tochter zu, „am liebsten an "
        "den See.“",
        [
            "„Komm, wir gehen jetzt spazieren!“, rief der Vater seiner Tochter zu, „am liebsten "
            "an den See.“"
        ],
        "clean",
    ),
    Case("Das Haus kostet 1.000.000 Euro.", ["Das Haus kostet 1.000.000 Euro."], "clean"),
    Case("Sie zahlen 4,20 Euro zurück.", ["Sie zahlen 4,20 Euro zurück."], "clean"),
    Case("Die Fahrt dauert 2,5 Stunden.", ["Die Fahrt dauert 2,5 Stunden."], "clean"),
    Case("Bitte zahlen Sie 1.250,75 Euro.", ["Bitte zahlen Sie 1.250,75 Euro."], "clean"),
    Case("1. Das ist der erste Punkt.", ["1. Das ist der erste Punkt."], "clean"),
    Case("Ich traf Dr. med. Schulz im Park.", ["Ich traf Dr. med. Schulz im Park."], "clean"),
    Case(
        "Wir kaufen Obst, z. B. Äpfel, Birnen, Kirschen usw.",
        ["Wir kaufen Obst, z. B. Äpfel, Birnen, Kirschen usw."],
        "clean",
    ),
    Case("Er kann u.a. Französisch sprechen.", ["Er kann u.a. Französisch sprechen."], "clean"),
    Case(
        "Herr Prof. Wagner ist z. Z. im Urlaub.",
        ["Herr Prof. Wagner ist z. Z. im Urlaub."],
        "clean",
    ),
    Case(
        "Sie bekommen einen neuen Vertrag bzw. eine neue Rechnung.",
        ["Sie bekommen einen neuen Vertrag bzw. eine neue Rechnung."],
        "clean",
    ),
    Case("Z. T. fehlen noch Seiten.", ["Z. T. fehlen noch Seiten."], "clean"),
    Case("Die Tabelle steht auf S. 48.", ["Die Tabelle steht auf S. 48."], "clean"),
    Case("Er geht auf eine kath. Schule.", ["Er geht auf eine kath. Schule."], "clean"),
    Case(
        "Wir sammeln Bücher, Hefte u. Ä. für die Schule.",
        ["Wir sammeln Bücher, Hefte u. Ä. für die Schule."],
        "clean",
    ),
    Case(
        "Das steht auf S. 12, s. auch die Fußnote.",
        ["Das steht auf S. 12, s. auch die Fußnote."],
        "clean",
    ),
    Case(
        "Meine Anschrift: Dr. Weber, Kieler Str. 7, 24103 Kiel.",
        ["Meine Anschrift: Dr. Weber, Kieler Str. 7, 24103 Kiel."],
        "clean",
    ),
    Case(
        "Sie rief: „Guten Tag, wie geht´s Ihnen, Herr Dr. Braun?“",
        ["Sie rief: „Guten Tag, wie geht´s Ihnen, Herr Dr. Braun?“"],
        "clean",
    ),
    Case(
        "Gesund in sechs Wochen\n\nDein Plan für bessere Ernährung und mehr Bewegung\n\n"
        "IMPRESSUM\n\nOhne schriftliche Erlaubnis der Autorin darf dieses Heft weder ganz noch "
        "in Teilen kopiert oder weitergegeben werden. Wenn Du es an einem fremden Rechner "
        "ausdruckst, lösche die Datei danach. Jedes Heft trägt eine persönliche Kennung.\n\n"
        "Dieses Heft ersetzt keinen Besuch beim Arzt. Wer Beschwerden hat, sollte sie ärztlich "
        "abklären lassen.\nFotos © 2019 bei Bildarchiv, Gestaltung durch Lena Berg Text von "
        "Lena Berg\nUrheberrecht © 2020 Lena Berg. Alle Rechte vorbehalten\n\nÜber mich",
        [
            "Gesund in sechs Wochen",
            "Dein Plan für bessere Ernährung und mehr Bewegung",
            "IMPRESSUM",
            "Ohne schriftliche Erlaubnis der Autorin darf dieses Heft weder ganz noch in Teilen "
            "kopiert oder weitergegeben werden.",
            "Wenn Du es an einem fremden Rechner ausdruckst, lösche die Datei danach.",
            "Jedes Heft trägt eine persönliche Kennung.",
            "Dieses Heft ersetzt keinen Besuch beim Arzt.",
            "Wer Beschwerden hat, sollte sie ärztlich abklären lassen.",
            "Fotos © 2019 bei Bildarchiv, Gestaltung durch Lena Berg Text von Lena Berg",
            "Urheberrecht © 2020 Lena Berg.",
            "Alle Rechte vorbehalten",
            "Über mich",
        ],
        "clean",
        miss=_LINE,
    ),
    Case(
        "Es gibt Dinge, die man tun kann, z. B. ist es klug, keine Süßigkeiten zu kaufen. Ich "
        "selbst kaufe keine (ich kenne mich zu gut!). Ich finde immer einen Grund, sie doch zu "
        "essen, vor allem wenn sie im Haus sind. Es ist seltsam, wie unser Kopf arbeitet!",
        [
            "Es gibt Dinge, die man tun kann, z. B. ist es klug, keine Süßigkeiten zu kaufen.",
            "Ich selbst kaufe keine (ich kenne mich zu gut!).",
            "Ich finde immer einen Grund, sie doch zu essen, vor allem wenn sie im Haus sind.",
            "Es ist seltsam, wie unser Kopf arbeitet!",
        ],
        "clean",
    ),
    Case(
        "Ob Sie in Köln nur umsteigen oder ein paar Tage bleiben: Die Stadt am Rhein hat viel "
        "zu bieten und ist zu jeder Jahreszeit einen Besuch wert. \nKölns Geschichte reicht bis "
        "in die Römerzeit zurück, wie Funde aus dem 1. -3. Jahrhundert nach Christus zeigen, die "
        "an vielen Orten der Altstadt gemacht wurden.",
        [
            "Ob Sie in Köln nur umsteigen oder ein paar Tage bleiben: Die Stadt am Rhein hat "
            "viel zu bieten und ist zu jeder Jahreszeit einen Besuch wert.",
            "Kölns Geschichte reicht bis in die Römerzeit zurück, wie Funde aus dem 1. -3. "
            "Jahrhundert nach Christus zeigen, die an vielen Orten der Altstadt gemacht wurden.",
        ],
        "clean",
    ),
    Case(
        "• 3. Achten Sie auf frisches Gemüse! \n• 4. Trinken Sie genug Wasser! \n• 5. Gehen "
        "Sie täglich spazieren! \n• 6. Schlafen Sie ausreichend! \n",
        [
            "• 3. Achten Sie auf frisches Gemüse!",
            "• 4. Trinken Sie genug Wasser!",
            "• 5. Gehen Sie täglich spazieren!",
            "• 6. Schlafen Sie ausreichend!",
        ],
        "clean",
    ),
    Case("Was geschah am 3. Oktober in Berlin?", ["Was geschah am 3. Oktober in Berlin?"], "clean"),
    Case(
        "Der Umsatz stieg pro Quartal8. Dazu kam ein Plus von 0.4 %9. Nach gängiger Lehre "
        "folgt daraus das Wachstum.",
        [
            "Der Umsatz stieg pro Quartal8.",
            "Dazu kam ein Plus von 0.4 %9.",
            "Nach gängiger Lehre folgt daraus das Wachstum.",
        ],
        "clean",
    ),
    Case("s. oben stehenden Hinweis.", ["s. oben stehenden Hinweis."], "clean"),
    Case(
        "Mit Inkrafttreten des Gesetzes (BGB) zum 01. Januar 2002 ändert sich vieles beim "
        "Einsatz von Leistungs.",
        [
            "Mit Inkrafttreten des Gesetzes (BGB) zum 01. Januar 2002 ändert sich vieles beim "
            "Einsatz von Leistungs."
        ],
        "clean",
    ),
    Case(
        "\n• frischer Fisch  \n• rohe Eier  \n• ungewaschenes Obst und Gemüse  \n• halb "
        "gegartes Geflügel, weiche Eier",
        [
            "• frischer Fisch",
            "• rohe Eier",
            "• ungewaschenes Obst und Gemüse",
            "• halb gegartes Geflügel, weiche Eier",
        ],
        "clean",
    ),
    Case(
        "\n   \n\n   http:www.example.de/eltern \n\n \n\n8 Tipps für einen gesunden Alltag "
        "(Deutsch) \n\n8 Schritte zu mehr Gesundheit \n \n• 1. Planen Sie Ihre Woche! \n• 2. "
        "Essen Sie bunt! \n• 3. Bewegen Sie sich! \n \n \nAcht einfache Tipps helfen Ihnen, "
        "gesünder \nzu leben und sich wohler zu fühlen:  \n\n1. Planen Sie Ihre Woche!",
        [
            "http:www.example.de/eltern",
            "8 Tipps für einen gesunden Alltag (Deutsch)",
            "8 Schritte zu mehr Gesundheit",
            "• 1. Planen Sie Ihre Woche!",
            "• 2. Essen Sie bunt!",
            "• 3. Bewegen Sie sich!",
            "Acht einfache Tipps helfen Ihnen, gesünder \nzu leben und sich wohler zu fühlen:",
            "1. Planen Sie Ihre Woche!",
        ],
        "pdf",
    ),
    Case(
        "Ältere Menschen sollten in den \nWintermonaten täglich etwa 800 Einheiten Vitamin D "
        "einnehmen. \nVitamin D steckt auch in fettem Fisch und in Pilzen.",
        [
            "Ältere Menschen sollten in den \nWintermonaten täglich etwa 800 Einheiten Vitamin D "
            "einnehmen.",
            "Vitamin D steckt auch in fettem Fisch und in Pilzen.",
        ],
        "pdf",
    ),
    Case(
        "Manche \nPilzarten (z.B. Steinpilz, Marone und Pfifferling) speichern Schwermetalle "
        "\nund sollten deshalb nur selten gegessen werden.",
        [
            "Manche \nPilzarten (z.B. Steinpilz, Marone und Pfifferling) speichern Schwermetalle "
            "\nund sollten deshalb nur selten gegessen werden."
        ],
        "pdf",
    ),
]

# One case per case of pySBD's tests/lang/test_french.py.
FRENCH: list[Case] = [
    Case(
        "Après avoir participé au programme spatial européen, le laboratoire se tourne "
        "aujourd'hui vers l'étude du climat. L'analyse des données satellitaires, complétée par "
        "des mesures de terrain, notamment dans les régions polaires, ouvre de nouvelles pistes "
        "de recherche.",
        [
            "Après avoir participé au programme spatial européen, le laboratoire se tourne "
            "aujourd'hui vers l'étude du climat.",
            "L'analyse des données satellitaires, complétée par des mesures de terrain, "
            "notamment dans les régions polaires, ouvre de nouvelles pistes de recherche.",
        ],
    ),
    Case(
        '"Le chantier livrera comme prévu 40 navires cette année avec pour objectif '
        "l'équilibre financier en 2030\", a-t-il précisé.",
        [
            '"Le chantier livrera comme prévu 40 navires cette année avec pour objectif '
            "l'équilibre financier en 2030\", a-t-il précisé."
        ],
    ),
    Case(
        "À 9 heures ce matin, la mairie ne comptait que quinze manifestants dans toute la "
        "région : ce sont ceux du quartier de la gare (Nord), qui compte 1200 habitants, dont "
        "un tiers d’étudiants. Elle affirme que cette action « n’aura aucun effet sur les "
        "transports ».",
        [
            "À 9 heures ce matin, la mairie ne comptait que quinze manifestants dans toute la "
            "région : ce sont ceux du quartier de la gare (Nord), qui compte 1200 habitants, "
            "dont un tiers d’étudiants.",
            "Elle affirme que cette action « n’aura aucun effet sur les transports ».",
        ],
    ),
    Case(
        "Ce modèle affiche le sigle « LL.MM.RR. » pour l’abréviation de « Leurs Majestés "
        "royales » avec une infobulle.",
        [
            "Ce modèle affiche le sigle « LL.MM.RR. » pour l’abréviation de « Leurs Majestés "
            "royales » avec une infobulle."
        ],
    ),
    Case(
        "Les nouveaux produits de Dupont Ltd. sont arrivés.",
        ["Les nouveaux produits de Dupont Ltd. sont arrivés."],
    ),
]

# One case per case of pySBD's tests/lang/test_spanish.py (golden, more, clean and PDF sets).
SPANISH: list[Case] = [
    Case("¿Qué tal el viaje? Espero que bien.", ["¿Qué tal el viaje?", "Espero que bien."]),
    Case(
        "¡Buenas noches, señor! Espero que descanse.",
        ["¡Buenas noches, señor!", "Espero que descanse."],
    ),
    Case(
        "Buenas tardes Srta. Gómez. Le presento al Lic. Luis Ortega, y él es mi tío, el Dr. "
        "Ortega.",
        [
            "Buenas tardes Srta. Gómez.",
            "Le presento al Lic. Luis Ortega, y él es mi tío, el Dr. Ortega.",
        ],
    ),
    Case(
        "¡El coche cuesta $45.900.000,00! ¡Qué caro! Se espera una bajada del 8.5% el año que "
        "viene.",
        [
            "¡El coche cuesta $45.900.000,00!",
            "¡Qué caro!",
            "Se espera una bajada del 8.5% el año que viene.",
        ],
    ),
    Case(
        "«Toda gran obra empieza con una pequeña duda.», escribió la autora.",
        ["«Toda gran obra empieza con una pequeña duda.», escribió la autora."],
    ),
    Case(
        "«Toda gran obra empieza con una pequeña duda», escribió la autora. Marta, ¿a dónde "
        "vas? ¡¿Qué has hecho?!",
        [
            "«Toda gran obra empieza con una pequeña duda», escribió la autora.",
            "Marta, ¿a dónde vas?",
            "¡¿Qué has hecho?!",
        ],
    ),
    Case("Admón. se usa para administración.", ["Admón. se usa para administración."]),
    Case(
        "¡Hola Srta. Vega! ¿Cómo le va? Espero que bien.",
        ["¡Hola Srta. Vega!", "¿Cómo le va?", "Espero que bien."],
    ),
    Case(
        "Buenas tardes, soy la Lic. Ana Ríos, y él es mi hermano, el Dr. Ríos.",
        ["Buenas tardes, soy la Lic. Ana Ríos, y él es mi hermano, el Dr. Ríos."],
    ),
    Case(
        "He reservado mesa para el día: Mar. 14 de Nov. de 2025. Gracias.",
        ["He reservado mesa para el día: Mar. 14 de Nov. de 2025.", "Gracias."],
    ),
    Case(
        "Núm. de cuenta: 442.310.778.9. Salude de mi parte a la Sra. Vega.",
        ["Núm. de cuenta: 442.310.778.9.", "Salude de mi parte a la Sra. Vega."],
    ),
    Case(
        "El punto de fusión del hielo (0 °C) equivale a 273.15 K, y una diferencia de 1 °C "
        "equivale a una diferencia de 1 Kelvin. Por eso 37 °C, la temperatura del cuerpo, "
        "equivale a 310.15 K.",
        [
            "El punto de fusión del hielo (0 °C) equivale a 273.15 K, y una diferencia de 1 °C "
            "equivale a una diferencia de 1 Kelvin.",
            "Por eso 37 °C, la temperatura del cuerpo, equivale a 310.15 K.",
        ],
    ),
    Case(
        "Durante el segundo vuelo del Atlantis (3 Oct. 1985 11:15.30) se lanzaron dos "
        "satélites militares, la misión se llamó STS-51-J.",
        [
            "Durante el segundo vuelo del Atlantis (3 Oct. 1985 11:15.30) se lanzaron dos "
            "satélites militares, la misión se llamó STS-51-J."
        ],
    ),
    Case(
        'Verso de una poeta: "Camino despacio, / miro la luna, / la noche me sigue / como un '
        'perro callado. / [...] ".',
        [
            'Verso de una poeta: "Camino despacio, / miro la luna, / la noche me sigue / como '
            'un perro callado. / [...] ".'
        ],
    ),
    Case(
        "Citando a un viejo maestro «Prefiero aprender a enseñar, porque enseñar también es "
        "aprender.», lo cual me parece sabio.",
        [
            "Citando a un viejo maestro «Prefiero aprender a enseñar, porque enseñar también es "
            "aprender.», lo cual me parece sabio."
        ],
    ),
    Case(
        'Al entrar, la profesora dictaba un ejercicio a los alumnos, que era "2 + (9/3).y = '
        '8". ¿Qué opinas?',
        [
            'Al entrar, la profesora dictaba un ejercicio a los alumnos, que era "2 + (9/3).y '
            '= 8".',
            "¿Qué opinas?",
        ],
    ),
    Case(
        "Se pidió a los alumnos que leyeran los párrf. 2 y 3 del art. 7 de la ley de los EE. UU..",
        [
            "Se pidió a los alumnos que leyeran los párrf. 2 y 3 del art. 7 de la ley de los "
            "EE. UU.."
        ],
    ),
    Case(
        'Una pregunta del examen del Lun. 8 de Mar. fue: "Chicos, ¿cuánto es 2.5 + 3/4?". '
        "Tenían 2 min. para contestar.",
        [
            'Una pregunta del examen del Lun. 8 de Mar. fue: "Chicos, ¿cuánto es 2.5 + 3/4?".',
            "Tenían 2 min. para contestar.",
        ],
    ),
    Case(
        "El aceite llegó a los 180.5°C. Por suerte, nadie se quemó.",
        ["El aceite llegó a los 180.5°C.", "Por suerte, nadie se quemó."],
    ),
    Case(
        "La caja mide 2m³. ¿Cuál es el área de cada lado?",
        ["La caja mide 2m³.", "¿Cuál es el área de cada lado?"],
    ),
    Case(
        "La cocina tiene 12.40m². El salón tiene 30.0m².",
        ["La cocina tiene 12.40m².", "El salón tiene 30.0m²."],
    ),
    Case(
        "0°C equivale a 32.0°F. ¿A cuánto equivale 20°C?",
        ["0°C equivale a 32.0°F.", "¿A cuánto equivale 20°C?"],
    ),
    Case(
        "Alonso ganó la última carrera tras 1:32:10.450 Hs. de competición, segundo quedó "
        "Sainz, a 3.1 segundos. Así logró ¡otro podio!",
        [
            "Alonso ganó la última carrera tras 1:32:10.450 Hs. de competición, segundo quedó "
            "Sainz, a 3.1 segundos.",
            "Así logró ¡otro podio!",
        ],
    ),
    Case(
        "¡El piso cuesta $98.000.000,00! ¡Carísimo! Se prevé una subida del 3.5% el próximo año.",
        [
            "¡El piso cuesta $98.000.000,00!",
            "¡Carísimo!",
            "Se prevé una subida del 3.5% el próximo año.",
        ],
    ),
    Case("El ciclista No. 27 llegó 2°.", ["El ciclista No. 27 llegó 2°."]),
    Case(
        "Hoy es 15/08/2023, y es el santo de mi madre. ¿Cuándo es el tuyo?",
        ["Hoy es 15/08/2023, y es el santo de mi madre.", "¿Cuándo es el tuyo?"],
    ),
    Case(
        "Esta es la lista para la cena: 1.Pescado, 2.Patatas, 3.Ensalada. ¿Cuánto costará? "
        "Unos $20.5.",
        [
            "Esta es la lista para la cena: 1.Pescado, 2.Patatas, 3.Ensalada.",
            "¿Cuánto costará?",
            "Unos $20.5.",
        ],
    ),
    Case(
        "3 + 3 es 6. 6 + 6 es 12. La moto es de color azul.",
        ["3 + 3 es 6.", "6 + 6 es 12.", "La moto es de color azul."],
    ),
    Case(
        "El tren iba a 80 km/h. ¿En cuánto tiempo hizo los 240 Km.?",
        ["El tren iba a 80 km/h.", "¿En cuánto tiempo hizo los 240 Km.?"],
    ),
    Case(
        "Busca empleo en el área de Enfermería en el Hospital General en Mt. Vernon.",
        ["Busca empleo en el área de Enfermería en el Hospital General en Mt. Vernon."],
    ),
    Case(
        "\n \nOficina de Relaciones Internacionales -ORI \n\nCra. 5 No. 12-30 Piso 3 Tel.  "
        "(57-1) 5551234 Ext. 220 Fax: (57-1) 5554321 Bogotá, D.C. - Colombia \n\n"
        "http://www.example.edu.co - ori@example.edu.co \n\n \n\nORI 0415 \n \n"
        "Bogotá, D.C. 3 de marzo de 2021.  \n \nSeñores: \nEMBAJADA DE CANADÁ \n \n",
        [
            "Oficina de Relaciones Internacionales -ORI",
            "Cra. 5 No. 12-30 Piso 3 Tel.  (57-1) 5551234 Ext. 220 Fax: (57-1) 5554321 "
            "Bogotá, D.C. - Colombia",
            "http://www.example.edu.co - ori@example.edu.co",
            "ORI 0415",
            "Bogotá, D.C. 3 de marzo de 2021.",
            "Señores:",
            "EMBAJADA DE CANADÁ",
        ],
        "clean",
    ),
    Case("N°. 2048.117.930", ["N°. 2048.117.930"], "clean"),
    Case(
        "\n__________________________________________\nEl Consejo de Servicios Escolares del "
        "condado, según el título IX, Sección 504 de la “Ley de Rehabilitación” de 1973 y de "
        "la “Ley de Igualdad”, no discrimina en la admisión por sexo, religión, origen, edad o "
        "discapacidad.",
        [
            "__________________________________________",
            "El Consejo de Servicios Escolares del condado, según el título IX, Sección 504 de "
            "la “Ley de Rehabilitación” de 1973 y de la “Ley de Igualdad”, no discrimina en la "
            "admisión por sexo, religión, origen, edad o discapacidad.",
        ],
        "clean",
    ),
    Case(
        "• 1. Duerme ocho horas \n• 2. Come fruta \n• 3. Bebe mucha agua \n• 4. Camina cada "
        "día \n• 5. Evita el azúcar \n• 6. Lee un libro \n• 7. Llama a tus amigos \n• 8. Apaga "
        "el móvil \n• 9. Sal al sol \n• 10. Descansa",
        [
            "• 1. Duerme ocho horas",
            "• 2. Come fruta",
            "• 3. Bebe mucha agua",
            "• 4. Camina cada día",
            "• 5. Evita el azúcar",
            "• 6. Lee un libro",
            "• 7. Llama a tus amigos",
            "• 8. Apaga el móvil",
            "• 9. Sal al sol",
            "• 10. Descansa",
        ],
        "clean",
    ),
    Case(
        "• 1. Duerme ocho horas \n• 2. Come fruta \n• 3. Bebe mucha agua \n• 4. Camina cada "
        "día \n• 5. Evita el azúcar \n• 6. Lee un libro \n• 7. Llama a tus amigos \n• 8. Apaga "
        "el móvil \n• 9. Sal al sol \n• 10. Descansa \n• 11. Sonríe",
        [
            "• 1. Duerme ocho horas",
            "• 2. Come fruta",
            "• 3. Bebe mucha agua",
            "• 4. Camina cada día",
            "• 5. Evita el azúcar",
            "• 6. Lee un libro",
            "• 7. Llama a tus amigos",
            "• 8. Apaga el móvil",
            "• 9. Sal al sol",
            "• 10. Descansa",
            "• 11. Sonríe",
        ],
        "clean",
    ),
    Case(
        "\nPor la presente me permito presentar al Ingeniero JUAN CARLOS PÉREZ \nROJAS, "
        "identificado con el documento N°. 2048.117.930 de Bogotá, \negresado del Programa de "
        "Ingeniería Civil en el año 2015, quien se destacó por \nsu rendimiento, actualmente "
        "cursa una Maestría en \nIngeniería Ambiental y realiza una estancia en Pune – \nIndia.",
        [
            "Por la presente me permito presentar al Ingeniero JUAN CARLOS PÉREZ \nROJAS, "
            "identificado con el documento N°. 2048.117.930 de Bogotá, \negresado del Programa "
            "de Ingeniería Civil en el año 2015, quien se destacó por \nsu rendimiento, "
            "actualmente cursa una Maestría en \nIngeniería Ambiental y realiza una estancia en "
            "Pune – \nIndia."
        ],
        "pdf",
    ),
]

# One case per case of pySBD's tests/lang/test_italian.py (golden and more sets).
ITALIAN: list[Case] = [
    Case("Buongiorno Sig.ra Rossi! Come sta?", ["Buongiorno Sig.ra Rossi!", "Come sta?"]),
    Case(
        "Una domanda si può aprire così «Il/la richiedente.».",
        ["Una domanda si può aprire così «Il/la richiedente.»."],
    ),
    Case("L'auto costa 25.900,00€!", ["L'auto costa 25.900,00€!"]),
    Case("Buonasera Sig.ra Bianchi! Tutto bene?", ["Buonasera Sig.ra Bianchi!", "Tutto bene?"]),
    Case(
        "Salve! Sono l'Ing. Ferri. È arrivato l'Avv. Conti?",
        ["Salve!", "Sono l'Ing. Ferri.", "È arrivato l'Avv. Conti?"],
    ),
    Case(
        "Mi prenoti una visita per mar. 18 Nov.. Grazie.",
        ["Mi prenoti una visita per mar. 18 Nov..", "Grazie."],
    ),
    Case(
        "Ecco il mio tel.:3331234567. Mi saluti la Sig.na Verdi. Buona giornata.",
        ["Ecco il mio tel.:3331234567.", "Mi saluti la Sig.na Verdi.", "Buona giornata."],
    ),
    Case(
        "La stazione meteor. si è fermata. Gli elettr. sono dovuti intervenire.",
        ["La stazione meteor. si è fermata.", "Gli elettr. sono dovuti intervenire."],
    ),
    Case(
        "Hanno scritto un codice allo st. d. arte. Si ringrazia lo psicol. Neri.",
        ["Hanno scritto un codice allo st. d. arte.", "Si ringrazia lo psicol. Neri."],
    ),
    Case("Chiamate il V.Cte. delle F.P., subito!", ["Chiamate il V.Cte. delle F.P., subito!"]),
    Case("Luca ha superato l'esame di econ. az..", ["Luca ha superato l'esame di econ. az.."]),
    Case(
        "Guidava a 110 km/h verso la provincia di PG quando l'Ing. Tosi ha sentito un colpo e "
        "si è fermato!",
        [
            "Guidava a 110 km/h verso la provincia di PG quando l'Ing. Tosi ha sentito un colpo "
            "e si è fermato!"
        ],
    ),
    Case(
        "Egregio Dir. Amm., le comunico che la caldaia è guasta.",
        ["Egregio Dir. Amm., le comunico che la caldaia è guasta."],
    ),
    Case("Stava leggendo e/o scrivendo.", ["Stava leggendo e/o scrivendo."]),
    Case(
        "Ricordate che dom 14 Set. sarà la festa di Luca; dovremo portare un dolce.",
        ["Ricordate che dom 14 Set. sarà la festa di Luca; dovremo portare un dolce."],
    ),
    Case(
        "La scelta è quella del risparmio; quindi verranno ridotte le spese.",
        ["La scelta è quella del risparmio; quindi verranno ridotte le spese."],
    ),
    Case(
        "In aula, l'Avv. Marini ha gridato \"Io, l'onorevole Marini, mi oppongo!\".",
        ["In aula, l'Avv. Marini ha gridato \"Io, l'onorevole Marini, mi oppongo!\"."],
    ),
    Case(
        "I componenti di una rete (ad es. router, switch, cavi, server, etc.) sono detti HW di "
        "rete.",
        [
            "I componenti di una rete (ad es. router, switch, cavi, server, etc.) sono detti HW "
            "di rete."
        ],
    ),
    Case("La parola 'auto' è sinonimo di macchina.", ["La parola 'auto' è sinonimo di macchina."]),
    Case('La "Pasta Rossi" produce cibi pronti.', ['La "Pasta Rossi" produce cibi pronti.']),
    Case(
        '"Cadde la sera. Tacque il mare / e il vento / si posò sul porto / [...]" (Anonimo).',
        ['"Cadde la sera. Tacque il mare / e il vento / si posò sul porto / [...]" (Anonimo).'],
    ),
    Case(
        "Una domanda si può aprire così «Il/la richiedente ... residente a ...».",
        ["Una domanda si può aprire così «Il/la richiedente ... residente a ...»."],
    ),
    Case(
        'Per compito, in uno degli esercizi c\'era "5 + (12/4) = 8"',
        ['Per compito, in uno degli esercizi c\'era "5 + (12/4) = 8"'],
    ),
    Case(
        'Ai ragazzi è stato chiesto di calcolare "6:3*2"',
        ['Ai ragazzi è stato chiesto di calcolare "6:3*2"'],
    ),
    Case(
        "Il maestro chiese: \"Ragazzi, quanto fa '1/2 + 3/2?'\".",
        ["Il maestro chiese: \"Ragazzi, quanto fa '1/2 + 3/2?'\"."],
    ),
    Case("L'acqua bolle a 100°C.", ["L'acqua bolle a 100°C."]),
    Case("Il volume era di 5m³.", ["Il volume era di 5m³."]),
    Case("La cucina misurava 12m².", ["La cucina misurava 12m²."]),
    Case("0°C corrisponde a 32.0°F.", ["0°C corrisponde a 32.0°F."]),
    Case("Oggi è il 15-08-23.", ["Oggi è il 15-08-23."]),
    Case("La barca costa 85.000,00€!", ["La barca costa 85.000,00€!"]),
    Case("Il ciclista 27 è arrivato 2°.", ["Il ciclista 27 è arrivato 2°."]),
    Case("Oggi è il 15/08/2023.", ["Oggi è il 15/08/2023."]),
    Case("Ecco la lista: 1.pane, 2.latte, 3.uova.", ["Ecco la lista: 1.pane, 2.latte, 3.uova."]),
    Case("Devi prendere : 1)olio 2)sale.", ["Devi prendere : 1)olio 2)sale."]),
    Case("Il treno viaggiava a 200 km/h.", ["Il treno viaggiava a 200 km/h."]),
]

# One case per case of pySBD's tests/lang/test_dutch.py.
DUTCH: list[Case] = [
    Case(
        "Hij tankte de F35-straaljager toen de Ground-to-Air (gta)-raketten op hem afkwamen. "
        "73 procent van de raketten miste.",
        [
            "Hij tankte de F35-straaljager toen de Ground-to-Air (gta)-raketten op hem afkwamen.",
            "73 procent van de raketten miste.",
        ],
    ),
    Case(
        "73 procent van de raketten miste. ...en toen brak de paniek uit.",
        ["73 procent van de raketten miste.", "...en toen brak de paniek uit."],
    ),
    Case(
        "De afkorting aanw. vnw. staat in elk woordenboek.",
        ["De afkorting aanw. vnw. staat in elk woordenboek."],
    ),
]

# pySBD has no Portuguese: our own cases, in the style of the others.
PORTUGUESE: list[Case] = [
    Case(
        "O Sr. Silva chegou cedo. A Dra. Costa chegou depois.",
        ["O Sr. Silva chegou cedo.", "A Dra. Costa chegou depois."],
    ),
    Case("Você vem hoje? Espero que sim.", ["Você vem hoje?", "Espero que sim."]),
    Case("Que dia lindo! Vamos à praia.", ["Que dia lindo!", "Vamos à praia."]),
    Case(
        "O preço subiu 2,5% em 2023. Os salários não acompanharam.",
        ["O preço subiu 2,5% em 2023.", "Os salários não acompanharam."],
    ),
    Case(
        "Leia o art. 5 da Constituição, pág. 12, antes da aula.",
        ["Leia o art. 5 da Constituição, pág. 12, antes da aula."],
    ),
    Case(
        "Ele mora na Av. Paulista, nº 1000, em São Paulo.",
        ["Ele mora na Av. Paulista, nº 1000, em São Paulo."],
    ),
    Case(
        "Comprei frutas, p. ex. maçãs e peras. Depois voltei para casa.",
        ["Comprei frutas, p. ex. maçãs e peras.", "Depois voltei para casa."],
    ),
    Case(
        "«Nada é impossível.», disse a professora.", ["«Nada é impossível.», disse a professora."]
    ),
    Case(
        "V. Exa. deve assinar o documento. O prazo termina amanhã.",
        ["V. Exa. deve assinar o documento.", "O prazo termina amanhã."],
    ),
    Case("O evento é às 14h. Não se atrase.", ["O evento é às 14h.", "Não se atrase."]),
    Case(
        "Visite www.exemplo.com.br. Lá há mais informações.",
        ["Visite www.exemplo.com.br.", "Lá há mais informações."],
    ),
    Case(
        "O Prof. Dr. Almeida publicou um artigo. Foi muito citado.",
        ["O Prof. Dr. Almeida publicou um artigo.", "Foi muito citado."],
    ),
    Case(
        "Ela perguntou: «Onde fica a estação?» Ninguém respondeu.",
        ["Ela perguntou: «Onde fica a estação?»", "Ninguém respondeu."],
    ),
    Case("1. Abra a caixa. 2. Retire o aparelho.", ["1. Abra a caixa.", "2. Retire o aparelho."]),
    Case(
        "Foram gastos R$ 1.500,00. O orçamento estourou.",
        ["Foram gastos R$ 1.500,00.", "O orçamento estourou."],
    ),
    Case(
        "A reunião com a Sra. Lima foi adiada, i.e. não acontece hoje.",
        ["A reunião com a Sra. Lima foi adiada, i.e. não acontece hoje."],
    ),
]

# One case per case of pySBD's tests/lang/test_chinese.py and test_japanese.py.
CHINESE: list[Case] = [
    Case(
        "公司已经联系了他的家人，协助办理相关手续，家属于3月5日晚上乘坐航班抵达北京，他们走进大厅时"
        "神情沉重、一言不发。他来自杭州，前年刚从大学毕业，同年7月加入公司。",
        [
            "公司已经联系了他的家人，协助办理相关手续，家属于3月5日晚上乘坐航班抵达北京，他们走进大厅时"
            "神情沉重、一言不发。",
            "他来自杭州，前年刚从大学毕业，同年7月加入公司。",
        ],
    ),
    Case(
        "我们周末一起去看《快跑！小明》好不好？好！",
        ["我们周末一起去看《快跑！小明》好不好？", "好！"],
    ),
]
JAPANESE: list[Case] = [
    Case("これは本です。あれは辞書です。", ["これは本です。", "あれは辞書です。"]),
    Case("それは誰ですか？先生ですか？", ["それは誰ですか？", "先生ですか？"]),
    Case("楽しかったね！また来よう！", ["楽しかったね！", "また来よう！"]),
    Case(
        "財務省の担当者は、「税率は１．５％程度引き上げる必要がある」と説明していて、今後、各党と協議した"
        "うえで、２０日に決まる予算案に反映させる予定です。３％台前半を目指す方向で調整が続いています。",
        [
            "財務省の担当者は、「税率は１．５％程度引き上げる必要がある」と説明していて、今後、各党と協議"
            "したうえで、２０日に決まる予算案に反映させる予定です。",
            "３％台前半を目指す方向で調整が続いています。",
        ],
    ),
    Case("これは母の\n本です。", ["これは母の\n本です。"], "clean"),
]

# One case per case of pySBD's tests/lang/test_hindi.py and test_marathi.py.
HINDI: list[Case] = [
    Case(
        "सच कहूँ तो यह बात कोई नहीं जानता। शायद यह किसी पुराने राजा के खिलाफ़ विद्रोह था, या फिर "
        "कोई बेकाबू उत्सव।",
        [
            "सच कहूँ तो यह बात कोई नहीं जानता।",
            "शायद यह किसी पुराने राजा के खिलाफ़ विद्रोह था, या फिर कोई बेकाबू उत्सव।",
        ],
    ),
]
MARATHI: list[Case] = [
    Case("आज दिवाळी आहे. आज खूप आनंदाचा दिवस आहे.", ["आज दिवाळी आहे.", "आज खूप आनंदाचा दिवस आहे."]),
    Case("वारा जोरात वाहत होता; पण पाऊस आला नाही.", ["वारा जोरात वाहत होता; पण पाऊस आला नाही."]),
    Case("तुझी शाळा कधी सुरू होते? अजून वेळ आहे.", ["तुझी शाळा कधी सुरू होते?", "अजून वेळ आहे."]),
    Case(
        "छान, असेच खेळत राहा! आणि मग तू नक्की जिंकशील.",
        ["छान, असेच खेळत राहा!", "आणि मग तू नक्की जिंकशील."],
    ),
    Case('"ज्ञान हेच खरे धन" असे आमचे आजोबा म्हणतात.', ['"ज्ञान हेच खरे धन" असे आमचे आजोबा म्हणतात.']),
]

# Language code → its cases; the codes outside ragchunk's table (zh, ja, hi, mr) use the rules
# every language shares (their full stops), under ``language="auto"``.
LANGUAGE_CASES: dict[str, list[Case]] = {
    "de": GERMAN,
    "fr": FRENCH,
    "es": SPANISH,
    "it": ITALIAN,
    "pt": PORTUGUESE,
    "nl": DUTCH,
    "zh": CHINESE,
    "ja": JAPANESE,
    "hi": HINDI,
    "mr": MARATHI,
}
