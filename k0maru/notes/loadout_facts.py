"""Facts out of Markdown: a note cut at its headings, each part's blocks (paragraphs, list items,
code fences) scored for how plainly they state a rule or a command, and only those kept.

A block states a fact when it gives an order (an imperative, must/never/always/prefer/avoid), names
a command (a fence of shell lines, or inline code that reads as one) near words of testing, linting,
building, formatting or releasing, or says where things live. Prose that explains, links and badges
are left out: the loadout carries facts, not openings."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_HEADING = re.compile(r"^(#{1,6})[ \t]+(.+?)[ \t#]*$")
_FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})[ \t]*([\w+-]*)")  # in list items too
_LIST_ITEM = re.compile(r"^[ \t]{0,3}(?:[-*+]|\d{1,3}[.)])[ \t]+")
_RULE_WORDS = re.compile(
    r"\b(?:must|never|always|should(?:n't| not)?|do not|don't|prefer(?:red)?|avoid|required?|"
    r"make sure|ensure|instead of|rather than|forbidden|not allowed|only|mandatory|needs? to)\b",
    re.I,
)
_IMPERATIVE = re.compile(
    r"^(?:\*\*)?(?:run|use|add|write|keep|avoid|prefer|follow|make|ensure|put|place|don't|do|"
    r"never|always|create|update|open|sign|name|commit|install|test|check|format|lint|call|set|"
    r"include|document|mark|tag|prefix|squash|rebase|regenerate|generate|build|start|stop|"
    r"execute|type-check|typecheck|verify|target|branch|submit|describe|disclose|record|"
    r"re-run|rerun|restore|pass|fix|bump|link|read|see|apply|skip|exclude|wrap|import|export|"
    r"return|declare|define|register|configure|choose|select|move|remove|delete|rename|align|"
    r"ask|file|discuss|split|no)\b",
    re.I,
)
_LEAD = re.compile(r"^(?:for|if|when|before|after|once|unless|while|in)\b[^,:.]{0,80}[,:]\s*", re.I)
_TOPIC = re.compile(
    r"\b(?:test\w*|lint\w*|build\w*|format\w*|fmt|release|typecheck\w*|type-check\w*|"
    r"clippy|style|commit\w*|pull requests?|PRs?|branch\w*|migrat\w*|snapshot\w*|coverage|"
    r"install\w*|setup|set up|develop\w*|depend\w*|generat\w*|convention\w*|review\w*|"
    r"changelog|docs?|check\w*|ci)\b",
    re.I,
)
_SHELL_LANGS = {"", "sh", "bash", "shell", "console", "zsh", "powershell", "pwsh", "cmd", "bat"}
_COMMAND = re.compile(
    r"^(?:\$ |> )?(?:cd [\w./~-]+ && )?(?:[A-Z][A-Z0-9_]*=\S* )*(?:sudo )?(?:bin/[\w-]+|(?:\./|bin/|\.\\)?(?:make|npm|npx|pnpm|yarn|bun|bunx|"
    r"deno|node|cargo|rustup|go|uv|uvx|pip|pip3|pipx|python3?|pytest|tox|nox|hatch|poetry|pdm|"
    r"ruff|mypy|pyright|black|isort|flake8|pre-commit|prek|bundle|rake|rails|rspec|rubocop|gem|"
    r"dotnet|msbuild|"
    r"nuget|mvn|mvnw|gradle|gradlew|mix|iex|elixir|composer|php|artisan|vendor/bin/\w+|just|"
    r"docker|docker-compose|podman|kubectl|helm|git|gh|cmake|ninja|bazel|meson|ctest|swift|"
    r"xcodebuild|flutter|dart|sbt|lein|stack|cabal|zig|task|earthly|nix|direnv|terraform|"
    r"tsc|eslint|prettier|biome|vitest|jest|playwright|turbo|nx|lerna|changeset|"
    r"aspire|build\.sh|build\.cmd|test\.sh|dotnet\.sh|[\w./-]+\.sh))\b",
    re.I,
)
_RULE_HEADING = re.compile(
    r"checklist|principles|guidelines|rules|conventions|best practices|requirements|do'?s\b|"
    r"don'?ts|standards|policy|policies",
    re.I,
)  # a list under such a heading states rules, one an item
_INLINE_CODE = re.compile(r"`([^`\n]{2,200})`")
_NOISE = re.compile(r"^(?:\[!\[|!\[|<(?:img|a|p|div|br|picture|source|h\d)\b|\[[^\]]*\]:\s)", re.I)
_LINK = re.compile(r"!?\[([^\[\]\n]*)\]\([^()\n]*\)")  # no nesting: linear on `[[[`
_PATHISH = re.compile(r"`[\w.-]*/[\w./{}*<>-]*`|\b(?:src|lib|tests?|docs|crates|packages)/[\w./-]+")
_WS = re.compile(r"\s+")


@dataclass(slots=True)
class Block:
    text: str
    score: float
    code: bool = False


@dataclass(slots=True)
class Section:
    path: str
    heading: str  # the heading trail below the title, "Testing > Snapshots"; "" for the lead
    level: int
    blocks: list[Block] = field(default_factory=list)

    @property
    def source(self) -> str:
        return f"{self.path}#{self.heading}" if self.heading else self.path


def split_sections(path: str, body: str) -> list[Section]:
    """The note cut at its headings (headings inside fences are not headings)."""
    out = [Section(path, "", 0)]
    trail: list[tuple[int, str]] = []
    lines: list[str] = []
    fence = ""
    for line in body.splitlines():
        m = _FENCE.match(line)
        fence = _fence_after(fence, m)
        heading = None if fence or m else _HEADING.match(line)
        if heading is None:
            lines.append(line)
            continue
        out[-1].blocks = blocks_of(lines, out[-1].heading)
        lines = []
        level = len(heading.group(1))
        trail = [(lv, h) for lv, h in trail if lv < level]
        if level > 1 or trail:
            trail.append((level, _plain(heading.group(2))))
        out.append(Section(path, " > ".join(h for _, h in trail[-2:]), level))
    out[-1].blocks = blocks_of(lines, out[-1].heading)
    return [s for s in out if s.blocks]


def _fence_after(fence: str, m: re.Match[str] | None) -> str:
    """The fence open after a line (`m`: its fence marker, if any)."""
    if m is None:
        return fence
    if not fence:
        return m.group(1)
    return "" if m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence) else fence


def _plain(text: str) -> str:
    return _WS.sub(" ", _LINK.sub(r"\1", text)).strip().strip("*_ ")


def _raw_blocks(lines: list[str]) -> list[tuple[str, str | None]]:
    """(text, fence language or None) of each paragraph, list item and fence."""
    out: list[tuple[str, str | None]] = []
    cur: list[str] = []
    fence, lang = "", ""

    def flush() -> None:
        if cur:
            out.append(("\n".join(cur), None))
            cur.clear()

    for line in lines:
        m = _FENCE.match(line)
        if fence:
            if m and m.group(1)[0] == fence[0] and not m.group(2):
                out.append(("\n".join(cur), lang))
                cur.clear()
                fence = ""
            else:
                cur.append(line)
        elif m:
            flush()
            fence, lang = m.group(1), m.group(2).lower()
        elif not line.strip() or _LIST_ITEM.match(line):
            flush()
            if line.strip():
                cur.append(line)
        else:
            cur.append(line)
    if fence:
        out.append(("\n".join(cur), lang))
    else:
        flush()
    return out


def blocks_of(lines: list[str], heading: str) -> list[Block]:
    """The blocks of a section's lines, each scored (0: no fact). The items of a list under a
    heading of rules ("Checklist") or after a line that gives one ("Do not:") state rules."""
    ruled = bool(_RULE_HEADING.search(heading))
    topical = ruled or bool(_TOPIC.search(heading))
    out = []
    lead = False
    for text, lang in _raw_blocks(lines):
        item = bool(_LIST_ITEM.match(text))
        block = (
            _prose_block(text, topical, ruled or lead and item)
            if lang is None
            else _code_block(text, lang, topical)
        )
        if not item:
            lead = text.rstrip().endswith(":") and _fact_score(text) >= 1.0
        if block is not None:
            out.append(block)
    return out


def _code_block(text: str, lang: str, topical: bool) -> Block | None:
    if lang not in _SHELL_LANGS:
        return None
    commands = [
        ln.strip()
        for ln in text.splitlines()
        if ln.strip() and not ln.lstrip().startswith(("#", "//", "REM ")) and len(ln) < 200
    ]
    commands = [c for c in commands if _COMMAND.match(c)]
    if not commands:
        return None
    shown = "\n".join(commands[:8])
    return Block(shown, (1.5 if topical else 1.0) * min(3.0, 1.0 + 0.5 * len(commands)), True)


def _prose_block(text: str, topical: bool, ruled: bool = False) -> Block | None:
    flat = _WS.sub(" ", text).strip()
    if not flat or _NOISE.match(flat) or len(flat) < 12:
        return None
    flat = _LINK.sub(r"\1", flat)
    body = _LIST_ITEM.sub("", flat)
    item = bool(_LIST_ITEM.match(flat))
    score = (1.0 if ruled else 0.6 if topical else 0.0) if item else 0.0
    score += _fact_score(body)
    if score == 0.0:
        return None
    if topical or _TOPIC.search(body):
        score *= 1.4
    if len(body) > 600:
        score *= 0.5
        body = _first_sentences(body, 400)
    return Block(("- " if item else "") + body, score)


def _fact_score(body: str) -> float:
    """How plainly a paragraph or list item states a rule, a command or a place."""
    score = 1.0 if _RULE_WORDS.search(body) else 0.0
    if _IMPERATIVE.match(_LEAD.sub("", body.lstrip("*_ "), count=1)):
        score += 1.0
    codes = _INLINE_CODE.findall(body)
    if any(_COMMAND.match(c.strip()) for c in codes):
        score += 1.5
    elif codes:
        score += 0.4
    return score + (0.4 if _PATHISH.search(body) else 0.0)


def _first_sentences(text: str, limit: int) -> str:
    out = ""
    for sentence in re.split(r"(?<=[.!?])\s+", text):
        if out and len(out) + len(sentence) > limit:
            break
        out = f"{out} {sentence}".strip()
    return out[: limit + 200]


def norm(text: str) -> str:
    """A block's text as copies and translations of it share it: lower-case, words only."""
    return " ".join(re.findall(r"[\w./:-]+", text.lower()))
