"""Agent hosts' MCP configuration: where each host reads the servers of a project, in what format, and a
merge that adds or updates k0maru's entry while keeping every other entry and setting in the file.

| host           | file (project-scoped unless noted)                         | table                  |
|----------------|------------------------------------------------------------|------------------------|
| claude-code    | .mcp.json                                                  | mcpServers             |
| cursor         | .cursor/mcp.json                                           | mcpServers             |
| vscode         | .vscode/mcp.json                                           | servers (type "stdio") |
| codex          | .codex/config.toml (read in trusted projects)              | [mcp_servers.k0maru]   |
| claude-desktop | the user's claude_desktop_config.json (no project scope)   | mcpServers             |
"""

from __future__ import annotations

import json
import os
import re
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from k0maru.errors import K0maruError
from k0maru.fsutil import atomic_write_text

NAME = "k0maru"
HOSTS = ("claude-code", "cursor", "vscode", "codex", "claude-desktop")


@dataclass(frozen=True, slots=True)
class Change:
    host: str
    path: Path
    outcome: str  # created | updated | up_to_date
    text: str  # the whole file as written (or as it would be)


def server_entry(vault: Path) -> dict[str, Any]:
    """The stdio server: this Python (its k0maru), `mcp`, this vault, absolute paths only."""
    return {"command": sys.executable, "args": ["-m", "k0maru", "mcp", "--vault", str(vault)]}


def claude_desktop_config() -> Path:
    home = Path.home()
    if sys.platform == "darwin":
        return home / "Library" / "Application Support" / "Claude" / "claude_desktop_config.json"
    if sys.platform == "win32":
        return Path(os.environ.get("APPDATA", home)) / "Claude" / "claude_desktop_config.json"
    return (
        Path(os.environ.get("XDG_CONFIG_HOME", home / ".config"))
        / "Claude"
        / "claude_desktop_config.json"
    )


def config_path(host: str, vault: Path) -> Path:
    paths = {
        "claude-code": vault / ".mcp.json",
        "cursor": vault / ".cursor" / "mcp.json",
        "vscode": vault / ".vscode" / "mcp.json",
        "codex": vault / ".codex" / "config.toml",
    }
    if host == "claude-desktop":
        return claude_desktop_config()
    if host not in paths:
        raise K0maruError(f"unknown host {host[:40]!r}; use one of {', '.join(HOSTS)}")
    return paths[host]


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        raise K0maruError(
            f"{path}: cannot read it ({exc}); fix or move it, then run `k0maru connect` again"
        ) from None


def _merge_json(host: str, old: str | None, entry: dict[str, Any], path: Path) -> str:
    try:
        data = json.loads(old) if old and old.strip() else {}
    except json.JSONDecodeError as exc:
        raise K0maruError(
            f"{path}: not valid JSON (line {exc.lineno}); fix it by hand, nothing was written"
        ) from None
    if not isinstance(data, dict):
        raise K0maruError(f"{path}: expected a JSON object at the top; nothing was written")
    table = "servers" if host == "vscode" else "mcpServers"
    servers = data.setdefault(table, {})
    if not isinstance(servers, dict):
        raise K0maruError(f"{path}: `{table}` is not an object; nothing was written")
    servers[NAME] = {"type": "stdio", **entry} if host == "vscode" else entry
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def _toml_str(value: str) -> str:
    return json.dumps(value, ensure_ascii=False)  # a JSON string is a valid TOML basic string


def _merge_toml(old: str | None, entry: dict[str, Any], path: Path) -> str:
    text = old or ""
    try:
        tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise K0maruError(
            f"{path}: not valid TOML ({exc}); fix it by hand, nothing was written"
        ) from None
    block = (
        f"[mcp_servers.{NAME}]\ncommand = {_toml_str(entry['command'])}\n"
        f"args = [{', '.join(_toml_str(a) for a in entry['args'])}]\n"
    )
    # drop our previous table (and its sub-tables), keep everything else as written
    own = re.compile(rf"^\[mcp_servers\.{NAME}(?:\.[^\]]+)?\]\s*$")
    kept: list[str] = []
    skipping = False
    for line in text.splitlines():
        if line.lstrip().startswith("["):
            skipping = bool(own.match(line.strip()))
        if not skipping:
            kept.append(line)
    body = "\n".join(kept).rstrip()
    merged = (body + "\n\n" if body else "") + block
    parsed = tomllib.loads(merged)["mcp_servers"][NAME]
    assert parsed == entry, "TOML merge changed the entry"
    return merged


def connect(host: str, vault: Path, write: bool = True) -> Change:
    """Add or update k0maru in `host`'s config for `vault`; with `write` False, only say what it would be."""
    path = config_path(host, vault)
    old = _read(path)
    entry = server_entry(vault)
    new = _merge_toml(old, entry, path) if host == "codex" else _merge_json(host, old, entry, path)
    if old is not None and _entry(host, old) == _entry(host, new):
        return Change(host, path, "up_to_date", old)
    if write:
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(path, new)
    return Change(host, path, "created" if old is None else "updated", new)


def _entry(host: str, text: str) -> Any:
    try:
        if host == "codex":
            return tomllib.loads(text).get("mcp_servers", {}).get(NAME)
        data = json.loads(text)
        return data.get("servers" if host == "vscode" else "mcpServers", {}).get(NAME)
    except (ValueError, AttributeError):
        return None


def configured(vault: Path) -> list[tuple[str, Path, str]]:
    """(host, file, state) for every host: 'current', 'other vault or command', 'not configured', 'no file'."""
    out = []
    for host in HOSTS:
        path = config_path(host, vault)
        text = _read(path)
        if text is None:
            out.append((host, path, "no file"))
            continue
        found = _entry(host, text)
        want = server_entry(vault)
        if host == "vscode" and found:
            found = {k: v for k, v in found.items() if k != "type"}
        state = (
            "not configured"
            if not found
            else "current"
            if found == want
            else "other vault or command"
        )
        out.append((host, path, state))
    return out
