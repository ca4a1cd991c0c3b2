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
    lost their quotes, an empty list key became `''`, and the blank line after the frontmatter
    went."""
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
        "---\nstatus: \"accepted\"\ndate: 2026-07-20\nauthors:\ntitle: 'It''s: y'\n---\n\n# It's: y"
    )
    front = yaml.safe_load(text.split("---")[1])
    assert front == {"status": "accepted", "date": WHEN, "authors": None, "title": "It's: y"}
