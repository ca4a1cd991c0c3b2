"""Translations and copied passages fold into one hit; a `lang` filter keeps one language (#41)."""

import json
from pathlib import Path

import pytest

from k0maru.errors import K0maruError
from k0maru.search.filters import Filters
from k0maru.search.folding import fold_passages, translation_key, translation_keys
from k0maru.wiring.vault import Vault
from tests.helpers import K0, write

STATUS = {
    "en": "# ADR status\n\nAn ADR can have the status proposed, accepted, rejected, deprecated or "
    "superseded. Record the status at the top of the decision record.\n",
    "es": "# Estado de un ADR\n\nUn ADR puede tener el estado propuesto, aceptado, rechazado, "
    "obsoleto o reemplazado. Anota el estado al principio del registro de la decisión.\n",
    "ko": "# ADR 상태\n\nADR은 제안됨, 승인됨, 거부됨, 폐기됨, 대체됨 상태를 가질 수 있습니다. ADR status.\n",
}


@pytest.fixture
def guide(vault: Path) -> Path:
    for code, text in STATUS.items():
        write(vault, f"locales/{code}/status/index.md", text)
    write(
        vault, "locales/en/naming/index.md", "# File names\n\nName each ADR file by its number.\n"
    )
    return vault


def test_translations_fold_into_the_hit_in_the_querys_language(guide: Path) -> None:
    with Vault.open(guide) as v:
        v.index()
        english = v.recall.search("what status values can an ADR have", limit=5).hits
        spanish = v.recall.search("qué estado puede tener un ADR", limit=5).hits
    assert english[0].path == "locales/en/status/index.md"
    assert sorted(english[0].also_in) == ["es", "ko"]
    assert not any(h.path.startswith(("locales/es/", "locales/ko/")) for h in english)
    assert spanish[0].path == "locales/es/status/index.md"
    assert sorted(spanish[0].also_in) == ["en", "ko"]


def test_the_lang_filter_keeps_one_language(guide: Path) -> None:
    with Vault.open(guide) as v:
        v.index()
        hits = v.recall.search("ADR status", limit=5, filters=Filters(lang="es")).hits
        with pytest.raises(K0maruError, match="unknown language 'xx'"):
            v.recall.search("ADR status", filters=Filters(lang="xx"))
    assert [h.path for h in hits] == ["locales/es/status/index.md"] and hits[0].also_in == []


def test_a_passage_copied_word_for_word_is_one_hit(vault: Path) -> None:
    """A README that embeds a page put the same passage at #1 and #2."""
    passage = (
        "To rotate the signing key, run keytool rotate on the vault host, then restart the "
        "token service so it loads the new key before the old one expires."
    )
    write(vault, "docs/keys.md", f"# Signing keys\n\n{passage}\n")
    write(
        vault,
        "README.md",
        "# Project\n\nA token service.\n\n## Install\n\nRun the installer.\n\n"
        f"## Signing keys\n\n{passage}\n\n## Licence\n\nMIT.\n",
    )
    with Vault.open(vault) as v:
        v.index()
        hits = v.recall.search("rotate the signing key", limit=5).hits
    assert len([h for h in hits if h.path in ("docs/keys.md", "README.md")]) == 1
    first = hits[0]
    assert first.path in ("docs/keys.md", "README.md")
    assert first.also_at == [{"docs/keys.md": "README.md", "README.md": "docs/keys.md"}[first.path]]


