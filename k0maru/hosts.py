"""Agent hosts' MCP configuration: where each host reads the servers of a project, in what format,
and an edit that adds, updates or removes k0maru's entry while leaving every other byte of the file
as it was.

| host           | file                                        | table                  | command
|
|----------------|---------------------------------------------|------------------------|-------------------|
| claude-code    | .mcp.json (shared with the team)            | mcpServers             | k0maru on
PATH    | | cursor         | .cursor/mcp.json (shared)                   | mcpServers             |
k0maru on PATH    | | vscode         | .vscode/mcp.json (shared, JSONC)            | servers (type
"stdio") | k0maru on PATH    | | codex          | .codex/config.toml (trusted projects)       |
[mcp_servers.k0maru]   | k0maru on PATH    | | claude-desktop | the user's
claude_desktop_config.json       | mcpServers, per vault  | this Python       |

Project files run `k0maru` from PATH and name no path of this machine, so the file works on a
teammate's machine: the shared JSON files name the workspace folder with the host's own variable;
Codex has none, but starts a server in the folder it runs in (inside the project whose config it
read), where `k0maru mcp` finds the vault as every command does. The user-level file carries this
machine's absolute paths. The user's own fields on k0maru's entry (`env`, `timeout`, Codex
`startup_timeout_sec`, ...) and the comments inside it are kept, as are the file's formatting,
comments and mode. A project file is written only as a regular file inside the vault, never through
a symlink leading out of it (one that stays inside is followed); the user-level file is written
through its symlink (a dotfile manager's), which stays. `remove` undoes what connect did, byte for
byte: a table left empty goes, and a file left with nothing in it is deleted, except one that
connect found there empty (noted in `.k0maru/connect.json`).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import shutil
import stat
import sys
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from k0maru import jsonedit
from k0maru.errors import K0maruError
from k0maru.fsutil import atomic_write_text, ensure_state_dir, read_text
from k0maru.layout import STATE_DIR

NAME = "k0maru"
HOSTS = ("claude-code", "cursor", "vscode", "codex", "claude-desktop")
PROJECT_FILES = {
    "claude-code": ".mcp.json",
    "cursor": ".cursor/mcp.json",
    "vscode": ".vscode/mcp.json",
    "codex": ".codex/config.toml",
}
SHARED = {"claude-code", "cursor", "vscode"}  # files a team commits
PORTABLE = {*SHARED, "codex"}  # project files: k0maru from PATH, no path of this machine
WORKSPACE = {  # each host's variable for the folder it opened
    "claude-code": "${CLAUDE_PROJECT_DIR:-.}",
    "cursor": "${workspaceFolder}",
    "vscode": "${workspaceFolder}",
}
HOOK_FILES = {"claude-code": ".claude/settings.json"}
OLD_HOOK_FILES = {"codex": ".codex/hooks.json"}  # installed by earlier versions: only taken out
NO_HOOKS = {
    "codex": "Codex takes a rewritten command only with `allow`, which would waive its own "
    "approval, so the hook would never rewrite a command there",
    "cursor": "Cursor's beforeShellExecution hook can allow, deny or ask, not rewrite a command",
    "vscode": "VS Code has no hook that rewrites the agent's terminal commands",
    "claude-desktop": "Claude Desktop runs no shell commands",
}
HOOK_COMMAND = "k0maru-hook"
NOTHING_WRITTEN = "nothing was written"  # the hint of a file connect will not edit


@dataclass(frozen=True, slots=True)
class Change:
    host: str
    path: Path
    outcome: str  # created | updated | up_to_date | removed | absent
    text: str  # the whole file as written (or as it would be)
    warning: str | None = None
    file_removed: bool = False  # removed: the file went too (it held only what connect wrote)


def table_of(host: str) -> str:
    return "servers" if host == "vscode" else "mcpServers"


def server_entry(host: str, vault: Path) -> dict[str, Any]:
    """k0maru's fields of the entry: portable in project files, this Python's absolute path
    elsewhere."""
    if host in SHARED:
        entry: dict[str, Any] = {"command": NAME, "args": ["mcp", "--vault", WORKSPACE[host]]}
    elif host == "codex":  # started in the folder Codex runs in: the vault is found from there
        entry = {"command": NAME, "args": ["mcp"]}
    else:
        entry = {"command": sys.executable, "args": ["-m", NAME, "mcp", "--vault", str(vault)]}
    return {"type": "stdio", **entry} if host == "vscode" else entry


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


def _inside(vault: Path, rel: str) -> Path:
    """`vault/rel`, refused when a folder on the way or the file itself is a symlink that leads out
    of the vault, or the file is not a regular file: connect writes inside the repository only (a
    link that stays inside is followed, and kept)."""
    path, root = vault, vault.resolve()
    for part in Path(rel).parts:
        path = path / part
        if path.is_symlink() and not path.resolve().is_relative_to(root):
            raise K0maruError(
                f"{path} is a symlink out of the repository",
                hint="connect writes only inside it: replace the link with a folder (or file) of "
                "its own, nothing was written",
            )
    if path.exists() and not path.is_file():
        raise K0maruError(f"{path} is not a regular file", hint=NOTHING_WRITTEN)
    return path


def config_path(host: str, vault: Path) -> Path:
    if host == "claude-desktop":
        path = claude_desktop_config()
        if path.exists() and not stat.S_ISREG(path.stat().st_mode):  # through its symlink
            raise K0maruError(f"{path} is not a regular file", hint=NOTHING_WRITTEN)
        return path
    if host not in PROJECT_FILES:
        raise K0maruError(f"unknown host {host[:40]!r}", hint=f"use one of {', '.join(HOSTS)}")
    return _inside(vault, PROJECT_FILES[host])


def _read(path: Path) -> str | None:
    try:
        return read_text(path)
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        raise K0maruError(
            f"{path}: cannot read it ({exc})",
            hint="fix or move it, then run `k0maru connect` again",
        ) from None


def _write(path: Path, old: str | None, new: str) -> None:
    """Atomically, with the old file's mode (a new file: the user's umask); a symlink's target is
    written and the link stays."""
    path = Path(os.path.realpath(path))
    if old is not None:
        mode = stat.S_IMODE(path.stat().st_mode)
    else:
        umask = os.umask(0)
        os.umask(umask)
        mode = 0o666 & ~umask
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(path, new)
    os.chmod(path, mode)


# ---- JSON hosts
# ------------------------------------------------------------------------------------------
def _parse_json(text: str, path: Path) -> Any:
    try:
        data = jsonedit.parse(text).value
    except jsonedit.JSONCError as exc:
        raise K0maruError(
            f"{path}: not valid JSON ({exc})", hint="fix it by hand, nothing was written"
        ) from None
    if not isinstance(data, dict):
        raise K0maruError(f"{path}: expected a JSON object at the top", hint=NOTHING_WRITTEN)
    return data


def _vault_of(entry: Any) -> str | None:
    args = entry.get("args") if isinstance(entry, dict) else None
    if isinstance(args, list) and "--vault" in args[:-1]:
        value = args[args.index("--vault") + 1]
        return value if isinstance(value, str) else None
    return None


def entry_name(
    host: str, vault: Path, servers: dict[str, Any], removing: bool = False
) -> str | None:
    """The entry's key: `k0maru`, or for Claude Desktop (one file for every project) one per
    vault."""
    if host != "claude-desktop":
        return NAME
    for key, value in servers.items():
        if key.startswith(NAME) and _vault_of(value) == str(vault):
            return key
    if removing:
        return None
    base = f"{NAME}-" + (re.sub(r"[^a-z0-9]+", "-", vault.name.lower()).strip("-") or "vault")
    if base in servers:  # another project with the same folder name
        base += "-" + hashlib.sha1(str(vault).encode()).hexdigest()[:6]
    return base


def _merge_json(host: str, old: str | None, vault: Path, path: Path, remove: bool) -> str:
    text = old or ""
    data = _parse_json(text, path)
    table = table_of(host)
    servers = data.get(table, {})
    if not isinstance(servers, dict):
        raise K0maruError(f"{path}: `{table}` is not an object", hint=NOTHING_WRITTEN)
    name = entry_name(host, vault, servers, removing=remove)
    if remove:
        if name is None or name not in servers:
            return text
        text = jsonedit.delete(text, [table, name])
        return _without_emptied(text, [table], _note_on(vault, path))
    assert name is not None
    current = servers.get(name)
    if not isinstance(current, dict):
        return jsonedit.set_member(text, [table, name], server_entry(host, vault))
    for key, value in server_entry(host, vault).items():  # field by field: comments inside stay
        if current.get(key) != value:
            text = jsonedit.set_member(text, [table, name, key], value)
    return text


# ---- TOML (Codex)
# ----------------------------------------------------------------------------------------
def _merge_toml(old: str | None, vault: Path, path: Path, remove: bool) -> str:
    """Connect appends k0maru's own `[mcp_servers.k0maru]` table as text, in the file's line ending
    and after a blank line (with no final newline where the file had none); remove cuts exactly that
    back out. Other forms (an inline `mcp_servers`, an entry already there) go through tomlkit."""
    import tomlkit
    from tomlkit.exceptions import TOMLKitError

    text = old or ""
    try:
        doc = tomlkit.parse(text)
    except TOMLKitError as exc:
        raise K0maruError(
            f"{path}: not valid TOML ({exc})", hint="fix it by hand, nothing was written"
        ) from None
    servers = doc.get("mcp_servers")
    if servers is not None and not isinstance(servers, dict):
        raise K0maruError(f"{path}: `mcp_servers` is not a table", hint=NOTHING_WRITTEN)
    if remove:
        if servers is None or NAME not in servers:
            return text
        return _toml_without_entry(text, doc, _note_on(vault, path))
    entry = server_entry("codex", vault)
    if NAME not in (servers or {}) and not isinstance(servers, tomlkit.items.InlineTable):
        appended = _toml_appended(text, entry)
        if _toml_data(appended) == _toml_with(text, entry):
            return appended
    if servers is None:
        doc["mcp_servers"] = outer = tomlkit.table(is_super_table=True)
        servers = outer
    _set_toml_entry(servers, entry, path)
    return _in_line_ending(text, tomlkit.dumps(doc))


def _newline(text: str) -> str:
    """The file's line ending: that of its first line (LF for a file of one line)."""
    at = text.find("\n")
    return "\r\n" if at > 0 and text[at - 1] == "\r" else "\n"


