"""The language a note's words are stemmed in: frontmatter, then a language folder (unless the text
clearly says otherwise), then the stop-word detector, else English."""

import pytest

from k0maru.index.languages import (
    detect,
    detection,
    folder_language,
    language_of,
    note_language,
)
from k0maru.index.markdown import parse_note

GERMAN = "Erstellt ein Archiv aus den Dateien und schreibt es in eine Datei, die mit der Option gewählt wird."
FRENCH = (
    "Crée une archive à partir des fichiers et l'écrit dans le fichier qui est choisi par l'option."
)
ENGLISH = "Create an archive from the files and write it to the file that is chosen by the option."


@pytest.mark.parametrize(
    ("value", "lang"),
    [("fr", "french"), ("pt-BR", "portuguese"), ("pt_BR", "portuguese"), ("German", "german"),
     ("xx", None), (3, None)],
)  # fmt: skip
def test_codes_and_names(value: object, lang: str | None) -> None:
    assert language_of(value) == lang


@pytest.mark.parametrize(
    ("path", "lang"),
    [("fr/note.md", "french"), ("pages.de/common/tar.md", "german"),
     ("docs/locales/es/intro.md", "spanish"), ("i18n/pt-BR/guide.md", "portuguese"),
     ("notes/a.md", None), ("fr.md", None), ("frontend/x.md", None), ("zz/x.md", None)],
)  # fmt: skip
def test_language_folders(path: str, lang: str | None) -> None:
    assert folder_language(path) == lang


def test_the_detector_reads_function_words() -> None:
    assert (
        detect(GERMAN) == "german" and detect(FRENCH) == "french" and detect(ENGLISH) == "english"
    )
    assert detect("tar cf target.tar file1 file2") is None  # no prose: no guess


def test_frontmatter_then_folder_then_text() -> None:
    assert note_language({"lang": "de"}, "fr/a.md", FRENCH) == "german"
    assert note_language({"language": "French"}, "a.md", ENGLISH) == "french"
    assert note_language({}, "de/a.md", "tar cf") == "german"
    assert note_language({}, "a.md", GERMAN) == "german"
    assert note_language({}, "a.md", "tar cf") == ""  # English, the default
    # a folder `it/` of English notes: the text overrules the folder
    assert note_language({}, "it/runbook.md", f"{ENGLISH} {ENGLISH}") == ""
    assert parse_note("de/x.md", "---\nlang: fr\n---\n# X\n\ntext\n").lang == "french"


def test_one_function_word_repeated_names_no_language() -> None:
    """tldr's Bosnian pages (a language without a stemmer here) repeat `za`, which Polish lists too:
    one word, however often, is too little to name a language; queries, being short, need one."""
    bosnian = (
        "Prikaži dokumentaciju za originalnu komandu. Kreiraj arhivu za datoteke. "
        "Izlistaj sadržaj za arhivu. Ekstraktuj arhivu za direktorij."
    )
    found = detection(bosnian)
    assert found.language is None and found.words == 1 and found.score >= 2
    assert note_language({}, "notes/x.md", bosnian) == ""
    polish = "To jest archiwum dla plików lub katalogów, które nie jest skompresowane do dysku."
    assert detect(polish) == "polish" and detection(polish).words >= 2
    assert detect("czy to jest błąd", min_score=1.0, min_words=1) == "polish"
