"""The loadout (issue #57): sources chosen by what they are for, facts not openings, the commands
manifests and CI run, a focus first, copies carried once."""

from __future__ import annotations

import json
from pathlib import Path, PurePosixPath

from hypothesis import given
from hypothesis import strategies as st

from k0maru.notes import loadout_sources as src
from k0maru.notes.loadout import disk_agent_notes, fit_plan
from k0maru.notes.loadout_commands import all_commands
from k0maru.notes.loadout_facts import split_sections
from k0maru.notes.loadout_plan import Note, focus_terms, plan_loadout


def test_sources_are_chosen_by_what_they_are_for() -> None:
    assert src.role_of("AGENTS.md") == (src.AGENT, 3.0)
    assert src.role_of("packages/api/CLAUDE.md")[0] == src.AGENT
    assert src.role_of(".github/copilot-instructions.md")[0] == src.AGENT
    assert src.role_of(".k0maru/rules.md")[0] == src.RULES
    assert src.role_of("CONTRIBUTING.md")[0] == src.GUIDE
    assert src.role_of("docs/development/testing.md")[0] == src.GUIDE
    assert src.role_of("docs/adr/0001-use-x.md")[0] == src.DECISION
    assert src.role_of("CHANGELOG.md") == "changelog"
    assert src.role_of("docs/ja/testing.md") == "translation"
    assert src.role_of("README.zh-CN.md") == "translation"
    assert src.role_of("docs/release-notes/v1.md") == "release notes"
    assert src.role_of("LICENSE.md") == "licence/policy"
    assert src.role_of("docs/architecture/history-service.md") != "changelog"


def test_facts_not_openings() -> None:
    body = (
        "Welcome to the project, we are glad you came by. It has a long history.\n\n"
        "## Running tests\n\nRun the unit tests before you push:\n\n"
        "```sh\n# the fast ones\nmake unit-test\n```\n\n"
        "- You must sign the CLA.\n- Prefer `require` over `assert` in tests.\n\n"
        "## History\n\nThe project began in 2019 as a fork.\n"
    )
    sections = split_sections("CONTRIBUTING.md", body)
    kept = {s.source: [b.text for b in s.blocks if b.score >= 1.4] for s in sections}
    assert kept["CONTRIBUTING.md#Running tests"] == [
        "Run the unit tests before you push:",
        "make unit-test",
        "- You must sign the CLA.",
        "- Prefer `require` over `assert` in tests.",
    ]
    assert not kept.get("CONTRIBUTING.md") and not kept.get("CONTRIBUTING.md#History")


def test_headings_inside_fences_are_not_headings() -> None:
    body = "## Build\n\n```sh\n# not a heading\nmake build\n```\n"
    (section,) = split_sections("README.md", body)
    assert section.heading == "Build" and section.blocks[0].text == "make build"


def test_manifest_and_ci_commands(tmp_path: Path) -> None:
    (tmp_path / "package.json").write_text(
        json.dumps({"packageManager": "pnpm@9", "scripts": {"test:all": "vitest", "x": "y"}})
    )
    (tmp_path / "Makefile").write_text(
        ".PHONY: lint\nlint: ## Lint the code\n\truff check\nunit-test:\n\tgo test ./...\n"
    )
    (tmp_path / "pyproject.toml").write_text('[project]\nrequires-python = ">=3.10"\n')
    wf = tmp_path / ".github" / "workflows"
    wf.mkdir(parents=True)
    (wf / "ci.yml").write_text(
        "jobs:\n  t:\n    steps:\n      - run: |\n          echo hi\n          cargo nextest run\n"
    )
    (wf / "release.yml").write_text("jobs:\n  r:\n    steps:\n      - run: cargo publish\n")
    found = dict(all_commands(tmp_path))
    assert "pnpm test:all: vitest" in found["package.json"]
    assert found["Makefile"][:2] == ["make unit-test", "make lint  # Lint the code"]
    assert "requires-python >=3.10" in found["pyproject.toml"]
    (ci,) = [v for k, v in found.items() if k.startswith(".github/workflows/")]
    assert ci == ["cargo nextest run"]  # the release workflow and the echo are not read


