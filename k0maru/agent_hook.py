"""`k0maru-hook`: the PreToolUse hook of Claude Code (`k0maru connect claude-code --hooks` installs
it; Codex gets none: it takes a rewritten command only with `allow`).

It reads the host's hook input on stdin and, when the agent's shell command runs a test, build or
lint tool in a vault, answers with the same command routed through `k0maru offload -- ...`, so a
long log is stored and the agent reads a short summary. Everything else is left alone, and so is
anything it cannot read with certainty (command substitution, subshells, heredocs, pipelines,
redirections, background jobs): a command it does not rewrite runs exactly as the agent wrote it. It
is never a permission grant: `allow` only when the user's own Claude Code rules allow every command
of the line (`agent_rules`), else the rewritten command goes back for the host to judge
(docs/agents.md has the table). It imports json and shlex only for an input that names one of the
tools, and fails silent (exit 0, no output): a broken hook must never stop the agent's command.

The tools are a list of command prefixes (`COMMANDS`); `.k0maru/agent-hook.toml` in the project (or
a folder above the command's cwd) may set `commands = [...]` (replacing it), `extra_commands` or
`skip`: what is rewritten, never what is allowed.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs the hook a few ms of import
    from typing import Any

COMMANDS = (
    "pytest",
    "py.test",
    "python -m pytest",
    "python3 -m pytest",
    "uv run pytest",
    "poetry run pytest",
    "tox",
    "nox",
    "cargo test",
    "cargo build",
    "cargo clippy",
    "cargo check",
    "cargo nextest",
    "go test",
    "go build",
    "go vet",
    "npm test",
    "npm run test",
    "npm run build",
    "npm run lint",
    "npm run typecheck",
    "yarn test",
    "yarn build",
    "pnpm test",
    "pnpm build",
    "pnpm run test",
    "pnpm run build",
    "npx jest",
    "npx vitest",
    "npx tsc",
    "npx eslint",
    "jest",
    "vitest",
    "tsc",
    "eslint",
    "make",
    "cmake --build",
    "ctest",
    "mvn",
    "./mvnw",
    "gradle",
    "./gradlew",
    "ruff check",
    "mypy",
    "pyright",
    "dotnet build",
    "dotnet test",
)
# build tools whose words are goals: only these goals are routed (never `make deploy`, `mvn
# release`)
GOAL_TOOLS = {"make", "mvn", "mvnw", "gradle", "gradlew"}
GOALS = {
    "all",
    "build",
    "test",
    "tests",
    "check",
    "lint",
    "compile",
    "ci",
    "clean",
    "verify",
    "package",
    "assemble",
    "unit",
    "test-compile",
    "typecheck",
    "install",
}
OPTIONS_WITH_VALUE = {"-C", "-f", "-j", "-l", "-p", "-x", "--file", "--directory", "--tests"}
LEAVE_ALONE = {"--help", "-h", "--version", "--watch", "--watchAll", "watch", "--pdb", "--ui"}
OFFLOAD = "k0maru offload -- "


class Unsure(Exception):
    """The command has a shape this hook does not rewrite."""


def segments(command: str) -> list[tuple[int, int, str, str]]:
    """(start, end, operator before, operator after) of each simple command in a list of commands
    joined by `&&`, `||`, `;` or `|`. Raises Unsure for what it does not read with certainty."""
    out: list[tuple[int, int, str, str]] = []
    i, start, quote, before = 0, 0, "", ""
    while i < len(command):
        if quote:
            i, quote = _quoted_step(command, i, quote)
            continue
        after, quote, op = _unquoted_step(command, i)
        if op:
            out.append((start, i, before, op))
            before, start = op, after
        i = after
    if quote:
        raise Unsure
    out.append((start, len(command), before, ""))
    return out


def _quoted_step(command: str, i: int, quote: str) -> tuple[int, str]:
    """Past the character at `i` inside `quote`: where the next one is, and the quote still open."""
    c = command[i]
    if c == quote:
        return i + 1, ""
    if quote == "'":
        return i + 1, quote
    if c == "`" or command.startswith("$(", i):
        raise Unsure  # a substitution inside double quotes
    return i + (2 if c == "\\" else 1), quote


def _unquoted_step(command: str, i: int) -> tuple[int, str, str]:
    """Past the character at `i` outside quotes: where the next one is, the quote it opens, and the
    operator it is ("" for none)."""
    c = command[i]
    if c == "\\":
        if command.startswith("\\\n", i):
            raise Unsure
        return i + 2, "", ""
    if c in "'\"":
        return i + 1, c, ""
    if c in "`(){}" or command.startswith("$(", i) or command.startswith("<<", i):
        raise Unsure  # substitutions, subshells, groups, heredocs
    if c not in ";|&\n":
        return i + 1, "", ""
    op = command[i : i + 2] if command[i : i + 2] in ("&&", "||", "|&") else c
    if op == "&" and i > 0 and command[i - 1] in "<>":  # 2>&1
        return i + 1, "", ""
    if op == "&":
        raise Unsure  # a background job
    return i + len(op), "", op


def raw_words(text: str) -> list[tuple[int, int]]:
    """Spans of the shell words of a simple command (quotes kept as written)."""
    spans, i, n = [], 0, len(text)
    while i < n:
        while i < n and text[i] in " \t":
            i += 1
        if i >= n:
            break
        start, quote = i, ""
        while i < n and (quote or text[i] not in " \t"):
            c = text[i]
            if quote == "'" and c == "'" or quote == '"' and c == '"':
                quote = ""
            elif not quote and c in "'\"":
                quote = c
            elif c == "\\" and quote != "'":
                i += 1
            i += 1
        spans.append((start, i))
    return spans


def _is_assignment(word: str) -> bool:
    name, eq, _ = word.partition("=")
    return bool(eq) and name.replace("_", "a").isalnum() and not name[0].isdigit()


def _goals_ok(words: list[str]) -> bool:
    skip = False
    for word in words:
        if skip:
            skip = False
        elif word in OPTIONS_WITH_VALUE:
            skip = True
        elif word.startswith("-") or _is_assignment(word):
            continue
        elif word not in GOALS:
            return False
    return True


WRAPPERS = {"time"}  # words before the tool that stay in front of `k0maru offload`


def _tool_start(words: list[str]) -> int:
    """Index of the tool's own name: after variable assignments and `time [-p]`."""
    k = 0
    while k < len(words) and (_is_assignment(words[k]) or words[k] in WRAPPERS):
        k += 1
        if words[k - 1] in WRAPPERS and k < len(words) and words[k] == "-p":
            k += 1
    return k


