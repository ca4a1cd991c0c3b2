"""The README is a short user guide whose commands work as written; the reference in docs/ is
generated from the code and current."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import pytest

from tests.helpers import REPO

README = (REPO / "README.md").read_text(encoding="utf-8")


def test_readme_is_a_short_guide_that_starts_with_the_two_set_up_commands() -> None:
    assert len(README.encode()) <= 12 * 1024
    blocks = re.findall(r"```(\w*)\n(.*?)```", README, re.S)
    assert blocks[0][1].startswith("python3 -m venv .venv && .venv/bin/pip install -q -e . && ")
    assert "k0maru search --vault examples/vault" in blocks[0][1]
    assert blocks[1][1].strip() == "bash scripts/test.sh"
    head = README.split("## What it is")[0]
    # what test.sh does, truthfully and in order
    assert "ruff, mypy, the fast test tier" in head and "then the slow tier" in head
    assert "chromium" in head
    # how long to expect, with the measured figures kept in docs/
    assert "minutes" in head and "docs/benchmarks.md#the-test-command" in head
    for section in ("## Install", "## Quickstart on your own repository", "## Commands"):
        assert section in README
    for section in ("## Configuration", "## Troubleshooting"):
        assert section in README
    assert "ADR:" in README and "untracked" in README


def test_every_cli_command_is_in_the_readme() -> None:
    from k0maru.cli.main import build_parser

    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    missing = [name for name in sub.choices if f"`k0maru {name}" not in README]
    assert missing == []


def test_every_link_in_the_docs_resolves() -> None:
    for page in [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]:
        for target in re.findall(r"\]\(([^)#:]+)\)", page.read_text(encoding="utf-8")):
            assert (page.parent / target).exists(), f"{page.name} links to missing {target}"


def test_the_readme_pre_commit_block_uses_no_release_that_does_not_exist() -> None:
    import yaml

    block = re.search(r"```yaml\n(repos:.*?)```", README, re.S)
    assert block, "the README lost its pre-commit block"
    repos = yaml.safe_load(block.group(1))["repos"]
    assert all(
        r["repo"] == "local" or re.fullmatch(r"[0-9a-f]{40}", r.get("rev", "")) for r in repos
    )


def test_generated_reference_is_current() -> None:
    import importlib.util

    spec = importlib.util.spec_from_file_location("gen_docs", REPO / "scripts" / "gen_docs.py")
    assert spec and spec.loader
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    for rel, render in gen.FILES.items():
        assert (REPO / rel).read_text(encoding="utf-8") == render(), (
            f"{rel} is out of date: run python scripts/gen_docs.py"
        )


def test_every_mcp_tool_is_in_the_reference() -> None:
    from k0maru.mcp.tools import TOOLS

    reference = (REPO / "docs" / "mcp.md").read_text(encoding="utf-8")
    missing = [t.name for t in TOOLS if f"## `{t.name}`" not in reference]
    assert missing == []


@pytest.mark.slow
def test_search_sample_is_what_its_command_prints(tmp_path: Path) -> None:
    """The `--explain` sample in docs/search.md is the output of the command it names, on the
    demo."""
    import shlex
    import shutil

    from tests.helpers import DEMO_VAULT, run_k0maru

    text = (REPO / "docs" / "search.md").read_text(encoding="utf-8")
    m = re.search(
        r"On the demo vault,\n`k0maru (search [^`]+)` prints\n.*?\n```\n(.*?)\n```", text, re.S
    )
    assert m, "docs/search.md lost its search sample"
    vault = tmp_path / "vault"
    shutil.copytree(DEMO_VAULT, vault, ignore=shutil.ignore_patterns(".k0maru"))
    args = [a if a != "examples/vault" else str(vault) for a in shlex.split(m.group(1))]
    assert (
        run_k0maru("scan", "--vault", str(vault)).returncode == 0
    )  # as the README's first command
    r = run_k0maru(*args)
    assert r.returncode == 0, r.stderr
    assert r.stdout.rstrip("\n") == m.group(2)