def test_lint_and_dependency_configs_are_read(tmp_path: Path) -> None:
    (tmp_path / "Gemfile").write_text(
        'gem "rails"\n\ngroup :development, :test do\n  gem "erb_lint"\n  gem "rubocop", '
        'require: false\nend\ngroup :production do\n  gem "pg"\nend\n'
    )
    (tmp_path / ".github").mkdir()
    (tmp_path / ".github" / ".golangci.yml").write_text(
        "formatters:\n  enable:\n    - gci\nlinters:\n  enable:\n    - errcheck  # why\n"
        "    - testifylint\n  settings: {}\n"
    )
    (tmp_path / "Directory.Packages.props").write_text(
        '<Project><ItemGroup><PackageVersion Include="xunit" Version="2" /></ItemGroup></Project>'
    )
    found = dict(all_commands(tmp_path))
    assert found["Gemfile"] == ["gems (development, test): erb_lint, rubocop"]  # not rails
    assert found[".github/.golangci.yml"] == ["golangci-lint run: gci, errcheck, testifylint"]
    assert "managed centrally here (1 PackageVersion" in found["Directory.Packages.props"][0]


def test_the_rules_a_golangci_config_forbids_are_read_with_their_message(tmp_path: Path) -> None:
    (tmp_path / ".golangci.yml").write_text(
        "linters:\n  enable:\n    - forbidigo\n  settings:\n    forbidigo:\n      forbid:\n"
        '        - pattern: time.Sleep\n          msg: "Use await.Require; it polls."\n'
        "        - pattern: 'assert\\.\\w+'\n"
        "          msg: Use require.X instead of assert.X — assert lets the test go on\n"
        "    depguard:\n      rules:\n        main:\n          deny:\n"
        "            - pkg: github.com/pborman/uuid\n              desc: use google/uuid\n"
        "    importas:\n      alias:\n        - pkg: go.temporal.io/api\n          alias: pb\n"
    )
    assert dict(all_commands(tmp_path))[".golangci.yml"] == [
        "golangci-lint run: forbidigo",
        "forbidden time.Sleep: Use await.Require",  # the message's first clause
        "forbidden assert\\.\\w+: Use require.X instead of assert.X",
        "forbidden github.com/pborman/uuid: use google/uuid",  # an alias forbids nothing
    ]


def test_mix_aliases_say_what_they_run_and_dev_test_deps_are_listed(tmp_path: Path) -> None:
    (tmp_path / "mix.exs").write_text(
        '  defp deps do\n    [\n      {:phoenix, "~> 1.7"},\n'
        '      {:credo, "~> 1.6", only: [:dev, :test], runtime: false},\n'
        '      {:excoveralls, "~> 0.10", only: :test},\n      {:live, "~> 1", only: :prod}\n    ]\n  end\n'
        '  defp aliases do\n    [\n      setup: ["deps.get", "ecto.setup"],\n'
        '      "test.format": ["format --check-formatted"],\n      test: &run_tests/1\n    ]\n  end\n'
    )
    assert sorted(dict(all_commands(tmp_path))["mix.exs"]) == [
        "deps (dev, test): credo, excoveralls",  # not phoenix, not a prod-only one
        "mix setup: deps.get, ecto.setup",
        "mix test",  # a function: its name only
        "mix test.format: format --check-formatted",
    ]


def _plan(tmp_path: Path, notes: list[Note], budget: int, focus: str | None = None) -> str:
    plan, agents = plan_loadout(tmp_path, notes, focus)
    sections, used, _ = fit_plan(plan, agents, budget, None, bool(focus))
    assert used <= budget
    return "\n\n".join(f"## {s['kind']}: {s['source']}\n{s['text']}" for s in sections)


def test_agent_files_first_whole_and_every_section_named(tmp_path: Path) -> None:
    notes = [
        Note("CONTRIBUTING.md", "## Testing\n\n```sh\nmake test\n```\n"),
        Note("AGENTS.md", "# Agents\n\nAlways run `make lint` before committing.\n"),
        Note("CHANGELOG.md", "## 1.0\n\n- Always ship `make release`.\n"),
    ]
    text = _plan(tmp_path, notes, 800)
    assert text.startswith("## rules: AGENTS.md\n# Agents")
    assert "## guide: CONTRIBUTING.md#Testing\nmake test" in text
    assert "make release" not in text and "1 changelog" in text  # said in the sources section


def test_copies_and_translations_are_carried_once(tmp_path: Path) -> None:
    rule = "## Style\n\n- You must format with `ruff format` before pushing.\n"
    notes = [
        Note("CONTRIBUTING.md", rule),
        Note("docs/contributing.md", rule),
        Note("docs/zh/contributing.md", rule),
    ]
    text = _plan(tmp_path, notes, 800)
    assert text.count("ruff format") == 1 and "1 translation" in text


