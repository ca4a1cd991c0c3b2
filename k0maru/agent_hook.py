"""`k0maru-hook`: the PreToolUse hook of Claude Code (`k0maru connect claude-code --hooks` installs
it; Codex gets none: it takes a rewritten command only with `allow`).

It reads the host's hook input on stdin and, when the agent's shell command runs a test, build or
lint tool in a vault, pipes that tool's output into `k0maru offload` (the log is kept, the agent
reads a summary): `pytest -q` becomes `set -o pipefail; pytest -q 2>&1 | /path/k0maru offload`.
The user's command stays first and unchanged, so the host's own deny and ask rules, from every
source, still meet it, and bash runs the tool itself (its exit status is the line's).

It rewrites only a line made of plain words, quotes without specials and `&&`, `||`, `;` (`LINE`
below); anything else passes through untouched, as does any line in plan mode or one the user's
readable rules do not allow in full. docs/agent-hook.md has the threat model. It imports json only
for an input that names one of the tools, and fails silent (exit 0, no output).
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
OPTIONS_WITH_VALUE = {"-C", "-f", "-j", "-l", "-p", "-x", "--file", "--directory", "--tests"}
LEAVE_ALONE = {"--help", "-h", "--version", "--watch", "--watchAll", "watch", "--pdb", "--ui"}
MAX_INPUT = 64 << 10  # a hook input past this many bytes passes through unread
MODES = {"default", "acceptEdits", "dontAsk", "bypassPermissions"}  # plan mode: never rewritten
WORD_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:=,+@")
QUOTED_CHARS = WORD_CHARS | {" "}
# words that make the shell do more than run one command, or change how the rest of the line runs
SHELL_WORDS = {
    "!", "[[", "]]", "{", "}", "if", "then", "else", "elif", "fi", "for", "while", "until", "do",
    "done", "case", "esac", "in", "select", "function", "coproc", "set", "shopt", "trap", "exec",
    "eval", "source", ".", "alias", "unalias", "enable", "builtin", "command", "export", "unset",
    "declare", "typeset", "readonly", "local", "hash", "ulimit", "umask", "exit", "return",
}  # fmt: skip
PIPEFAIL = "set -o pipefail; "
MERGE = " 2>&1 | "


class Segment:
    """One simple command of a line: its span and its words (quotes removed)."""

    __slots__ = ("start", "end", "words")

    def __init__(self, start: int, end: int, words: list[str]) -> None:
        self.start, self.end, self.words = start, end, words


def _word(line: str, i: int) -> tuple[int, str] | None:
    """The shell word at `i` (where it ends, its text without quotes), or None when it holds
    anything but word characters and quotes of word characters and spaces."""
    n, text = len(line), []
    while i < n and line[i] not in " \t;&|":
        c = line[i]
        if c in "'\"":
            close = line.find(c, i + 1)
            if close < 0 or not QUOTED_CHARS.issuperset(line[i + 1 : close]):
                return None
            text.append(line[i + 1 : close])
            i = close + 1
        elif c in WORD_CHARS:
            text.append(c)
            i += 1
        else:
            return None
    return i, "".join(text)


def segments(line: str) -> list[Segment] | None:
    """The simple commands of a line joined by `&&`, `||` or `;`, or None for any other shape
    (pipes, redirections but `2>&1`, expansions, comments, newlines, escapes): linear in its
    length."""
    out: list[Segment] = []
    start, i, n = 0, 0, len(line)
    words: list[str] = []
    while i < n:
        if line[i] in " \t":
            i += 1
        elif line.startswith(("&&", "||"), i) or line[i] == ";":
            if not words:
                return None
            out.append(Segment(start, i, words))
            i += 1 if line[i] == ";" else 2
            start, words = i, []
        elif line.startswith("2>&1", i) and line[i + 4 : i + 5] in ("", " ", "\t", ";"):
            words.append("2>&1")
            i += 4
        else:
            found = _word(line, i)
            if found is None or found[0] == i:
                return None  # a lone `&` or `|`, or a character outside the grammar
            i, text = found
            words.append(text)
    if words:
        out.append(Segment(start, n, words))
    return out or None


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


def tool_words(words: list[str]) -> list[str]:
    """The words from the command's own name on: after assignments and `time [-p]`."""
    k = 0
    while k < len(words) and _is_assignment(words[k]):
        k += 1
    if words[k : k + 1] == ["time"]:
        k += 2 if words[k + 1 : k + 2] == ["-p"] else 1
    return [w for w in words[k:] if w != "2>&1"]


