"""The short terminal summary of an offloaded log, with a standard Mermaid flowchart."""

from __future__ import annotations

import re
import shlex

from k0maru.offload.findings import GENERIC_STACKS, UNCODED, Findings
from k0maru.text import shorten

MAX_GROUPS = 4


def _label(text: str, limit: int = 56) -> str:
    text = shorten(" ".join(text.split()), limit)
    return text.replace('"', "#quot;").replace("[", "#91;").replace("]", "#93;")


def mermaid(command: str, findings: Findings, exit_code: int | None, lines: int) -> str:
    """command -> stacks -> failures -> first failing location; about 15 lines."""
    out = ["flowchart TD"]
    status = f"exit {exit_code}" if exit_code is not None else "stdin"
    out.append(f'  cmd["$ {_label(command, 48)} · {status} · {lines:,} lines"]')
    groups = findings.grouped()
    if not groups:
        out.append('  cmd --> ok["no failures recognised"]')
        return "\n".join(out)
    stacks: list[str] = []
    for g in groups[:MAX_GROUPS]:
        if g.stack not in stacks:
            stacks.append(g.stack)
            out.append(f'  cmd --> s{len(stacks)}["{g.stack}"]')
    for i, g in enumerate(groups[:MAX_GROUPS], start=1):
        times = f" ×{g.count}" if g.count > 1 else ""
        out.append(
            f'  s{stacks.index(g.stack) + 1} --> f{i}["{_label(g.code)}{times}: {_label(g.first.message, 40)}"]'
        )
        if g.first.location:
            out.append(f'  f{i} --> l{i}["{_label(g.first.location)}"]')
    rest = groups[MAX_GROUPS:]
    if rest:
        codes = ", ".join(g.code for g in rest)
        out.append(f'  cmd --> more["+{len(rest)} more: {_label(codes, 60)}"]')
    return "\n".join(out)


PIPED_STATUS = "exit status unknown (piped: `set -o pipefail`, or `k0maru offload -- CMD`)"
# a passing test's line (jest/vitest/mocha ticks, TAP `ok`, `... ok`, `PASS`): never the failure's
PASSED = re.compile(
    r"^\s*(?:[✓✔√]|ok \d|PASS\b|\[\s*(?:OK|PASSED)\s*\])|.*(?:\.\.\. ok| PASSED)\s*$"
)
# a line worth showing has words beyond a leading `[INFO]`-style tag (not a rule, not blank)
TAG = re.compile(r"^\W*\[\w+\]")
WORD = re.compile(r"[A-Za-z0-9]{2}")
FAILED_WORDS = re.compile(r"\b(?:FAIL|Aborted|failed|treated as errors?)\b")
SHOWN_TAIL = 30  # the log's last lines read for the summary: the view `tail -n 30` gives


