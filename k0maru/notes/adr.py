"""ADRs from commit messages: an `ADR: <title>` trailer (with optional `Context:`, `Decision:`,
`Consequences:` trailers) becomes an ADR note where the vault keeps its ADRs."""

from __future__ import annotations

import re
import sys
from datetime import date
from pathlib import Path

from k0maru.fsutil import atomic_write_text, read_regular, read_text, resolve_inside
from k0maru.gitutil import Commit, head_commit, repo_root, rewritten_from
from k0maru.index.markdown import hash_bytes
from k0maru.notes.conventions import KindRule
from k0maru.notes.flush import FlushEngine, vault_lock
from k0maru.notes.supersede import mark_superseded, superseded_by, with_line
from k0maru.text import printable

_HEAD_BYTES = 8192  # where an ADR k0maru wrote holds its decision_key
_MAX_ADR_BYTES = 1 << 20
_TRAILER = re.compile(r"^([A-Za-z][\w-]*):\s*(.*)$")
_CONTEXT = re.compile(r"^context\b", re.I)
_DECISION = re.compile(r"^decision\b(?!\s+drivers?\b)", re.I)  # not MADR's `Decision Drivers`
_PROPOSAL = re.compile(r"^(?:proposal|proposed (?:solution|change)|outcome|resolution)\b", re.I)
_COMMIT = re.compile(r"^commits?\b", re.I)
_SUPERSEDES = re.compile(r"^supersedes:?\s+(\S.*)$", re.I | re.M)  # its line, or frontmatter key
TAGS = ["adr", "from-commit"]


def parse_trailers(message: str) -> tuple[dict[str, str], str]:
    """Trailers of the last paragraph (with continuation lines) and the body between subject and
    trailers."""
    paragraphs = message.strip().split("\n\n")
    trailers: dict[str, str] = {}
    body_parts = paragraphs[1:]
    if len(paragraphs) > 1:
        last = paragraphs[-1].splitlines()
        current = None
        parsed: dict[str, str] = {}
        ok = True
        for line in last:
            m = _TRAILER.match(line)
            if m:
                current = m.group(1).lower()
                parsed[current] = m.group(2).strip()
            elif line[:1] in " \t" and current:
                parsed[current] += " " + line.strip()
            else:
                ok = False
                break
        if ok and parsed:
            trailers = parsed
            body_parts = paragraphs[1:-1]
    return trailers, "\n\n".join(body_parts).strip()


def adr_from_head(vault_root: Path, rev: str = "HEAD") -> dict[str, str] | None:
    """The ADR that HEAD's (or `rev`'s) `ADR:` trailer asks for, written through the flush engine
    (idempotent by the decision's content); None when the commit has no such trailer or the vault is
    not in a repository. Only regular files inside the vault are read or rewritten."""
    repo_dir = repo_root(vault_root)
    commit = head_commit(repo_dir, rev) if repo_dir is not None else None
    if commit is None:
        return None
    summary = printable(commit.summary)
    trailers, body = parse_trailers(commit.message)
    title = printable(trailers.get("adr", "")).strip()
    if not title:
        return None
    context, decision, consequences = _parts(trailers, body, summary)
    key = hash_bytes("\n".join([title, context, decision, consequences]).encode())
    engine = FlushEngine(vault_root)
    for warning in engine.conventions.warnings:
        print(f"k0maru: {warning}", file=sys.stderr)
    rule = engine.conventions.rules["adr"]
    existing = _written_for(vault_root, rule.folder, f"decision_key: {key}")
    if existing is not None:
        return {"outcome": _repoint(existing, commit.sha), "path": _rel(vault_root, existing)}
    text = _record_text(rule, commit, body, (context, decision or title, consequences))
    extra = {
        "status": "accepted",
        "commit": commit.sha,
        "author": printable(commit.author),
        "decision_key": key,
    }
    earlier = rewritten_from(repo_dir, commit.sha) if repo_dir is not None else []
    amended = next(
        filter(None, (_written_for(vault_root, rule.folder, f"commit: {c}") for c in earlier)), None
    )
    if amended is not None:
        _rewrite(engine, amended, title, text, extra)
        return {"outcome": "updated", "path": _rel(vault_root, amended)}
    result = engine.flush("adr", title, text, tags=TAGS, extra=extra)
    return {"outcome": result.outcome, "path": result.path}


def _record_text(rule: KindRule, commit: Commit, body: str, parts: tuple[str, str, str]) -> str:
    """The ADR's sections: context, decision and consequences under the titles the vault's records
    use, and the `## Commit` section unless the family keeps no such section."""
    context, decision, consequences = parts
    family = rule.record.sections if rule.record is not None and rule.record.shaped else []
    sections = _sections(body, context, decision, _own_titles(family))
    if consequences:
        sections.append(f"## Consequences\n\n{consequences}")
    if not family or any(_COMMIT.match(n) for n in family):  # else its sha is kept out of sight
        sections.append(_commit_section(commit))
    return "\n\n".join(sections)


