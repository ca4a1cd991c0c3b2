"""A note written in the form of a vault's own records (a learnt RecordTemplate): its heading,
metadata lines or frontmatter keys, sections in their order, filled from the body's sections."""

from __future__ import annotations

import json
import re
from contextlib import suppress
from datetime import date
from typing import Any

import yaml

from k0maru.notes.conventions import slugify
from k0maru.notes.template import (
    VARIES,
    RecordTemplate,
    is_meta_section,
    meta_key,
    plain_title,
    split_sections,
)
from k0maru.text import shorten


def status_for(tpl: RecordTemplate, given: str | None) -> str:
    """The status a new record starts with, spelt as the vault spells it."""
    if not given:
        return tpl.status
    if tpl.status.lower() == given.lower():
        return tpl.status
    return given[:1].upper() + given[1:] if tpl.status[:1].isupper() else given


def render_record(  # noqa: PLR0913 - the note and how to write it
    tpl: RecordTemplate,
    title: str,
    body: str,
    when: date,
    number: int | None,
    extra: dict[str, Any],
    links: list[str],
    unresolved: list[str],
    number_given: bool = False,
) -> str:
    """The note in the records' form: frontmatter and heading, metadata lines, the body's sections
    in the template's order, then its links, the names not found, and what k0maru keeps;
    `number_given`: the caller gave the number (`KEP-5905: ...`), not the next free one."""
    extra = dict(extra)
    given = [str(t) for t in extra.pop("tags", None) or []]
    tags = list({t.lower(): t for t in [*tpl.common_tags, *given]}.values())  # each tag once
    values = _values(tpl, title, when, number, extra.pop("status", None))
    _summarised(tpl, body, extra)
    hashed, kept = _tags_placed(tpl, tags, extra, values)
    out = [_head(tpl, values, extra)]
    kept = _when_given(kept, extra)
    kept = [_numbered(tpl, x) for x in kept] if number_given else kept
    lined = _in_series(tpl, "title", values)
    meta = [x.format_map(lined).rstrip() for x in kept]
    meta, body = _given_meta(meta, _untitled(tpl, body, title))
    if meta and tpl.meta_tight and tpl.heading:
        out[0] += "\n" + _meta_block(meta)  # right under the heading, as the records put them
    elif meta:
        out.append(_meta_block(meta))
    out.extend(_sections(tpl, body, values))
    out.append(hashed)
    out.extend(_tail(links, unresolved, {} if tpl.frontmatter else extra))
    return "\n\n".join(part for part in out if part) + "\n"


def _summarised(tpl: RecordTemplate, body: str, extra: dict[str, Any]) -> None:
    """A `summary:` or `description:` key the records fill each their own way, not given: the
    body's own first sentence (put into `extra`, as a given value)."""
    summary = _summary(body)
    for key, form in tpl.frontmatter:
        if summary and form == VARIES and key.lower() in _SUMMARY_KEYS and key not in extra:
            extra[key] = summary


def _tags_placed(
    tpl: RecordTemplate, tags: list[str], extra: dict[str, Any], values: dict[str, str]
) -> tuple[str, list[str]]:
    """(a `#tag` line to add, the metadata lines to write): a `Tags:` line takes the tags given
    (`values["tags"]`); without them it is left out where the records always fill it (`{tags}`),
    else left empty (`{tagslot}`); with no such line the tags go where `_place_tags` puts them."""
    lined = any("{tag" in line for line in tpl.meta_lines)  # `{tags}`, `{tagslot}`
    values["tags"] = values["tagslot"] = _tag_line(tpl.tag_form, tags) if lined else ""
    hashed = "" if lined else _place_tags(tpl, tags, extra)
    return hashed, [x for x in tpl.meta_lines if "{tags}" not in x or values["tags"]]


def _in_series(tpl: RecordTemplate, place: str, values: dict[str, str]) -> dict[str, str]:
    """`values` with the title as the records write it at `place` where they are a series
    (`This week in Nushell #365` -> `This Week in Nushell #365`; `This week in Rust` -> `This Week
    in Rust 666`, the number their counter gives); else as given."""
    form, title = tpl.series.get(place, ""), values["title"]
    if not form or _bare(title) != _bare(form.replace("{d}", "")):
        return values
    digits = re.findall(r"\d+", title) or ([values["count"]] if tpl.next_count else [])
    return {**values, "title": form.replace("{d}", digits[0])} if digits else values


