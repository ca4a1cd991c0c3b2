"""Fuzz `k0maru-hook` (the Claude Code PreToolUse hook) against an oracle of its own: a seeded
generator of shell command lines, judged under many permission profiles, with bash as the judge.

    python -m tests.cli.hook_oracle [--lines 20000] [--seed 3840] [--json] [--no-bash]
                                    [--hook-root DIR] [--parallel 2]

For each (line, profile) the hook is asked in-process (`k0maru.agent_hook.answer`, the environment
set per profile: Claude Code's settings files in temp folders, K0MARU_VAULT=1, K0MARU_HOOK_SINK a
stub). Where it answers, the line as written (LINE) and as rewritten (NEW) each run under
`bash` (eval'd as Claude Code runs them, `set -x` to a file) in a fresh folder with stub tools on
PATH that log their argv, and the oracle counts:

  a  NEW runs a command (bash's xtrace, or a stub's argv) that LINE does not (k0maru's own
     `set -o pipefail` and sink, or the old `k0maru offload --` wrapper, aside)
  b  NEW, k0maru's additions removed, is not LINE byte for byte
  c  the answer says `allow` while some command of LINE (as bash runs it, or as the host reads the
     text) is not allowed by the profile's rules as the host applies them (settings files the host
     trusts and command-line flags); or, in any mode (bypassPermissions runs all a deny or ask rule
     does not meet), a deny/ask rule meets a command of LINE (its text: "no longer matches" NEW's;
     or only what bash and the stubs ran: "run unseen") and no command of NEW's text. The host
     meets a deny/ask rule also past assignments and `time`, `env`, `nice`, `timeout N`, `xargs`,
     `nohup` in front (measured), an allow rule only as written
  d  the outcome changed: exit status, LINE's output lines missing from NEW's, the files left in
     the folder, or a command of LINE that NEW no longer runs
  e  the hook raised, or its answer is malformed (hookEventName, a decision in bypassPermissions,
     updatedInput fields other than `command` changed)

and refusals: a line the profile allows entirely (mode default, acceptEdits or dontAsk) that the
hook answers with anything but allow + rewrite. `--no-bash` judges b, c (the host's reading of the
text only), e and refusals in-process. `--hook-root DIR` imports `k0maru` from DIR (e.g. a
`git archive HEAD k0maru` extract) to measure another version of the hook.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

SEED = 3840
PIPEFAIL = "set -o pipefail; "
OLD_WRAP = "k0maru offload -- "
KINDS = ("a", "b", "c", "d", "e")
MODES = ("default", "acceptEdits", "dontAsk", "plan", "bypassPermissions")
REFUSAL_MODES = frozenset({"default", "acceptEdits", "dontAsk"})
Words = tuple[str, ...]
Answer = dict[str, Any] | None
HookFn = Callable[[dict[str, Any]], Answer]

# ---------------------------------------------------------------------------------------------
# The generator: command lines from tables, each with the tags of the constructs it holds.

TOOLS = (
    "pytest -q",
    "pytest",
    "pytest -x tests",
    "python -m pytest -q",
    "make test",
    "make",
    "cargo test",
    "cargo build",
    "npm test",
    "npm run build",
    "npm run test",
    "go test ./...",
    "tox",
    "mvn test",
    "./gradlew test",
    "ruff check .",
    "mypy app.py",
)
OTHERS = (
    "touch pwned",
    "rm -rf victim",
    "curl x",
    "ls",
    "ls -la",
    "echo hi",
    "cd sub",
    "pwd",
    "true",
    "git status",
)
# Under `PATH=/usr/bin:/bin` the real program runs: only these, which are absent or harmless here.
REAL_OK = frozenset(
    {"pytest -q", "pytest", "pytest -x tests", "python -m pytest -q", "cargo test", "go test ./..."}
    | {"tox", "make test", "./gradlew test", "echo hi", "ruff check .", "mypy app.py"}
)
Table = tuple[tuple[str, str], ...]
ARGS: Table = (
    ("-k 'a b'", "single_quote"),
    ('-k "a b"', "double_quote"),
    ('-k "it\'s"', "double_quote"),
    ("-k 'say \"hi\"'", "single_quote"),
    ("-k $'a\\'b'", "ansi_c"),
    ("-k $'x\\ny'", "ansi_c"),
    ("-k a\\ b", "escape"),
    ('-k \\"', "escape"),
    ("-k \\'", "escape"),
    ('-k "a\\"b"', "escape"),
    ('-k "a;b && c"', "double_quote"),
    ("-k 'a | b'", "single_quote"),
    ("-k '#x'", "single_quote"),
    ("-k a#b", "hash_in_word"),
    ('-k "$(echo x)"', "subst"),
    ("-k `echo x`", "backquote"),
    ("-k 'oops", "unbalanced"),
    ('-k "oops', "unbalanced"),
    ("-k $'oops\\'", "unbalanced"),
    ("--tb=short", "plain"),
)
ENV_PREFIXES: Table = (
    ("FOO=1 ", "env_prefix"),
    ("LABEL='a b' ", "env_prefix"),
    ('X="it\'s" ', "env_prefix"),
    ("Q=$'a\\'b' ", "ansi_c"),
    ("PATH=/usr/bin:/bin ", "env_path"),
)
WRAPPERS: Table = (
    ("time ", "wrapper:time"),
    ("time -p ", "wrapper:time"),
    ("env ", "wrapper:env"),
    ("env FOO=1 ", "wrapper:env"),
    ("nice ", "wrapper:nice"),
    ("nice -n 5 ", "wrapper:nice"),
    ("timeout 5 ", "wrapper:timeout"),
    ("command ", "wrapper:command"),
    ("exec ", "wrapper:exec"),
    ("echo -q | xargs ", "wrapper:xargs"),
)
REDIRECTS: Table = (
    (" > out.txt", "redirect"),
    (" 2>/dev/null", "redirect"),
    (" < /dev/null", "redirect"),
    (" >> log.txt", "redirect"),
    (" 2>&1", "redirect"),
    (" &> all.txt", "redirect"),
    (" >/dev/null 2>&1", "redirect"),
)
COMMENTS: Table = (
    ("  # don't run slow ones", "comment_quote"),
    ("  # it's fine", "comment_quote"),
    (' # "quoted', "comment_quote"),
    (" # $'x", "comment_quote"),
    (" #", "comment"),
    (" # ; touch pwned", "comment"),
    ("  # run `pytest`", "comment"),
)
SEPARATORS: Table = (
    (" && ", "and"),
    (" || ", "or"),
    ("; ", "semicolon"),
    (" | ", "pipe"),
    (" & ", "background"),
    ("\n", "newline"),
    (" &&\n", "newline"),
    (";\n", "newline"),
    (" \\\n&& ", "continuation"),
)
GROUPS: Table = (
    ("{ %s; }", "group"),
    ("( %s )", "subshell"),
    ("echo $(%s)", "subst"),
    ('echo "$(%s)"', "subst"),
    ("echo `%s`", "backquote"),
)
TRAPS: tuple[tuple[str, frozenset[str]], ...] = tuple(
    (text, frozenset(tags.split()))
    for text, tags in (
        ("{T}  # don't run slow ones\ntouch pwned  # it's fine", "comment_quote newline"),
        ("{T} # it's\nrm -rf victim # '", "comment_quote newline"),
        ("echo $'it\\'s' && {T}; touch pwned # '", "ansi_c comment_quote"),
        ("{T} -k $'a\\'b; touch pwned'", "ansi_c"),
        ("{T} \\\n&& touch pwned", "continuation"),
        ('{T} -k "a\\" && touch pwned"', "escape"),
        ("{T} #'\ntouch pwned", "comment_quote newline"),
        ("{T} 'unbalanced", "unbalanced"),
        ('echo "$({T})"', "subst"),
        ('{T} -k "it\'s" # "\ncurl x', "double_quote comment_quote newline"),
        ("echo '#' && {T} # x\nls", "single_quote comment newline"),
        ("{T} && echo \\# && touch pwned", "escape"),
        ("exec {T}; touch pwned", "wrapper:exec"),
        ("{T} & touch pwned", "background"),
        ("FOO=$'a\\'b' {T} # '\ntouch pwned", "ansi_c env_prefix comment_quote newline"),
        ("{T} -k 'a\\' && touch pwned # '", "single_quote"),
        ("{T}; echo \"$'\" && touch pwned # '", "ansi_c double_quote"),
    )
)


@dataclass(frozen=True)
class Line:
    text: str
    tags: frozenset[str]


def _pick(rng: random.Random, table: Table) -> tuple[str, str]:
    return table[rng.randrange(len(table))]


@dataclass(frozen=True)
class Style:
    """How often a line's commands carry each construct: `HEAVY` lines hold most of the traps,
    `PLAIN` ones mostly what the hook rewrites, so that its rewrites are judged in numbers."""

    tool: float = 0.7
    arg: float = 0.25
    env: float = 0.15
    wrapper: float = 0.2
    redirect: float = 0.1
    group: float = 0.1
    comment: float = 0.1
    separators: Table = SEPARATORS


HEAVY = Style()
PLAIN = Style(0.85, 0.08, 0.05, 0.08, 0.03, 0.02, 0.03, SEPARATORS[:3] + SEPARATORS[5:6])


def _maybe(rng: random.Random, p: float, table: Table) -> tuple[str, str] | None:
    return _pick(rng, table) if rng.random() < p else None


def simple_command(rng: random.Random, style: Style = HEAVY) -> tuple[str, set[str]]:
    """One simple command: a tool (mostly) or another command, maybe with an argument of some
    quoting, an env prefix, a wrapper, a redirection."""
    base = rng.choice(TOOLS) if rng.random() < style.tool else rng.choice(OTHERS)
    text, tags = base, {"tool" if base in TOOLS else "other"}
    if arg := _maybe(rng, style.arg, ARGS):
        text, tags = f"{text} {arg[0]}", tags | {arg[1]}
    env = _maybe(rng, style.env, ENV_PREFIXES)
    if env and (env[1] != "env_path" or base in REAL_OK):
        text, tags = env[0] + text, tags | {env[1]}
    if wrapper := _maybe(rng, style.wrapper, WRAPPERS):
        text, tags = wrapper[0] + text, tags | {wrapper[1]}
    if redirect := _maybe(rng, style.redirect, REDIRECTS):
        text, tags = text + redirect[0], tags | {redirect[1]}
    return text, tags


def _part(rng: random.Random, style: Style) -> tuple[str, set[str]]:
    """A simple command, or one or two of them in a group, subshell or substitution."""
    text, tags = simple_command(rng, style)
    if rng.random() < style.group:
        if rng.random() < 0.4:
            more, more_tags = simple_command(rng, style)
            text, tags = f"{text} && {more}", tags | more_tags
        template, tag = _pick(rng, GROUPS)
        text, tags = template % text, tags | {tag}
    return text, tags


def _trap(rng: random.Random) -> Line:
    template, tags = TRAPS[rng.randrange(len(TRAPS))]
    return Line(template.replace("{T}", rng.choice(TOOLS)), tags | {"trap"})


def _separator(rng: random.Random, style: Style, before: str) -> tuple[str, str]:
    """A separator; after a comment, mostly a newline (else the comment swallows what follows)."""
    in_comment = before.endswith("#") or "# " in before.rsplit("\n", 1)[-1]
    if in_comment and rng.random() < 0.7:
        return "\n", "newline"
    return _pick(rng, style.separators)


def gen_line(rng: random.Random) -> Line:
    """One command line: a trap, or 1 to 4 parts joined by separators, with comments."""
    if rng.random() < 0.1:
        return _trap(rng)
    style = PLAIN if rng.random() < 0.45 else HEAVY
    out: list[str] = []
    tags: set[str] = set()
    for k in range(rng.choice((1, 1, 2, 2, 3, 4))):
        if k:
            sep, tag = _separator(rng, style, out[-1])
            out.append(sep)
            tags.add(tag)
        text, part_tags = _part(rng, style)
        out.append(text)
        tags |= part_tags
        if comment := _maybe(rng, style.comment, COMMENTS):
            out.append(comment[0])
            tags.add(comment[1])
    return Line("".join(out), frozenset(tags))


def generate(n: int, seed: int = SEED) -> list[Line]:
    rng = random.Random(seed)
    return [gen_line(rng) for _ in range(n)]


# ---------------------------------------------------------------------------------------------
# Permission profiles: where each rule lives, and the rules the host applies.


@dataclass(frozen=True)
class Rules:
    allow: tuple[str, ...] = ()
    ask: tuple[str, ...] = ()
    deny: tuple[str, ...] = ()

    def __add__(self, other: Rules) -> Rules:
        return Rules(self.allow + other.allow, self.ask + other.ask, self.deny + other.deny)

    def settings(self) -> dict[str, Any]:
        lists = {"allow": self.allow, "ask": self.ask, "deny": self.deny}
        return {"permissions": {k: list(v) for k, v in lists.items() if v}}


NONE = Rules()


@dataclass(frozen=True)
class Profile:
    """A user's Claude Code set-up: rules in each settings file, the project's trust, the
    command-line flags (which the hook cannot see), and the permission mode."""

    name: str
    mode: str = "default"
    user: Rules = NONE  # $CLAUDE_CONFIG_DIR/settings.json
    local: Rules = NONE  # <project>/.claude/settings.local.json
    project: Rules = NONE  # <project>/.claude/settings.json: its allow only when trusted
    trusted: bool = False
    cli: Rules = NONE  # --allowedTools (allow), --disallowedTools (deny), --settings FILE

    def host_rules(self) -> Rules:
        """Every rule the host applies: the project file's allow rules only when it is trusted."""
        project = (
            self.project if self.trusted else Rules(ask=self.project.ask, deny=self.project.deny)
        )
        return self.user + self.local + project + self.cli


