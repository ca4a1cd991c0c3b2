"""A card k0maru distilled from a failure, with no fix recorded yet, is k0maru's own boilerplate
("Open the first failing location..."): the loadout leaves it out and says so; once a fix is
written in, it is what the project learnt, and carried (a newcomer's vault showed two such cards
as guides)."""

from __future__ import annotations

from pathlib import Path

from k0maru.notes.fix_hints import GENERATED_MARK, NO_FIX
from k0maru.notes.loadout_plan import Note, plan_loadout

CARD = (
    "# error: E0502\n\n{mark} an agent session.\n\n## Diagnosis path\n"
    "1. Open `src/main.rs:4:5`: run `cargo check` after you change it.\n\n## Fix\n- {fix}\n"
)


def _sources(tmp_path: Path, fix: str) -> tuple[list[str], dict[str, int]]:
    card = Note("skills/e0502.md", CARD.format(mark=GENERATED_MARK, fix=fix))
    guide = Note("docs/build.md", "# Build\n\nRun `make test` before you open a pull request.\n")
    plan, _ = plan_loadout(tmp_path, [card, guide])
    return [item.source for item in plan.items], dict(plan.left_out)


def test_a_card_with_no_fix_recorded_is_left_out_and_said(tmp_path: Path) -> None:
    sources, left = _sources(tmp_path, f"{NO_FIX}: when a fix works, write it here.")
    assert not any(s.startswith("skills/") for s in sources)
    assert any(s.startswith("docs/build.md") for s in sources)
    assert left["a distilled card with no fix recorded"] == 1


def test_a_card_whose_fix_is_written_in_is_carried(tmp_path: Path) -> None:
    sources, left = _sources(tmp_path, "Clone `v` before you push to it: run `cargo check`.")
    assert any(s.startswith("skills/e0502.md") for s in sources)
    assert "a distilled card with no fix recorded" not in left
