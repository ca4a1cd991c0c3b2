"""The language a note's words are stemmed in: its frontmatter `lang`/`language` (an ISO code or a
name), else a language folder in its path (`fr/`, `pages.de/`, `locales/es/`, `i18n/pt-BR/`) unless
its text clearly says otherwise, else the cheap detector (`detect`: stop-word counts over the first
few KB), else English. Only the Snowball languages PyStemmer ships are named; the empty string is
English (the default).
"""

from __future__ import annotations

import re
import unicodedata
from collections import defaultdict
from typing import Any, NamedTuple

# ISO 639-1 codes of the Snowball languages (names are accepted as well)
CODES = {
    "ar": "arabic",
    "hy": "armenian",
    "eu": "basque",
    "ca": "catalan",
    "cs": "czech",
    "da": "danish",
    "nl": "dutch",
    "en": "english",
    "eo": "esperanto",
    "et": "estonian",
    "fi": "finnish",
    "fr": "french",
    "de": "german",
    "el": "greek",
    "hi": "hindi",
    "hu": "hungarian",
    "id": "indonesian",
    "ga": "irish",
    "it": "italian",
    "lt": "lithuanian",
    "ne": "nepali",
    "no": "norwegian",
    "nb": "norwegian",
    "nn": "norwegian",
    "fa": "persian",
    "pl": "polish",
    "pt": "portuguese",
    "ro": "romanian",
    "ru": "russian",
    "sr": "serbian",
    "es": "spanish",
    "sv": "swedish",
    "ta": "tamil",
    "tr": "turkish",
    "yi": "yiddish",
}
NAMES = frozenset(CODES.values())
# languages written in the Latin script: their stemmer applies to a note's Latin-script words
LATIN = frozenset(
    [
        "basque",
        "catalan",
        "czech",
        "danish",
        "dutch",
        "english",
        "esperanto",
        "estonian",
        "finnish",
        "french",
        "german",
        "hungarian",
        "indonesian",
        "irish",
        "italian",
        "lithuanian",
        "norwegian",
        "polish",
        "portuguese",
        "romanian",
        "spanish",
        "swedish",
        "turkish",
    ]
)

# each language's most frequent function words: the detector counts them
STOPWORDS: dict[str, frozenset[str]] = {
    lang: frozenset(words.split())
    for lang, words in {
        "english": "the and of to is in that it with for as are this be on by from or an which"
        " you can not was have",
        "french": "le la les des et est un une du dans en pour que qui sur au aux avec ce cette par"
        " pas sont ou il vous qu de plus",
        "german": "der die das und ist ein eine einen den dem des mit für von zu auf nicht im sich"
        " auch oder wird werden einer aus bei nach",
        "spanish": "el la los las de del y que en un una es por con para se al lo como su sus o más"
        " este esta",
        "italian": "il lo la gli le di del della dei che e è un una per con non da in su sono al"
        " alla nel come questo",
        "portuguese": "o a os as de do da dos das e que em um uma para com não no na por se é ao"
        " mais seu sua",
        "dutch": "de het een en van is dat niet te op voor met zijn er die in aan om bij ook naar"
        " wordt worden deze dit uit",
        "swedish": "och att det som en är på för med av till den har inte om ett de kan eller"
        " från vid så alla",
        "danish": "og at det som en er på for med af til den har ikke om et de kan eller fra ved så"
        " alle efter ud kun",
        "norwegian": "og at det som en er på for med av til den har ikke om et de kan eller fra"
        " ved så alle etter ut bare",
        "finnish": "ja on ei se että tai kun mutta joka ovat ole sen niin myös vain kanssa jos tämä"
        " voi kuin",
        "hungarian": "a az és egy hogy nem is van meg de csak ha vagy mint már ez el ki fel be"
        " szerint után",
        "romanian": "și în de la cu un o care nu pe este din sau pentru ca se mai sunt al ale unui"
        " unei acest această",
        "turkish": "ve bir bu da de için ile ne ama gibi çok daha olarak veya olan her sonra kadar"
        " ise mi",
        "indonesian": "dan yang di ke dari untuk dengan ini itu tidak akan pada atau dalam adalah"
        " oleh sebagai juga bisa sebuah",
        "polish": "i w z na się nie do to że jest o od po jak dla lub przez ale za czy tak ten są"
        " oraz ze we",
        "czech": "a se na je v z že to do o k jako pro s ve ze jsou by nebo ale tak jak podle který"
        " která",
        "catalan": "el la els les de del i que en un una és per amb als al no es com més aquest"
        " aquesta seu o pel",
    }.items()
}
_LISTED_BY: dict[str, tuple[str, ...]] = {}
for _lang, _words in STOPWORDS.items():
    for _w in _words:
        _LISTED_BY[_w] = (*_LISTED_BY.get(_w, ()), _lang)