def _bare(text: str) -> str:
    return re.sub(r"[\W\d_]+", " ", text).strip().lower()


def _numbered(tpl: RecordTemplate, line: str) -> str:
    """An empty metadata line filled with the number given, where the records' value holds
    theirs (`* Issue: [#5093](.../issues/5093)`)."""
    form = tpl.numbered.get(meta_key(line), "")
    return f"{line.rstrip()} {form}" if form and line.rstrip().endswith(":") else line


def _when_given(lines: list[str], extra: dict[str, Any]) -> list[str]:
    """The metadata lines, each written only when given (`{varies}`) filled from `extra` (its key
    in any case, taken out of it) or left out."""
    given = {k.lower(): k for k in extra}
    out = []
    for line in lines:
        if VARIES not in line:
            out.append(line)
        elif meta_key(line) in given:
            value = str(extra.pop(given[meta_key(line)])).replace("{", "{{").replace("}", "}}")
            out.append(line.replace(VARIES, value))
    return out


def _tag_line(form: str, tags: list[str]) -> str:
    """The tags on a `Tags:` line, as the records write theirs there."""
    tags = [re.sub(r"\s+", "-", t.strip().lstrip("#")) for t in tags if t.strip()]
    if not tags:
        return ""
    if form == "wiki":
        return " ".join(f"[[{t}]]" for t in tags)
    if form == "hash":
        return " ".join(f"#{t}" for t in tags)
    if form == "list":
        return f"[{', '.join(tags)}]"
    return " ".join(tags) if form == "space" else ", ".join(tags)


def _place_tags(tpl: RecordTemplate, tags: list[str], extra: dict[str, Any]) -> str:
    """Where the note's tags go, none dropped: the records' `tags:` key in their form (put into
    `extra`), a `#tag` line where they tag in the text (returned), else a `tags` key of the
    frontmatter, or of what k0maru keeps where the records have no frontmatter."""
    if not tags:
        return ""
    tags = list(dict.fromkeys(re.sub(r"\s+", "-", t.strip().lstrip("#")) for t in tags if t))
    if tpl.tag_form == "hash" and not any(k == "tags" for k, _ in tpl.frontmatter):
        return " ".join(f"#{t}" for t in tags)
    if tpl.tag_form == "inline":
        extra["tags"] = _Inline(tags)
    elif tpl.tag_form == "comma":
        extra["tags"] = ", ".join(tags)
    else:
        extra["tags"] = tags if tpl.frontmatter else ", ".join(tags)
    return ""


class _Inline(list[str]):
    """Tags written inline, `[a, b]`, as the records write them."""


def _values(
    tpl: RecordTemplate, title: str, when: date, number: int | None, status: str | None
) -> dict[str, str]:
    """What the template's placeholders stand for: `{title}`, `{date}` in the records' format,
    `{n}` and `{num1}`..`{num6}` (the number, zero-padded), `{status}` as the vault spells it."""
    return {
        "title": title,
        "date": when.strftime(_unpadded(tpl.date_format, when)),
        "n": str(number) if number is not None else "",
        **{f"num{w}": f"{number or 0:0{w}d}" for w in range(1, 7)},
        "status": status_for(tpl, status),
        "count": str(tpl.next_count),
        "slug": slugify(title, "kebab"),
        "iso": when.isoformat(),
    }


_SUMMARY_KEYS = {"summary", "description", "excerpt", "abstract", "tldr"}


def _summary(body: str) -> str:
    """The body's first sentence of prose (no heading, list, table, quote or code), cut at a
    word: what a `summary:` or `description:` key the records fill each their own way takes."""
    for para in re.split(r"\n\s*\n", body):
        text = " ".join(para.split())
        if text and not re.match(r"[#>|`<!*-]|\d+\.\s|\[", text):
            sentence = re.split(r"(?<=[.!?])\s", text, maxsplit=1)[0]
            return shorten(sentence, 200, at_word=True)
    return ""


