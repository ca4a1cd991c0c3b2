"""`k0maru connect`: each host's documented config format, merged into existing files, idempotent, and the
entry it writes really starts k0maru's MCP server."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from tests.helpers import write

pytestmark = pytest.mark.slow  # end-to-end: real processes (see CONTRIBUTING.md)

EXISTING = {  # what a user already has in each file: must survive the merge
    "claude-code": (".mcp.json", {"mcpServers": {"github": {"command": "gh-mcp", "args": []}}}),
    "cursor": (".cursor/mcp.json", {"mcpServers": {"other": {"url": "http://localhost:9/mcp"}}}),
    "vscode": (
        ".vscode/mcp.json",
        {
            "inputs": [{"id": "tok", "type": "promptString"}],
            "servers": {"x": {"type": "stdio", "command": "x"}},
        },
    ),
}


def entry_of(host: str, path: Path) -> dict:
    if host == "codex":
        return tomllib.loads(path.read_text())["mcp_servers"]["k0maru"]
    data = json.loads(path.read_text())
    return data["servers" if host == "vscode" else "mcpServers"]["k0maru"]


@pytest.mark.parametrize("host", ["claude-code", "cursor", "vscode", "codex", "claude-desktop"])
def test_connect_writes_the_hosts_format_and_keeps_the_rest(
    vault: Path, tmp_path: Path, k0, host: str
) -> None:
    env = {"HOME": str(tmp_path / "home"), "XDG_CONFIG_HOME": str(tmp_path / "home" / ".config")}
    write(vault, "a.md", "# A\n\nwombat\n")
    if host in EXISTING:
        rel, data = EXISTING[host]
        write(vault, rel, json.dumps(data))
    if host == "codex":
        write(vault, ".codex/config.toml", 'model = "o3"\n\n[mcp_servers.other]\ncommand = "x"\n')
    printed = k0("connect", host, "--vault", str(vault), "--print", env=env)
    assert printed.returncode == 0, printed.stderr
    r = k0("connect", host, "--vault", str(vault), "--json", env=env)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    path = Path(out["file"])
    assert out["outcome"] == ("updated" if host in EXISTING or host == "codex" else "created")
    assert path.read_text() == printed.stdout  # --print shows exactly what is written
    entry = entry_of(host, path)
    assert (
        entry["args"][-3:] == ["mcp", "--vault", str(vault)]
        and Path(entry["command"]).is_absolute()
    )
    if host == "vscode":
        assert (
            entry["type"] == "stdio"
            and json.loads(path.read_text())["inputs"] == EXISTING[host][1]["inputs"]
        )
    if host in EXISTING:
        table = "servers" if host == "vscode" else "mcpServers"
        kept = json.loads(path.read_text())[table]
        assert all(kept[k] == v for k, v in EXISTING[host][1][table].items())
    if host == "codex":
        data = tomllib.loads(path.read_text())
        assert data["model"] == "o3" and data["mcp_servers"]["other"] == {"command": "x"}
    if host == "claude-desktop":
        assert path == tmp_path / "home" / ".config" / "Claude" / "claude_desktop_config.json"
    again = json.loads(k0("connect", host, "--vault", str(vault), "--json", env=env).stdout)
    assert again["outcome"] == "up_to_date"
    listed = {
        row["host"]: row["state"]
        for row in json.loads(
            k0("connect", "--list", "--vault", str(vault), "--json", env=env).stdout
        )
    }
    assert listed[host] == "current"

    async def tools() -> list[str]:  # the entry as written starts the real server
        params = StdioServerParameters(command=entry["command"], args=entry["args"])
        async with stdio_client(params) as (read, write_), ClientSession(read, write_) as session:
            await session.initialize()
            return [t.name for t in (await session.list_tools()).tools]

    assert "recall_memory" in anyio.run(tools)


def test_connect_refuses_a_broken_file(vault: Path, k0) -> None:
    write(vault, ".mcp.json", "{ not json")
    r = k0("connect", "claude-code", "--vault", str(vault))
    assert r.returncode == 2 and "not valid JSON" in r.stderr and "nothing was written" in r.stderr
    assert (vault / ".mcp.json").read_text() == "{ not json"
