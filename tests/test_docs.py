"""The README documents every CLI command and every MCP tool."""

from __future__ import annotations

import argparse

import pytest

from tests.helpers import REPO

README = (REPO / "README.md").read_text(encoding="utf-8")


def test_every_cli_command_is_in_the_readme() -> None:
    from k0maru.cli.main import build_parser

    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    missing = [name for name in sub.choices if f"k0maru {name}" not in README]
    assert missing == []


def test_every_mcp_tool_is_in_the_readme() -> None:
    from k0maru.mcp.tools import TOOLS

    missing = [t.name for t in TOOLS if f"`{t.name}" not in README]
    assert missing == []


@pytest.mark.slow
def test_readme_sample_is_what_its_command_prints(tmp_path) -> None:
    """The `--explain` sample in the README is the output of the command it names, on the demo vault."""
    import re
    import shlex
    import shutil

    from tests.helpers import DEMO_VAULT, run_k0maru

    m = re.search(
        r"On the demo vault,\n`k0maru (search [^`]+)` prints\n.*?\n```\n(.*?)\n```", README, re.S
    )
    assert m, "the README lost its search sample"
    vault = tmp_path / "vault"
    shutil.copytree(DEMO_VAULT, vault, ignore=shutil.ignore_patterns(".k0maru"))
    args = [a if a != "examples/vault" else str(vault) for a in shlex.split(m.group(1))]
    assert (
        run_k0maru("scan", "--vault", str(vault)).returncode == 0
    )  # as the README's first command does
    r = run_k0maru(*args)
    assert r.returncode == 0, r.stderr
    assert r.stdout.rstrip("\n") == m.group(2)