def _unpadded(fmt: str, when: date) -> str:
    """`fmt` with the day unpadded beside a month's name (`Aug 3, 2021`), as such dates are
    written."""
    return fmt.replace("%d", str(when.day)) if re.search("%[bB]", fmt) else fmt


def _head(tpl: RecordTemplate, values: dict[str, str], extra: dict[str, Any]) -> str:
    """The frontmatter (taking the keys it writes out of `extra`) and the heading line."""
    gap = "\n\n" if tpl.gap_after_frontmatter else "\n"
    head = _frontmatter(tpl, values, extra) + gap if tpl.frontmatter else ""
    heading = _heading(tpl.heading, _in_series(tpl, "heading", values))
    return head + heading if tpl.heading else head.rstrip("\n")


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
    (`Proposal: X` under `# Proposal: {title}`), or ends with those after it (`X 2024-05-01` under
    `# {title} {date}`), is not given them twice; one opening with a word lead of its own
    (`Design: X`) keeps it instead of the form's (`# Proposal: `)."""
    lead, _, rest = form.partition("{title}")
    if "{title}" not in form:
        return form.format_map(values)
    title = values["title"]
    lead = _undated(lead, title, values.get("iso", ""))
    said = lead.format_map(values)[2:].strip()
    if said and title.lower().startswith(said.lower()) or _own_lead(lead, title):
        lead = "# "
    after = rest.format_map(values)
    if after.strip() and title.lower().endswith(after.strip().lower()):
        after = ""
    return lead.format_map(values) + title + after


def _undated(lead: str, title: str, iso: str) -> str:
    """The form's lead without its `{date}` where the title already gives that date (`Incident
    report August 12 2025 - ...` under `# {date} {title}`): a heading says its date once."""
    if "{date}" not in lead or not iso:
        return lead
    when = date.fromisoformat(iso)
    month, day, year = when.strftime("%B").lower(), when.day, when.year
    forms = (iso, f"{month} {day} {year}", f"{day} {month} {year}", f"{month[:3]} {day} {year}")
    said = " ".join(title.lower().replace(",", " ").split())
    if not any(f in said for f in forms):
        return lead
    return "# " + lead.replace("{date}", "")[2:].lstrip(" -:|")


def _own_lead(lead: str, title: str) -> bool:
    """Whether the form's lead is a word and a colon (`# Proposal: `) and the title has one."""
    return bool(_WORD_LEAD.match(lead[2:]) and _WORD_LEAD.match(title))


_WORD_LEAD = re.compile(r"^[A-Z][a-z]+: ")


def _frontmatter(tpl: RecordTemplate, values: dict[str, str], extra: dict[str, Any]) -> str:
    """The records' keys in their order, each value as they write it (in their quotes; a date, a
    number bare), then what k0maru keeps (`extra`)."""
    lines = []
    for key, form in tpl.frontmatter:
        m = _PLACEHOLDER.fullmatch(form)
        if key in extra and (key == "tags" or m is None):
            lines.append(_scalar(key, extra[key]))  # what the caller gives
        elif form in ("{tags}", VARIES):
            pass  # the records fill it, the caller gave none: left out, never written empty
        elif form.startswith("\n"):  # a mapping (`data:`), its children as the records give them
            lines.append(f"{key}:{_children(form, values)}\n")
        elif m is None and re.search(r"\{(?:slug|title)\}", form):
            lines.append(f"{key}: {_form_filled(form, values)}")
        elif m is None:  # the value every record gives it, as they write it (or none)
            lines.append(f"{key}: {form}\n" if form else f"{key}:\n")
        elif m.group(1):
            lines.append(f"{key}: {_quoted(values[m.group(2)], m.group(1))}")
        else:
            lines.append(_scalar(key, _typed(m.group(2), values[m.group(2)])))
        extra.pop(key, None)
    lines += [_scalar(key, extra.pop(key)) for key in list(extra)]
    return "---\n" + "".join(lines) + "---"


def _form_filled(form: str, values: dict[str, str]) -> str:
    """A value form holding the slug or the title among the records' own words (`/{slug}`,
    `"GEP-{n}: {title}"`), filled in and in its quotes."""
    quote = form[0] if len(form) > 1 and form[0] in "\"'" and form[-1] == form[0] else ""
    lead, titled, rest = form.strip(quote).partition("{title}")
    filled = [re.sub(r"\{(slug|n|num\d)\}", lambda m: values[m.group(1)], x) for x in (lead, rest)]
    if titled and filled[0].strip() and values["title"].lower().startswith(filled[0].lower()):
        filled[0] = ""  # the title says its lead itself: not twice
    text = filled[0] + (values["title"] if titled else "") + filled[1]
    return _quoted(text, quote) if quote else text + "\n"