def test_a_focus_comes_first(tmp_path: Path) -> None:
    notes = [
        Note("CONTRIBUTING.md", "## Testing\n\n- Run `make test` before you push.\n"),
        Note("docs/auth.md", "## Sessions\n\n- Never log tokens in `src/auth/`; use `redact()`.\n"),
    ]
    assert focus_terms("I'm going to change src/auth/") == ["src/auth"]
    first = _plan(tmp_path, notes, 800, focus="I'm going to change src/auth/").split("\n## ")[0]
    assert "src/auth/" in first
    unfocused = _plan(tmp_path, notes, 800).split("\n## ")[0]
    assert "make test" in unfocused


def test_decisions_in_force_only(tmp_path: Path) -> None:
    notes = [
        Note(
            "docs/adr/0001-a.md", "# Use Vogen\n\nStatus: Accepted\n\n## Decision\n\nUse Vogen.\n"
        ),
        Note("docs/adr/0002-b.md", "# Use X\n\nStatus: Superseded\n\n## Decision\n\nUse X.\n"),
    ]
    text = _plan(tmp_path, notes, 800)
    assert "Use Vogen: Use Vogen." in text and "Use X" not in text


def test_a_decision_wrapped_over_lines_is_read_whole(tmp_path: Path) -> None:
    body = "# Use locks\n\n## Decision\n\nEach matcher takes a lock and skips it if the\n"
    body += "lock is held. Then it moves on.\n- an item\n"
    text = _plan(tmp_path, [Note("docs/adr/0001-locks.md", body)], 800)
    assert "Use locks: Each matcher takes a lock and skips it if the lock is held." in text


def test_a_supersedes_line_is_not_the_decision(tmp_path: Path) -> None:
    body = "# Use Y\n\nSupersedes [[0006-accept-only-camt-053-statements]]\n\n"
    body += "Accept only CAMT.053 statements from every bank from now on.\n"
    text = _plan(tmp_path, [Note("docs/adr/0007-y.md", body)], 800)
    assert "Use Y: Accept only CAMT.053 statements" in text and "Use Y: Supersedes" not in text


def test_agent_files_off_the_index_are_read_from_disk(tmp_path: Path) -> None:
    (tmp_path / ".cursor" / "rules").mkdir(parents=True)
    (tmp_path / ".cursor" / "rules" / "style.mdc").write_text("Use tabs.\n")
    (tmp_path / ".cursorrules").write_text("Never push to main.\n")
    (tmp_path / "AGENTS.md").write_text("indexed\n")
    found = {n.path: n.body for n in disk_agent_notes(tmp_path, {"AGENTS.md"})}
    assert found == {
        ".cursorrules": "Never push to main.\n",
        ".cursor/rules/style.mdc": "Use tabs.\n",
    }


def test_the_budget_is_held(tmp_path: Path) -> None:
    big = "\n".join(f"- You must run `make check-{i}` before pushing." for i in range(400))
    notes = [Note("AGENTS.md", big), Note("CONTRIBUTING.md", "## Testing\n\n" + big)]
    for budget in (200, 600, 2000):
        _plan(tmp_path, notes, budget)


def test_the_front_ends_default_budget_is_the_engines() -> None:
    from k0maru.limits import LOADOUT_BUDGET
    from k0maru.notes.loadout import DEFAULT_BUDGET

    assert LOADOUT_BUDGET == DEFAULT_BUDGET


@given(
    st.lists(
        st.sampled_from(
            [".cursor", "rules", ".github", "instructions", ".clinerules", "a", "x.md", "*", "."]
        )
        | st.text(alphabet="ab.-_/*", min_size=1, max_size=6),
        min_size=1,
        max_size=5,
    ),
    st.sampled_from(["", ".mdc", ".instructions.md", ".md"]),
)
def test_agent_globs_read_as_path_match_reads_them(parts: list[str], suffix: str) -> None:
    """One pattern instead of PurePosixPath.match per glob and path (most of a loadout's 25 s over
    100,000 notes): the same answer for every path as the index writes it (normalised)."""
    path = str(PurePosixPath("/".join(parts) + suffix))
    expected = any(PurePosixPath(path).match(g) for g in src.AGENT_GLOBS)
    assert (src._AGENT_PATH.search(path) is not None) == expected, path


def test_the_closing_section_names_what_was_read_and_not_carried(tmp_path: Path) -> None:
    rules = "".join(f"- Always run `make check{n}` before you push.\n" for n in range(40))
    notes = [
        Note("CONTRIBUTING.md", f"# Contributing\n\n## Checks\n\n{rules}"),
        Note("docs/testing.md", "# Testing\n\n## Run\n\nNever skip `make test-all` on CI.\n"),
    ]
    text = _plan(tmp_path, notes, 300)
    assert "1 read but not carried (CONTRIBUTING.md); 1 section past the budget" in text