def _in_line_ending(old: str, new: str) -> str:
    """`new` (tomlkit's, whose new lines end in LF) with the CRLF line ending of a CRLF file."""
    if _newline(old) == "\n" or re.search(r"(?<!\r)\n", old):
        return new
    return re.sub(r"(?<!\r)\n", "\r\n", new)


def _toml_appended(text: str, entry: dict[str, Any]) -> str:
    """`text` with k0maru's table appended: after a blank line unless the file is blank, ending in
    a newline only where the file did (or was empty)."""
    import tomlkit

    nl = _newline(text)
    lines = [f"[mcp_servers.{NAME}]"]
    lines += [f"{key} = {tomlkit.item(value).as_string()}" for key, value in entry.items()]
    block = nl.join(lines)
    if not text.strip():
        return text + block + nl
    if text.endswith("\n"):
        return text + nl + block + nl
    return text + nl + nl + block


_OUR_HEADER = re.compile(rf"[ \t]*\[[ \t]*mcp_servers[ \t]*\.[ \t]*{NAME}[ \t]*\][ \t]*(#.*)?")
_ANY_HEADER = re.compile(r"[ \t]*\[")
_FILLER = re.compile(r"[ \t]*(#.*)?")  # a blank or comment line


def _toml_cut(text: str) -> str:
    """`text` without k0maru's `[mcp_servers.k0maru]` table as `_toml_appended` wrote it: its
    lines up to the next table (the blank and comment lines at its end stay), the blank line before
    it, and the newline added before it where the file had no final newline."""
    lines = text.splitlines(keepends=True)
    starts = [i for i, line in enumerate(lines) if _OUR_HEADER.fullmatch(line.rstrip("\r\n"))]
    if len(starts) != 1:
        return text
    start = end = starts[0]
    end += 1
    while end < len(lines) and not _ANY_HEADER.match(lines[end]):
        end += 1
    while end > start + 1 and _FILLER.fullmatch(lines[end - 1].rstrip("\r\n")):
        end -= 1
    if start > 0 and not lines[start - 1].strip():
        start -= 1
    head, tail = "".join(lines[:start]), "".join(lines[end:])
    if not tail and not lines[end - 1].endswith("\n") and head.endswith("\n"):
        head = head.removesuffix("\n").removesuffix("\r")
    return head + tail


