"""The loadout's cost does not grow with the vault (issue #61): it lists the notes once and reads
the bodies of `max_read` of them at most, the best placed (a guide before a plain note), so a
vault ten times wider costs the same queries."""

from __future__ import annotations

from pathlib import Path

from k0maru.notes.loadout import build_loadout
from k0maru.wiring.vault import Vault

GUIDE = "# Contributing\n\n## Testing\n\nYou must run `make test` before you push.\n"


def _queries(root: Path, notes: int, max_read: int) -> tuple[int, str]:
    """The SQL statements one loadout runs over a vault of `notes` plain notes and a guide, and
    its answer's text."""
    (root / "wide").mkdir(parents=True)
    for n in range(notes):
        (root / "wide" / f"n{n}.md").write_text(f"# n{n}\n\nYou should run `tool {n}` first.\n")
    (root / "CONTRIBUTING.md").write_text(GUIDE)
    vault = Vault.open(root, embed=False)
    vault.index()
    statements: list[str] = []
    vault.store.conn.set_trace_callback(statements.append)
    try:
        sections, _, _ = build_loadout(vault, 4000, max_read=max_read)
    finally:
        vault.store.conn.set_trace_callback(None)
        vault.close()
    return len(statements), "\n".join(s["text"] for s in sections)


def test_a_wider_vault_costs_the_same_queries(tmp_path: Path) -> None:
    narrow, narrow_text = _queries(tmp_path / "narrow", 60, max_read=20)
    wide, wide_text = _queries(tmp_path / "wide", 400, max_read=20)
    assert wide == narrow <= 20 + 5  # one listing, a body for each note read, a few others
    for text in (narrow_text, wide_text):
        assert "make test" in text  # the guide is read first, whatever the plain notes
        assert "past the 20 best-placed notes read" in text
