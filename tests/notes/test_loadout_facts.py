"""The loadout's facts (issue #57): which lines of a guide state a rule or a command, what the
manifests' targets run, which files are agent files, and what a focus brings first."""

from __future__ import annotations

from pathlib import Path

from k0maru.notes import loadout_sources as src
from k0maru.notes.loadout import fit_plan
from k0maru.notes.loadout_commands import all_commands
from k0maru.notes.loadout_facts import split_sections
from k0maru.notes.loadout_plan import Note, plan_loadout


def _kept(path: str, body: str) -> dict[str, list[str]]:
    return {
        s.source: [b.text for b in s.blocks if b.score >= 1.4] for s in split_sections(path, body)
    }


def test_a_checklist_a_leading_clause_and_a_fence_in_a_list_state_facts() -> None:
    body = (
        "## Checklist\n\n- Every new export is intentional\n\n"
        "## Before you write code\n\n"
        "For anything non-trivial, align with a maintainer before you open a PR.\n\n"
        "## History\n\n- The project began in 2019\n\n"
        "## Testing\n\nWhen you fix a bug, do not:\n\n- Reformat unrelated files\n\n"
        "## Setup\n\n1. Set it up\n\n    ```bash\n    bin/setup\n    ```\n"
    )
    kept = _kept("CONTRIBUTING.md", body)
    assert kept["CONTRIBUTING.md#Checklist"] == ["- Every new export is intentional"]
    assert kept["CONTRIBUTING.md#Before you write code"][0].startswith("For anything non-trivial")
    assert "bin/setup" in kept["CONTRIBUTING.md#Setup"]  # a fence indented in a list item
    assert kept["CONTRIBUTING.md#Testing"][-1] == "- Reformat unrelated files"
    assert not kept.get("CONTRIBUTING.md#History")


def test_a_make_target_names_the_targets_it_runs(tmp_path: Path) -> None:
    (tmp_path / "Makefile").write_text(
        "lint: lint-code lint-api $(TOOL)\nlint-code: $(TOOL)\n\tgolangci-lint run\n"
        "lint-api:\n\tapi-linter\nfmt: main.go ## Format the code\n\tgofmt\n"
        "check: lint # a comment, not help\n"
    )
    found = dict(all_commands(tmp_path))["Makefile"]
    assert "make lint  # runs lint-code lint-api" in found
    assert "make fmt  # Format the code" in found and "make lint-code" in found
    assert "make check  # runs lint" in found


def test_conventions_pages_are_guides_and_ci_prompts_are_left_out() -> None:
    assert src.role_of("CONVENTIONS.md")[0] == src.GUIDE  # a page for people, ranked by its facts
    assert src.role_of(".github/workflows/shared/prompts/review.md") == "CI prompt"
    assert src.role_of(".github/pull_request_template.md")[0] == src.GUIDE


def _answer(tmp_path: Path, notes: list[Note], budget: int, focus: str | None = None) -> str:
    plan, agents = plan_loadout(tmp_path, notes, focus)
    sections, used, _ = fit_plan(plan, agents, budget, None, bool(focus))
    assert used <= budget
    return "\n\n".join(f"## {s['kind']}: {s['source']}\n{s['text']}" for s in sections)


def test_after_an_agent_file_in_parts_the_scoped_ones_are_in_parts_too(tmp_path: Path) -> None:
    big = "\n".join(f"- You must run `make check-{i}` before pushing." for i in range(300))
    notes = [
        Note("AGENTS.md", "## Checks\n\n" + big),
        Note(".github/instructions/readme.instructions.md", "Keep READMEs short.\n" * 30),
    ]
    text = _answer(tmp_path, notes, 1500)
    assert "in parts (too long whole): AGENTS.md, .github/instructions/readme" in text
    assert "make check-0" in text


def test_a_focus_first_then_the_commands_and_decisions(tmp_path: Path) -> None:
    (tmp_path / "Makefile").write_text("test:\n\tgo test ./...\n")
    notes = [
        Note("CONTRIBUTING.md", "## Style\n\n- You must wrap lines at 100 columns in `docs/`.\n"),
        Note("docs/auth.md", "## Sessions\n\n- Never log tokens in `src/auth/`; use `redact()`.\n"),
        Note(
            "docs/adr/0001-a.md", "# Use Vogen\n\nStatus: Accepted\n\n## Decision\n\nUse Vogen.\n"
        ),
    ]
    text = _answer(tmp_path, notes, 800, focus="I'm going to change src/auth/")
    kinds = [part.split(":", 1)[0] for part in text.split("## ")[1:]]
    assert kinds[0] == "guide" and "src/auth/" in text.split("\n## ")[0]
    assert sorted(kinds[1:3]) == ["adr", "commands"] and kinds[3] == "guide"