def _toml_data(text: str) -> dict[str, Any] | None:
    """The parsed document, with an empty `mcp_servers` dropped; None where it does not parse."""
    import tomllib

    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return None
    if data.get("mcp_servers") == {}:
        del data["mcp_servers"]
    return data


def _toml_with(text: str, entry: dict[str, Any] | None) -> dict[str, Any] | None:
    """What `text` parses to with k0maru's entry set to `entry` (None: taken out)."""
    import tomllib

    data = tomllib.loads(text)
    servers = data.setdefault("mcp_servers", {})
    servers.pop(NAME, None)
    if entry is not None:
        servers[NAME] = entry
    elif not servers:
        del data["mcp_servers"]
    return data


def _toml_without_entry(text: str, doc: Any, note: dict[str, Any]) -> str:
    """`text` without k0maru's entry: the table connect appended cut out as text, any other form
    through tomlkit (an `mcp_servers` left empty goes, unless connect found it there empty); a file
    connect found blank gets its text back."""
    import tomlkit

    new = _toml_cut(text)
    if new == text or _toml_data(new) != _toml_with(text, None):
        del doc["mcp_servers"][NAME]
        if not doc["mcp_servers"] and ["mcp_servers"] not in note.get("kept", []):
            del doc["mcp_servers"]
        new = _in_line_ending(text, tomlkit.dumps(doc))
    blank = note.get("blank")
    return blank if isinstance(blank, str) and _empty(new) else new