TOOL_RULES = tuple(
    f"Bash({r})"
    for r in (
        "pytest:*",
        "python -m pytest:*",
        "make test",
        "make",
        "cargo test:*",
        "cargo build:*",
        "npm test",
        "npm run test *",
        "npm run build",
        "go test:*",
        "tox:*",
        "mvn test:*",
        "./gradlew test:*",
        "ruff check:*",
        "mypy:*",
    )
)
LOCAL_RULES = Rules(
    allow=("Bash(pytest -q:*)", "Bash(make test)", "Bash(npm run test *)", "Bash(cargo test:*)")
    + ("Bash(ls:*)", "Bash(FOO=1 pytest *)", "Bash(go test ./...)")
)
MIX = Rules(allow=(*TOOL_RULES, "Bash(touch:*)"))
DENY_ALL_BUT = Rules(allow=("Bash",), deny=("Bash(pytest:*)", "Bash(npm test)", "Bash(touch:*)"))
PROFILES: tuple[Profile, ...] = (
    Profile("user-allow", user=Rules(allow=TOOL_RULES)),
    *(Profile(f"user-allow/{m}", mode=m, user=Rules(allow=TOOL_RULES)) for m in MODES[1:]),
    Profile("local-allow", local=LOCAL_RULES),
    Profile("project-untrusted", project=Rules(allow=TOOL_RULES)),
    Profile("project-trusted", project=Rules(allow=TOOL_RULES), trusted=True),
    Profile(
        "mix",
        user=MIX,
        local=Rules(deny=("Bash(rm:*)", "Bash(curl:*)")),
        project=Rules(ask=("Bash(pytest -x:*)", "Bash(make test)")),
    ),
    Profile("allow-all-deny", user=DENY_ALL_BUT),
    Profile("allow-all-deny/bypassPermissions", mode="bypassPermissions", user=DENY_ALL_BUT),
    Profile(
        "allow-all-ask",
        local=Rules(
            allow=("Bash(*)",), ask=("Bash(make test)", "Bash(go test:*)", "Bash(rm -rf:*)")
        ),
    ),
    Profile("cli-allowedTools", cli=Rules(allow=TOOL_RULES)),
    Profile(
        "cli-disallowedTools",
        user=Rules(allow=("Bash",)),
        cli=Rules(deny=("Bash(pytest:*)", "Bash(cargo test:*)", "Bash(rm:*)")),
    ),
    Profile(
        "cli-settings",
        user=Rules(allow=TOOL_RULES),
        cli=Rules(
            allow=("Bash(touch:*)",),
            ask=("Bash(./gradlew test:*)", "Bash(mvn test:*)"),
            deny=("Bash(tox:*)", "Bash(curl:*)"),
        ),
    ),
    Profile("none"),
    Profile("none/bypassPermissions", mode="bypassPermissions"),
)


