"""A note written in the form of a vault's own records (a learnt RecordTemplate): its heading,
metadata lines or frontmatter keys, sections in their order, filled from the body's sections."""

from __future__ import annotations

import json
import re
from contextlib import suppress
from datetime import date
from typing import Any

import yaml

from k0maru.notes.template import RecordTemplate, is_meta_section, plain_title, split_sections


def status_for(tpl: RecordTemplate, given: str | None) -> str:
    """The status a new record starts with, spelt as the vault spells it."""
    if not given:
        return tpl.status
    if tpl.status.lower() == given.lower():
        return tpl.status
    return given[:1].upper() + given[1:] if tpl.status[:1].isupper() else given


def render_record(
    tpl: RecordTemplate,
    title: str,
    body: str,
    when: date,
    number: int | None,
    extra: dict[str, Any],
    links: list[str],
    unresolved: list[str],
) -> str:
    """The note in the records' form: frontmatter and heading, metadata lines, the body's sections
    in the template's order, then its links, the names not found, and what k0maru keeps."""
    extra = dict(extra)
    values = _values(tpl, title, when, number, extra.pop("status", None))
    out = [_head(tpl, values, extra)]
    meta = [line.format_map(values) for line in tpl.meta_lines]
    if meta:
        out.append(_meta_block(meta))
    out.extend(_sections(tpl, body, values))
    out.extend(_tail(links, unresolved, {} if tpl.frontmatter else extra))
    return "\n\n".join(part for part in out if part) + "\n"


def _values(
    tpl: RecordTemplate, title: str, when: date, number: int | None, status: str | None
) -> dict[str, str]:
    """What the template's placeholders stand for: `{title}`, `{date}` in the records' format,
    `{n}` and `{num1}`..`{num6}` (the number, zero-padded), `{status}` as the vault spells it."""
    return {
        "title": title,
        "date": when.strftime(tpl.date_format),
        "n": str(number) if number is not None else "",
        **{f"num{w}": f"{number or 0:0{w}d}" for w in range(1, 7)},
        "status": status_for(tpl, status),
    }


def _head(tpl: RecordTemplate, values: dict[str, str], extra: dict[str, Any]) -> str:
    """The frontmatter (taking the keys it writes out of `extra`) and the heading line."""
    gap = "\n\n" if tpl.gap_after_frontmatter else "\n"
    head = _frontmatter(tpl, values, extra) + gap if tpl.frontmatter else ""
    return head + _heading(tpl.heading, values) if tpl.heading else head.rstrip("\n")


def _tail(links: list[str], unresolved: list[str], kept: dict[str, Any]) -> list[str]:
    """What follows the sections: the related notes, the names not found in the vault, and what
    k0maru keeps (a commit's sha, its decision key) where no frontmatter holds it."""
    out = []
    if links:
        out.append("## Related\n\n" + "\n".join(f"- {link}" for link in links))
    if unresolved:
        out.append("> Not found in the vault when this was written: " + ", ".join(unresolved))
    if kept:
        out.append("<!-- k0maru\n" + "".join(f"{k}: {v}\n" for k, v in kept.items()) + "-->")
    return out


def _meta_block(lines: list[str]) -> str:
    """The metadata lines, a blank line after a list before a plain line (`Technical Story:` under
    `- Date:` would be read as the list item's own text)."""
    out = lines[:1]
    for before, line in zip(lines, lines[1:], strict=False):
        listed = re.match(r"\s*[-*+]\s", before) and not re.match(r"\s*[-*+]\s", line)
        out.append(("\n" if listed else "") + line)
    return "\n".join(out)


def _heading(form: str, values: dict[str, str]) -> str:
    """The heading line; a title that already starts with the words the form puts before it
    (`Proposal: X` under `# Proposal: {title}`) is not given them twice."""
    lead, _, _ = form.partition("{title}")
    said = lead.format_map(values)[2:].strip()
    if said and "{title}" in form and values["title"].lower().startswith(said.lower()):
        return "# " + values["title"] + form.partition("{title}")[2].format_map(values)
    return form.format_map(values)


def _frontmatter(tpl: RecordTemplate, values: dict[str, str], extra: dict[str, Any]) -> str:
    """The records' keys in their order, each value as they write it (in their quotes; a date, a
    number bare), then what k0maru keeps (`extra`)."""
    lines = []
    for key, form in tpl.frontmatter:
        m = _PLACEHOLDER.fullmatch(form)
        if m is None:  # the value every record gives it, as they write it (or none)
            lines.append(f"{key}: {form}\n" if form else f"{key}:\n")
        elif m.group(1):
            lines.append(f"{key}: {_quoted(values[m.group(2)], m.group(1))}")
        else:
            lines.append(_scalar(key, _typed(m.group(2), values[m.group(2)])))
        extra.pop(key, None)
    lines += [_scalar(key, extra.pop(key)) for key in list(extra)]
    return "---\n" + "".join(lines) + "---"


