"""The short terminal summary of an offloaded log, with a standard Mermaid flowchart."""

from __future__ import annotations

import re
import shlex

from k0maru.offload.findings import GENERIC_STACKS, UNCODED, Failure, Findings
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
FAILED_WORDS = re.compile(r"\b(?:FAIL(?:ED)?|Aborted|failed|treated as errors?)\b")
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
    codes, the first failure (or warning, on a run that passed), then within `budget` tokens the
    failure's own lines (the block around its marker), the failure evidence of the log's last 30
    lines it does not show (never less than `tail -n 30` gives), and the rest of those lines (all
    of them when nothing was recognised). The room is counted with the node id as a fixed
    placeholder, so the same log gives the same summary whatever its node id."""
    failed = findings.failed(exit_code)
    parts = _head(findings, exit_code, lines, raw_tokens, log_rel, failed)
    parts += _verdict(findings, exit_code, tail, seen, failed)
    parts += _changes(findings)
    closing = f"inspect: k0maru log show {node_id}{_hint(findings, lines)}"
    fixed = "\n".join([*parts, closing])
    fixed = fixed.replace(node_id, NODE_PLACEHOLDER) if node_id else fixed
    room = _Room((budget or budget_for(raw_tokens, lines, failed)) - _tokens(fixed) - 30)
    parts += _log_lines(findings, room, tail, failed)
    parts.append(closing)
    return "\n".join(parts)


# what the node id counts as when the room for log lines is measured: the same width for every id
NODE_PLACEHOLDER = "0" * 8


def _tokens(text: str) -> int:
    from k0maru.llm_tokens import count_tokens

    return count_tokens(text)


def _log_lines(
    findings: Findings, room: _Room, tail: list[tuple[int, str]] | None, failed: bool
) -> list[str]:
    """The log lines the summary shows: the verdict's when the failure names no place, the
    failure's own, the first of each other code, then the log's last ones; the tail's failure
    evidence the rest lacks has its room kept first."""
    root = findings.root
    confident = root is not None and findings.root_is_users and root.stack != "generic"
    out: list[str] = []
    bare = root is None or (root.location is None and not findings.block_of(root))
    if bare and findings.verdict is not None and failed:  # nothing recognised says more
        out += _rows("verdict lines", room.take(findings.verdict.lines or [], room.room))
    reserve = _tail_reserve(findings, room, tail, failed)
    own = _own_lines(findings, room, confident, bool(tail), reserve)
    out += _rows(f"{'failure' if failed else 'warning'} lines", own)
    others = _other_failures(findings, room, reserve)
    if others:
        out.append("other failures:" if failed else "other warnings:")
        out += others
    if tail:
        # a failure named without a place says little: the log's last lines are the rest of it
        unplaced = root is None or root.location is None
        out += _rows("last lines", _tail_lines(tail, room, unplaced, confident or reserve > 0))
    return out


def _rows(title: str, rows: list[tuple[int, str]]) -> list[str]:
    """`title (log a-b):` and the rows under it; nothing when there are none."""
    if not rows:
        return []
    return [f"{title} (log {rows[0][0]}-{rows[-1][0]}):", *(f"  {n}| {text}" for n, text in rows)]


def _tail_reserve(
    findings: Findings, room: _Room, tail: list[tuple[int, str]] | None, failed: bool
) -> int:
    """Tokens kept for the failure evidence among the log's last lines when the first failure is
    not within them (never below `tail -n 30`): up to half the room."""
    root = findings.root
    last = (tail or [])[-SHOWN_TAIL:]
    if not failed or root is None or not last or root.line >= last[0][0]:
        return 0
    evidence = [t for n, t in last if _failure_like(t) and not PASSED.match(t) and n != root.line]
    return min(sum(_tokens(t) + 3 for t in evidence), room.room // 2)


def _head(
    findings: Findings,
    exit_code: int | None,
    lines: int,
    raw_tokens: int,
    log_rel: str,
    failed: bool,
) -> list[str]:
    """The summary's first two lines: the log's size and place, then status, stacks, count and
    codes (a run that passed counts warnings, never failures)."""
    found = findings.error_codes
    # `NumberFormatException` beside `java.lang.NumberFormatException`: the name as written is
    # enough
    codes = ", ".join(c for c in found if not any(o.endswith("." + c) for o in found)) or "none"
    stacks = ", ".join(s for s in findings.stacks if s not in GENERIC_STACKS) or "unknown"
    status = f"exit {exit_code}" if exit_code is not None else PIPED_STATUS
    count = f"{findings.count:,} failure(s)"
    if not failed:
        passed = "passed" if exit_code is not None else "no failure verdict"
        count = f"{passed} · {findings.count:,} warning(s)"
    return [
        f"k0maru offload: {lines:,} lines, {raw_tokens:,} tokens -> {log_rel}",
        f"{status} · stack: {stacks} · {count} · error codes: {codes}",
    ]


def _verdict(
    findings: Findings,
    exit_code: int | None,
    tail: list[tuple[int, str]] | None,
    seen: str | None,
    failed: bool,
) -> list[str]:
    """The first failure (and where it was seen before; the first warning on a run that passed),
    the tool's verdict line when no failure was recognised, or that none was."""
    root = findings.root
    if root is not None:
        out = [_first(root, failed)]
        if seen and failed:
            out.append(f"seen before: {seen}")
        return out
    verdict = findings.verdict
    if failed and verdict is not None:
        return [f"no failure recognised; verdict: log line {verdict.line}  {verdict.message}"]
    if failed and (exit_code or any(_failure_like(t) for _, t in (tail or [])[-SHOWN_TAIL:])):
        # the log says it failed (its status, or failure-looking lines): never "no failures"
        return ["no failure recognised: the log's last lines follow"]
    return ["no failures recognised"]


