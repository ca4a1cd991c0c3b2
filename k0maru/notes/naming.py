"""How a folder's file names are read: each heuristic a small pure function of the names it reads,
returning what it decides (a `Naming`) or None where it has nothing to say.

`naming_of` picks the naming class of a kind's folder (the first heuristic that speaks wins),
`slug_style_of` the way words are joined in the names. The KindRule is assembled from their results
once (`ConventionSniffer._infer_naming`), so no heuristic depends on another having run first.

Names here are file stems without `.md`, already cut to records (no README, index or template).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

DATE_PREFIX = re.compile(r"^\d{4}-\d{2}-\d{2}[-_ ]")  # `2024-05-01-title`
DAILY = re.compile(r"^\d{4}([-_])\d{2}\1\d{2}\.md$")  # a daily note: the date alone
ADR_NUM = re.compile(r"^(\d{3,5})-(?!\d\d-\d\d)")  # `0007-title`, not a YYYY-MM-DD date
# `ADR-7-title`, `adr-0007-title`, `A118-title`, `RFC-12`
ADR_PREFIXED = re.compile(r"^(?:(?i:adr|rfc)|[A-Z]{1,5})[-_]?(\d{1,5})(?=[-_.]|$)")
# what comes before a name's words: a date, `adr-N` or a bare number, with its separator
_NAME_LEAD = re.compile(r"^(\d{4}-\d{2}-\d{2}|adr-\d+|\d{3,5})[-_ ]", re.I)


@dataclass(frozen=True, slots=True)
class Naming:
    """A decision read from file names: `value` (a naming class or a slug style), the number width
    the names show (None: they show none) and the evidence line saying why ('' for a default)."""

    value: str
    evidence: str = ""
    width: int | None = None


def number_widths(pattern: re.Pattern[str], stems: list[str]) -> list[int]:
    """The digit count of the number `pattern` finds in each stem it matches."""
    return [len(m.group(1)) for n in stems if (m := pattern.match(n + "-"))]


def dated_count(stems: list[str]) -> int:
    """How many stems start with a `YYYY-MM-DD` date."""
    return sum(1 for n in stems if DATE_PREFIX.match(n + "-"))


def prefixed_naming(kind: str, stems: list[str]) -> Naming | None:
    """ADRs named mostly with a letter prefix before their number (`ADR-0007-x`, `A118-x`) rather
    than a bare number: `adr-prefixed`, as wide as the widest number."""
    if kind != "adr":
        return None
    prefixed = number_widths(ADR_PREFIXED, stems)
    if len(prefixed) <= len(number_widths(ADR_NUM, stems)):
        return None
    return Naming("adr-prefixed", f"{len(prefixed)} files named adr-NNN-title", max(prefixed))


def numbered_naming(kind: str, stems: list[str]) -> Naming | None:
    """ADRs with any bare-numbered name (`0007-x`): `adr-number`, as wide as the widest number; an
    ADR folder with no record yet: `adr-number` too, at the default width."""
    if kind != "adr":
        return None
    widths = number_widths(ADR_NUM, stems)
    if widths:
        return Naming("adr-number", f"{len(widths)} files named NNNN-title", max(widths))
    return None if stems else Naming("adr-number")


def dated_naming(stems: list[str]) -> Naming | None:
    """At least half the names start with a date (`2024-05-01-x`): `date-slug`."""
    dated = dated_count(stems)
    if not stems or dated < len(stems) / 2:
        return None
    return Naming("date-slug", f"{dated}/{len(stems)} files start with YYYY-MM-DD")


def undated_naming(stems: list[str]) -> Naming | None:
    """Names, most without a date (asked after `dated_naming`): `slug`."""
    if not stems:
        return None
    undated = len(stems) - dated_count(stems)
    return Naming("slug", f"{undated}/{len(stems)} files without a date prefix")


def empty_folder_naming(kind: str) -> Naming:
    """No name to read: logs and decisions are dated (`date-slug`), other kinds `slug`."""
    return Naming("date-slug" if kind in ("log", "decision") else "slug")


def naming_of(kind: str, stems: list[str]) -> Naming:
    """The naming class a kind's folder shows: the first heuristic above that speaks."""
    return (
        prefixed_naming(kind, stems)
        or numbered_naming(kind, stems)
        or dated_naming(stems)
        or undated_naming(stems)
        or empty_folder_naming(kind)
    )


def _spaced(words: str) -> bool:
    return " " in words


def _snake(words: str) -> bool:
    return "_" in words and " " not in words and "-" not in words


def _sentence(words: str) -> bool:
    """Spaced names whose longer words are not all capitalised (`Sync conflicts on iOS`)."""
    return " " in words and any(w[:1].islower() for w in words.split() if len(w) > 3)


def _pascal(words: str) -> bool:
    return re.fullmatch(r"[A-Z][A-Za-z0-9]*[a-z][A-Za-z0-9]*[A-Z][A-Za-z0-9]*", words) is not None


def _cased(words: str) -> bool:
    return re.match(r"[A-Z][a-z]", words) is not None and not re.search(r"[ _]", words)


# (slug style, whether a name's words are joined so, what the evidence says of such names)
SLUG_STYLES = (
    ("sentence", _sentence, "names use spaces (Sentence case)"),  # `Sync conflicts on iOS`
    ("title", _spaced, "names use spaces (Title Case)"),  # `2024-05-01 Cache Layout`
    ("snake", _snake, "names use snake_case"),  # `0007_cache_layout`
    ("pascal", _pascal, "names use PascalCase"),  # `KubeProxyDown`
    ("cased", _cased, "names keep the title's case"),  # `Binary-search-tree`, `Apache-Iceberg`
)


def slug_style_of(stems: list[str]) -> Naming | None:
    """How the words after a date or number are joined: the first style of SLUG_STYLES that more
    than half the names use; None keeps kebab-case."""
    words = [_NAME_LEAD.sub("", n) for n in stems]
    for style, joined, said in SLUG_STYLES:
        count = sum(1 for n in words if joined(n))
        if count > len(words) / 2:
            return Naming(style, f"{count}/{len(words)} {said}")
    return None
