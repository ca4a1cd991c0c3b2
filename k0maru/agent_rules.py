"""Claude Code's own permission rules for the Bash tool, read as the host applies them, so that
`k0maru-hook` answers `allow` only for a command line the user's rules allow already, segment by
segment.

The rules come from the `permissions` lists (`allow`, `ask`, `deny`) of the user's settings
(`$CLAUDE_CONFIG_DIR` or `~/.claude/settings.json`), the project's `.claude/settings.local.json`
and `.claude/settings.json`, and the managed settings an administrator installs. The project's
shared file grants nothing until the user trusted the folder (Claude Code applies its allow rules
only then, measured on 2.1.332), and managed `allowManagedPermissionRulesOnly` leaves only managed
allow rules. Rules given on the host's command line cannot be read here: the hook never needs them,
because the host still applies every deny and ask rule to the rewritten line, whose commands are the
user's own. A rule is `Bash` (every command), `Bash(npm run test:*)` (that prefix, then a space or
the end), `Bash(git * main)` (`*` is any text; a trailing ` *` also matches nothing) or
`Bash(pytest -q)` (that command). An allow rule is matched strictly on the command's text, a deny
or ask rule loosely (also after leading words such as `FOO=1`, `time` or a folder in front of the
command), so any doubt goes the user's way. Imported only by the hook, for a line it would rewrite.
"""

from __future__ import annotations

import json
import os
import re
import stat

MANAGED = (
    "/etc/claude-code/managed-settings.json",
    "/Library/Application Support/ClaudeCode/managed-settings.json",
)
KINDS = ("allow", "ask", "deny")
READ_ONLY = {"pwd", "true"}  # allowed anyway, whatever the rules say
MAX_STATE_BYTES = 64 << 20  # the host's own state file, where it records trusted folders


MAX_SETTINGS_BYTES = 4 << 20  # a settings file past this is not read whole: its rules are unknown


class Unreadable(Exception):
    """A settings file exists but cannot be read: its deny rules are unknown."""


def _read(path: str, limit: int = MAX_SETTINGS_BYTES) -> bytes | None:
    """A settings file's bytes, None when there is none. A FIFO, socket or device there is refused
    without blocking (`fsutil.read_regular` does the same, but importing it would slow every hook
    call), as is a file past MAX_SETTINGS_BYTES: either way its rules are unknown."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise Unreadable(path) from exc
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise Unreadable(path)
        data = os.read(fd, limit + 1)
        while len(data) <= limit and (more := os.read(fd, 1 << 20)):
            data += more
        if len(data) > limit:
            raise Unreadable(path)
        return data
    except OSError as exc:
        raise Unreadable(path) from exc
    finally:
        os.close(fd)


def _user_folder() -> str:
    return os.environ.get("CLAUDE_CONFIG_DIR") or os.path.join(os.path.expanduser("~"), ".claude")


def managed_files() -> list[str]:
    """The managed settings an administrator installs, drop-in folders included."""
    files = []
    for managed in MANAGED:
        files.append(managed)
        drop_ins = managed[: -len(".json")] + ".d"
        if os.path.isdir(drop_ins):
            files += [os.path.join(drop_ins, n) for n in sorted(os.listdir(drop_ins))]
    return [f for f in files if f.endswith(".json")]


def trusted(project: str) -> bool:
    """Whether the user accepted Claude Code's trust dialog for `project` (its state file,
    `$CLAUDE_CONFIG_DIR/.claude.json` or `~/.claude.json`): only then do the project's shared
    settings grant anything. A state file it cannot read counts as no trust."""
    user = os.environ.get("CLAUDE_CONFIG_DIR")
    path = os.path.join(user, ".claude.json") if user else os.path.expanduser("~/.claude.json")
    try:
        data = _read(path, MAX_STATE_BYTES)
        state = json.loads(data) if data else {}
    except (Unreadable, ValueError):
        return False
    projects = state.get("projects") if isinstance(state, dict) else None
    entry = projects.get(os.path.abspath(project)) if isinstance(projects, dict) else None
    return isinstance(entry, dict) and entry.get("hasTrustDialogAccepted") is True


def _settings(path: str) -> dict[str, object]:
    data = _read(path)
    if data is None:
        return {}
    try:
        settings = json.loads(data)
    except ValueError as exc:
        raise Unreadable(path) from exc
    return settings if isinstance(settings, dict) else {}


def _add(rules: dict[str, list[str]], settings: dict[str, object], kinds: tuple[str, ...]) -> None:
    permissions = settings.get("permissions")
    if not isinstance(permissions, dict):
        return
    for kind in kinds:
        lists = permissions.get(kind)
        for rule in lists if isinstance(lists, list) else []:
            spec = bash_spec(rule) if isinstance(rule, str) else None
            if spec is not None:
                rules[kind].append(spec)


def load(project: str) -> dict[str, list[str]]:
    """The Bash rule specifiers of each kind ('' for a rule that covers every command), as the host
    applies them. Raises Unreadable for a settings file that exists but is not valid JSON, or not a
    regular file."""
    rules: dict[str, list[str]] = {kind: [] for kind in KINDS}
    managed = [_settings(path) for path in managed_files()]
    only_managed = any(m.get("allowManagedPermissionRulesOnly") is True for m in managed)
    shared = _settings(os.path.join(project, ".claude", "settings.json"))
    personal = [
        _settings(os.path.join(_user_folder(), "settings.json")),
        _settings(os.path.join(project, ".claude", "settings.local.json")),
    ]
    for settings in managed:
        _add(rules, settings, KINDS)
    for settings in personal:
        _add(rules, settings, ("ask", "deny") if only_managed else KINDS)
    _add(rules, shared, ("ask", "deny"))
    if not only_managed and _has_allow(shared) and trusted(project):
        _add(rules, shared, ("allow",))
    return rules


def _has_allow(settings: dict[str, object]) -> bool:
    permissions = settings.get("permissions")
    return isinstance(permissions, dict) and bool(permissions.get("allow"))


def bash_spec(rule: str) -> str | None:
    """`npm test` for `Bash(npm test)`, '' for `Bash` or `Bash(*)`, None for another tool's rule."""
    rule = rule.strip()
    if rule == "Bash":
        return ""
    if not (rule.startswith("Bash(") and rule.endswith(")")):
        return None
    spec = " ".join(rule[5:-1].split())
    return "" if spec in ("", "*", ":*") else spec


