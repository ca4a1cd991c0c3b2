"""The short terminal summary of an offloaded log, with a standard Mermaid flowchart."""

from __future__ import annotations

import shlex

from k0maru.offload.findings import Findings

MAX_GROUPS = 4


def _label(text: str, limit: int = 56) -> str:
    text = " ".join(text.split())
    if len(text) > limit:
        text = text[: limit - 1] + "…"
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


def render(  # noqa: PLR0913 - one parameter per part of the summary
    *,
    command: str,
    findings: Findings,
    exit_code: int | None,
    lines: int,
    raw_tokens: int,
    log_rel: str,
    node_id: str,
    estimator: str,
    diagram: str,
) -> str:
    """The text the terminal gets instead of the log (summary tokens are counted on this)."""
    groups = findings.grouped()
    codes = ", ".join(findings.error_codes) or "none"
    stacks = ", ".join(findings.stacks) or "unknown"
    status = f"exit {exit_code}" if exit_code is not None else "read from stdin"
    first = next((g.first for g in groups if g.first.location), groups[0].first if groups else None)
    parts = [
        f"k0maru offload: {lines:,} lines, {raw_tokens:,} tokens -> {log_rel}",
        f"{status} · stack: {stacks} · {findings.count:,} failure(s) · error codes: {codes}",
    ]
    if first is not None:
        where = first.location or f"log line {first.line}"
        test = f" [{first.test}]" if first.test else ""
        parts.append(f"first failure: {where}{test}  {first.code}: {first.message}")
    parts += ["```mermaid", diagram, "```"]
    # quoted for any POSIX shell, matched as plain text: `App$RepositoryException` is neither a variable nor a regex
    hint = (
        f" --grep {shlex.quote(groups[0].code)} --fixed-strings --context 5"
        if groups
        else " --lines 1:40"
    )
    parts.append(f"inspect: k0maru log show {node_id}{hint}")
    return "\n".join(parts)
