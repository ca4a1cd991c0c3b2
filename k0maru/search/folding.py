"""What is one answer, folded into one hit: a note's translations ("also in: ko, es") and a passage
found word for word in a better-ranked hit ("also at"). Near-identical whole notes are folded before
these (index/copies.py, `Recall.fold_copies`).

A translation is the same note in another language folder: the same path but for one folder that is
a language code (`locales/en/adr/index.md`, `locales/ko/adr/index.md`; `docs/pt-BR/x.md`), or the
same frontmatter `translationKey` / `permalink` (Hugo, Obsidian Publish); or the same file name but
for a language code before `.md` (`install.fr.md` beside `install.md`: MkDocs' i18n, Hugo), the note
without one in the language it was read as; or Docusaurus' copy of a page under `i18n/CODE/`. The
hit shown for a group is the note in the query's language when the group has one (`lang`: the
caller's filter, else the language the query's words name), else the best-ranked one."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from k0maru.index.languages import CODES

# ISO 639-1 codes a translation folder may carry, beyond the Snowball languages' (which stem)
OTHER_CODES = frozenset(
    [
        "ko",
        "ja",
        "zh",
        "cy",
        "he",
        "th",
        "vi",
        "uk",
        "km",
        "sk",
        "bg",
        "hr",
        "sl",
        "ms",
        "bn",
        "ur",
        "sw",
        "tl",
        "is",
        "lv",
        "mk",
        "az",
        "ka",
        "kk",
        "mn",
        "my",
        "si",
        "te",
        "kn",
        "ml",
        "mr",
        "gu",
        "pa",
        "sq",
        "bs",
        "be",
        "af",
    ]
)
_FOLDER_CODE = re.compile(r"([a-z]{2})(?:[-_][a-z]{2,4})?")
_HEADING = re.compile(r"^[ \t]{0,3}#{1,6}[ \t].*$", re.M)
_KEYS = ("translationKey", "translation_key", "permalink")
NAMED = "\0name"  # the key of `install.fr.md` and `install.md`: `install` and this
_DOCUSAURUS = re.compile(
    r"^(.*/)?i18n/([^/]+)/docusaurus-plugin-content-(docs|blog|pages)/(?:current/)?(.+)\.md$"
)
_DOCUSAURUS_HOME = {"docs": "docs", "blog": "blog", "pages": "src/pages"}


def language_folder(part: str) -> str | None:
    """The language code a folder name is (`ko`, `pt-BR` -> `pt-br`), or None."""
    low = part.lower()
    m = _FOLDER_CODE.fullmatch(low)
    return low if m and (m.group(1) in CODES or m.group(1) in OTHER_CODES) else None


def translation_key(path: str, frontmatter: str) -> tuple[str, str] | None:
    """(what a note shares with its translations, its language code), or None when it is in no
    language folder and its name has no language code. The frontmatter key wins over the path."""
    site = _DOCUSAURUS.match(path)
    if site is not None and language_folder(site.group(2)) is not None:
        # Docusaurus: `i18n/fr/docusaurus-plugin-content-docs/current/x.md` translates `docs/x.md`
        original = f"{site.group(1) or ''}{_DOCUSAURUS_HOME[site.group(3)]}/{site.group(4)}"
        return original + NAMED, site.group(2).lower()
    return _folder_key(path.split("/"), frontmatter) or _named_key(path)


def _folder_key(parts: list[str], frontmatter: str) -> tuple[str, str] | None:
    """The key of a note inside a language folder (the innermost one): the frontmatter's shared
    key where it has one, else its path with the folder as `*`."""
    for i in range(len(parts) - 2, -1, -1):
        code = language_folder(parts[i])
        if code is None:
            continue
        shared = _shared_key(frontmatter)
        if shared:
            return f"{'/'.join(parts[:i])}\0key\0{shared}", code
        return "/".join([*parts[:i], "*", *parts[i + 1 :]]), code
    return None


def _shared_key(frontmatter: str) -> str:
    """The value of the first frontmatter key (`_KEYS`) translations share, "" where none is set."""
    try:
        meta = json.loads(frontmatter) if frontmatter else {}
    except ValueError:
        return ""
    if not isinstance(meta, dict):
        return ""
    return next((str(meta[k]) for k in _KEYS if meta.get(k)), "")


def _named_key(path: str) -> tuple[str, str] | None:
    """The key of a note whose name carries a language code: `install.fr.md`."""
    stem, dot, code = path.removesuffix(".md").rpartition(".")
    if dot and "/" not in code and language_folder(code) is not None:
        return stem + NAMED, code.lower()
    return None


def translation_keys(rows: dict[int, tuple[str, str, str]]) -> dict[int, tuple[str, str] | None]:
    """Each note's `translation_key` (`rows`: path, frontmatter, the Snowball language it was read
    in, "" English). `name.xx.md` is a translation only if it was read in the language its code
    names (where that language has a stemmer to tell it by): Dendron's `config.ga.md`, an English
    child of `config.md`, is none. A note whose name has no code joins its translations among these,
    in the language it was read in."""
    keys = {d: translation_key(path, fm) for d, (path, fm, _) in rows.items()}
    for d, (path, _, read_as) in rows.items():
        key = keys[d]
        if key and _named_in_another_language(path, key, read_as):
            keys[d] = None
    _join_named(rows, keys)
    return keys


def _join_named(
    rows: dict[int, tuple[str, str, str]], keys: dict[int, tuple[str, str] | None]
) -> None:
    """A note without a key whose name its translations carry with a code (`install.md` beside
    `install.fr.md`) joins them, in the language it was read in."""
    named = {k[0] for k in keys.values() if k and k[0].endswith(NAMED)}
    for d, (path, _, read_as) in rows.items():
        if keys[d] is None and (name := path.removesuffix(".md") + NAMED) in named:
            keys[d] = name, next((c for c, n in CODES.items() if n == read_as), "en")


def _named_in_another_language(path: str, key: tuple[str, str], read_as: str) -> bool:
    """Whether a note keyed by the language code in its name (`name.xx.md`) was read in another
    language than the code names (where that language has a stemmer to tell it by)."""
    if not (path.lower().removesuffix(".md").endswith("." + key[1]) and key[0].endswith(NAMED)):
        return False
    named_as = CODES.get(key[1].split("-")[0])
    return named_as is not None and named_as != (read_as or "english")


@dataclass
class Folded:
    """The hits kept, best first, with what each one folds: translations' codes, copies' paths."""

    kept: list[int] = field(default_factory=list)
    also_in: dict[int, list[str]] = field(default_factory=dict)
    also_at: dict[int, list[str]] = field(default_factory=dict)


def fold_translations(
    ranked: Sequence[int], keys: dict[int, tuple[str, str] | None], lang: str | None
) -> tuple[list[int], dict[int, list[str]]]:
    """`ranked` with each group of translations at the place of its best-ranked member, shown as its
    member in `lang` when it has one, and the other members' language codes."""
    groups: dict[str, list[int]] = {}
    order: list[str | int] = []
    for d in ranked:
        key = keys.get(d)
        if key is None:
            order.append(d)
            continue
        if key[0] not in groups:
            groups[key[0]] = []
            order.append(key[0])
        groups[key[0]].append(d)
    out: list[int] = []
    also_in: dict[int, list[str]] = {}
    for item in order:
        if isinstance(item, int):
            out.append(item)
            continue
        members = groups[item]
        shown = next((d for d in members if _code_is(keys[d], lang)), members[0])
        out.append(shown)
        others = [k[1] for d in members if d != shown and (k := keys[d])]
        if others:
            also_in[shown] = list(dict.fromkeys(others))
    return out, also_in