# ---------------------------------------------------------------------------------------------
# The host's rule matching (as measured on Claude Code 2.1.332).


@dataclass(frozen=True)
class Rule:
    kind: str  # "any", "prefix" or "exact"
    words: Words
    text: str


def parse_rule(text: str) -> Rule | None:
    if text in ("Bash", "Bash(*)"):
        return Rule("any", (), text)
    if not (text.startswith("Bash(") and text.endswith(")")):
        return None
    inner = text[5:-1]
    if inner.endswith((":*", " *")):
        return Rule("prefix", tuple(inner[:-2].split()), text)
    return Rule("exact", tuple(inner.split()), text)


def rule_matches(rule: Rule, words: Words) -> bool:
    if rule.kind == "any":
        return True
    if rule.kind == "prefix":
        return words[: len(rule.words)] == rule.words
    return words == rule.words


# What the host takes off the front before it matches a deny or ask rule (measured on Claude Code
# 2.1.332: `--disallowedTools "Bash(pytest:*)"` denies `FOO=1 pytest -q`, `time pytest -q`,
# `timeout 5 pytest -q`, `env pytest -q`, `nice pytest -q` and `xargs pytest`), each with the
# number of arguments it takes. Allow rules are matched as written (`FOO=1 pytest` is asked about).
STRIPPED = {"time": 0, "env": 0, "nice": 0, "xargs": 0, "nohup": 0, "timeout": 1}


def blocking_form(words: Words) -> Words:
    """`words` as the host matches a deny or ask rule against them."""
    rest = list(words)
    while rest:
        if ASSIGNMENT.match(rest[0]):
            rest = rest[1:]
        elif rest[0] in STRIPPED:
            rest = rest[1 + STRIPPED[rest[0]] :]
            while rest and rest[0].startswith("-"):  # `nice -n 5`, `time -p`: options and values
                rest = rest[2:] if rest[0] == "-n" else rest[1:]
        else:
            break
    return tuple(rest)


def blocks(rule: Rule, words: Words) -> bool:
    """Whether a deny or ask rule meets a command the host reads."""
    return rule_matches(rule, words) or rule_matches(rule, blocking_form(words))


AUTO = frozenset({"echo", "pwd", "true"})


def auto_allowed(words: Words) -> bool:
    """What the host runs without a rule: echo, pwd, true, and `cd` into a folder of the project."""
    if not words or words[0] in AUTO:
        return True
    inside = len(words) == 2 and not words[1].startswith(("/", "..", "~", "-", "$"))
    return words[0] == "cd" and inside


@dataclass(frozen=True)
class HostRules:
    allow: tuple[Rule, ...]
    ask: tuple[Rule, ...]
    deny: tuple[Rule, ...]

    @staticmethod
    def of(rules: Rules) -> HostRules:
        def parsed(texts: Iterable[str]) -> tuple[Rule, ...]:
            return tuple(r for t in texts if (r := parse_rule(t)) is not None)

        return HostRules(parsed(rules.allow), parsed(rules.ask), parsed(rules.deny))

    def allowed(self, words: Words) -> bool:
        return auto_allowed(words) or any(rule_matches(r, words) for r in self.allow)

    def blocking(self) -> tuple[Rule, ...]:
        return self.deny + self.ask


# ---------------------------------------------------------------------------------------------
# The host's reading of a command line's text: its simple commands, as word tuples (quotes
# removed, redirections dropped, `time`, `!`, `{`, `}` in front dropped; `$(...)` and backquotes
# read as commands of their own). A model of the host, written from bash's grammar.

ANSI = {"n": "\n", "t": "\t", "r": "\r", "a": "\a", "b": "\b", "e": "\x1b", "f": "\f", "v": "\v"}
REDIRECT_OP = re.compile(r"&>>|&>|>>|>&|>\||<<<|<<-?|<&|<>|>|<")
TARGET_END = frozenset(" \t\n;&|()<>")
LEADING = frozenset({"{", "}", "(", ")", "!"})