def _runs_a_command(words: list[str]) -> bool:
    """Whether a simple command runs a command of its own: not assignments alone, nor a shell
    keyword or a builtin that changes how the rest of the line runs."""
    rest = tool_words(words)
    return bool(rest) and rest[0] not in SHELL_WORDS


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


def routed(words: list[str], commands: list[list[str]]) -> bool:
    """Whether this simple command runs one of the test/build/lint `commands`."""
    rest = tool_words(words)
    if not rest or LEAVE_ALONE & set(rest):
        return False
    for prefix in commands:
        if _names(prefix, rest):
            tool = os.path.basename(prefix[0])
            return tool not in GOAL_TOOLS or _goals_ok(rest[len(prefix) :])
    return False


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


def _moved(words: list[str], here: str | None) -> str | None:
    """The folder after a `cd DIR` command (None: one it cannot tell), `here` after any other."""
    if words[:1] != ["cd"] or here is None:
        return here
    if len(words) != 2 or words[1] == "-":
        return None
    return os.path.join(here, words[1])


def plan(
    line: str, commands: list[list[str]], sink: str, cwd: str | None = None
) -> tuple[str | None, list[Segment]]:
    """`line` with the output of its test/build/lint commands piped into `sink` (None: nothing to
    change, or a shape this hook does not read), and the simple commands it is made of. With
    `cwd`, a command that runs outside any vault (after a `cd` too) is left alone."""
    parts = segments(line)
    if parts is None:
        return None, []
    if not all(_runs_a_command(p.words) for p in parts):
        return None, parts
    ends, here = [], cwd
    for part in parts:
        if routed(part.words, commands) and (cwd is None or here is not None and in_vault(here)):
            ends.append(part.end)
        here = _moved(part.words, here)
    if not ends:
        return None, parts
    out, last = [PIPEFAIL], 0
    for end in ends:
        body = line[last:end].rstrip(" \t")
        out += [body, MERGE, sink, line[last + len(body) : end]]
        last = end
    out.append(line[last:])
    return "".join(out), parts


def sink_command() -> str | None:
    """The command the output is piped into: `$K0MARU_HOOK_SINK` (tests), else the `k0maru` beside
    this hook, else the one on PATH; None when there is none (the line then runs as written)."""
    import shlex
    import shutil

    if os.environ.get("K0MARU_HOOK_SINK"):
        return os.environ["K0MARU_HOOK_SINK"]
    beside = os.path.join(os.path.dirname(os.path.abspath(sys.argv[0])), "k0maru")
    found = beside if os.access(beside, os.X_OK) else shutil.which("k0maru")
    return shlex.quote(os.path.abspath(found)) + " offload" if found else None


def rewrite(
    line: str, commands: list[list[str]] | None = None, sink: str = "k0maru offload"
) -> str | None:
    """`line` with its test/build/lint commands' output piped into `sink`, or None when nothing is
    to change (no vault check, no rules: the shape alone)."""
    chosen = commands if commands is not None else [p.split() for p in COMMANDS]
    return plan(line, chosen, sink)[0]


def _toml(path: str) -> dict[str, Any]:
    import tomllib

    try:
        with open(path, "rb") as fh:
            return tomllib.load(fh)
    except (OSError, ValueError):
        return {}


def user_config() -> str:
    """The user's own hook settings, outside any repository:
    `$XDG_CONFIG_HOME/k0maru/agent-hook.toml` (default `~/.config`)."""
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return os.path.join(base, "k0maru", "agent-hook.toml")


