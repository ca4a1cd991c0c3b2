"""The loadout's focus and decisions (issue #57): a short focus word (`ty`, `ui`) counts only as a
word, a longer one at the start of a word; an ADR folder's index, README and template are no
decisions."""

from __future__ import annotations

from k0maru.notes import loadout_sources as src
from k0maru.notes.loadout_plan import focus_of, focus_terms


def test_a_short_focus_word_counts_only_as_a_word() -> None:
    terms = focus_terms("I'm adding a ty test")
    assert terms == ["ty", "test"]
    assert focus_of(terms, "crates/ty/CONTRIBUTING.md#Testing", "Run the tests.") == 1.0
    assert focus_of(terms, "README.md#Types", "Run the type checker.") == 0.0  # "type" is not ty
    assert focus_of(terms, "README.md", "flake8-pytest-style") == 0.0  # nor "pytest" a test


def test_an_adr_folders_index_and_template_are_not_decisions() -> None:
    assert src.role_of("docs/adr/20240605-use-results-pattern.md")[0] == src.DECISION
    for path in ("docs/adr/index.md", "docs/adr/README.md", "docs/adr/template.md"):
        assert src.role_of(path) != (src.DECISION, 1.0), path
    assert src.role_of("decisions/adr-template.md") != (src.DECISION, 1.0)