ANSI_NUMBER = re.compile(r"[0-7]{1,3}|x[0-9A-Fa-f]{1,2}")


def ansi_c(text: str, i: int) -> tuple[str, int]:
    """The value of a `$'...'` body starting at i, and the index after its closing quote."""
    out: list[str] = []
    while i < len(text) and text[i] != "'":
        if text[i] != "\\" or i + 1 == len(text):
            out.append(text[i])
            i += 1
        elif number := ANSI_NUMBER.match(text, i + 1):
            digits = number.group()
            out.append(chr(int(digits[1:], 16) if digits[0] == "x" else int(digits, 8)))
            i = number.end()
        else:
            out.append(ANSI.get(text[i + 1], text[i + 1]))
            i += 2
    return "".join(out), i + 1


def _closing_backquote(text: str, i: int) -> int:
    while i < len(text) and text[i] != "`":
        i += 2 if text[i] == "\\" else 1
    return min(i, len(text))


def _normalize(words: list[str]) -> Words:
    while words and words[0] in LEADING:
        words = words[1:]
    if words[:1] == ["time"]:
        words = words[2:] if words[1:2] == ["-p"] else words[1:]
    return tuple(words)


class HostLexer:
    def __init__(self, text: str, start: int = 0, in_subst: bool = False) -> None:
        self.s, self.i, self.in_subst = text, start, in_subst
        self.depth = 0
        self.done = False
        self.segments: list[Words] = []
        self.inner: list[Words] = []
        self.words: list[str] = []
        self.word: list[str] = []
        self.started = False
        self.handlers: dict[str, Callable[[], None]] = {
            " ": self._space,
            "\t": self._space,
            "\n": self._separator,
            ";": self._separator,
            "'": self._single,
            '"': self._double,
            "$": self._dollar,
            "\\": self._backslash,
            "`": self._backquote,
            "#": self._hash,
            "&": self._amp,
            "|": self._pipe,
            "(": self._open,
            ")": self._close,
            "<": self._redirect,
            ">": self._redirect,
        }

    def run(self) -> list[Words]:
        while not self.done and self.i < len(self.s):
            handler = self.handlers.get(self.s[self.i])
            if handler is None:
                self._add(self.s[self.i], 1)
            else:
                handler()
        self._end_segment()
        return self.segments + self.inner

    def _add(self, chars: str, advance: int) -> None:
        self.word.append(chars)
        self.started = True
        self.i += advance

    def _end_word(self) -> None:
        if self.started:
            self.words.append("".join(self.word))
        self.word, self.started = [], False

    def _end_segment(self) -> None:
        self._end_word()
        words = _normalize(self.words)
        if words:
            self.segments.append(words)
        self.words = []

    def _space(self) -> None:
        self._end_word()
        self.i += 1

    def _separator(self) -> None:
        self._end_segment()
        self.i += 1

    def _single(self) -> None:
        end = self.s.find("'", self.i + 1)
        end = len(self.s) if end < 0 else end
        self._add(self.s[self.i + 1 : end], 0)
        self.i = end + 1

    def _double(self) -> None:
        self.i += 1
        self.started = True
        while self.i < len(self.s) and self.s[self.i] != '"':
            self._double_step()
        self.i += 1

    def _double_step(self) -> None:
        s, i = self.s, self.i
        if s[i] == "\\" and s[i + 1 : i + 2] in ('"', "\\", "$", "`"):
            self._add(s[i + 1], 2)
        elif s[i] == "\\" and s[i + 1 : i + 2] == "\n":
            self.i += 2
        elif s.startswith("$(", i):
            self._subst()
        elif s[i] == "`":
            self._backquote()
        else:
            self._add(s[i], 1)

    def _dollar(self) -> None:
        nxt = self.s[self.i + 1 : self.i + 2]
        if nxt == "'":
            value, end = ansi_c(self.s, self.i + 2)
            self._add(value, 0)
            self.i = end
        elif nxt == "(":
            self._subst()
        else:
            self._add("$", 1)

    def _subst(self) -> None:
        sub = HostLexer(self.s, self.i + 2, in_subst=True)
        self.inner += sub.run()
        self._add(self.s[self.i : sub.i], 0)
        self.i = sub.i

    def _backquote(self) -> None:
        end = _closing_backquote(self.s, self.i + 1)
        self.inner += HostLexer(self.s[self.i + 1 : end].replace("\\`", "`")).run()
        self._add(self.s[self.i : end + 1], 0)
        self.i = end + 1

    def _backslash(self) -> None:
        nxt = self.s[self.i + 1 : self.i + 2]
        if nxt == "\n":
            self.i += 2
        else:
            self._add(nxt, 2)

    def _hash(self) -> None:
        if self.started:
            self._add("#", 1)
            return
        end = self.s.find("\n", self.i)
        self.i = len(self.s) if end < 0 else end

    def _amp(self) -> None:
        nxt = self.s[self.i + 1 : self.i + 2]
        if nxt == ">":
            self._redirect()
            return
        self._end_segment()
        self.i += 2 if nxt == "&" else 1

    def _pipe(self) -> None:
        self._end_segment()
        self.i += 2 if self.s[self.i + 1 : self.i + 2] in ("|", "&") else 1

    def _open(self) -> None:
        self._end_segment()
        self.depth += 1
        self.i += 1

    def _close(self) -> None:
        self._end_segment()
        self.i += 1
        if self.in_subst and self.depth == 0:
            self.done = True
        self.depth -= 1

    def _redirect(self) -> None:
        if self.started and "".join(self.word).isdigit():
            self.word, self.started = [], False  # the fd number of `2>`
        self._end_word()
        match = REDIRECT_OP.match(self.s, self.i)
        self.i = match.end() if match else self.i + 1
        while self.i < len(self.s) and self.s[self.i] in " \t":
            self.i += 1
        self._skip_target()

    def _skip_target(self) -> None:
        s = self.s
        while self.i < len(s) and s[self.i] not in TARGET_END:
            if s[self.i] in "'\"":
                end = s.find(s[self.i], self.i + 1)
                self.i = len(s) if end < 0 else end + 1
            else:
                self.i += 2 if s[self.i] == "\\" else 1


def host_segments(text: str) -> list[Words]:
    return HostLexer(text).run()


# ---------------------------------------------------------------------------------------------
# bash's own account: xtrace (PS4='+$BASHPID ') and the stubs' argv log.

ENTRY = re.compile(r"(\++)(\d+) ")
ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")
Command = tuple[int, Words]  # (xtrace depth, words)