def _code_is(key: tuple[str, str] | None, lang: str | None) -> bool:
    return bool(key and lang and key[1].split("-")[0].split("_")[0] == lang)


def fold_passages(
    ranked: Sequence[int], passages: dict[int, str], paths: dict[int, str], limit: int
) -> tuple[list[int], dict[int, list[str]]]:
    """The first `limit` of `ranked` whose passage is not word for word (case, spacing and heading
    lines aside) the passage of a better-ranked kept one in another folder, and the paths of those
    folded into each. Another folder: a README or guide that embeds a page, not notes of one folder
    that share a template's boilerplate section (ADRs, lint rules), which stay answers of their
    own."""
    seen: dict[tuple[str, str], int] = {}
    kept: list[int] = []
    also_at: dict[int, list[str]] = {}
    for d in ranked:
        text = " ".join(_HEADING.sub("", passages.get(d, "")).lower().split())
        folder = paths[d].rpartition("/")[0]
        first = (  # a short line is no evidence of a copy
            next((k for (t, f), k in seen.items() if t == text and f != folder), None)
            if len(text) >= 40
            else None
        )
        if first is not None:
            also_at.setdefault(first, []).append(paths[d])
        elif len(kept) < limit:
            kept.append(d)
            if text:
                seen.setdefault((text, folder), d)
    return kept, also_at
