"""Defects a newcomer found in a fresh clone (#58): a title said with the records' numbered lead
is the same title, a number the title gives that a record holds is never reused, a vault with no
folder for the kind is told once what to do."""

from datetime import date
from pathlib import Path

from k0maru.notes.flush import FlushEngine, bare_title
from k0maru.notes.supersede import is_superseded
from tests.helpers import write

WHEN = date(2026, 12, 7)
RECORD = (
    '---\ntitle: "ADR {n:04d}: {t}"\nstatus: accepted\ndate: 2026-04-1{n}\n---\n'
    "# ADR {n:04d}: {t}\n\n## Context\n\nWhy {n}.\n\n## Decision\n\nWhat {n}.\n\n"
    "## Consequences\n\nThen {n}.\n"
)


def adr_vault(root: Path) -> None:
    write(root, "docs/adr/0001-locks.md", RECORD.format(n=1, t="Use advisory locks"))
    write(root, "docs/adr/0002-camt-only.md", RECORD.format(n=2, t="Accept only CAMT.053"))


def test_a_numbered_lead_is_not_part_of_the_title() -> None:
    assert bare_title("ADR 0002: Accept  only CAMT") == bare_title("accept only camt")
    assert bare_title("RFC-12 - Accept only CAMT") == "accept only camt"
    assert bare_title("KEP-5905: Mixins") == "mixins"
    assert bare_title("2026 roadmap") == "2026 roadmap"


def test_the_same_title_without_its_lead_supersedes_the_record(vault: Path) -> None:
    adr_vault(vault)
    note = FlushEngine(vault).flush("adr", "Accept only CAMT.053", "Accept CSV too.", when=WHEN)
    assert note.path == "docs/adr/0003-accept-only-camt-053.md"
    assert note.supersedes == "docs/adr/0002-camt-only.md"
    assert is_superseded((vault / note.supersedes).read_text())
    assert "Supersedes [[0002-camt-only]]" in (vault / note.path).read_text()


def test_a_taken_number_is_never_reused(vault: Path) -> None:
    adr_vault(vault)
    note = FlushEngine(vault).flush("adr", "ADR 0002: Pay in EUR only", "Only EUR.", when=WHEN)
    assert note.path == "docs/adr/0003-pay-in-eur-only.md"
    assert note.supersedes == ""  # 0002 holds another title: untouched
    assert not is_superseded((vault / "docs/adr/0002-camt-only.md").read_text())
    assert any("number 2 is taken by docs/adr/0002-camt-only.md" in w for w in note.warnings)


def test_a_taken_number_of_the_same_title_is_superseded(vault: Path) -> None:
    adr_vault(vault)
    engine = FlushEngine(vault)
    note = engine.flush("adr", "ADR 0002: Accept only CAMT.053", "Accept CSV too.", when=WHEN)
    assert sorted(p.name for p in (vault / "docs/adr").iterdir())[1:] == [
        "0002-camt-only.md",
        "0003-accept-only-camt-053.md",
    ]
    assert note.supersedes == "docs/adr/0002-camt-only.md"
    assert any("superseding it" in w for w in note.warnings)
    again = engine.flush("adr", "ADR 0002: Accept only CAMT.053", "Accept MT940.", when=WHEN)
    assert again.path == "docs/adr/0004-accept-only-camt-053.md"
    assert again.supersedes == note.path  # the standing record, not the one already replaced


def test_a_free_given_number_is_taken(vault: Path) -> None:
    adr_vault(vault)
    note = FlushEngine(vault).flush("adr", "ADR 0009: Pay in EUR only", "Only EUR.", when=WHEN)
    assert note.path == "docs/adr/0009-pay-in-eur-only.md" and note.warnings == []


def test_no_folder_for_the_kind_is_said_once_with_what_to_do(vault: Path) -> None:
    write(vault, "notes/glossary.md", "# Glossary\n\nTerms.\n")
    note = FlushEngine(vault).flush("decision", "Pay in EUR", "Only EUR.", when=WHEN)
    assert note.path.startswith("decisions/")
    assert note.warnings == [
        "no decision folder found in the vault, so decisions/ was created: pass `--folder "
        "FOLDER` to write into another, or add a line `- decision: FOLDER` to AGENTS.md"
    ]


def test_folder_names_where_a_kind_with_no_folder_goes(vault: Path) -> None:
    write(vault, "notes/glossary.md", "# Glossary\n\nTerms.\n")
    extra = {"folder": "notes/"}
    note = FlushEngine(vault).flush("decision", "Pay in EUR", "Only EUR.", extra=extra, when=WHEN)
    assert note.path == "notes/pay-in-eur.md" and note.warnings == []


def test_labelled_paragraphs_go_under_the_family_sections(vault: Path) -> None:
    adr_vault(vault)
    body = "Context: locks were released early.\nTwice.\n\nDecision: Use session mode.\n\nSee X."
    note = FlushEngine(vault).flush("adr", "Use session mode", body, when=WHEN)
    text = (vault / note.path).read_text()
    assert text.endswith(
        "## Context\n\nlocks were released early.\nTwice.\n\n"
        "## Decision\n\nUse session mode.\n\nSee X.\n"
    )


def test_labels_the_family_has_no_section_for_are_left_as_written(vault: Path) -> None:
    adr_vault(vault)
    body = "Note: keep it.\n\nDecision: Use session mode."
    note = FlushEngine(vault).flush("adr", "Use session mode", body, when=WHEN)
    text = (vault / note.path).read_text()
    assert "Note: keep it.\n\n## Decision\n\nUse session mode.\n" in text


def test_a_body_with_sections_keeps_its_labels(vault: Path) -> None:
    adr_vault(vault)
    body = "## Decision\n\nContext: not a label here.\n"
    note = FlushEngine(vault).flush("adr", "Use session mode", body, when=WHEN)
    assert "## Decision\n\nContext: not a label here.\n" in (vault / note.path).read_text()


def test_the_frontmatter_title_keeps_the_records_numbered_lead(vault: Path) -> None:
    adr_vault(vault)  # `title: "ADR 0001: ..."` in `0001-locks.md` headed `# ADR 0001: ...`
    note = FlushEngine(vault).flush("adr", "Use session mode", "Use it.", when=WHEN)
    assert (vault / note.path).read_text().startswith('---\ntitle: "ADR 0003: Use session mode"\n')