def test_what_counts_as_a_translation_or_a_copied_passage() -> None:
    assert translation_key("locales/ko/adr/index.md", "{}") == ("locales/*/adr/index.md", "ko")
    assert translation_key("docs/pt-BR/x.md", "") == ("docs/*/x.md", "pt-br")
    assert translation_key("src/go/x.md", "{}") is None  # `go` is no language code
    assert translation_key("es/Guía.md", '{"permalink": "guide"}') == ("\0key\0guide", "es")
    assert translation_key("docs/install.fr.md", "{}") == ("docs/install\0name", "fr")
    assert (
        translation_key("docs/v1.2.md", "{}") is None and translation_key("a.go/x.md", "") is None
    )
    docusaurus = "site/i18n/pt-BR/docusaurus-plugin-content-docs/current/guides/intro.md"
    assert translation_key(docusaurus, "{}") == ("site/docs/guides/intro\0name", "pt-br")
    keys = translation_keys(
        {1: ("docs/install.md", "{}", ""), 2: ("docs/install.fr.md", "{}", "french")}
        | {3: ("docs/other.md", "{}", ""), 4: ("guide/install.md", "{}", "")}
        | {5: ("site/docs/guides/intro.md", "{}", "german"), 6: (docusaurus, "{}", "portuguese")}
        # Dendron's dotted hierarchy: `config.ga.md` is an English child of `config.md`
        | {7: ("dendron.config.ga.md", "", ""), 8: ("dendron.config.md", "", "")}
    )
    assert keys == {1: ("docs/install\0name", "en"), 2: ("docs/install\0name", "fr")} | {
        3: None,
        4: None,
        5: ("site/docs/guides/intro\0name", "de"),
        6: ("site/docs/guides/intro\0name", "pt-br"),
        7: None,
        8: None,
    }
    kept, also = fold_passages([1, 2, 3], {1: "short", 2: "short"}, {1: "a", 2: "b", 3: "c"}, 5)
    assert kept == [1, 2, 3] and also == {}  # a short line is no evidence of a copy


def test_translations_named_by_a_language_code_fold_into_their_original(vault: Path) -> None:
    """MkDocs' i18n and Hugo keep a translation beside its original, the code in its name
    (`install.fr.md`): it was a hit of its own, above the original for an English question."""
    write(vault, "docs/install.md", "# Install\n\nInstall the tool with pip, then run the setup.\n")
    write(
        vault,
        "docs/install.fr.md",
        "# Installer\n\nInstallez l'outil avec pip, puis lancez la configuration de la machine. Le "
        "logiciel est alors prêt pour les notes et les dossiers du coffre. Install pip.\n",
    )
    write(vault, "docs/usage.md", "# Usage\n\nRun the tool on a folder of notes.\n")
    with Vault.open(vault) as v:
        v.index()
        english = v.recall.search("how do I install the tool with pip", limit=5).hits
        french = v.recall.search("comment installer l'outil avec pip sur la machine", limit=5).hits
        only = v.recall.search("install pip", limit=5, filters=Filters(lang="fr")).hits
    assert [(h.path, h.also_in) for h in english][:1] == [("docs/install.md", ["fr"])]
    assert "docs/install.fr.md" not in [h.path for h in english]
    assert [(h.path, h.also_in) for h in french][:1] == [("docs/install.fr.md", ["en"])]
    assert [h.path for h in only] == ["docs/install.fr.md"]


@pytest.mark.slow
def test_lang_in_the_cli_filters_and_refuses_an_unknown_code(guide: Path, k0: K0) -> None:
    ok = k0("search", "ADR status", "--lang", "es", "--json", "--vault", str(guide))
    assert ok.returncode == 0, ok.stderr
    assert [h["path"] for h in json.loads(ok.stdout)["hits"]] == ["locales/es/status/index.md"]
    bad = k0("search", "ADR status", "--lang", "xx", "--vault", str(guide))
    assert bad.returncode != 0 and bad.stderr.count("\n") == 1 and "unknown language" in bad.stderr


def test_lang_in_the_console_and_mcp(guide: Path) -> None:
    from k0maru.console.app import create_app
    from k0maru.mcp.tools import recall_memory
    from k0maru.service.operations import Service

    with Service.open(str(guide)) as service:
        api = create_app(service).test_client()
        hits = api.get("/api/search?q=ADR+status&lang=es").get_json()["hits"]
        assert [h["path"] for h in hits] == ["locales/es/status/index.md"]
        page = api.get("/search?q=ADR+status&lang=es").get_data(as_text=True)
        assert 'name="lang" value="es"' in page
        result = recall_memory(service, "ADR status", lang="ko")
    assert [h.path for h in result.hits] == ["locales/ko/status/index.md"]


def test_notes_of_one_folder_sharing_a_boilerplate_passage_stay_apart() -> None:
    """Lint rules (or ADRs) of one folder share a template's section: each is its own answer."""
    shared = "## Options\n\nThis rule reads lint.flake8-unused-arguments.ignore-variadic-names."
    passages = {1: shared, 2: shared, 3: shared}
    paths = {1: "rules/ARG002.md", 2: "rules/ARG003.md", 3: "README.md"}
    kept, also = fold_passages([1, 2, 3], passages, paths, 5)
    assert kept == [1, 2] and also == {1: ["README.md"]}
