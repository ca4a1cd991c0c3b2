"""`k0maru connect`: each host's documented format, merged into the user's file without disturbing
it (other entries, the user's own fields on k0maru's entry, comments, formatting, mode), idempotent,
removable, portable in the files a team shares, and never written through a symlinked folder. The
slow test starts the real server from the entry as written."""

from __future__ import annotations

import json
import os
import shutil
import sys
import tomllib
from pathlib import Path
from typing import Any, cast

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from k0maru import hosts, jsonedit
from k0maru.errors import K0maruError
from tests.helpers import K0, write

JSON_HOSTS = ("claude-code", "cursor", "vscode")

USER_FILES = {  # what a user already has: comments, odd indentation, other servers, own fields
    "claude-code": """{
    "mcpServers": {
        "github": {"command": "gh-mcp", "args": []},
        "k0maru": {"command": "old", "args": [], "env": {"K0MARU_EMBED": "false"}, "timeout": 90}
    },
    "other": true
}
""",
    "cursor": """{
\t"mcpServers": {
\t\t"other": {"url": "http://localhost:9/mcp"}
\t}
}
""",
    "vscode": """// VS Code allows comments in mcp.json
{
  "inputs": [{"id": "tok", "type": "promptString"}], // a prompt of mine
  "servers": {
    /* my own server */
    "x": {"type": "stdio", "command": "x"},
  },
}
""",
    "codex": """model = "o3"  # my model

[mcp_servers.other]
command = "x"

[mcp_servers.k0maru]
command = "old"
args = []
startup_timeout_sec = 30  # slow disk

[mcp_servers.k0maru.env]
K0MARU_EMBED = "false"
""",
}


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    return home


def entry_of(host: str, path: Path, name: str = "k0maru") -> dict[str, Any]:
    entry: dict[str, Any]
    if host == "codex":
        entry = tomllib.loads(path.read_text())["mcp_servers"][name]
        return entry
    data = jsonedit.parse(path.read_text()).value
    entry = data[hosts.table_of(host)][name]
    return entry


@pytest.mark.parametrize("host", [*JSON_HOSTS, "codex"])
def test_connect_keeps_the_users_file_and_is_idempotent(vault: Path, host: str) -> None:
    rel = hosts.PROJECT_FILES[host]
    path = write(vault, rel, USER_FILES[host])
    path.chmod(0o640)
    before = path.read_text()

    change = hosts.connect(host, vault)
    after = path.read_text()
    assert change.outcome == "updated" and change.text == after
    assert oct(path.stat().st_mode & 0o777) == "0o640"  # the file's mode is kept
    entry = entry_of(host, path)
    if host in JSON_HOSTS:  # portable: the host's workspace variable, k0maru from PATH
        assert entry["command"] == "k0maru" and entry["args"][:2] == ["mcp", "--vault"]
        assert entry["args"][2] == hosts.WORKSPACE[host] and str(vault) not in after
    else:  # Codex starts the server in the folder it runs in: no path of this machine
        assert entry["command"] == "k0maru" and entry["args"] == ["mcp"]
        assert str(vault) not in after and sys.executable not in after
    if host == "vscode":
        assert entry["type"] == "stdio"
        for comment in ("// VS Code allows", "// a prompt of mine", "/* my own server */"):
            assert comment in after
    if host == "claude-code":  # the user's own fields on k0maru's entry stay
        assert entry["env"] == {"K0MARU_EMBED": "false"} and entry["timeout"] == 90
        assert '        "github": {"command": "gh-mcp", "args": []},' in after
    if host == "codex":
        assert entry["startup_timeout_sec"] == 30 and entry["env"] == {"K0MARU_EMBED": "false"}
        assert (
            'model = "o3"  # my model' in after and "startup_timeout_sec = 30  # slow disk" in after
        )
    if host == "cursor":
        assert '\t\t"other": {"url": "http://localhost:9/mcp"},' in after  # tabs stay tabs
    # every line of the user's file that did not describe k0maru is still there, as written
    own = [line for line in before.splitlines() if "old" not in line and "args = []" not in line]
    kept = {line.rstrip(",") for line in after.splitlines()}  # a comma may follow a new last member
    assert all(line.rstrip(",") in kept for line in own)

    again = hosts.connect(host, vault)
    assert again.outcome == "up_to_date" and path.read_text() == after

    removed = hosts.connect(host, vault, remove=True)
    assert removed.outcome == "removed"
    gone = path.read_text()
    assert "k0maru" not in gone
    assert hosts.connect(host, vault, remove=True).outcome == "absent"
    if host in ("cursor", "vscode"):  # added then removed: byte for byte the user's file
        assert gone == before


