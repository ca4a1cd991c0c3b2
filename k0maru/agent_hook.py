"""`k0maru-hook`: the PreToolUse hook of Claude Code and Codex (`k0maru connect HOST --hooks` installs it).

It reads the host's hook input on stdin and, when the agent's shell command runs a test, build or lint
tool, answers with the same command routed through `k0maru offload -- ...`, so a long log is stored and
the agent reads a short summary. Everything else is left alone, and so is anything it cannot read with
certainty (command substitution, subshells, heredocs, pipelines, redirections, background jobs): a
command it does not rewrite runs exactly as the agent wrote it. It imports json and shlex only for an
input that names one of the tools, and fails silent (exit 0, no output): a broken hook must never stop
the agent's command.

The tools are a list of command prefixes (`COMMANDS`); `.k0maru/agent-hook.toml` in the project (or a
folder above the command's cwd) may set `commands = [...]` (replacing it), `extra_commands` or `skip`.
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
# build tools whose words are goals: only these goals are routed (never `make deploy`, `mvn release`)
GOAL_TOOLS = {"make", "mvn", "./mvnw", "gradle", "./gradlew"}
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
}
OPTIONS_WITH_VALUE = {"-C", "-f", "-j", "-l", "-p", "--file", "--directory"}
LEAVE_ALONE = {"--help", "-h", "--version", "--watch", "--watchAll", "watch", "--pdb", "--ui"}
OFFLOAD = "k0maru offload -- "


class Unsure(Exception):
    """The command has a shape this hook does not rewrite."""


def segments(command: str) -> list[tuple[int, int, str, str]]:  # noqa: C901 - a shell tokenizer: one branch per quoting and operator case
    """(start, end, operator before, operator after) of each simple command in a list of commands joined
    by `&&`, `||`, `;` or `|`. Raises Unsure for what it does not read with certainty."""
    out: list[tuple[int, int, str, str]] = []
    i, start, quote, before = 0, 0, "", ""
    n = len(command)
    while i < n:
        c = command[i]
        if quote == "'":
            if c == "'":
                quote = ""
        elif quote == '"':
            if c == "\\":
                i += 1
            elif c == '"':
                quote = ""
            elif c == "`" or command.startswith("$(", i):
                raise Unsure
        elif c == "\\":
            if i + 1 < n and command[i + 1] == "\n":
                raise Unsure
            i += 1
        elif c in "'\"":
            quote = c
        elif c in "`\n(){}" or command.startswith("$(", i) or command.startswith("<<", i):
            raise Unsure  # substitutions, subshells, groups, heredocs, several lines
        elif c in ";|&":
            op = command[i : i + 2] if command[i : i + 2] in ("&&", "||", "|&") else c
            if op == "&" and i > 0 and command[i - 1] in "<>":  # 2>&1
                i += 1
                continue
            if op == "&":
                raise Unsure  # a background job
            out.append((start, i, before, op))
            before = op
            i += len(op)
            start = i
            continue
        i += 1
    if quote:
        raise Unsure
    out.append((start, n, before, ""))
    return out


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
    k = 0
    while k < len(words) and _is_assignment(words[k]):
        k += 1
    rest = words[k:]
    if not rest or k >= len(spans):
        return None
    if os.path.basename(rest[0]) == "k0maru":
        raise Unsure  # already wrapped: leave the whole command as it is
    for prefix in commands:
        if rest[: len(prefix)] == prefix:
            if LEAVE_ALONE & set(rest):
                return None
            if prefix[0] in GOAL_TOOLS and not _goals_ok(rest[len(prefix) :]):
                return None
            return spans[k][0]
    return None


def rewrite(command: str, commands: list[list[str]] | None = None) -> str | None:
    """`command` with its test/build/lint commands routed through `k0maru offload`, or None when nothing
    is to change."""
    commands = commands if commands is not None else [p.split() for p in COMMANDS]
    try:
        parts = segments(command)
        inserts = []
        for start, end, before, after in parts:
            if "|" in (before, after) or "|&" in (before, after):
                continue  # a pipeline's reader wants the raw lines
            at = rewrite_segment(command[start:end], commands)
            if at is not None:
                inserts.append(start + at)
    except Unsure:
        return None
    if not inserts:
        return None
    out = command
    for at in sorted(inserts, reverse=True):
        out = out[:at] + OFFLOAD + out[at:]
    return out


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


def answer(event: dict[str, Any]) -> dict[str, Any] | None:
    """The hook's output for one PreToolUse input (None: say nothing, the command runs as written)."""
    if event.get("tool_name") != "Bash":
        return None
    tool_input = event.get("tool_input")
    if not isinstance(tool_input, dict):
        return None
    command = tool_input.get("command")
    if not isinstance(command, str) or not command.strip():
        return None
    new = rewrite(command, configured_commands(event.get("cwd")))
    if new is None:
        return None
    return {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "allow",
            "permissionDecisionReason": "k0maru: a test/build/lint command runs through "
            "`k0maru offload` (its log is kept, the agent reads a summary)",
            "updatedInput": {**tool_input, "command": new},
        }
    }


def may_rewrite(raw: str, cwd: str) -> bool:
    """Whether the raw hook input can hold a command to rewrite, read without parsing it: a Bash call
    naming one of the tools, or a project with its own command list. Most commands an agent runs are
    neither, and then the hook answers without importing json."""
    if '"Bash"' not in raw:
        return False
    if any(command in raw for command in COMMANDS):
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