def _xtrace_words(text: str, i: int) -> tuple[Words, int]:
    """The words of one xtrace entry (bash's quoting undone) and the index after it."""
    words: list[str] = []
    cur: list[str] = []
    started = False
    while i < len(text) and text[i] != "\n":
        c = text[i]
        if c == " ":
            words += ["".join(cur)] if started else []
            cur, started, i = [], False, i + 1
            continue
        if c == "'":
            end = text.find("'", i + 1)
            end = len(text) if end < 0 else end
            piece, i = text[i + 1 : end], end + 1
        elif text.startswith("$'", i):
            piece, i = ansi_c(text, i + 2)
        else:
            piece, i = (text[i + 1 : i + 2], i + 2) if c == "\\" else (c, i + 1)
        cur.append(piece)
        started = True
    words += ["".join(cur)] if started else []
    return tuple(words), i + 1


def parse_xtrace(text: str) -> list[tuple[int, int, Words]]:
    """(depth, pid, words) of each entry bash traced."""
    entries: list[tuple[int, int, Words]] = []
    i = 0
    while i < len(text):
        m = ENTRY.match(text, i)
        if m is None:
            end = text.find("\n", i)
            i = len(text) if end < 0 else end + 1
            continue
        words, i = _xtrace_words(text, m.end())
        entries.append((len(m.group(1)), int(m.group(2)), words))
    return entries


def traced_commands(text: str) -> list[Command]:
    """The simple commands bash ran, the `eval` that ran the line aside; a prefix assignment
    (traced on its own line) joined to the command of the same process that follows it."""
    pending: dict[int, tuple[int, list[str]]] = {}
    out: list[Command] = []
    for depth, pid, words in parse_xtrace(text):
        if depth <= 1:
            continue
        if len(words) == 1 and ASSIGNMENT.match(words[0]):
            pending.setdefault(pid, (depth, []))[1].append(words[0])
            continue
        out.append((depth, tuple(pending.pop(pid, (depth, []))[1]) + words))
    out += [(depth, tuple(words)) for depth, words in pending.values()]
    return out


def parse_log(data: bytes) -> list[Words]:
    """The argv of each stub run, its name as typed: `pytest` (found on PATH), `./gradlew`."""
    text = data.decode("utf-8", "replace")
    records = [rec[:-1].split("\x1f") for rec in text.split("\x1e\x1f") if rec]
    return [(os.path.basename(r[0]) if r[0].startswith("/") else r[0], *r[1:]) for r in records]


TIMES = re.compile(r"^(real|user|sys)\s+\S+$")


def output_lines(data: bytes, case: Path) -> Counter[str]:
    """The output's lines, its run's folder and batch named alike in every run, `time`'s figures
    blanked."""
    text = data.decode("utf-8", "replace").replace(str(case), "<RUN>")
    lines = text.replace(str(case.parent), "<BATCH>").splitlines()
    return Counter(TIMES.sub(r"\1 T", line) for line in lines)


@dataclass(frozen=True)
class Run:
    """What one command line did under bash: None for rc when it ran past its time."""

    rc: int | None
    output: Counter[str]
    commands: tuple[Command, ...]
    execs: tuple[Words, ...]
    files: tuple[tuple[str, bytes], ...]


# ---------------------------------------------------------------------------------------------
# The sandbox: stub tools, and a Claude Code config folder and project per profile.

STUB_CODES = {
    "pytest": 1,
    "python": 1,
    "make": 2,
    "cargo": 101,
    "npm": 1,
    "go": 1,
    "tox": 1,
    "mvn": 1,
    "gradlew": 1,
    "ruff": 1,
    "mypy": 1,
    "touch": 1,
    "rm": 1,
    "curl": 6,
    "ls": 2,
    "git": 128,
}
# A stub logs its argv, drains its stdin, prints a line on each of stderr and stdout (a closed
# pipe ignored: `pytest | echo hi` ends alike every run), and exits with its code when
# len("NAME ARGS") % 3 == 0 (`pytest -q`, `make test`, `tox`, `curl x` fail; `cargo test`,
# `npm test`, `touch pwned` pass), so that LINE and NEW meet the same statuses.
STUB = (
    "#!/bin/sh\n"
    'printf \'%s\\037\' "$0" "$@" \'\x1e\' >> "${K0LOG:-/dev/null}"\n'
    "trap '' PIPE\n"
    "while IFS= read -r _l; do :; done\n"
    'echo "${0##*/} note" >&2\n'
    'echo "${0##*/} ran: $*" 2>/dev/null\n'
    '_s="${0##*/} $*"\n'
    "[ $(( ${#_s} % 3 )) -eq 0 ] && exit CODE\n"
    "exit 0\n"
)
SINK_STUB = "#!/bin/sh\nexec cat\n"
OLD_K0MARU_STUB = (
    '#!/bin/sh\nif [ "$1" = offload ] && [ "$2" = -- ]; then shift 2; exec "$@"; fi\nexit 2\n'
)
HOOK_ENV = ("CLAUDE_CONFIG_DIR", "CLAUDE_PROJECT_DIR", "K0MARU_VAULT", "K0MARU_HOOK_SINK")


def _write(path: Path, text: str, mode: int = 0o644) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(mode)


class Sandbox:
    def __init__(self, root: Path, profiles: Sequence[Profile]) -> None:
        self.root = root
        self.stubs = root / "stubs"
        for name, code in STUB_CODES.items():
            _write(self.stubs / name, STUB.replace("CODE", str(code)), 0o755)
        _write(self.stubs / "stub-k0maru", SINK_STUB, 0o755)
        _write(self.stubs / "k0maru", OLD_K0MARU_STUB, 0o755)
        self.sink = f"{self.stubs}/stub-k0maru offload --sink"
        self.envs = {
            p.name: self._profile(p, root / "profiles" / str(i)) for i, p in enumerate(profiles)
        }

    def _profile(self, p: Profile, home: Path) -> dict[str, str]:
        user, project = home / "claude-user", home / "project"
        (project / ".git").mkdir(parents=True)
        (project / "sub").mkdir()
        files = {
            user / "settings.json": p.user,
            project / ".claude" / "settings.local.json": p.local,
            project / ".claude" / "settings.json": p.project,
        }
        for path, rules in files.items():
            if rules != NONE:
                _write(path, json.dumps(rules.settings()))
        trust = {"projects": {str(project): {"hasTrustDialogAccepted": p.trusted}}}
        _write(user / ".claude.json", json.dumps(trust))
        return {
            "CLAUDE_CONFIG_DIR": str(user),
            "CLAUDE_PROJECT_DIR": str(project),
            "K0MARU_VAULT": "1",
            "K0MARU_HOOK_SINK": self.sink,
        }

    def event(self, p: Profile, command: str) -> dict[str, Any]:
        return {
            "session_id": "fuzz",
            "transcript_path": "/tmp/fuzz.jsonl",
            "cwd": self.envs[p.name]["CLAUDE_PROJECT_DIR"],
            "permission_mode": p.mode,
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": command, "description": "d"},
            "tool_use_id": "t1",
        }