def budget_for(raw_tokens: int, lines: int, failing: bool = True) -> int:
    """Tokens a summary may spend: a small share of the log, enough for a failure's own lines (a
    short log of at most 200 lines, up to 40% of it). A failing log too small for that passes
    through whole (a summary must cost under half the log); one with nothing failing is summarised
    in less."""
    small = min(raw_tokens * 2 // 5, 400) if lines <= 200 else 0
    budget = max(small, 300, min(600, raw_tokens * 6 // 100))
    return budget if failing else min(budget, raw_tokens * 45 // 100)


def _failure_like(text: str) -> bool:
    from k0maru.offload.extractors.generic import MARKER
    from k0maru.offload.locations import find_all

    return bool(
        MARKER.search(text)
        or find_all(text)
        or "rror" in text
        or "xception" in text
        or FAILED_WORDS.search(text)
    )


def render(  # noqa: PLR0913 - one parameter per part of the summary
    *,
    command: str,
    findings: Findings,
    exit_code: int | None,
    lines: int,
    raw_tokens: int,
    log_rel: str,
    node_id: str,
    tail: list[tuple[int, str]] | None = None,
    budget: int | None = None,
    seen: str | None = None,
) -> str:
    """The text the terminal gets instead of the log (summary tokens are counted on this): status,
    codes, the first failure, then within `budget` tokens the failure's own lines (the block around
    its marker) and the failure's lines among the log's last 30 (all of those when nothing was
    recognised, the view `tail -n 30` would give)."""
    from k0maru.llm_tokens import count_tokens

    root = findings.root
    parts = _head(findings, exit_code, lines, raw_tokens, log_rel)
    parts += _verdict(findings, exit_code, tail, seen)
    closing = f"inspect: k0maru log show {node_id}{_hint(findings, lines)}"
    room = _Room(
        (budget or budget_for(raw_tokens, lines, root is not None or bool(exit_code)))
        - count_tokens("\n".join([*parts, closing]))
        - 30
    )
    confident = root is not None and findings.root_is_users and root.stack != "generic"
    own = _own_lines(findings, room, confident, bool(tail))
    if own:
        parts.append(f"failure lines (log {own[0][0]}-{own[-1][0]}):")
        parts += [f"  {n}| {text}" for n, text in own]
    others = _other_failures(findings, room)
    if others:
        parts.append("other failures:")
        parts += others
    if tail:
        # a failure named without a place says little: the log's last lines are the rest of it
        shown = _tail_lines(tail, room, root is None or root.location is None, confident)
        if shown:
            parts.append(f"last lines (log {shown[0][0]}-{shown[-1][0]}):")
            parts += [f"  {n}| {text}" for n, text in shown]
    parts.append(closing)
    return "\n".join(parts)


def _head(
    findings: Findings, exit_code: int | None, lines: int, raw_tokens: int, log_rel: str
) -> list[str]:
    """The summary's first two lines: the log's size and place, then status, stacks, count and
    codes."""
    found = findings.error_codes
    # `NumberFormatException` beside `java.lang.NumberFormatException`: the name as written is
    # enough
    codes = ", ".join(c for c in found if not any(o.endswith("." + c) for o in found)) or "none"
    stacks = ", ".join(s for s in findings.stacks if s not in GENERIC_STACKS) or "unknown"
    status = f"exit {exit_code}" if exit_code is not None else PIPED_STATUS
    return [
        f"k0maru offload: {lines:,} lines, {raw_tokens:,} tokens -> {log_rel}",
        f"{status} · stack: {stacks} · {findings.count:,} failure(s) · error codes: {codes}",
    ]


def _verdict(
    findings: Findings,
    exit_code: int | None,
    tail: list[tuple[int, str]] | None,
    seen: str | None,
) -> list[str]:
    """The first failure (and where it was seen before), or that none was recognised."""
    root = findings.root
    if root is not None:
        where = root.location or f"log line {root.line}"
        test = f" [{root.test}]" if root.test else ""
        said = root.message if root.stack == "generic" else f"{root.code}: {root.message}"
        out = [f"first failure: {where}{test}  {said}"]
        if seen:
            out.append(f"seen before: {seen}")
        return out
    if exit_code or any(_failure_like(t) for _, t in (tail or [])[-SHOWN_TAIL:]):
        # the log says it failed (its status, or failure-looking lines): never "no failures"
        return ["no failure recognised: the log's last lines follow"]
    return ["no failures recognised"]


def _hint(findings: Findings, lines: int) -> str:
    """The `k0maru log show` options that open the log at its failure (or at its end)."""
    root = findings.root
    if root is not None and root.code not in UNCODED and root.stack != "generic":
        return f" --grep {shlex.quote(root.code)} --fixed-strings --context 5"
    if root is not None:
        return f" --lines {max(root.line - 5, 1)}:{root.line + 40}"
    return f" --lines {max(lines - 60, 1)}:{max(lines, 1)}"


class _Room:
    """The tokens the summary has left for log lines, and the log lines it already shows."""

    def __init__(self, room: int) -> None:
        self.room = room
        self.shown: set[int] = set()

    def take(self, candidates: list[tuple[int, str]], limit: int) -> list[tuple[int, str]]:
        """The first `candidates` worth showing, while they fit `limit` and the room left."""
        from k0maru.llm_tokens import count_tokens

        kept: list[tuple[int, str]] = []
        for n, text in candidates:
            if n in self.shown or not WORD.search(TAG.sub("", text, count=1)) or PASSED.match(text):
                continue
            cost = count_tokens(text) + 3
            if cost > limit or cost > self.room:
                break
            kept.append((n, text))
            self.shown.add(n)
            limit -= cost
            self.room -= cost
        return kept


def _own_lines(
    findings: Findings, room: _Room, confident: bool, has_tail: bool
) -> list[tuple[int, str]]:
    """The first failure's own lines (the block around its marker) that fit: all the room when the
    failure is confidently the user's or there is no tail, else three fifths of it."""
    root = findings.root
    block = findings.block_of(root) if root is not None else []
    if root is not None:  # the line the first failure already quotes is not shown twice
        room.shown.update(n for n, text in block if text.strip() == root.message)
    return room.take(block, room.room if confident or not has_tail else room.room * 3 // 5)


def _other_failures(findings: Findings, room: _Room) -> list[str]:
    """The first failure of each other code, a line each, while they fit: a linter's later rules
    can be the cause the first one is not."""
    from k0maru.llm_tokens import count_tokens

    out: list[str] = []
    root = findings.root
    for g in findings.grouped()[:MAX_GROUPS]:
        f = g.first
        if f is root or g.code in UNCODED or f.line in room.shown:
            continue
        times = f" (x{g.count})" if g.count > 1 else ""
        text = shorten(f"  {f.location or f'log line {f.line}'}  {g.code}{times}: {f.message}", 160)
        cost = count_tokens(text) + 1
        if cost > room.room:
            break
        out.append(text)
        room.shown.add(f.line)
        room.room -= cost
    return out


def _tail_lines(
    tail: list[tuple[int, str]], room: _Room, unrecognised: bool, confident: bool
) -> list[tuple[int, str]]:
    """The lines of the log's last 30 not shown yet that fit: the last ones when nothing was
    recognised, only failure-looking ones (the last first) when confident or short of room."""
    from k0maru.llm_tokens import count_tokens

    rest = [(n, t) for n, t in tail[-SHOWN_TAIL:] if n not in room.shown and t.strip()]
    cost = sum(count_tokens(t) + 3 for _, t in rest)
    if unrecognised and cost > room.room:  # nothing recognised: the last lines are the failure
        return list(reversed(room.take(list(reversed(rest)), room.room)))
    if confident or cost > room.room:  # only the failure's own lines of the tail, the last first
        rest = [(n, t) for n, t in rest if _failure_like(t)]
        return list(reversed(room.take(list(reversed(rest)), room.room)))
    return room.take(rest, room.room)