def _toml_found_empty(text: str | None) -> dict[str, Any]:
    """The note for a Codex file that connect adds k0maru's entry to: its text when blank, or an
    empty `mcp_servers` it holds."""
    import tomllib

    if text is None:
        return {}
    if not text.strip():
        return {"blank": text}
    servers = tomllib.loads(text).get("mcp_servers")
    return {"kept": [["mcp_servers"]]} if servers == {} else {}


def _set_toml_entry(servers: Any, entry: dict[str, Any], path: Path) -> None:
    """k0maru's entry put in the `mcp_servers` table, in the table's own form (inline or not); of an
    entry already there only k0maru's own fields change."""
    import tomlkit

    if NAME not in servers:
        if isinstance(servers, tomlkit.items.InlineTable):
            inline = tomlkit.inline_table()
            inline.update(entry)
            servers[NAME] = inline
        else:
            servers[NAME] = _toml_table(entry)
        return
    current = servers[NAME]
    if not isinstance(current, dict):
        raise K0maruError(f"{path}: `mcp_servers.{NAME}` is not a table", hint=NOTHING_WRITTEN)
    for key, value in entry.items():
        if current.get(key) != value:
            current[key] = value


def _toml_table(entry: dict[str, Any]) -> Any:
    import tomlkit

    table = tomlkit.table()
    for key, value in entry.items():
        table[key] = value
    return table


# ---- connect
# ---------------------------------------------------------------------------------------------
def connect(host: str, vault: Path, write: bool = True, remove: bool = False) -> Change:
    """Add or update (or with `remove`, take out) k0maru in `host`'s config for `vault`; with
    `write` False, only say what the file would be. Remove takes out k0maru's entry, and the table
    and file connect created for it (one it found there empty stays: `_store`)."""
    path = config_path(host, vault)
    old = _read(path)
    merge = _merge_toml if host == "codex" else partial(_merge_json, host)
    new = merge(old, vault, path, remove)
    gone = remove and old is not None and new != old and _deletes(vault, path, new)
    if write:
        _write_entry(host, vault, path, old, new, remove)
    if remove:
        outcome = "absent" if old is None or new == old else "removed"
        return Change(host, path, outcome, new if old is not None else "", None, gone)
    return Change(host, path, _outcome(old, new), new, _not_on_path(host))


def _outcome(old: str | None, new: str) -> str:
    """What adding or updating did to a file that held `old` (None: there was none)."""
    return "up_to_date" if new == old else "created" if old is None else "updated"