MAX_CHANGES = 5  # files named of those a diff in the log changes


def _changes(findings: Findings) -> list[str]:
    """Where a diff in the log starts changing each file, when nothing else was recognised (a
    formatter's check), and the first file's `+++` line: `diff changes: src/a.py:4, src/b.py:10
    (+3 more files)`."""
    changes = findings.changes
    if findings.root is not None or not changes:
        return []
    more = f" (+{len(changes) - MAX_CHANGES} more files)" if len(changes) > MAX_CHANGES else ""
    places = ", ".join(place for place, _, _ in changes[:MAX_CHANGES])
    _, line, header = changes[0]
    return [f"diff changes: {places}{more}", f"  {line}| {' '.join(header.split())}"]


def _first(root: Failure, failed: bool) -> str:
    """`first failure: PLACE [test] (task)  CODE: message` (`first warning:` on a run that
    passed)."""
    where = root.location or f"log line {root.line}"
    test = f" [{root.test}]" if root.test else ""
    task = f" ({root.task})" if root.task else ""
    plain = root.stack == "generic" or (not failed and root.code in UNCODED)
    said = root.message if plain else f"{root.code}: {root.message}"
    return f"first {'failure' if failed else 'warning'}: {where}{test}{task}  {said}"


def _hint(findings: Findings, lines: int) -> str:
    """The `k0maru log show` options that open the log at its failure (or at its end)."""
    root = findings.root
    if root is not None and root.code not in UNCODED and root.stack != "generic":
        return f" --grep {shlex.quote(root.code)} --fixed-strings --context 5"
    if root is not None:
        return f" --lines {max(root.line - 5, 1)}:{min(root.line + 40, max(lines, root.line))}"
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
    findings: Findings, room: _Room, confident: bool, has_tail: bool, reserve: int = 0
) -> list[tuple[int, str]]:
    """The first failure's own lines (the block around its marker) that fit: all the room when the
    failure is confidently the user's or there is no tail, else three fifths of it; never the
    `reserve` kept for the tail's evidence."""
    root = findings.root
    block = findings.block_of(root) if root is not None else []
    if root is not None:  # the line the first failure already quotes is not shown twice
        room.shown.update(n for n, text in block if text.strip() == root.message)
    limit = room.room if confident or not has_tail else room.room * 3 // 5
    return room.take(_own_report(block, root), min(limit, room.room - reserve))


# a line led by the place it is about (`u03.c:3:9: warning: ...`, `u03.c: In function 'f':`)
LED_BY_FILE = re.compile(r"^([\w.@~+/\\-]*\w\.[A-Za-z][\w+-]{0,9})(?::\d|\(\d|: In )")


def _own_report(block: list[tuple[int, str]], root: Failure | None) -> list[tuple[int, str]]:
    """The rows of the first failure's block that are its own report: after its line, a row led
    by another file of the user's (a parallel job's report interleaved with it: `make -j`) and the
    unled rows under it (its source excerpt) are left out, until a row is led by the failure's
    file again (a library's file, a C++ template's header, goes on with the report)."""
    from k0maru.offload.locations import user_path

    if root is None or not root.location:
        return block
    own = _file_of(root.location).rsplit("/", 1)[-1]
    out: list[tuple[int, str]] = []
    mine = True
    for n, text in block:
        led = LED_BY_FILE.match(text) if n > root.line else None
        if led is not None and user_path(led.group(1)):
            mine = led.group(1).rsplit("/", 1)[-1] == own
        if mine or n <= root.line:
            out.append((n, text))
    return out


def _other_failures(findings: Findings, room: _Room, reserve: int = 0) -> list[str]:
    """The first failure of each other code, and of each other file the first failure's own kind
    names (parallel jobs' reports, interleaved), a line each, in log order, while they fit beside
    the `reserve` kept for the tail's evidence: a linter's later rules can be the cause the first
    one is not."""
    from k0maru.llm_tokens import count_tokens

    out: list[str] = []
    for f, code, count in _others(findings):
        if f.line in room.shown:
            continue
        said = (
            f.message
            if code in UNCODED
            else f"{code}{f' (x{count})' if count > 1 else ''}: {f.message}"
        )
        text = shorten(f"  {f.location or f'log line {f.line}'}  {said}", 160)
        cost = count_tokens(text) + 1
        if cost > room.room - reserve:
            break
        out.append(text)
        room.shown.add(f.line)
        room.room -= cost
    return out


def _others(findings: Findings) -> list[tuple[Failure, str, int]]:
    """The failures `_other_failures` names, with their code and how often it failed."""
    root = findings.root
    out = [
        (g.first, g.code, g.count)
        for g in findings.grouped()[:MAX_GROUPS]
        if g.first is not root and g.code not in UNCODED
    ]
    if root is not None and root.location:
        files = {_file_of(root.location)}
        for f in findings.failures:
            if len(files) > MAX_GROUPS:
                break
            same_kind = (f.stack, f.code) == (root.stack, root.code)
            if same_kind and f.location and _file_of(f.location) not in files:
                files.add(_file_of(f.location))
                out.append((f, f.code, 1))
    return sorted(out, key=lambda o: o[0].line)


def _file_of(location: str) -> str:
    """`src/a.c:3:5` -> `src/a.c`."""
    return location.split(":", 1)[0]


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
