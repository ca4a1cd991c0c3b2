"""A record under an archive folder (archive, attic, deprecated, obsolete, .trash) is no decision
in force: the loadout leaves it out of its decisions and counts it in its left-out line (a newcomer
saw `design/archive/workflow-state-tracking.md` listed as in force)."""

from __future__ import annotations

from pathlib import Path

from k0maru.notes import loadout_sources as src
from k0maru.notes.loadout_plan import Note, plan_loadout

RECORD = "# {title}\n\n## Status\n\nAccepted\n\n## Decision\n\nWe will {title}.\n"


def test_an_archived_record_is_left_out_of_the_decisions(tmp_path: Path) -> None:
    design = "docs/architecture/design"
    notes = [
        Note(f"{design}/queue-per-tenant.md", RECORD.format(title="use a queue per tenant")),
        Note(f"{design}/archive/workflow.md", RECORD.format(title="track workflow state")),
        Note("docs/adr/attic/0003-x.md", RECORD.format(title="use xml")),
    ]
    plan, _ = plan_loadout(tmp_path, notes, adr_folder=design)
    sources = [item.source for item in plan.items]
    assert any(s.startswith(f"{design}/queue-per-tenant.md") for s in sources)
    assert not any("workflow" in s or "attic" in s for s in sources)
    assert plan.left_out["archived record"] == 2


def test_which_folders_are_archives() -> None:
    for folder in ("archive", "Archived", "archives", "attic", "deprecated", "obsolete", ".trash"):
        assert src.role_of(f"docs/adr/{folder}/0001-x.md") == "archived record", folder
    assert src.role_of("docs/adr/0001-archive-old-logs.md") == (src.DECISION, 1.0)
    assert src.role_of("docs/decisions/archiver/0002-x.md") == (src.DECISION, 1.0)