def _children(form: str, values: dict[str, str]) -> str:
    """A mapping's children with the record's number, title and date put in (the title quoted
    where YAML would read it otherwise)."""

    def value(m: re.Match[str]) -> str:
        text = values[m.group(1)]
        plain = m.group(1) != "title" or yaml.safe_load(text) == text and ": " not in text
        return text if plain else json.dumps(text, ensure_ascii=False)

    return re.sub(r"\{(n|title|date)\}", value, form)


_PLACEHOLDER = re.compile(r"""(["']?)\{(title|date|status|n|count|slug)\}\1""")


def _scalar(key: str, value: Any) -> str:
    if isinstance(value, _Inline):
        return f"{key}: [{', '.join(value)}]\n"
    return yaml.safe_dump({key: value}, sort_keys=False, allow_unicode=True, width=1000)


def _typed(name: str, value: str) -> Any:
    """A record's number and an ISO date bare, as the records write them and YAML reads them; a
    number not given yet (a bot gives it) is YAML's null, as the family's template writes it."""
    if name in ("n", "count"):
        return int(value) if value.isdigit() else None
    if name == "date" and re.fullmatch(r"\d{4}-\d\d-\d\d", value):
        with suppress(ValueError):
            return date.fromisoformat(value)
    return value


def _quoted(value: str, quote: str) -> str:
    if quote == '"':
        return json.dumps(value, ensure_ascii=False) + "\n"
    return "'" + value.replace("'", "''") + "'\n"


def _sections(tpl: RecordTemplate, body: str, values: dict[str, str]) -> list[str]:
    """The body's sections in the family's order (the template's, whatever order the body gives
    them in), at the family's level (`# Summary` where its records use level-1 sections); a
    metadata section the body lacks (`## Status`) is filled, a template file's section keeps its
    placeholder text unless the template marks it optional or the body gives it as a bold line
    (`**Context**`). A section the family's records give but do not keep goes where they put it; one
    the family does not name comes before the next one it does (at the end where none follows): no
    text is lost."""
    given = split_sections(_labelled(tpl, body), tpl.section_level)
    out = [s for t, s in given if not t]
    queue = [(t, s) for t, s in given if t]
    bold = _bold_titles(out)
    wider = tpl.order or tpl.sections  # where a section the family does not write goes
    stands = {t: _standing(t, tpl.sections, wider) for t in [*bold, *(t for t, _ in queue)]}
    in_bold = {stands[t] for t in bold}  # the body gives these in its own form
    return out + _placed(
        tpl, [n for n in wider if n not in in_bold], _anchored(queue, stands), values
    )


_LABEL = re.compile(r"^(?:\*\*)?([A-Z][\w /-]{1,40}?)(?:\*\*)?:(?:\*\*)?[ \t]+(\S.*)$", re.S)


def _labelled(tpl: RecordTemplate, body: str) -> str:
    """A body of plain paragraphs with the family's sections given as labels (`Context: ...`,
    `Decision: ...`) as sections under the family's headings; a body with sections of its own,
    or whose labels name none of the family's, as it is."""
    mark = "#" * tpl.section_level + " "
    wider = tpl.order or tpl.sections
    if not wider or any(line.startswith(("# ", "## ")) for line in body.split("\n")):
        return body
    out = []
    for paragraph in re.split(r"\n[ \t]*\n", body):
        m = _LABEL.match(paragraph.strip())
        name = _standing(m.group(1), tpl.sections, wider) if m else None
        out.append(f"{mark}{name}\n\n{m.group(2)}" if m and name else paragraph)
    return "\n\n".join(out)


