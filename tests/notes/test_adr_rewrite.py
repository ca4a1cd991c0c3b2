"""An amend or a rebase rewrites the ADR k0maru wrote for a commit in place (#58, y1): its number,
file and the record it supersedes kept; and a record a later one superseded stays superseded
(else a reworded old commit would put a replaced decision back in force)."""

from __future__ import annotations

from pathlib import Path

from k0maru.notes.adr import _rewrite
from k0maru.notes.flush import FlushEngine
from k0maru.notes.supersede import is_superseded, superseded_by
from tests.helpers import write


def test_a_rewritten_adr_keeps_both_of_its_supersede_links(vault: Path) -> None:
    write(
        vault,
        "docs/adr/0001-use-adrs.md",
        "# 1. Use ADRs\n\nDate: 2024-01-01\n\n## Status\n\nAccepted\n",
    )
    engine = FlushEngine(vault)
    first = engine.flush("adr", "Pool size", "## Decision\n\nTen.\n", extra={"commit": "a" * 40})
    later = engine.flush("adr", "Pool size", "## Decision\n\nTwenty.\n")  # supersedes it
    note = vault / first.path
    assert is_superseded(note.read_text()) and later.path != first.path
    extra = {"status": "accepted", "commit": "b" * 40}
    _rewrite(engine, note, "Pool size for readers", "## Decision\n\nTen readers.\n", extra)
    text = note.read_text()
    assert "Ten readers." in text and "b" * 40 in text
    assert is_superseded(text) and Path(later.path).stem in superseded_by(text)
