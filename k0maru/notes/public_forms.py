"""The public ADR forms a vault's first record is written in when its body follows one: Michael
Nygard's (adr-tools': `# 1. Title`, a `Date:` line, `## Status`, Context / Decision / Consequences)
and MADR's (frontmatter `status` and `date`, `Context and Problem Statement`, `Considered Options`,
`Decision Outcome`, in `docs/decisions`). A folder with records of its own, a template or a rules
file keeps what it says; a body in neither form keeps k0maru's own."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

from k0maru.notes.conventions import KindRule
from k0maru.notes.template import (
    RecordTemplate,
    folder_records,
    plain_title,
    record_names,
)

_TITLES = re.compile(r"^##[ \t]+(.+?)[ \t]*#*[ \t]*$", re.M)
MADR_TITLES = ("context and problem statement", "considered options", "decision outcome")
# no name format: a first record is named by the rule (numbered, unless a rules file says else)
NYGARD = RecordTemplate(
    heading="# {n}. {title}",
    meta_lines=["Date: {date}"],
    sections=["Status", "Context", "Decision", "Consequences"],
    status="Accepted",
    link_style="markdown",
    learnt_from=["Nygard's ADR form (the body's Context and Decision sections)"],
    shaped=True,
)
MADR = RecordTemplate(
    frontmatter=[("status", '"{status}"'), ("date", "{date}")],
    sections=[
        "Context and Problem Statement",
        "Decision Drivers",
        "Considered Options",
        "Decision Outcome",
        "Pros and Cons of the Options",
        "More Information",
    ],
    status="accepted",
    link_style="markdown",
    learnt_from=["MADR (the body's Considered Options / Decision Outcome sections)"],
    shaped=True,
    gap_after_frontmatter=True,
)
MADR_FOLDER = "docs/decisions"


def first_record_form(rule: KindRule, body: str, folder_has_records: bool) -> KindRule:
    """`rule` with the public form `body` follows, for an ADR folder with nothing to learn from;
    else `rule` as it is."""
    if _has_a_form(rule, folder_has_records):
        return rule
    titles = {plain_title(t).lower() for t in _TITLES.findall(body)}
    if any(t.startswith(MADR_TITLES) for t in titles):
        folder = MADR_FOLDER if rule.source == "default" else rule.folder
        return replace(rule, record=MADR, folder=folder)
    if {"context", "decision"} <= titles:
        numbered = rule.naming in ("adr-number", "adr-prefixed")  # else a rules file's naming
        return replace(rule, record=NYGARD if numbered else replace(NYGARD, heading="# {title}"))
    return rule


def _has_a_form(rule: KindRule, folder_has_records: bool) -> bool:
    """Whether `rule` has a form to write by already: it is no ADR rule, or it learnt a record,
    names a template, or its folder holds records to learn from."""
    return (
        rule.kind != "adr"
        or rule.record is not None
        or bool(rule.template_file)
        or folder_has_records
    )


def has_records(folder: Path) -> bool:
    """Whether `folder` holds a record (not its README, index or template), as the conventions'
    `empty` counts them: a first record is written into none."""
    return folder.is_dir() and bool(record_names([name for _, name in folder_records(folder)]))
