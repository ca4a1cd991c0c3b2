"""MCP, `k0maru loadout` and the console give the same loadout for the same budget (issue #57): the
Service fits the whole answer (its JSON and its text) once, for every front end. A real vault: this
repository's own guides, decisions and manifest, indexed without embeddings; budgets that cut."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp.client.client import Client

from k0maru.cli.main import main
from k0maru.console.app import create_app
from k0maru.llm_tokens import count_tokens
from k0maru.mcp.runner import LocalRunner
from k0maru.mcp.server import build_server
from k0maru.service.operations import Service
from tests.console.test_loadout_page import sections
from tests.helpers import REPO, write

Shown = list[tuple[str, str, str]]  # (kind, source, text) of each section
FOCUS = "I'm changing the loadout"


@pytest.fixture
def project(vault: Path) -> Path:
    write(vault, ".k0maru/config.toml", "embed = false\n")
    for rel in ("README.md", "CONTRIBUTING.md", "ARCHITECTURE.md", "pyproject.toml", "docs/adr"):
        src, dest = REPO / rel, vault / rel
        if src.is_dir():
            shutil.copytree(src, dest)
        else:
            shutil.copyfile(src, dest)
    return vault


def over_mcp(service: Service, arguments: dict[str, Any]) -> tuple[Shown, str, str]:
    async def ask() -> Any:
        async with Client(build_server(LocalRunner(service))) as client:
            return await client.call_tool("get_project_loadout", arguments)

    result = anyio.run(ask)
    answer = result.structured_content
    structured = json.dumps(answer, ensure_ascii=False, separators=(",", ":"))
    shown = [(s["kind"], s["source"], s["text"]) for s in answer["sections"]]
    return shown, result.content[0].text, structured


def over_cli(capsys: pytest.CaptureFixture[str], project: Path, *argv: str) -> Shown:
    assert main(["loadout", "--vault", str(project), "--json", *argv]) == 0
    answer = json.loads(capsys.readouterr().out)
    return [(s["kind"], s["source"], s["text"]) for s in answer["sections"]]


def on_console(service: Service, query: str) -> Shown:
    return sections(
        create_app(service).test_client().get(f"/loadout?{query}").get_data(as_text=True)
    )


@pytest.mark.parametrize(
    ("budget", "focus"), [(700, None), (1500, FOCUS), (4000, None)], ids=["700", "focus", "4000"]
)
def test_mcp_cli_and_console_give_the_same_sections(
    project: Path, capsys: pytest.CaptureFixture[str], budget: int, focus: str | None
) -> None:
    arguments: dict[str, Any] = {"token_budget": budget} | ({"focus": focus} if focus else {})
    cli_args = ["--budget", str(budget), *(["--focus", focus] if focus else [])]
    query = f"budget={budget}" + (f"&focus={focus}" if focus else "")
    with Service.open(str(project)) as service:
        mcp, text, structured = over_mcp(service, arguments)
        console = on_console(service, query)
    cli = over_cli(capsys, project, *cli_args)
    assert len(mcp) >= 3 and mcp[-1][0] == "sources"
    assert mcp == cli == console
    assert count_tokens(text) <= budget and count_tokens(structured) <= budget