_PLACEHOLDER = re.compile(r"""(["']?)\{(title|date|status|n)\}\1""")


def _scalar(key: str, value: Any) -> str:
    return yaml.safe_dump({key: value}, sort_keys=False, allow_unicode=True, width=1000)


def _typed(name: str, value: str) -> Any:
    """A record's number and an ISO date bare, as the records write them and YAML reads them."""
    if name == "n" and value.isdigit():
        return int(value)
    if name == "date" and re.fullmatch(r"\d{4}-\d\d-\d\d", value):
        with suppress(ValueError):
            return date.fromisoformat(value)
    return value


def _quoted(value: str, quote: str) -> str:
    if quote == '"':
        return json.dumps(value, ensure_ascii=False) + "\n"
    return "'" + value.replace("'", "''") + "'\n"


def _sections(tpl: RecordTemplate, body: str, values: dict[str, str]) -> list[str]:
    """The body's sections in the template's order; a metadata section the body lacks (`## Status`)
    is filled, a template file's section keeps its placeholder text unless the template marks it
    optional or the body gives it as a bold line (`**Context**`), the rest come in the body's
    order."""
    given = split_sections(_untitled(tpl, body, values["title"]))
    out = [s for t, s in given if not t]
    queue = [(t, s) for t, s in given if t]
    bold = _bold_titles(out)
    stands = {t: _stands_for(t, tpl.sections) for t in [*bold, *(t for t, _ in queue)]}
    in_bold = {stands[t] for t in bold}  # the body gives these in its own form
    names = [name for name in tpl.sections if name not in in_bold]
    out.extend(_in_order(tpl, names, queue, stands, values))
    out.extend(f"## {t}\n\n{s}".rstrip() for t, s in queue)
    return out


def _in_order(
    tpl: RecordTemplate,
    names: list[str],
    queue: list[tuple[str, str]],
    stands: dict[str, str | None],
    values: dict[str, str],
) -> list[str]:
    """The template's sections `names` in order: each the body's section standing for it (those
    before it in the body first, taken off `queue`), else the template's own filling."""
    out = []
    for name in names:
        if any(stands[t] == name for t, _ in queue):
            out.extend(_take_through(queue, name, stands))
        else:
            out.append(_unfilled(tpl, name, values))
    return out


def _bold_titles(lead: list[str]) -> list[str]:
    """The bold lines standing for section titles (`**Context**`, `**Decision:**`) in the text
    before the body's first section."""
    return re.findall(r"^\*\*([^*]+?):?\*\*:?\s*$", lead[0] if lead else "", re.M)


def _untitled(tpl: RecordTemplate, body: str, title: str) -> str:
    """The body without its `# ` title line, where the heading writes the title above it (or the
    line is that very title)."""
    text = body.strip()
    if text.startswith("# ") and (tpl.heading or text[2:].split("\n", 1)[0] == title):
        return text.split("\n", 1)[1] if "\n" in text else ""
    return text


def _take_through(
    queue: list[tuple[str, str]], name: str, stands: dict[str, str | None]
) -> list[str]:
    """The body's sections off the front of `queue`, through the one standing for `name`."""
    out = []
    while queue:
        t, s = queue.pop(0)
        out.append(f"## {t}\n\n{s}".rstrip())
        if stands[t] == name:
            break
    return out


def _unfilled(tpl: RecordTemplate, name: str, values: dict[str, str]) -> str:
    """A template section the body does not give: a metadata section filled (`## Status`), a
    template file's placeholder text unless it marks the section optional, else '' (left out)."""
    if is_meta_section(name):
        filled = values["status"] if name.lower() == "status" else values["date"]
        return f"## {name}\n\n{filled}".rstrip()
    if name in tpl.section_text and name not in tpl.optional_sections:
        return f"## {name}\n\n{tpl.section_text[name]}".rstrip()
    return ""


def _stands_for(given: str, names: list[str]) -> str | None:
    """The template section the body's section `given` stands for: the same title, else the one
    title whose words begin with its words or its words with them (`Context` for `Context and
    Problem Statement`; `Decision` for neither of `Decision Drivers` and `Decision Outcome`)."""
    words = plain_title(given).lower().split()  # `Decision Drivers <!-- optional -->` as written
    same = [n for n in names if n.lower().split() == words]
    if same or not words:
        return same[0] if same else None
    near = [n for n in names if _begins(words, n.lower().split())]
    return near[0] if len(near) == 1 else None


def _begins(a: list[str], b: list[str]) -> bool:
    return bool(b) and (a == b[: len(a)] or b == a[: len(b)])
