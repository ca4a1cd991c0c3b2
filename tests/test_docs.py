"""The README documents every CLI command and every MCP tool."""

from __future__ import annotations

import argparse

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