def _names(prefix: list[str], rest: list[str]) -> bool:
    """Whether `rest` starts with the tool `prefix`: the first word by its name (`.venv/bin/pytest`
    is `pytest`), the last also as a script family (`test:unit` is `test`)."""
    if len(rest) < len(prefix) or os.path.basename(rest[0]) != os.path.basename(prefix[0]):
        return False
    if len(prefix) == 1:
        return True
    if rest[1 : len(prefix) - 1] != prefix[1:-1]:
        return False
    last, word = prefix[-1], rest[len(prefix) - 1]
    return word == last or word.startswith(last + ":")


def rewrite_segment(text: str, commands: list[list[str]]) -> int | None:
    """Where to insert the offload prefix in one simple command, or None to leave it alone."""
    if ">" in text.replace("2>&1", "") or "<" in text:
        return None  # output already goes to a file (or input comes from one)
    try:
        import shlex  # with json, most of the hook's start: only for a command that may be rewritten

        words = shlex.split(text.replace("2>&1", ""))
    except ValueError:
        return None
    spans = raw_words(text)
    k = _tool_start(words)
    rest = words[k:]
    if not rest or k >= len(spans):
        return None
    if os.path.basename(rest[0]) == "k0maru":
        raise Unsure  # already wrapped: leave the whole command as it is
    for prefix in commands:
        if _names(prefix, rest):
            if LEAVE_ALONE & set(rest):
                return None
            tool = os.path.basename(prefix[0])
            if tool in GOAL_TOOLS and not _goals_ok(rest[len(prefix) :]):
                return None
            return spans[k][0]
    return None


def in_vault(folder: str) -> bool:
    """Whether `k0maru offload` run in `folder` keeps its log: $K0MARU_VAULT is set, or the folder
    is in a vault or a git repository (read from the file system, without git)."""
    if os.environ.get("K0MARU_VAULT"):
        return True
    folder = os.path.abspath(folder)
    while True:
        if os.path.isdir(os.path.join(folder, ".k0maru")) or os.path.exists(
            os.path.join(folder, ".git")
        ):
            return True
        parent = os.path.dirname(folder)
        if parent == folder:
            return False
        folder = parent


def _moved(text: str, here: str | None) -> str | None:
    """The folder after a `cd DIR` command (None: one it cannot tell), `here` after any other."""
    words = text.split()
    if not words or words[0] != "cd" or here is None:
        return here
    if len(words) != 2 or any(c in words[1] for c in "$`'\"\\*?") or words[1] == "-":
        return None
    return os.path.join(here, os.path.expanduser(words[1]))


def plan(
    command: str, commands: list[list[str]], cwd: str | None = None
) -> tuple[str | None, list[str]]:
    """`command` with its test/build/lint commands routed through `k0maru offload` (None: nothing to
    change, or a shape this hook does not read), and the simple commands it is made of. With `cwd`,
    a command that runs outside any vault (after a `cd` too) is left alone."""
    try:
        parts = segments(command)
    except Unsure:
        return None, []
    texts = [command[s:e].strip() for s, e, _, _ in parts if command[s:e].strip()]
    inserts, here = [], cwd
    try:
        for start, end, before, after in parts:
            text = command[start:end]
            piped = "|" in (before, after) or "|&" in (before, after)
            at = None if piped else rewrite_segment(text, commands)
            if at is not None and (cwd is None or here is not None and in_vault(here)):
                inserts.append(start + at)
            here = _moved(text.strip(), here)
    except Unsure:
        return None, texts
    out = command
    for at in sorted(inserts, reverse=True):
        out = out[:at] + OFFLOAD + out[at:]
    return (out if inserts else None), texts