DETECT_CHARS = 4000
OVERRULE_HITS = (
    5  # the detector overrules a folder's language only with this much evidence, and twice as much
)
_WORDS = re.compile(r"[^\W\d_]{2,}")  # one letter alone is as often a flag or a variable
_CODE = re.compile(r"```.*?(?:```|\Z)|`[^`\n]*`|\{\{.*?\}\}", re.S)


def language_of(value: Any) -> str | None:
    """The Snowball language an ISO code (`fr`, `pt-BR`, `pt_BR`) or a name (`French`) stands
    for."""
    if not isinstance(value, str):
        return None
    low = value.strip().lower()
    if low in NAMES:
        return low
    return CODES.get(re.split(r"[-_]", low, maxsplit=1)[0])


def folder_language(path: str) -> str | None:
    """The language a folder of `path` names, the innermost first: `fr/`, `pages.de/`, `pt-BR/`,
    `locales/es/`. A folder counts only if it is a language code alone, optionally with a region, or
    the suffix after a dot."""
    for part in reversed(path.split("/")[:-1]):
        code = part.lower().rsplit(".", 1)[-1]
        if re.fullmatch(r"[a-z]{2}(?:[-_][a-z]{2,4})?", code) and (lang := language_of(code)):
            return lang
    return None


def stopword_counts(text: str) -> dict[str, float]:
    """Each language's function words in the prose (code left out) of the first DETECT_CHARS of
    `text`, a word listed by n languages counting 1/n for each (`de` says little, `und` says
    German)."""
    return _evidence(text)[0]


def _evidence(text: str) -> tuple[dict[str, float], dict[str, set[str]]]:
    """`stopword_counts`, and which distinct function words each language's count holds."""
    prose = _CODE.sub(" ", text[:DETECT_CHARS])
    counts = dict.fromkeys(STOPWORDS, 0.0)
    words: dict[str, set[str]] = defaultdict(set)  # only the languages a word names
    listed_by = _LISTED_BY.get
    for word in _WORDS.findall(unicodedata.normalize("NFC", prose.lower())):
        langs = listed_by(word)
        if langs:
            for lang in langs:
                counts[lang] += 1 / len(langs)
                words[lang].add(word)
    return counts, words


class Detection(NamedTuple):
    """What the detector read: the language it names (None below its confidence), the weight of that
    language's function words, how many distinct ones, and the runner-up's weight."""

    language: str | None
    score: float
    words: int
    runner_up: float


def detection(text: str, min_score: float = 2.0, min_words: int = 2) -> Detection:
    """The language whose function words weigh most in `text`, named only when they weigh at least
    `min_score`, more than any other language's, and are at least `min_words` distinct words (one
    word repeated is one shared with too many languages: Bosnian's `za` is Polish's too)."""
    return _named(*_evidence(text), min_score, min_words)


def _named(
    counts: dict[str, float], words: dict[str, set[str]], min_score: float = 2.0, min_words: int = 2
) -> Detection:
    ranked = sorted(((n, lang) for lang, n in counts.items()), reverse=True)
    (best, lang), (second, _) = ranked[0], ranked[1]
    sure = best >= min_score and best > second and len(words[lang]) >= min_words
    return Detection(lang if sure else None, best, len(words[lang]), second)


def detect(text: str, min_score: float = 2.0, min_words: int = 2) -> str | None:
    """The language `detection` names in `text`, or None."""
    return detection(text, min_score, min_words).language


def note_language(frontmatter: dict[str, Any], path: str, body: str) -> str:
    """The language to stem a note's words in, "" for English (see the module docstring)."""
    lang = language_of(frontmatter.get("lang", frontmatter.get("language")))
    if lang is None:
        lang = folder_language(path)
        counts, words = _evidence(body)
        said = _named(counts, words).language
        if (
            lang is None
            or (  # a folder named `it/` or `id/` of English notes: the text overrules it
                said is not None
                and lang in STOPWORDS
                and counts[said] >= OVERRULE_HITS
                and counts[said] >= 2 * counts[lang]
            )
        ):
            lang = said
    return "" if lang in (None, "english") else lang