def matches(spec: str, command: str) -> bool:
    """Whether one rule specifier matches one simple command (whitespace runs count as one
    space)."""
    if spec == "":
        return True
    if spec.endswith(":*"):
        prefix = spec[:-2]
        return command == prefix or command.startswith(prefix + " ")
    if "*" in spec:
        pattern = ".*".join(re.escape(part) for part in spec.split("*"))
        if spec.endswith(" *") and spec.count("*") == 1:
            pattern = re.escape(spec[:-2]) + "( .*)?"
        return re.fullmatch(pattern, command, re.DOTALL) is not None
    return command == spec


def loose_forms(words: list[str]) -> list[str]:
    """The command from each of its words on, the first word also without its folder: what a deny or
    ask rule is tried against."""
    forms = []
    for i in range(len(words)):
        rest = words[i:]
        forms.append(" ".join(rest))
        if "/" in rest[0]:
            forms.append(" ".join([os.path.basename(rest[0]), *rest[1:]]))
    return forms


def loosely(specs: list[str], words: list[str]) -> bool:
    """Whether a deny or ask rule may match: any form of the command, as a prefix too."""
    for form in loose_forms(words):
        for spec in specs:
            bare = spec[:-2] if spec.endswith(":*") else spec
            if matches(spec, form) or form == bare or form.startswith(bare + " "):
                return True
    return False


def allowed_anyway(words: list[str]) -> bool:
    """Whether Claude Code runs this command without any rule: `pwd`, `true`, `echo` of plain
    words (the hook's grammar has no expansion to hide anything in)."""
    return words[0] == "echo" or words[0] in READ_ONLY and len(words) == 1


def allowed(text: str, words: list[str], allow: list[str]) -> bool:
    """Whether an allow rule matches the command as written (a leading `time` aside, as the host
    reads it); a leading assignment such as `FOO=1` is matched as written, as the host does."""
    text = text[len("time ") :] if text.startswith("time ") else text
    return any(matches(spec, text) for spec in allow) or allowed_anyway(words)


def verdict(
    commands: list[tuple[str, list[str]]], added: list[str], project: str, cwd: str
) -> str | None:
    """For a line of `commands` (each its text and words), to which the hook would add the
    commands `added`: 'deny' when a readable deny rule may match any of them, else 'ask' when an
    ask rule may, else 'allow' when the user's rules (or Claude Code's own read-only commands)
    allow every one of `commands` as written, else None. Raises Unreadable as `load` does."""
    rules = load(project)
    checked = [words for _, words in commands] + [text.split() for text in added]
    for kind in ("deny", "ask"):
        if any(loosely(rules[kind], words) for words in checked):
            return kind
    if all(allowed(text, words, rules["allow"]) for text, words in commands):
        return "allow"
    return None