def _write_entry(
    host: str, vault: Path, path: Path, old: str | None, new: str, remove: bool
) -> None:
    """Store the config file connect merged, where it differs from what was there (removing from
    no file writes nothing); for Codex, also the state folder `k0maru mcp` finds the vault by when
    run in a subfolder."""
    if new != (old or "") and not (remove and old is None):
        added = not remove and _entry(host, vault, old or "") is None
        _store(host, vault, path, old, new, [table_of(host)] if added else [], remove)
    if host == "codex" and not remove:
        ensure_state_dir(vault)


def _not_on_path(host: str) -> str | None:
    """The warning for a host that starts `k0maru mcp` from PATH when it is not on PATH here."""
    if host not in PORTABLE or shutil.which(NAME) is not None:
        return None
    return (
        f"`{NAME}` is not on PATH here; the host starts `{NAME} mcp` from PATH (install it with "
        "pipx or activate its environment before starting the host)"
    )


def _empty(text: str) -> bool:
    """Nothing left in the file: no member, no comment."""
    return re.sub(r"\s", "", text) in ("", "{}")


def _found_blank(note: dict[str, Any]) -> bool:
    """Whether connect found the file its `note` is on there but empty (remove then keeps it)."""
    return "blank" in note or [] in note.get("kept", [])


def _deletes(vault: Path, path: Path, new: str) -> bool:
    """Whether removing k0maru leaves `path` to be deleted (`_save`): `new` is empty and the file
    is a regular one that connect did not find there empty."""
    return _empty(new) and not path.is_symlink() and not _found_blank(_note_on(vault, path))


def _save(path: Path, old: str | None, new: str, user_file: bool, keep: bool = False) -> None:
    """Write `new`; a file left empty is deleted instead (a regular file, never a symlink, nor one
    that connect found there empty: `keep`), and so is a project folder (`.cursor/`, ...) that it
    leaves empty."""
    if keep or not _empty(new) or path.is_symlink():
        _write(path, old, new)
        return
    path.unlink(missing_ok=True)
    if not user_file:
        with contextlib.suppress(OSError):  # not empty: the user's other files stay
            path.parent.rmdir()


# ---- what connect found empty, for remove to keep
# ---------------------------------------------------------------------------
# connect puts k0maru's entry inside containers (the file, `hooks`, `PreToolUse`, `mcpServers`),
# creating those that are not there, and remove takes out those it leaves empty. A container that
# was there but empty looks the same after connect as one it created, so connect notes it in
# `.k0maru/connect.json` (this machine's, kept out of git) and remove keeps it, byte for byte.
RECORD = "connect.json"


def _record(vault: Path) -> dict[str, Any]:
    try:
        data = json.loads(read_text(vault / STATE_DIR / RECORD))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _note_on(vault: Path, path: Path) -> dict[str, Any]:
    """What connect noted about `path`: `kept`, the containers it found empty (`[]`: the file), or
    `blank`, the file's text when it held only whitespace."""
    note = _record(vault).get(str(path))
    return note if isinstance(note, dict) else {}


def _found_empty(text: str | None, keys: list[str]) -> dict[str, Any]:
    """The note for a file that connect adds k0maru's entry to under `keys`."""
    if text is None:
        return {}
    if not text.strip():
        return {"blank": text}
    kept = []
    for depth in range(len(keys) + 1):
        node = jsonedit.find(text, keys[:depth])
        if node is not None and jsonedit.is_blank(text, node):
            kept.append(keys[:depth])
    return {"kept": kept} if kept else {}


def _set_note(vault: Path, path: Path, note: dict[str, Any]) -> None:
    """The note on `path` replaced with `note` (`{}`: none); the record is written only when that
    changes it."""
    record = _record(vault)
    if record.get(str(path), {}) == note:
        return
    record.pop(str(path), None)
    if note:
        record[str(path)] = note
    atomic_write_text(ensure_state_dir(vault) / RECORD, json.dumps(record, indent=2) + "\n")


