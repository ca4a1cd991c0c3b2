"""Claude Code's own permission rules for the Bash tool, read as the host reads them, so that
`k0maru-hook` answers `allow` only for a command line the user's rules allow already, segment by
segment.

The rules come from the `permissions` lists (`allow`, `ask`, `deny`) of the user's settings
(`$CLAUDE_CONFIG_DIR` or `~/.claude/settings.json`), the project's `.claude/settings.json` and
`.claude/settings.local.json`, and the managed settings an administrator installs. A rule is `Bash`
(every command), `Bash(npm run test:*)` (that prefix, then a space or the end), `Bash(git * main)`
(`*` is any text; a trailing ` *` also matches nothing) or `Bash(pytest -q)` (that command). An
allow rule is matched strictly, a deny or ask rule loosely (also after leading words such as
`FOO=1`, `time` or a folder in front of the command), so any doubt goes the user's way. Imported
only by the hook, and only for a command it would rewrite.
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


MAX_SETTINGS_BYTES = 4 << 20  # a settings file past this is not read whole: its rules are unknown


class Unreadable(Exception):
    """A settings file exists but cannot be read: its deny rules are unknown."""


def _read(path: str) -> bytes | None:
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
        data = os.read(fd, MAX_SETTINGS_BYTES + 1)
        while len(data) <= MAX_SETTINGS_BYTES and (more := os.read(fd, 1 << 20)):
            data += more
        if len(data) > MAX_SETTINGS_BYTES:
            raise Unreadable(path)
        return data
    except OSError as exc:
        raise Unreadable(path) from exc
    finally:
        os.close(fd)


def settings_files(project: str) -> list[str]:
    """Every file Claude Code takes permission rules from, for a session in `project`."""
    user = os.environ.get("CLAUDE_CONFIG_DIR") or os.path.join(os.path.expanduser("~"), ".claude")
    files = [
        os.path.join(user, "settings.json"),
        os.path.join(project, ".claude", "settings.json"),
        os.path.join(project, ".claude", "settings.local.json"),
    ]
    for managed in MANAGED:
        files.append(managed)
        drop_ins = managed[: -len(".json")] + ".d"
        if os.path.isdir(drop_ins):
            files += [os.path.join(drop_ins, n) for n in sorted(os.listdir(drop_ins))]
    return [f for f in files if f.endswith(".json")]


def load(project: str) -> dict[str, list[str]]:
    """The Bash rule specifiers of each kind ('' for a rule that covers every command). Raises
    Unreadable for a settings file that exists but is not valid JSON, or not a regular file."""
    rules: dict[str, list[str]] = {kind: [] for kind in KINDS}
    for path in settings_files(project):
        data = _read(path)
        if data is None:
            continue
        try:
            settings = json.loads(data)
        except ValueError as exc:
            raise Unreadable(path) from exc
        permissions = settings.get("permissions") if isinstance(settings, dict) else None
        if not isinstance(permissions, dict):
            continue
        for kind in KINDS:
            for rule in permissions.get(kind) or []:
                spec = bash_spec(rule) if isinstance(rule, str) else None
                if spec is not None:
                    rules[kind].append(spec)
    return rules


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


def allowed_anyway(words: list[str], text: str, project: str, cwd: str) -> bool:
    """Whether Claude Code runs this command without any rule: `pwd`, `true`, `echo` of plain words,
    `cd` to a folder inside the project."""
    if any(c in text for c in "$<>*?[`\\"):
        return False
    if words[0] in READ_ONLY and len(words) == 1 or words[0] == "echo":
        return True
    if words[0] == "cd" and len(words) == 2 and not words[1].startswith(("-", "~")):
        target = os.path.normpath(os.path.join(cwd, words[1]))
        root = os.path.normpath(project)
        return target == root or target.startswith(root + os.sep)
    return False


def _words(texts: list[str]) -> list[list[str]] | None:
    import shlex

    try:
        return [shlex.split(text) or [""] for text in texts]
    except ValueError:
        return None


def _allowed(text: str, words: list[str], allow: list[str], project: str, cwd: str) -> bool:
    plain = " ".join(text.split())
    if ">" in plain.replace("2>&1", "") or "<" in plain:
        return False  # a redirection writes or reads a file the rule does not name
    return any(matches(spec, plain) for spec in allow) or allowed_anyway(words, text, project, cwd)


def verdict(commands: list[str], rewritten: list[str], project: str, cwd: str) -> str | None:
    """For a command line made of `commands`, which the hook would run as `rewritten`: 'deny' when a
    deny rule may match any of either, else 'ask' when an ask rule may, else 'allow' when the user's
    rules (or Claude Code's own read-only commands) allow every one of the `commands` as written,
    else 'ask' when an allow rule names `k0maru` itself (it would approve the rewritten command,
    commands the user never allowed included), else None: the host's own rules decide. Raises
    Unreadable as `load` does."""
    rules = load(project)
    words = _words(commands)
    checked = _words(commands + rewritten)
    if words is None or checked is None:
        return "ask"
    for kind in ("deny", "ask"):
        if any(loosely(rules[kind], w) for w in checked):
            return kind
    pairs = zip(commands, words, strict=True)
    if all(_allowed(text, w, rules["allow"], project, cwd) for text, w in pairs):
        return "allow"
    wrapped = [f for w in checked for f in loose_forms(w) if f.startswith("k0maru ")]
    if any(matches(spec, form) for spec in rules["allow"] for form in wrapped):
        return "ask"
    return None
