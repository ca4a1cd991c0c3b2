"""A vault's first ADR in the public form its body follows, and frontmatter values written as the
records write them (#39)."""

from datetime import date
from pathlib import Path

import yaml

from k0maru.notes.flush import FlushEngine
from tests.helpers import write

WHEN = date(2026, 7, 20)
NYGARD_BODY = (
    "## Context\n\nWe keep decisions.\n\n## Decision\n\nUse ADRs.\n\n## Consequences\n\nOK.\n"
)
MADR_BODY = (
    "## Context and Problem Statement\n\nHow to keep decisions?\n\n## Considered Options\n\n"
    "* MADR\n* Nygard\n\n## Decision Outcome\n\nChosen option: MADR.\n"
)


def test_a_first_adr_in_nygards_shape_is_written_in_nygards_form(vault: Path) -> None:
    """An empty repository got k0maru's frontmatter and `# Title` whatever the body; a body with
    Nygard's Context and Decision sections now reads as adr-tools writes it."""
    write(vault, "docs/adr/README.md", "# Decisions\n\nOne file a decision.\n")  # no record
    note = FlushEngine(vault).flush("adr", "Record architecture decisions", NYGARD_BODY, when=WHEN)
    assert note.path == "docs/adr/0001-record-architecture-decisions.md"
    text = (vault / note.path).read_text()
    assert text.startswith(
        "# 1. Record architecture decisions\n\nDate: 2026-07-20\n\n## Status\n\nAccepted\n\n"
        "## Context\n\nWe keep decisions.\n\n## Decision\n"
    )
    second = FlushEngine(vault).flush("adr", "Use shell", NYGARD_BODY, when=WHEN)
    assert (vault / second.path).read_text().startswith("# 2. Use shell\n\nDate: 2026-07-20\n")


def test_a_first_adr_in_madrs_shape_goes_where_madr_keeps_it(vault: Path) -> None:
    note = FlushEngine(vault).flush("adr", "Use MADR", MADR_BODY, when=WHEN)
    assert note.path == "docs/decisions/0001-use-madr.md"
    text = (vault / note.path).read_text()
    assert text.startswith('---\nstatus: "accepted"\ndate: 2026-07-20\n---\n\n# Use MADR\n\n')
    assert "## Considered Options" in text


def test_a_first_adr_in_no_public_shape_keeps_k0marus_form(vault: Path) -> None:
    note = FlushEngine(vault).flush("adr", "Use X", "We chose X.\n", when=WHEN)
    front = yaml.safe_load((vault / note.path).read_text().split("---")[1])
    assert front["kind"] == "adr" and front["title"] == "Use X"


def test_a_folder_of_k0marus_own_adrs_keeps_their_form(vault: Path) -> None:
    """Only a first record takes a public form: k0maru's own earlier records are the form."""
    first = FlushEngine(vault).flush("adr", "Use X", "We chose X.\n", when=WHEN)
    second = FlushEngine(vault).flush("adr", "Use Y", NYGARD_BODY, when=WHEN)
    assert second.path == "docs/adr/0002-use-y.md" and first.path == "docs/adr/0001-use-x.md"
    assert (vault / second.path).read_text().startswith("---\ntitle: Use Y\n")


def test_frontmatter_values_are_written_as_the_records_write_them(vault: Path) -> None:
    """Dates were quoted (`date: '2026-07-20'`) where the records write them bare, quoted statuses
    lost their quotes, an empty list key became `''` (now: a list each record fills is left out),
    and the blank line after the frontmatter went."""
    for n in (1, 2, 3):
        write(
            vault,
            f"docs/decisions/000{n}-d{n}.md",
            f'---\nstatus: "accepted"\ndate: 2024-01-1{n}\nauthors:\n  - "@a{n}"\n'
            f"title: 'D{n}: x'\n---\n\n# D{n}\n\n## Context\n\nc\n",
        )
    note = FlushEngine(vault).flush("adr", "It's: y", "## Context\n\nc\n", when=WHEN)
    text = (vault / note.path).read_text()
    assert text.startswith(
        "---\nstatus: \"accepted\"\ndate: 2026-07-20\ntitle: 'It''s: y'\n---\n\n# It's: y"
    )  # `authors:`, each record's own list, is left out: never written empty
    front = yaml.safe_load(text.split("---")[1])
    assert front == {"status": "accepted", "date": WHEN, "title": "It's: y"}