def _strings(value: object) -> list[str]:
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def configured_commands(cwd: str | None) -> list[list[str]]:
    """The command list: the user's own config may replace it (`commands`) or add to it
    (`extra_commands`); a project's `.k0maru/agent-hook.toml` (in `cwd` or a folder above it) can
    only take commands out (`skip`): a file in a cloned repository never widens what runs."""
    user = _toml(user_config()) if os.path.isfile(user_config()) else {}
    commands = _strings(user.get("commands")) or list(COMMANDS)
    commands += _strings(user.get("extra_commands"))
    skip = set(_strings(user.get("skip")))
    folder = os.path.abspath(cwd or os.getcwd())
    while True:
        path = os.path.join(folder, ".k0maru", "agent-hook.toml")
        if os.path.isfile(path):
            skip |= set(_strings(_toml(path).get("skip")))
            break
        parent = os.path.dirname(folder)
        if parent == folder:
            break
        folder = parent
    return [c.split() for c in commands if c not in skip and c.split()]


REASON = (
    "k0maru: your permission rules allow every command here; the test/build/lint output goes "
    "through `k0maru offload` (the log is kept, the agent reads a summary)"
)


def decide(event: dict[str, Any], line: str, parts: list[Segment], added: list[str]) -> str | None:
    """The permission decision to send with a rewritten line: 'allow' when the user's readable
    rules allow every command of it as written and no readable deny or ask rule may match it or
    what k0maru `added`; '' (none) in bypassPermissions mode, where the host runs all but what its
    deny and ask rules meet; None to leave the line as written (plan or an unknown mode, a rule that
    may match, a settings file it cannot read, a command no readable rule allows)."""
    from k0maru import agent_rules

    mode = event.get("permission_mode")
    if mode not in MODES:
        return None
    cwd = str(event.get("cwd") or os.getcwd())
    project = os.environ.get("CLAUDE_PROJECT_DIR") or cwd
    commands = [(line[p.start : p.end].strip(" \t"), p.words) for p in parts]
    try:
        found = agent_rules.verdict(commands, added, project, cwd)
    except agent_rules.Unreadable:
        return None
    if mode == "bypassPermissions":
        return "" if found in ("allow", None) else None
    return "allow" if found == "allow" else None


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
    if not isinstance(command, str) or not command.strip() or len(command) > MAX_INPUT:
        return None
    cwd = str(event.get("cwd") or os.getcwd())
    sink = sink_command()
    if sink is None:
        return None
    new, parts = plan(command, configured_commands(cwd), sink, cwd)
    if new is None:
        return None
    decision = decide(event, command, parts, [PIPEFAIL.strip("; "), sink])
    if decision is None:
        return None
    out: dict[str, Any] = {"hookEventName": "PreToolUse"}
    if decision:
        out["permissionDecision"] = decision
        out["permissionDecisionReason"] = REASON
    out["updatedInput"] = {**tool_input, "command": new}
    return {"hookSpecificOutput": out}


def may_rewrite(raw: str) -> bool:
    """Whether the raw hook input can hold a command to rewrite, read without parsing it: a Bash
    call of bounded size naming one of the tools. Most commands an agent runs are not, and then the
    hook answers without importing json."""
    if len(raw) > MAX_INPUT or '"Bash"' not in raw:
        return False
    tool_input = raw[max(raw.find('"tool_input"'), 0) :]  # not the cwd: a folder named `make-x`
    return any(command in tool_input for command in COMMANDS) or os.path.isfile(user_config())


def main() -> int:
    if os.environ.get("K0MARU_HOOK") == "off":
        return 0
    try:
        raw = sys.stdin.read()
        if not may_rewrite(raw):
            return 0
        import json

        out = answer(json.loads(raw or "{}"))
        if out is not None:
            sys.stdout.write(json.dumps(out))
    except Exception:  # a hook that fails must let the command run as written
        return 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
