"""Agent files that do not fit or only point elsewhere (issue #57, round two): a pointer is read
as the file it names, a nested one speaks for its folder, vendored copies are left out, and
commands run from a folder or with environment variables are commands."""

from __future__ import annotations

from pathlib import Path

from k0maru.notes import loadout_plan as plan_mod
from k0maru.notes import loadout_sources as src
from k0maru.notes.loadout import fit_plan
from k0maru.notes.loadout_facts import split_sections
from k0maru.notes.loadout_plan import Note, plan_loadout


def _answer(tmp_path: Path, notes: list[Note], budget: int, focus: str | None = None) -> str:
    plan, agents = plan_loadout(tmp_path, notes, focus)
    sections, used, _ = fit_plan(plan, agents, budget, None, bool(focus))
    assert used <= budget
    return "\n\n".join(f"## {s['kind']}: {s['source']}\n{s['text']}" for s in sections)


def test_a_pointer_file_is_read_as_the_file_it_names(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "agents.txt").write_text("## Testing\n\nAlways run `make test-all`.\n")
    notes = [Note("AGENTS.md", "docs/agents.txt\n"), Note("CLAUDE.md", "@AGENTS.md")]
    text = _answer(tmp_path, notes, 2000)
    assert "## rules: docs/agents.txt" in text
    assert "make test-all" in text
    assert "2 pointer to another file" in text


def test_a_nested_agent_file_speaks_for_its_folder(tmp_path: Path) -> None:
    assert src.agent_folder("util/Seeder/CLAUDE.md") == "util/Seeder"
    assert src.agent_folder("CLAUDE.md") == ""
    assert src.agent_folder(".github/copilot-instructions.md") == ""
    assert src.agent_folder(".cursor/rules/style.mdc") == ""
    root = "\n".join(f"- Lines should stay short (make lint-{i})." for i in range(120))
    nested = "\n".join(f"- Always seed with `make seed --mangle-{i}`." for i in range(120))
    notes = [Note("AGENTS.md", "## Rules\n\n" + root), Note("util/Seeder/AGENTS.md", nested)]
    idle = _answer(tmp_path, notes, 1500)
    focused = _answer(tmp_path, notes, 1500, "I'm changing util/Seeder")
    assert -1 < idle.index("make lint-") < idle.index("--mangle-")
    assert -1 < focused.index("--mangle-") < focused.index("make lint-")


def test_versioned_and_third_party_copies_are_vendored() -> None:
    assert src.role_of("lib/zstd-1.5.7/CONTRIBUTING.md") == "vendored or test data"
    assert src.role_of("lib/nghttp2/third-party/mruby/README.md") == "vendored or test data"
    assert src.role_of("lib/monkey/README.md")[0] == src.README


def test_commands_after_cd_or_environment_variables_and_no_rules() -> None:
    body = (
        "## Testing\n\n```sh\ncd packages/app && pnpm test:e2e\n"
        "DB=postgres bundle exec rake test_app\n```\n\n## Migrations\n\n"
        "- No foreign key constraints\n"
    )
    kept = {
        s.source: [b.text for b in s.blocks if b.score >= 1.4] for s in split_sections("C.md", body)
    }
    assert "cd packages/app && pnpm test:e2e" in kept["C.md#Testing"][0]
    assert "DB=postgres bundle exec rake test_app" in kept["C.md#Testing"][0]
    assert kept["C.md#Migrations"] == ["- No foreign key constraints"]


def test_pytest_settings_and_hooks_count_by_the_names_they_list(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[tool.pytest.ini_options]\ntimeout = 5\nmarkers = ["integration: slow ones"]\n'
    )
    (tmp_path / ".pre-commit-config.yaml").write_text(
        "repos:\n  - hooks:\n      - id: ruff\n      - id: ty\n      - id: loq\n"
    )
    plan, _ = plan_loadout(tmp_path, [])
    items = {i.source: i for i in plan.items}
    assert "pytest: timeout = 5" in items["pyproject.toml (read from the file)"].text
    assert "pytest markers: integration" in items["pyproject.toml (read from the file)"].text
    hooks = items[".pre-commit-config.yaml (read from the file)"]
    assert hooks.text == "hooks: ruff, ty, loq"
    assert hooks.score > 3 * 1.2 - 0.01


def test_a_scoped_instructions_file_speaks_for_the_files_it_applies_to(tmp_path: Path) -> None:
    scoped = '---\napplyTo: "src/**/README.md"\n---\n# Readmes\n\n'
    everywhere = '---\napplyTo: "**"\n---\n# All\n\n'
    disk = plan_mod.disk_note  # read from disk: the frontmatter still in the body
    assert plan_mod.scoped(disk(".github/instructions/r.instructions.md", scoped))
    assert not plan_mod.scoped(disk(".github/instructions/a.instructions.md", everywhere))
    assert plan_mod.scoped(disk(".cursor/rules/c.mdc", "---\nglobs: **/*.ts\n---\n# C"))
    assert not plan_mod.scoped(Note(".cursor/rules/a.mdc", "# A", {"alwaysApply": True}))
    assert plan_mod.scoped(Note(".cursor/rules/b.mdc", "# B", {"globs": "src/*.ts"}))
    assert not plan_mod.scoped(Note(".cursor/rules/d.mdc", "# D", {"globs": None}))
    root = "".join(f"## Rules {i}\n\n- Lines should stay short (lint-{i}).\n\n" for i in range(40))
    readme = "".join(f"## Part {i}\n\n- Always run `make readme-{i}`.\n\n" for i in range(40))
    notes = [
        Note("AGENTS.md", root),
        disk(".github/instructions/r.instructions.md", scoped + readme),
    ]
    text = _answer(tmp_path, notes, 600)
    assert text.count("(lint-") > text.count("make readme-")