def _placed(
    tpl: RecordTemplate,
    names: list[str],
    groups: dict[str, list[tuple[str, str]]],
    values: dict[str, str],
) -> list[str]:
    """The body's sections (`groups`, by the family section each stands for) in the order of
    `names`, a family section the body lacks filled or left out, those standing for none last."""
    out: list[str] = []
    mark = "#" * tpl.section_level
    for name in names:
        if name in groups:
            out.extend(_section_text(mark, t, s) for t, s in groups.pop(name))
        elif name in tpl.sections:
            out.append(_unfilled(tpl, name, values))
    out.extend(_section_text(mark, t, s) for rest in groups.values() for t, s in rest)
    return out


def _standing(title: str, names: list[str], wider: list[str]) -> str | None:
    """The family section a body's section stands for: one of `wider` of its very title, else the
    one of `names` it stands for."""
    words = _words(title)
    return next((n for n in wider if _words(n) == words), None) or _stands_for(title, names)


def _words(title: str) -> list[str]:
    """A section title's words as titles are matched: without its comments and punctuation
    (`Testing, Security and Privacy` is `Testing, Security, and Privacy`), case folded; its
    emphasis kept (a `**Motivation**` section is the body's own form, not the family's)."""
    return re.findall(r"[^\W_]+|[*_`]+", plain_title(title).lower())


def _section_text(mark: str, title: str, text: str) -> str:
    return f"{mark} {title}\n\n{text}".rstrip()


def _anchored(
    queue: list[tuple[str, str]], stands: dict[str, str | None]
) -> dict[str, list[tuple[str, str]]]:
    """The body's sections grouped under the family section each stands for; one standing for
    none goes with the next body section that stands for one (after them all where none does:
    key '\0')."""
    groups: dict[str, list[tuple[str, str]]] = {}
    anchor = "\0"
    for title, text in reversed(queue):
        anchor = stands[title] or anchor
        groups.setdefault(anchor, []).insert(0, (title, text))
    return dict(reversed(groups.items()))


def _bold_titles(lead: list[str]) -> list[str]:
    """The bold lines standing for section titles (`**Context**`, `**Decision:**`) in the text
    before the body's first section."""
    return re.findall(r"^\*\*([^*]+?):?\*\*:?\s*$", lead[0] if lead else "", re.M)


def _given_meta(meta: list[str], body: str) -> tuple[list[str], str]:
    """The metadata lines, each the body's own where the body opens with a line of its key (`Date:
    Aug 30, 2021`), and the body without those lines: nothing said twice."""
    keys = [meta_key(line) for line in meta]
    lines = body.split("\n")
    while lines and meta_key(lines[0]) in keys and meta_key(lines[0]):
        line = lines.pop(0)
        meta[keys.index(meta_key(line))] = line.rstrip()
    return meta, "\n".join(lines).strip("\n")


def _untitled(tpl: RecordTemplate, body: str, title: str) -> str:
    """The body without its `# ` title line, where the heading writes the title above it (or the
    line is that very title)."""
    text = body.strip()
    if text.startswith("# ") and (tpl.heading or text[2:].split("\n", 1)[0] == title):
        return text.split("\n", 1)[1] if "\n" in text else ""
    return text


def _unfilled(tpl: RecordTemplate, name: str, values: dict[str, str]) -> str:
    """A template section the body does not give: a metadata section filled (`## Status`), a
    template file's placeholder text unless it marks the section optional, else '' (left out)."""
    if is_meta_section(name):
        filled = values["status"] if name.lower() == "status" else values["date"]
        return f"## {name}\n\n{filled}".rstrip()
    if name in tpl.section_text and name not in tpl.optional_sections:
        return f"{'#' * tpl.section_level} {name}\n\n{tpl.section_text[name]}".rstrip()
    return ""


def _stands_for(given: str, names: list[str]) -> str | None:
    """The template section the body's section `given` stands for: the same title, else the one
    title whose words begin with its words or its words with them (`Context` for `Context and
    Problem Statement`; `Decision` for neither of `Decision Drivers` and `Decision Outcome`)."""
    words = _words(given)  # `Decision Drivers <!-- optional -->` as written
    same = [n for n in names if _words(n) == words]
    if same or not words:
        return same[0] if same else None
    near = [n for n in names if _begins(words, _words(n))]
    return near[0] if len(near) == 1 else None


def _begins(a: list[str], b: list[str]) -> bool:
    return bool(b) and (a == b[: len(a)] or b == a[: len(b)])