def _store(
    host: str, vault: Path, path: Path, old: str | None, new: str, added: list[str], remove: bool
) -> None:
    """Write `new` (see `_save`) and keep the note on `path` current: connect that added k0maru's
    entry under the containers `added` notes those it found empty; remove uses the note up, keeping
    a file that connect found there empty."""
    note = _note_on(vault, path)
    if remove or added:
        found = _toml_found_empty(old) if path.suffix == ".toml" else _found_empty(old, added)
        _set_note(vault, path, {} if remove else found)
    _save(path, old, new, host == "claude-desktop", remove and _found_blank(note))


def _without_emptied(text: str, keys: list[str], note: dict[str, Any]) -> str:
    """`text` without the containers on `keys` that taking k0maru's entry out left empty, except
    those connect found there empty; a file connect found blank gets its text back."""
    kept = note.get("kept", [])
    for depth in range(len(keys), 0, -1):
        node = jsonedit.find(text, keys[:depth])
        if node is None or not jsonedit.is_blank(text, node) or keys[:depth] in kept:
            break
        text = jsonedit.delete(text, keys[:depth])
    blank = note.get("blank")
    return blank if isinstance(blank, str) and _empty(text) else text


def _is_our_hook(hook: Any) -> bool:
    """The hook object k0maru writes: a command hook running exactly `k0maru-hook` (a timeout of its
    own, or the user's fields beside it, do not matter)."""
    return (
        isinstance(hook, dict)
        and hook.get("type") == "command"
        and hook.get("command") == HOOK_COMMAND
    )


def _our_hooks(groups: list[Any]) -> list[tuple[int, int]]:
    """(group, hook) indexes of k0maru's hook objects, in the `Bash` groups where k0maru puts
    them."""
    return [
        (g, h)
        for g, group in enumerate(groups)
        if isinstance(group, dict)
        and group.get("matcher") == "Bash"
        and isinstance(group.get("hooks"), list)
        for h, hook in enumerate(group["hooks"])
        if _is_our_hook(hook)
    ]


def hook_file(host: str, vault: Path, removing: bool = False) -> Path:
    """The file holding `host`'s command hooks, or one line saying why the host has none; `removing`
    also finds the hook file of a host that earlier versions installed the hook for (Codex)."""
    if removing and host in OLD_HOOK_FILES:
        return _inside(vault, OLD_HOOK_FILES[host])
    if host not in HOOK_FILES:
        raise K0maruError(
            f"{host} cannot run k0maru's command hook: {NO_HOOKS.get(host, 'unknown host')}",
            hint="the server's instructions ask the agent to use `k0maru offload` instead",
        )
    return _inside(vault, HOOK_FILES[host])


HOOK: dict[str, Any] = {"type": "command", "command": HOOK_COMMAND, "timeout": 10}
HOOK_GROUP: dict[str, Any] = {"matcher": "Bash", "hooks": [HOOK]}
HOOKS_PATH = ["hooks", "PreToolUse"]


def _hook_groups(text: str, path: Path) -> list[Any]:
    hooks = _parse_json(text, path).get("hooks", {})
    if not isinstance(hooks, dict) or not isinstance(hooks.get("PreToolUse", []), list):
        raise K0maruError(f"{path}: `hooks.PreToolUse` is not a list", hint=NOTHING_WRITTEN)
    return list(hooks.get("PreToolUse", []))


def _drop_hooks(text: str, groups: list[Any], ours: list[tuple[int, int]]) -> str:
    """`text` without the hook objects `ours`, and without each group that held nothing else; a
    group holding the user's hooks (or fields) too stays with them, byte for byte."""
    for g in sorted({g for g, _ in ours}, reverse=True):
        mine = [h for group, h in ours if group == g]
        if len(mine) == len(groups[g]["hooks"]) and set(groups[g]) <= {"matcher", "hooks"}:
            text = jsonedit.delete(text, [*HOOKS_PATH, g])
            continue
        for h in reversed(mine):
            text = jsonedit.delete(text, [*HOOKS_PATH, g, "hooks", h])
    return text


def _without_hook(text: str, groups: list[Any], note: dict[str, Any]) -> str:
    """`text` without k0maru's hook objects, and without the list and `hooks` object when they are
    left empty (unless connect found them there empty)."""
    ours = _our_hooks(groups)
    if not ours:
        return text
    return _without_emptied(_drop_hooks(text, groups, ours), HOOKS_PATH, note)