def _rewrite(engine: FlushEngine, note: Path, title: str, text: str, extra: dict[str, str]) -> None:
    """An amend or a rebase changed the message of a commit whose ADR k0maru wrote in `note`: the
    note now records the amended commit's decision (title, text, sha), in place (its number, file
    name and the record it supersedes kept), never as a second record of one commit."""
    number = re.match(r"\d+", note.name)
    rule = engine.conventions.rules["adr"]
    with vault_lock(engine.root):
        old = read_text(note, errors="replace")
        new = engine.render(
            rule,
            title,
            text,
            TAGS,
            [],
            [],
            date.today(),
            extra,
            int(number.group()) if number else None,
        )
        replaced = _SUPERSEDES.search(old)
        if replaced is not None:
            new = with_line(new, "supersedes", replaced.group(1).strip("\"' "))
        if by := superseded_by(old):  # a later record replaced it: it stays replaced
            new = mark_superseded(new, by)
        atomic_write_text(note, new)


def _rel(vault_root: Path, note: Path) -> str:
    return note.relative_to(vault_root.resolve()).as_posix()


def _parts(trailers: dict[str, str], body: str, summary: str) -> tuple[str, str, str]:
    """(context, decision, consequences) of the ADR: the trailers', else the commit body as the
    context and its subject as the decision (the subject is the context where there is no body)."""
    context = printable(trailers.get("context") or body or summary, keep="\n")
    decision = printable(
        trailers.get("decision") or (summary if trailers.get("context") or body else "")
    )
    return context, decision, printable(trailers.get("consequences", ""))


def _written_for(vault_root: Path, folder: str, line: str) -> Path | None:
    """The ADR k0maru already wrote in the ADR `folder` with this `line` where it keeps its keys
    (`decision_key: <key>`, `commit: <sha>`); None when there is none. Links are not followed."""
    where = resolve_inside(vault_root, folder or ".")
    if not where.is_dir():
        return None
    for existing in sorted(where.glob("*.md")):
        head = read_regular(existing, _HEAD_BYTES)
        if head is None or existing.is_symlink():
            continue
        if re.search(rf"(?<![\w-]){re.escape(line)}(?!\w)", head.decode("utf-8", "replace")):
            return existing
    return None


def _commit_section(commit: Commit) -> str:
    """The `## Commit` section: its sha, author, date and the files it changed (the first 50)."""
    files = commit.files
    return (
        "## Commit\n\n"
        + f"- sha: `{commit.sha}`\n- author: {printable(commit.author)} <{printable(commit.email)}>\n"
        f"- date: {commit.date}\n- changed files:\n"
        + "\n".join(f"  - `{printable(f)}`" for f in files[:50])
        + ("\n  - …" if len(files) > 50 else "")
    )


def _own_titles(names: list[str]) -> tuple[str, str | None]:
    """The titles the family's records (`names`: their sections) give their context and decision
    sections (MADR's `Context and Problem Statement`, `Decision Outcome`; a proposal's first
    section and its `Proposal`), else `Context` and `Decision`; no decision title where the family
    has sections but none for a decision (the decision joins the context)."""
    context = next((n for n in names if _CONTEXT.match(n)), names[0] if names else "Context")
    decision = next((n for n in names if _DECISION.match(n) or _PROPOSAL.match(n)), None)
    return context, decision if decision or names else "Decision"


def _sections(body: str, context: str, decision: str, titles: tuple[str, str | None]) -> list[str]:
    """A commit body that already has `## ` sections is the record's sections as written (the
    subject added as the decision only where no section of the body is one); else its text is the
    context and the subject (or `Decision:` trailer) the decision, under the titles the vault's
    records use."""
    context_title, decision_title = titles
    if re.search(r"^## \S", body, re.M):
        named = re.findall(r"^## (.+?)\s*$", body, re.M)
        if any(_DECISION.match(n) for n in named) or decision_title is None:
            return [printable(body, keep="\n")]
        return [printable(body, keep="\n"), f"## {decision_title}\n\n{decision}"]
    if decision_title is None:
        return [f"## {context_title}\n\n{context}\n\n{decision}"]
    return [f"## {context_title}\n\n{context}", f"## {decision_title}\n\n{decision}"]


def _repoint(note: Path, sha: str) -> str:
    """An amended or rebased commit carries the same decision under a new sha: the ADR k0maru wrote
    for it follows (`commit:` and the sha line), atomically; 'up_to_date' when it already names
    `sha`."""
    data = read_regular(note, _MAX_ADR_BYTES)
    if data is None or len(data) >= _MAX_ADR_BYTES:
        return "up_to_date"  # not a file k0maru wrote: left alone
    text = data.decode("utf-8", "replace")
    m = re.search(r"^commit: ([0-9a-f]{40})$", text, re.M)
    if not m or m.group(1) == sha:
        return "up_to_date"
    old = m.group(1)
    atomic_write_text(
        note, text.replace(f"commit: {old}", f"commit: {sha}", 1).replace(f"`{old}`", f"`{sha}`")
    )
    return "updated"