# ---------------------------------------------------------------------------------------------
# Running lines under bash, in batches: one bash per batch, each line eval'd in a subshell in a
# fresh folder, its xtrace, stub log, output and exit status in files beside that folder.

BATCH_HEAD = """exec 9>&1 >/dev/null 2>&1
PS4='+${BASHPID} '
r() {
  ( cd "$1" || exit 99
    K0LOG="$1.log"; export K0LOG
    exec 3>"$1.x"; BASH_XTRACEFD=3
    set -x
    eval "$2"
  ) </dev/null >"$1.out" 2>&1
  echo $? >"$1.rc"
}
"""


class BashPool:
    """Runs each distinct command text once, `parallel` batches at a time."""

    def __init__(self, root: Path, stubs: Path, parallel: int = 2, batch: int = 120) -> None:
        self.root, self.stubs, self.parallel, self.batch = root, stubs, parallel, batch
        self.env = {"PATH": f"{stubs}:/usr/bin:/bin", "HOME": str(root), "LANG": "C"}
        self.queued: list[str] = []
        self.seen: set[str] = set()
        self.running: list[tuple[subprocess.Popen[bytes], list[str], Path, float]] = []
        self.results: dict[str, Run] = {}
        self.batches = 0

    def want(self, texts: Iterable[str]) -> None:
        for text in texts:
            if text not in self.seen:
                self.seen.add(text)
                self.queued.append(text)

    def pump(self, final: bool = False) -> None:
        """Collect finished batches; start new ones (a partial one only when `final`)."""
        self.running = [job for job in self.running if not self._collect(job, block=False)]
        while len(self.running) < self.parallel and (
            len(self.queued) >= self.batch or (final and self.queued)
        ):
            texts, self.queued = self.queued[: self.batch], self.queued[self.batch :]
            self.running.append(self._start(texts, deadline=10 + 0.5 * len(texts)))

    def finish(self) -> dict[str, Run]:
        while self.queued or self.running:
            self.pump(final=True)
            if self.running:
                self._collect(self.running.pop(0), block=True)
        return self.results

    def _start(
        self, texts: list[str], deadline: float
    ) -> tuple[subprocess.Popen[bytes], list[str], Path, float]:
        self.batches += 1
        folder = self.root / f"b{self.batches}"
        script = [BATCH_HEAD]
        for k, text in enumerate(texts):
            case = folder / f"r{k}"
            (case / "sub").mkdir(parents=True)
            (case / "gradlew").symlink_to(self.stubs / "gradlew")
            script.append(f"r {case} {shlex.quote(text)}\n")
        (folder / "batch.sh").write_text("".join(script))
        proc = subprocess.Popen(
            ["bash", "--norc", "--noprofile", str(folder / "batch.sh")],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=self.env,
            start_new_session=True,
        )
        return proc, texts, folder, time.monotonic() + deadline

    def _collect(
        self, job: tuple[subprocess.Popen[bytes], list[str], Path, float], block: bool
    ) -> bool:
        proc, texts, folder, deadline = job
        if not block and proc.poll() is None and time.monotonic() < deadline:
            return False
        try:
            proc.communicate(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
        late = [t for k, t in enumerate(texts) if not (folder / f"r{k}.rc").exists()]
        for k, text in enumerate(texts):
            if text not in late:
                self.results[text] = read_run(folder / f"r{k}")
        shutil.rmtree(folder, ignore_errors=True)
        self._rerun_alone(late, len(texts))
        return True

    def _rerun_alone(self, late: list[str], batch_size: int) -> None:
        """Each text of a batch that ran past its time, alone with 10 s; still late: rc None."""
        for text in late:
            if batch_size == 1:
                self.results[text] = Run(None, Counter(), (), (), ())
            else:
                self._collect(self._start([text], deadline=10), block=True)


def read_run(case: Path) -> Run:
    def read(suffix: str) -> bytes:
        try:
            return Path(f"{case}{suffix}").read_bytes()
        except OSError:
            return b""

    rc = read(".rc").strip()
    return Run(
        int(rc) if rc.isdigit() else None,
        output_lines(read(".out"), case),
        tuple(traced_commands(read(".x").decode("utf-8", "replace"))),
        tuple(parse_log(read(".log"))),
        _files(case),
    )


def _files(case: Path) -> tuple[tuple[str, bytes], ...]:
    """The files a run left in its folder, their contents with the folder named alike."""
    found: list[tuple[str, bytes]] = []
    for path in sorted(case.rglob("*")):
        if path.is_file() and not path.is_symlink():
            data = path.read_bytes()[:4096].replace(str(case).encode(), b"<RUN>")
            found.append((str(path.relative_to(case)), data))
    return tuple(found)


# ---------------------------------------------------------------------------------------------
# The verdicts.


@dataclass(frozen=True)
class Reply:
    """The hook's answer, read: `new` the rewritten command (None: none), `decision` its
    permissionDecision (None: none), `errors` what is malformed about it."""

    new: str | None
    decision: str | None
    errors: tuple[str, ...]


def read_answer(out: Answer, tool_input: dict[str, Any], mode: str) -> Reply:
    if out is None:
        return Reply(None, None, ())
    spec = out.get("hookSpecificOutput") if isinstance(out, dict) else None
    if not isinstance(spec, dict):
        return Reply(None, None, (f"malformed answer: no hookSpecificOutput: {out!r}"[:200],))
    errors: list[str] = []
    if spec.get("hookEventName") != "PreToolUse":
        errors.append(f"hookEventName {spec.get('hookEventName')!r}")
    decision = spec.get("permissionDecision")
    if decision not in (None, "allow", "ask", "deny"):
        errors.append(f"permissionDecision {decision!r}")
    if decision is not None and mode == "bypassPermissions":
        errors.append(f"permissionDecision {decision!r} in bypassPermissions")
    updated = spec.get("updatedInput")
    new = updated.get("command") if isinstance(updated, dict) else None
    if updated is not None and (
        not isinstance(new, str) or {**updated, "command": None} != {**tool_input, "command": None}
    ):
        errors.append(f"updatedInput changes more than the command: {updated!r}"[:200])
    errors = [f"malformed answer: {e}" for e in errors]
    return Reply(new if isinstance(new, str) else None, decision, tuple(errors))


def strip_additions(new: str, sink: str) -> str:
    """NEW without what k0maru adds: the new form's `set -o pipefail; ` and ` 2>&1 | SINK`, or
    the old form's `k0maru offload -- `."""
    text = new[len(PIPEFAIL) :] if new.startswith(PIPEFAIL) else new
    return text.replace(f" 2>&1 | {sink}", "").replace(OLD_WRAP, "")


def without_additions(commands: Iterable[Command], sink: Words) -> Counter[Command]:
    """NEW's traced commands less k0maru's: one `set -o pipefail`, the sink, and the old
    wrapper's three words."""
    out: Counter[Command] = Counter()
    pipefail_seen = False
    for depth, words in commands:
        if words == ("set", "-o", "pipefail") and not pipefail_seen:
            pipefail_seen = True
        elif words != sink:
            out[(depth, _unwrap(words))] += 1
    return out


def _unwrap(words: Words) -> Words:
    for k in range(len(words) - 2):
        if words[k : k + 3] == ("k0maru", "offload", "--"):
            return words[:k] + words[k + 3 :]
    return words


def _show(words: Iterable[Words]) -> str:
    return "; ".join(shlex.join(w) for w in words)[:300]


@dataclass
class Judge:
    """The oracle for one sandbox: the host's reading of texts (cached), and bash's runs."""

    sink: str
    runs: dict[str, Run] | None
    texts: dict[str, list[Words]] = field(default_factory=dict)
    host_rules: dict[str, HostRules] = field(default_factory=dict)

    def rules(self, profile: Profile) -> HostRules:
        if profile.name not in self.host_rules:
            self.host_rules[profile.name] = HostRules.of(profile.host_rules())
        return self.host_rules[profile.name]

    def segments(self, text: str) -> list[Words]:
        if text not in self.texts:
            self.texts[text] = host_segments(text)
        return self.texts[text]

    def commands(self, line: str) -> list[Words]:
        """LINE's commands: the host's reading of its text, and what bash ran."""
        ran = self.runs[line].commands if self.runs is not None else ()
        return self.segments(line) + [words for _, words in ran]

    def verdicts(self, line: str, reply: Reply, profile: Profile) -> list[tuple[str, str]]:
        found = [("e", err) for err in reply.errors]
        rules = self.rules(profile)
        found += self.check_grant(line, reply, profile, rules)
        if reply.new is not None and reply.new != line:
            if strip_additions(reply.new, self.sink) != line:
                found.append(("b", "text changed: NEW less k0maru's additions is not LINE"))
            found += self.check_hidden(line, reply.new, rules)
            found += self.check_runs(line, reply.new)
        return found

    def check_grant(
        self, line: str, reply: Reply, profile: Profile, rules: HostRules
    ) -> list[tuple[str, str]]:
        # In bypassPermissions the host runs whatever its deny and ask rules do not meet, with or
        # without the hook: only an `allow` grants anything (check_hidden judges the rest).
        if reply.decision != "allow":
            return []
        refused = [w for w in self.commands(line) if not rules.allowed(w)]
        if refused:
            what = "allow" if reply.decision == "allow" else f"rewrite in {profile.mode}"
            return [("c", f"{what} not backed by the rules: {_show(refused[:3])}")]
        return []

    def check_hidden(self, line: str, new: str, rules: HostRules) -> list[tuple[str, str]]:
        """A deny/ask rule that matches a command of LINE must match a command of NEW's text.
        LINE's commands: its text as the host reads it (the rule "no longer matches" NEW), and
        what bash and the stubs ran (`env pytest`, `FOO=1 pytest` run pytest: the rule matches a
        command the host never sees, in LINE's text or NEW's)."""
        theirs = self.segments(new)
        ran = [w for _, w in self.runs[line].commands] if self.runs is not None else []
        ran += self.runs[line].execs if self.runs is not None else ()
        found = []
        for rule in rules.blocking():
            if any(blocks(rule, w) for w in theirs):
                continue
            if any(blocks(rule, w) for w in self.segments(line)):
                found.append(("c", f"deny/ask rule no longer matches: {rule.text}"))
            elif any(blocks(rule, w) for w in ran):
                found.append(("c", f"deny/ask rule matches a command run unseen: {rule.text}"))
        return found

    def check_runs(self, line: str, new: str) -> list[tuple[str, str]]:
        if self.runs is None:
            return []
        before, after = self.runs[line], self.runs[new]
        found: list[tuple[str, str]] = []
        ran_before = Counter(before.commands)
        ran_after = without_additions(after.commands, tuple(self.sink.split()))
        if extra := ran_after - ran_before:
            found.append(("a", f"runs more: {_show(w for _, w in extra)}"))
        if extra_execs := Counter(after.execs) - Counter(before.execs):
            found.append(("a", f"executes more: {_show(extra_execs)}"))
        found += _outcome(before, after, ran_before - ran_after)
        return found

    def refused(self, line: str, reply: Reply, profile: Profile) -> bool:
        """A line the profile allows entirely, answered with anything but allow + rewrite."""
        if profile.mode not in REFUSAL_MODES or reply == Reply(None, None, ()):
            return False
        if reply.decision == "allow" and reply.new is not None and reply.new != line:
            return False
        rules = self.rules(profile)
        commands = self.commands(line)
        blocked = any(blocks(r, w) for r in rules.blocking() for w in commands)
        return not blocked and all(rules.allowed(w) for w in commands)


def _outcome(before: Run, after: Run, missing: Counter[Command]) -> list[tuple[str, str]]:
    found: list[tuple[str, str]] = []
    if before.rc != after.rc:
        found.append(("d", f"exit status: {before.rc} -> {after.rc}"))
    if lost := before.output - after.output:
        found.append(("d", f"output lost: {sorted(lost)[:3]}"[:300]))
    if before.files != after.files:
        found.append(
            ("d", f"files differ: {[f for f, _ in before.files]} -> {[f for f, _ in after.files]}")
        )
    if missing:
        found.append(("d", f"no longer runs: {_show(w for _, w in missing)}"))
    return found


# ---------------------------------------------------------------------------------------------
# The run.


@dataclass
class Stats:
    pairs: int = 0
    answered: int = 0
    rewritten: int = 0
    allowed: int = 0
    refusals: int = 0
    violations: Counter[str] = field(default_factory=Counter)


@dataclass
class Report:
    lines: int
    seed: int
    bash: bool
    pairs: int = 0
    lines_rewritten: int = 0
    pairs_rewritten: int = 0
    bash_runs: int = 0
    seconds: float = 0.0
    violations: Counter[str] = field(default_factory=Counter)
    examples: dict[str, list[dict[str, str]]] = field(default_factory=dict)
    refusals: int = 0
    refusal_examples: list[dict[str, str]] = field(default_factory=list)
    reasons: Counter[str] = field(default_factory=Counter)  # "kind: what", counted
    per_profile: dict[str, Stats] = field(default_factory=dict)
    distinct_lines: int = 0
    tags: Counter[str] = field(default_factory=Counter)  # constructs in the lines generated
    tags_rewritten: Counter[str] = field(default_factory=Counter)  # ... in the lines rewritten

    def as_json(self) -> dict[str, Any]:
        out = {k: v for k, v in vars(self).items() if k != "per_profile"}
        out["per_profile"] = {name: vars(s) for name, s in self.per_profile.items()}
        return out


def load_hook(root: str | None = None) -> HookFn:
    if root:
        sys.path.insert(0, root)
    from k0maru.agent_hook import answer

    fn: HookFn = answer
    return fn


@dataclass(frozen=True)
class Asked:
    line: int
    profile: Profile
    reply: Reply


def ask(
    hook: HookFn, box: Sandbox, profiles: Sequence[Profile], lines: Sequence[Line], start: int
) -> list[Asked]:
    """The hook's answers to lines[start:] under each profile, os.environ set per profile."""
    saved = {k: os.environ.get(k) for k in (*HOOK_ENV, "K0MARU_HOOK")}
    os.environ.pop("K0MARU_HOOK", None)
    asked: list[Asked] = []
    try:
        for p in profiles:
            os.environ.update(box.envs[p.name])
            for k, line in enumerate(lines):
                asked += _ask_one(hook, box, p, line.text, start + k)
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
    return asked


def _ask_one(hook: HookFn, box: Sandbox, p: Profile, text: str, index: int) -> list[Asked]:
    event = box.event(p, text)
    try:
        out = hook(event)
    except Exception as exc:  # the hook must never raise: a violation of its own
        return [Asked(index, p, Reply(None, None, (f"the hook raised {exc!r}"[:200],)))]
    if out is None:
        return []
    return [Asked(index, p, read_answer(out, event["tool_input"], p.mode))]


def fuzz(
    n_lines: int = 20000,
    seed: int = SEED,
    *,
    hook: HookFn | None = None,
    bash: bool = True,
    profiles: Sequence[Profile] = PROFILES,
    parallel: int = 2,
    chunk: int = 250,
) -> Report:
    """Generate, ask the hook under every profile, run what it answered under bash, judge."""
    t0 = time.perf_counter()
    lines = generate(n_lines, seed)
    hook = hook or load_hook()
    with tempfile.TemporaryDirectory(prefix="k0fuzz-") as tmp:
        box = Sandbox(Path(tmp), profiles)
        pool = BashPool(Path(tmp) / "runs", box.stubs, parallel) if bash else None
        asked: list[Asked] = []
        for start in range(0, len(lines), chunk):
            batch = ask(hook, box, profiles, lines[start : start + chunk], start)
            asked += batch
            if pool is not None:
                pool.want(t for a in batch for t in (lines[a.line].text, a.reply.new) if t)
                pool.pump()
        runs = pool.finish() if pool is not None else None
        report = judge_all(lines, asked, profiles, Judge(box.sink, runs), seed)
        report.bash_runs = len(runs) if runs is not None else 0
    report.seconds = round(time.perf_counter() - t0, 1)
    return report


def judge_all(
    lines: Sequence[Line],
    asked: Sequence[Asked],
    profiles: Sequence[Profile],
    judge: Judge,
    seed: int,
) -> Report:
    report = Report(len(lines), seed, judge.runs is not None, pairs=len(lines) * len(profiles))
    report.per_profile = {p.name: Stats(pairs=len(lines)) for p in profiles}
    report.tags = Counter(t for line in lines for t in line.tags)
    rewritten_lines: set[int] = set()
    for a in asked:
        line = lines[a.line].text
        stats = report.per_profile[a.profile.name]
        stats.answered += 1
        if a.reply.new is not None and a.reply.new != line:
            stats.rewritten += 1
            rewritten_lines.add(a.line)
        stats.allowed += a.reply.decision == "allow"
        _record(report, stats, a, line, judge)
    report.lines_rewritten = len(rewritten_lines)
    report.distinct_lines = len({line.text for line in lines})
    report.tags_rewritten = Counter(t for k in rewritten_lines for t in lines[k].tags)
    report.pairs_rewritten = sum(s.rewritten for s in report.per_profile.values())
    return report


def _record(report: Report, stats: Stats, a: Asked, line: str, judge: Judge) -> None:
    example = {"profile": a.profile.name, "line": line, "new": str(a.reply.new)}
    example["decision"] = str(a.reply.decision)
    for kind, detail in judge.verdicts(line, a.reply, a.profile):
        stats.violations[kind] += 1
        report.violations[kind] += 1
        report.reasons[f"{kind}: {detail.split(':')[0]}"] += 1
        shown = report.examples.setdefault(kind, [])
        if len(shown) < 3 and all(e["line"] != line for e in shown):
            shown.append({**example, "detail": detail})
    if judge.refused(line, a.reply, a.profile):
        stats.refusals += 1
        report.refusals += 1
        if len(report.refusal_examples) < 3:
            report.refusal_examples.append(example)


# ---------------------------------------------------------------------------------------------
# The report.


def print_report(r: Report) -> None:
    print(f"lines {r.lines} ({r.distinct_lines} distinct, seed {r.seed}) x {len(r.per_profile)}")
    print(f"profiles = {r.pairs} pairs; wall {r.seconds} s")
    print(f"rewritten: {r.lines_rewritten} lines, {r.pairs_rewritten} pairs")
    judged = "a b c d e" if r.bash else "b c e (no bash: c from the host's reading of the text)"
    print(f"judged: {judged}; bash runs {r.bash_runs}")
    shown = ", ".join(f"{t} {n}" for t, n in sorted(r.tags_rewritten.items()))
    print(f"constructs in the rewritten lines: {shown}")
    print("violations:")
    for kind in KINDS:
        print(f"  {kind}: {r.violations.get(kind, 0)}")
        for ex in r.examples.get(kind, []):
            print(f"      [{ex['profile']}] {ex['line']!r}")
            print(f"        -> {ex['new']!r} ({ex['decision']})\n        {ex['detail']}")
    for reason, n in sorted(r.reasons.items()):
        print(f"  {n:7}  {reason}")
    print(f"refusals: {r.refusals}")
    for ex in r.refusal_examples:
        print(f"  [{ex['profile']}] {ex['line']!r} -> {ex['new']!r} ({ex['decision']})")
    print(f"  {'profile':36} answered rewritten allowed refusals  " + " ".join(KINDS))
    for name, s in r.per_profile.items():
        counts = " ".join(str(s.violations.get(k, 0)) for k in KINDS)
        print(f"  {name:36} {s.answered:8} {s.rewritten:9} {s.allowed:7} {s.refusals:8}  {counts}")


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--lines", type=int, default=20000)
    ap.add_argument("--seed", type=int, default=SEED)
    ap.add_argument("--json", action="store_true", help="print the report as JSON")
    ap.add_argument("--no-bash", action="store_true", help="judge in-process only (b, c, e)")
    ap.add_argument("--hook-root", help="import k0maru from this folder")
    ap.add_argument("--parallel", type=int, default=2, help="bash batches at a time")
    args = ap.parse_args(argv)
    report = fuzz(
        args.lines,
        args.seed,
        hook=load_hook(args.hook_root),
        bash=not args.no_bash,
        parallel=args.parallel,
    )
    if args.json:
        print(json.dumps(report.as_json(), indent=1))
    else:
        print_report(report)
    return 1 if sum(report.violations.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