def _with_hook(text: str, groups: list[Any]) -> str:
    """`text` with k0maru's group added as the last of `hooks.PreToolUse`, or, when its hook is
    there, with that hook's own fields brought up to date in place (and any second copy taken
    out)."""
    ours = _our_hooks(groups)
    if not ours:
        if jsonedit.find(text, HOOKS_PATH) is not None:
            return jsonedit.append_item(text, HOOKS_PATH, HOOK_GROUP)
        return jsonedit.set_member(text, HOOKS_PATH, [HOOK_GROUP])
    text = _drop_hooks(text, groups, ours[1:])
    g, h = ours[0]
    for key, value in HOOK.items():
        if groups[g]["hooks"][h].get(key) != value:
            text = jsonedit.set_member(text, [*HOOKS_PATH, g, "hooks", h, key], value)
    return text


def connect_hooks(host: str, vault: Path, write: bool = True, remove: bool = False) -> Change:
    """Install (or remove) the PreToolUse hook that routes test/build/lint commands through `k0maru
    offload` (`k0maru-hook`, k0maru/agent_hook.py), for the hosts whose hooks can rewrite a command.
    Only k0maru's own group and hook object are added or taken out: what the user put beside or
    inside them keeps its bytes."""
    path = hook_file(host, vault, removing=remove)
    old = _read(path)
    text = old or ""
    groups = _hook_groups(text, path)
    if remove:
        new = _without_hook(text, groups, _note_on(vault, path))
        outcome = "removed" if new != text else "absent"
    else:
        new = _with_hook(text, groups)
        outcome = "up_to_date" if new == old else "created" if old is None else "updated"
    gone = remove and new != text and _deletes(vault, path, new)
    if write and new != text:
        added = [] if remove or _our_hooks(groups) else HOOKS_PATH
        _store(host, vault, path, old, new, added, remove)
    warning = None
    if not remove and shutil.which(HOOK_COMMAND) is None:
        warning = f"`{HOOK_COMMAND}` is not on PATH here; the host runs it from PATH"
    return Change(host, path, outcome, new, warning, gone)


def hooks_configured(vault: Path) -> list[tuple[str, Path, str]]:
    """(host, hook file, state) for the hosts with command hooks: 'installed', 'not installed',
    'no file', or why the file cannot be read; for Codex, 'not supported' or, for a hook an earlier
    version installed, that it is inactive and how to take it out."""
    out = []
    for host, rel in (HOOK_FILES | OLD_HOOK_FILES).items():
        try:
            path = hook_file(host, vault, removing=True)
            text = _read(path)
            found = text is not None and bool(_our_hooks(_hook_groups(text, path)))
            state = "installed" if found else "not installed" if text is not None else "no file"
        except K0maruError as exc:
            path, state = vault / rel, exc.reason
        if host in OLD_HOOK_FILES:
            state = (
                f"inactive, never rewrites: `k0maru connect {host} --remove` takes it out"
                if state == "installed"
                else "not supported"
            )
        out.append((host, path, state))
    return out


def _entry(host: str, vault: Path, text: str) -> Any:
    try:
        if host == "codex":
            import tomllib

            return tomllib.loads(text).get("mcp_servers", {}).get(NAME)
        servers = jsonedit.parse(text).value.get(table_of(host), {})
        name = entry_name(host, vault, servers, removing=True)
        return servers.get(name) if name else None
    except (ValueError, AttributeError, K0maruError):
        return None


def configured(vault: Path) -> list[tuple[str, Path, str]]:
    """(host, file, state) for every host: 'current', 'other vault or command', 'not configured',
    'no file'."""
    out = []
    for host in HOSTS:
        try:
            path = config_path(host, vault)
        except K0maruError as exc:
            out.append((host, vault / PROJECT_FILES.get(host, ""), exc.reason))
            continue
        text = _read(path)
        if text is None:
            out.append((host, path, "no file"))
            continue
        found = _entry(host, vault, text)
        want = server_entry(host, vault)
        state = (
            "not configured"
            if not found
            else "current"
            if all(found.get(k) == v for k, v in want.items())
            else "other vault or command"
        )
        out.append((host, path, state))
    return out