def til_vault(root: Path) -> None:
    notes = {
        "ruby": ["block_arguments", "hash_default_values", "frozen_string_literals"],
        "unix": ["zip-a-folder", "find-large-files", "grep-recursively"],
        "databases": ["postgres-partial-indexes", "sqlite-vacuum", "transaction-isolation"],
    }
    for folder, names in notes.items():
        for name in names:
            write(root, f"{folder}/{name}.md", f"# {name.replace('-', ' ').title()}\n\nText.\n")
    write(root, "README.md", "# TIL\n\nThings I learnt.\n")


def test_a_card_in_a_vault_filed_by_topic_goes_to_its_topic(vault: Path) -> None:
    """A TIL repository files notes by topic (`unix/`, `ruby/`) and has no card folder: a card went
    to a new `cards/` folder in k0maru's frontmatter, where its people file it under its topic."""
    til_vault(vault)
    engine = FlushEngine(vault)
    zip_card = engine.flush("card", "Check what is inside a zip file", "Run `unzip -l x.zip`.\n")
    assert zip_card.path == "unix/check-what-is-inside-a-zip-file.md"
    assert any(
        w.startswith("filed by topic: shares file, zip with unix/") for w in zip_card.warnings
    )
    assert (vault / zip_card.path).read_text().startswith("# Check what is inside a zip file\n")
    ruby = engine.flush("card", "Default values in a Ruby hash", "Hash.new(0) counts.\n")
    assert ruby.path == "ruby/default_values_in_a_ruby_hash.md"  # the folder's snake_case names


def test_a_card_no_topic_claims_goes_where_cards_go(vault: Path) -> None:
    til_vault(vault)
    note = FlushEngine(vault).flush("card", "Lunch menu", "Soup on Fridays.\n")
    assert note.path == "cards/lunch-menu.md"
    write(vault, "cards/other.md", "# Other\n\nText.\n")
    assert FlushEngine(vault).conventions.topics == {}  # a card folder now: no filing by topic


def test_conventions_say_how_a_first_adr_and_a_card_will_be_written(vault: Path) -> None:
    """`conventions --explain` said k0maru's own form and `cards/` where a flush would write the
    public form or file by topic."""
    til_vault(vault)
    rules = FlushEngine(vault).conventions.rules
    assert "Nygard's or MADR's sections give theirs" in dict(rules["adr"].form())["form"]
    assert (
        rules["card"]
        .evidence[-1]
        .startswith("notes filed by topic in 3 folders (databases, ruby, unix)")
    )
    FlushEngine(vault).flush("adr", "Use X", "We chose X.\n", when=WHEN)  # k0maru's form
    form = dict(FlushEngine(vault).conventions.rules["adr"].form())["form"]
    assert form.startswith("k0maru's own")


def test_a_first_adr_keeps_the_name_a_rules_file_gives(vault: Path) -> None:
    """The public form decides the note's shape, not its name: a rules file beside the (empty)
    records still names it, and an unnumbered name gets no `# N.` heading."""
    write(vault, "docs/adr/AGENTS.md", "Name new records `YYYY-MM-DD-title.md`.\n")
    note = FlushEngine(vault).flush("adr", "Use X", NYGARD_BODY, when=WHEN)
    assert note.path == "docs/adr/2026-07-20-use-x.md"
    assert (vault / note.path).read_text().startswith("# Use X\n\nDate: 2026-07-20\n\n## Status\n")