def rewrite(command: str, commands: list[list[str]] | None = None) -> str | None:
    """`command` with its test/build/lint commands routed through `k0maru offload`, or None when
    nothing is to change."""
    return plan(command, commands if commands is not None else [p.split() for p in COMMANDS])[0]


def configured_commands(cwd: str | None) -> list[list[str]]:
    """The command list, as `.k0maru/agent-hook.toml` (in `cwd` or a folder above it) changes it."""
    commands = list(COMMANDS)
    folder = os.path.abspath(cwd or os.getcwd())
    while True:
        path = os.path.join(folder, ".k0maru", "agent-hook.toml")
        if os.path.isfile(path):
            import tomllib

            with open(path, "rb") as fh:
                conf = tomllib.load(fh)
            commands = list(conf.get("commands", commands)) + list(conf.get("extra_commands", []))
            skip = set(conf.get("skip", []))
            commands = [c for c in commands if c not in skip]
            break
        parent = os.path.dirname(folder)
        if parent == folder:
            break
        folder = parent
    return [c.split() for c in commands if isinstance(c, str) and c.split()]


REASONS = {
    "allow": "k0maru: your permission rules allow every command here; the test/build/lint ones run "
    "through `k0maru offload` (the log is kept, the agent reads a summary)",
    "ask": "k0maru: the test/build/lint commands run through `k0maru offload` (the log is kept, the "
    "agent reads a summary); your rules ask about this command line",
}


def decide(event: dict[str, Any], commands: list[str], rewritten: list[str]) -> str | None:
    """The permission decision to send with a rewritten command, from the user's own Claude Code
    rules (`agent_rules.verdict`): 'allow' only when they allow every command of the line already,
    'ask' when an ask rule (or an allow rule for `k0maru` itself) may match, '' for no decision: the
    host applies its own rules and mode to the rewritten command, and asks as it would have. None
    leaves the command as written: a deny rule may match it, or a settings file cannot be read."""
    from k0maru import agent_rules

    cwd = str(event.get("cwd") or os.getcwd())
    project = os.environ.get("CLAUDE_PROJECT_DIR") or cwd
    try:
        found = agent_rules.verdict(commands, rewritten, project, cwd)
    except agent_rules.Unreadable:
        return None
    if found == "deny":
        return None
    return found or ""


def answer(event: dict[str, Any]) -> dict[str, Any] | None:
    """The hook's output for one PreToolUse input (None: say nothing, the command runs as written).
    Claude Code's input names its `permission_mode`; Codex's carries a `turn_id`, and Codex takes a
    rewritten command only with `allow`, which would waive its own approval: Codex gets no
    rewrite."""
    if event.get("tool_name") != "Bash" or "turn_id" in event or "permission_mode" not in event:
        return None
    tool_input = event.get("tool_input")
    if not isinstance(tool_input, dict):
        return None
    command = tool_input.get("command")
    if not isinstance(command, str) or not command.strip():
        return None
    cwd = str(event.get("cwd") or os.getcwd())
    new, parts = plan(command, configured_commands(cwd), cwd)
    if new is None:
        return None
    decision = decide(event, parts, plan(new, [])[1])
    if decision is None:
        return None
    out: dict[str, Any] = {"hookEventName": "PreToolUse"}
    if decision:
        out["permissionDecision"] = decision
        out["permissionDecisionReason"] = REASONS[decision]
    out["updatedInput"] = {**tool_input, "command": new}
    return {"hookSpecificOutput": out}


def may_rewrite(raw: str, cwd: str) -> bool:
    """Whether the raw hook input can hold a command to rewrite, read without parsing it: a Bash
    call naming one of the tools, or a project with its own command list. Most commands an agent
    runs are neither, and then the hook answers without importing json."""
    if '"Bash"' not in raw:
        return False
    tool_input = raw[max(raw.find('"tool_input"'), 0) :]  # not the cwd: a folder named `make-x`
    if any(command in tool_input for command in COMMANDS):
        return True
    folder = os.path.abspath(cwd)
    while not os.path.isfile(os.path.join(folder, ".k0maru", "agent-hook.toml")):
        parent = os.path.dirname(folder)
        if parent == folder:
            return False
        folder = parent
    return True


def main() -> int:
    if os.environ.get("K0MARU_HOOK") == "off":
        return 0
    try:
        raw = sys.stdin.read()
        if not may_rewrite(raw, os.getcwd()):
            return 0
        import json

        out = answer(json.loads(raw or "{}"))
        if out is not None:
            sys.stdout.write(json.dumps(out))
    except Exception:  # noqa: BLE001 - a hook that fails must let the command run as written
        return 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