@pytest.mark.parametrize("host", [*JSON_HOSTS, "codex"])
def test_connect_creates_a_missing_file_with_the_umask(
    vault: Path, host: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    old = os.umask(0o027)
    try:
        change = hosts.connect(host, vault)
    finally:
        os.umask(old)
    assert change.outcome == "created"
    assert oct(change.path.stat().st_mode & 0o777) == "0o640"
    assert "mcp" in entry_of(host, change.path)["args"]
    assert hosts.connect(host, vault).outcome == "up_to_date"
    listed = {h: s for h, _, s in hosts.configured(vault)}
    assert listed[host] == "current"


@pytest.mark.parametrize(
    "text",
    [
        '[mcp_servers]\nk0maru = { command = "old", args = [], startup_timeout_sec = 20 }\n'
        'other = { command = "x" }\n',
        'mcp_servers = { other = { command = "x" } }\n',
        'mcp_servers.k0maru.command = "old"\nmcp_servers.k0maru.startup_timeout_sec = 9\n',
        "[features]\nhooks = true\n",
    ],
    ids=["inline-entry", "inline-root", "dotted-keys", "no-servers"],
)
def test_codex_every_toml_form(vault: Path, text: str) -> None:
    path = write(vault, ".codex/config.toml", text)
    assert hosts.connect("codex", vault).outcome == "updated"
    data = tomllib.loads(path.read_text())
    entry = data["mcp_servers"]["k0maru"]
    assert entry["command"] == "k0maru" and entry["args"] == ["mcp"]
    old = tomllib.loads(text)
    if "k0maru" in old.get("mcp_servers", {}):  # the user's timeout stays
        assert entry["startup_timeout_sec"] == old["mcp_servers"]["k0maru"]["startup_timeout_sec"]
    if "other" in old.get("mcp_servers", {}):
        assert data["mcp_servers"]["other"] == {"command": "x"}
    assert hosts.connect("codex", vault).outcome == "up_to_date"
    hosts.connect("codex", vault, remove=True)
    if path.exists():
        assert "k0maru" not in tomllib.loads(path.read_text()).get("mcp_servers", {})
    else:  # k0maru's entry was all the file held
        assert set(old) == {"mcp_servers"} and set(old["mcp_servers"]) == {"k0maru"}


def test_claude_desktop_holds_one_entry_per_vault(tmp_path: Path, home: Path) -> None:
    first, second, same_name = (
        tmp_path / "a" / "proj",
        tmp_path / "b" / "other",
        tmp_path / "c" / "proj",
    )
    for v in (first, second, same_name):
        v.mkdir(parents=True)
    config = hosts.claude_desktop_config()
    write(config.parent, config.name, json.dumps({"mcpServers": {"fs": {"command": "fs"}}}))
    for v in (first, second, same_name):
        assert hosts.connect("claude-desktop", v).outcome == "updated"
    servers = json.loads(config.read_text())["mcpServers"]
    vaults = {
        k: cast(str, hosts._vault_of(e)) for k, e in servers.items() if k.startswith("k0maru")
    }
    assert sorted(vaults.values()) == sorted(str(v) for v in (first, second, same_name))
    assert (
        "k0maru-proj" in vaults and "k0maru-other" in vaults and servers["fs"] == {"command": "fs"}
    )
    for v in (first, second, same_name):  # each one idempotent, each one found again
        assert hosts.connect("claude-desktop", v).outcome == "up_to_date"
    hosts.connect("claude-desktop", first, remove=True)
    left = json.loads(config.read_text())["mcpServers"]
    assert str(first) not in json.dumps(left) and str(second) in json.dumps(left)


@pytest.mark.parametrize("host", ["cursor", "codex", "vscode"])
def test_connect_never_writes_through_a_symlinked_folder(
    vault: Path, tmp_path: Path, host: str
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    folder = hosts.PROJECT_FILES[host].split("/")[0]
    (vault / folder).symlink_to(outside, target_is_directory=True)
    with pytest.raises(K0maruError, match="symlink"):
        hosts.connect(host, vault)
    assert list(outside.iterdir()) == []


def test_connect_refuses_a_symlinked_file_and_a_broken_one(vault: Path, tmp_path: Path) -> None:
    target = write(tmp_path, "elsewhere.json", "{}")
    (vault / ".mcp.json").symlink_to(target)
    with pytest.raises(K0maruError, match="symlink"):
        hosts.connect("claude-code", vault)
    assert target.read_text() == "{}"
    (vault / ".mcp.json").unlink()
    write(vault, ".mcp.json", "{ not json")
    with pytest.raises(K0maruError, match="not valid JSON"):
        hosts.connect("claude-code", vault)
    assert (vault / ".mcp.json").read_text() == "{ not json"


@pytest.mark.parametrize("host", ["claude-code"])
def test_hooks_are_installed_next_to_the_users_own(vault: Path, host: str) -> None:
    rel = hosts.HOOK_FILES[host]
    mine = {"matcher": "Write", "hooks": [{"type": "command", "command": "./lint.sh"}]}
    path = write(
        vault,
        rel,
        json.dumps({"permissions": {"allow": []}, "hooks": {"PreToolUse": [mine]}}, indent=2),
    )
    assert hosts.connect_hooks(host, vault).outcome == "updated"
    data = json.loads(path.read_text())
    groups = data["hooks"]["PreToolUse"]
    assert groups[0] == mine and data["permissions"] == {"allow": []}
    assert groups[1]["matcher"] == "Bash"
    assert groups[1]["hooks"][0]["command"] == hosts.HOOK_COMMAND
    assert hosts.connect_hooks(host, vault).outcome == "up_to_date"
    assert hosts.connect_hooks(host, vault, remove=True).outcome == "removed"
    assert json.loads(path.read_text())["hooks"]["PreToolUse"] == [mine]


def test_hosts_without_rewriting_hooks_say_why(vault: Path) -> None:
    for host in ("cursor", "vscode", "claude-desktop", "codex"):
        with pytest.raises(K0maruError, match="cannot run k0maru's command hook"):
            hosts.connect_hooks(host, vault)


def test_codex_gets_no_hook_it_would_never_run_and_list_says_so(
    vault: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Codex takes a rewritten command only with `allow` (#38): `--hooks` is refused with one line
    saying why, before anything is written; `--list` says the hook is not supported there."""
    from k0maru.cli.main import main

    assert main(["connect", "codex", "--hooks", "--vault", str(vault)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len([line for line in err if "error" in line]) == 1
    assert "codex cannot run k0maru's command hook" in err[-1] and "`allow`" in err[-1]
    assert not (vault / ".codex").exists()  # nothing written, the server entry neither
    assert main(["connect", "--list", "--vault", str(vault), "--json"]) == 0
    rows = {(r["host"], r["part"]): r["state"] for r in json.loads(capsys.readouterr().out)}
    assert rows[("codex", "hook")] == "not supported"


def test_a_codex_hook_an_earlier_version_installed_is_listed_and_removed(
    vault: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from k0maru.cli.main import main

    old = json.loads(USER_SETTINGS)
    old["hooks"]["PreToolUse"].append(hosts.HOOK_GROUP)
    path = write(vault, ".codex/hooks.json", json.dumps(old, indent=2))
    assert main(["connect", "codex", "--vault", str(vault)]) == 0
    capsys.readouterr()
    assert main(["connect", "--list", "--vault", str(vault), "--json"]) == 0
    rows = {(r["host"], r["part"]): r["state"] for r in json.loads(capsys.readouterr().out)}
    assert rows[("codex", "hook")].startswith("inactive, never rewrites")
    assert main(["connect", "codex", "--remove", "--vault", str(vault)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert f"removed k0maru's command hook from {path} (the rest of the file kept)" in out
    assert (
        json.loads(path.read_text())["hooks"]["PreToolUse"]
        == json.loads(USER_SETTINGS)["hooks"]["PreToolUse"]
    )


@pytest.mark.slow
@pytest.mark.parametrize("host", ["claude-code", "vscode", "codex", "claude-desktop"])
def test_the_entry_as_written_starts_the_server(
    vault: Path, tmp_path: Path, k0: K0, host: str
) -> None:
    env = {"HOME": str(tmp_path / "home"), "XDG_CONFIG_HOME": str(tmp_path / "home" / ".config")}
    write(vault, "a.md", "# A\n\nwombat\n")
    printed = k0("connect", host, "--vault", str(vault), "--print", env=env)
    r = k0("connect", host, "--vault", str(vault), "--json", env=env)
    assert r.returncode == 0, r.stderr
    path = Path(json.loads(r.stdout)["file"])
    assert path.read_text() == printed.stdout  # --print shows exactly what is written
    name = "k0maru"
    if host == "claude-desktop":
        name = next(k for k in json.loads(path.read_text())["mcpServers"] if k.startswith("k0maru"))
    entry = entry_of(host, path, name)
    # what the host does: expand its workspace variable, find the command on its PATH
    args = [a.replace(hosts.WORKSPACE.get(host, "\0"), str(vault)) for a in entry["args"]]
    command = shutil.which(entry["command"], path=str(Path(sys.executable).parent))
    assert command, entry["command"]

    async def tools() -> list[str]:
        params = StdioServerParameters(command=command, args=args, cwd=str(vault))
        async with stdio_client(params) as (read, write_), ClientSession(read, write_) as session:
            await session.initialize()
            return [t.name for t in (await session.list_tools()).tools]

    assert "recall_memory" in anyio.run(tools)
    removed = k0("connect", host, "--remove", "--vault", str(vault), "--json", env=env)
    assert json.loads(removed.stdout)["outcome"] == "removed"


def test_the_command_line_installs_and_removes_both(
    vault: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from k0maru.cli.main import main

    assert main(["connect", "claude-code", "--hooks", "--vault", str(vault), "--json"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [(Path(x["file"]).name, x["outcome"]) for x in lines] == [
        (".mcp.json", "created"),
        ("settings.json", "created"),
    ]
    settings = json.loads((vault / ".claude" / "settings.json").read_text())
    assert settings["hooks"]["PreToolUse"][0]["hooks"][0]["command"] == hosts.HOOK_COMMAND
    assert main(["connect", "claude-code", "--hooks", "--remove", "--vault", str(vault)]) == 0
    assert capsys.readouterr().out.splitlines() == [
        f"removed: {vault / '.mcp.json'} (it held only k0maru's entry)",
        f"removed: {vault / '.claude' / 'settings.json'} (it held only k0maru's command hook)",
    ]
    assert not (vault / ".mcp.json").exists() and not (vault / ".claude").exists()  # it made them
    assert main(["connect", "cursor", "--hooks", "--vault", str(vault)]) == 2
    assert "cannot run k0maru's command hook" in capsys.readouterr().err
    assert not (vault / ".cursor").exists()  # refused before anything was written


def test_a_symlinked_user_config_is_written_through_its_link(tmp_path: Path, home: Path) -> None:
    """Dotfile managers link ~/.config/Claude/claude_desktop_config.json to their own copy."""
    target = write(tmp_path, "dotfiles/claude.json", '{"mcpServers": {"fs": {"command": "fs"}}}\n')
    target.chmod(0o600)
    config = hosts.claude_desktop_config()
    config.parent.mkdir(parents=True)
    config.symlink_to(target)
    assert hosts.connect("claude-desktop", tmp_path).outcome == "updated"
    assert config.is_symlink() and config.resolve() == target.resolve()
    servers = json.loads(target.read_text())["mcpServers"]
    assert servers["fs"] == {"command": "fs"} and any(k.startswith("k0maru") for k in servers)
    assert oct(target.stat().st_mode & 0o777) == "0o600"
    assert hosts.connect("claude-desktop", tmp_path, remove=True).outcome == "removed"
    assert (
        config.is_symlink() and target.read_text() == '{"mcpServers": {"fs": {"command": "fs"}}}\n'
    )


@pytest.mark.parametrize("host", [*JSON_HOSTS, "codex"])
def test_remove_deletes_the_file_and_folder_connect_created(vault: Path, host: str) -> None:
    assert hosts.connect(host, vault).outcome == "created"
    path = vault / hosts.PROJECT_FILES[host]
    assert hosts.connect(host, vault, remove=True).outcome == "removed"
    assert not path.exists()
    if "/" in hosts.PROJECT_FILES[host]:
        assert not path.parent.exists()


def test_remove_keeps_a_folder_with_the_users_other_files(vault: Path) -> None:
    write(vault, ".vscode/settings.json", "{}\n")
    hosts.connect("vscode", vault)
    hosts.connect("vscode", vault, remove=True)
    assert not (vault / ".vscode" / "mcp.json").exists()
    assert (vault / ".vscode" / "settings.json").read_text() == "{}\n"


def test_remove_gives_back_a_file_that_had_no_servers_byte_for_byte(vault: Path) -> None:
    before = '{\n  "other": true\n}\n'
    path = write(vault, ".mcp.json", before)
    hosts.connect("claude-code", vault)
    hosts.connect("claude-code", vault, remove=True)
    assert path.read_text() == before  # no empty `mcpServers` left behind


USER_SETTINGS = """{
  "permissions": {"allow": ["Bash(npm run lint)"]},
  "hooks": {
    "PreToolUse": [
      {"matcher": "Write|Edit", "hooks": [{"type": "command", "command": "./fmt.sh"}]},
      {
        "matcher": "Bash",
          "hooks": [ {"type": "command", "command": "./guard.sh", "timeout": 5} ]
      }
    ]
  }
}
"""


@pytest.mark.parametrize("host", ["claude-code"])
def test_hooks_leave_the_users_entries_byte_for_byte(vault: Path, host: str) -> None:
    path = write(vault, hosts.HOOK_FILES[host], USER_SETTINGS)
    assert hosts.connect_hooks(host, vault).outcome == "updated"
    after = path.read_text()
    own = USER_SETTINGS.split('"PreToolUse": [\n')[1].split("\n    ]")[0]
    assert own + "," in after  # the user's two groups, as written
    assert json.loads(after)["hooks"]["PreToolUse"][2]["hooks"][0]["command"] == "k0maru-hook"
    assert hosts.connect_hooks(host, vault).outcome == "up_to_date"
    assert hosts.connect_hooks(host, vault, remove=True).outcome == "removed"
    assert path.read_text() == USER_SETTINGS


def test_an_old_hook_entry_is_replaced_without_touching_the_users(vault: Path) -> None:
    old = {
        "matcher": "Bash",
        "hooks": [{"type": "command", "command": "k0maru-hook", "timeout": 3}],
    }
    text = USER_SETTINGS.replace(
        '"PreToolUse": [\n', '"PreToolUse": [\n      ' + json.dumps(old) + ",\n"
    )
    path = write(vault, ".claude/settings.json", text)
    assert hosts.connect_hooks("claude-code", vault).outcome == "updated"
    groups = json.loads(path.read_text())["hooks"]["PreToolUse"]
    assert [g["hooks"][0].get("timeout") for g in groups] == [10, None, 5]
    assert path.read_text() == text.replace('"timeout": 3', '"timeout": 10')  # updated in place
    hosts.connect_hooks("claude-code", vault, remove=True)
    assert path.read_text() == USER_SETTINGS


def test_remove_takes_the_hook_out_and_list_shows_hooks(
    vault: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from k0maru.cli.main import main

    path = write(vault, ".claude/settings.json", USER_SETTINGS)
    assert main(["connect", "claude-code", "--hooks", "--vault", str(vault)]) == 0
    capsys.readouterr()
    assert main(["connect", "--list", "--vault", str(vault), "--json"]) == 0
    rows = {(r["host"], r["part"]): r["state"] for r in json.loads(capsys.readouterr().out)}
    assert rows[("claude-code", "server")] == "current"
    assert (
        rows[("claude-code", "hook")] == "installed" and rows[("codex", "hook")] == "not supported"
    )
    assert main(["connect", "claude-code", "--remove", "--vault", str(vault)]) == 0  # no --hooks
    assert capsys.readouterr().out.splitlines() == [
        f"removed: {vault / '.mcp.json'} (it held only k0maru's entry)",
        f"removed k0maru's command hook from {path} (the rest of the file kept)",
    ]
    assert path.read_text() == USER_SETTINGS
    assert main(["connect", "--list", "--vault", str(vault)]) == 0
    listed = capsys.readouterr().out
    assert "claude-code hook" in listed and "not installed" in listed


def test_comments_inside_k0marus_vscode_entry_survive_an_update(vault: Path) -> None:
    text = """{
  "servers": {
    "k0maru": {
      // keep the index warm
      "type": "stdio",
      "command": "old-k0maru", /* from pipx */
      "args": ["mcp"],
      "env": {"K0MARU_EMBED": "false"} // no GPU here
    }
  }
}
"""
    path = write(vault, ".vscode/mcp.json", text)
    assert hosts.connect("vscode", vault).outcome == "updated"
    after = path.read_text()
    for comment in ("// keep the index warm", "/* from pipx */", "// no GPU here"):
        assert comment in after
    entry = entry_of("vscode", path)
    assert entry["command"] == "k0maru" and entry["args"][-1] == "${workspaceFolder}"
    assert entry["env"] == {"K0MARU_EMBED": "false"}


def test_a_symlink_that_stays_in_the_repository_is_followed_and_kept(vault: Path) -> None:
    target = write(vault, "config/agents/mcp.json", '{"mcpServers": {}}\n')
    (vault / ".mcp.json").symlink_to(Path("config/agents/mcp.json"))
    assert hosts.connect("claude-code", vault).outcome == "updated"
    assert (vault / ".mcp.json").is_symlink()
    assert entry_of("claude-code", target)["command"] == "k0maru"
