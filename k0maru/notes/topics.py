"""A card's topic folder in a vault that files its notes by topic (a TIL repository: `ruby/`,
`databases/`, `unix/`), where no folder is named for cards: the folder whose name and note names
share the most words with the card, each word weighed by how few folders hold it."""

from __future__ import annotations

import math
from collections import Counter

MIN_FOLDERS = 3  # topic folders a vault needs before a card is filed by topic
MIN_NOTES = 2  # notes a top-level folder needs to count as a topic
BODY_CHARS = 4000  # of the card's text compared


def topic_folders(folders: dict[str, list[str]], taken: set[str]) -> dict[str, list[str]]:
    """The vault's top-level folders of notes (`folders`: each folder's notes, those set aside left
    out; not one another kind has), when there are at least MIN_FOLDERS of them and they hold most
    of the vault's notes; else those of one top-level folder (`docs/web/`, `content/Concepts/`)
    that do; else none."""
    notes = sum(len(n) for n in folders.values())
    for top in ("", *sorted({f.split("/", 1)[0] for f in folders if f} - taken)):
        found = {
            f: names
            for f, names in folders.items()
            if f.rpartition("/")[0] == top and f and f not in taken and len(names) >= MIN_NOTES
        }
        if len(found) >= MIN_FOLDERS and sum(len(n) for n in found.values()) * 2 >= notes:
            return found
    return {}


def topic_of(title: str, body: str, topics: dict[str, list[str]]) -> tuple[str, str] | None:
    """(the folder, why) whose words the card shares most, or None when no folder shares a word
    or two share it equally."""
    wanted = _words(f"{title}\n{body[:BODY_CHARS]}")
    named = {f: _words(f) for f in topics}
    held = {
        f: named[f] | _words(" ".join(n.removesuffix(".md") for n in names))
        for f, names in topics.items()
    }
    df = Counter(w for terms in held.values() for w in terms)
    scores = sorted(
        ((_shared_weight(wanted, terms, named[f], df, len(held)), f) for f, terms in held.items()),
        reverse=True,
    )
    (best, folder), (second, _) = scores[0], scores[1]
    if best <= 0 or best == second:
        return None
    shared = sorted(wanted & held[folder], key=lambda w: (df[w], w))[:4]
    return (
        folder,
        f"filed by topic: shares {', '.join(shared)} with {folder}/ ({best:.1f} vs {second:.1f})",
    )


def closest(
    title: str, tags: str, body: str, folders: dict[str, list[str]]
) -> tuple[str, str] | None:
    """(the folder, why) of a family's parallel folders closest by the note's title and tags,
    else by its body's `# ` headings too (minutes headed `# Outreach WG`, a date for a
    title)."""
    by_title = topic_of(title, tags, folders)
    heads = "\n".join(x for x in body.splitlines() if x.startswith("# "))
    if by_title is not None or not heads:
        return by_title
    by_body = topic_of(title, f"{tags}\n{heads}", folders)
    return None if by_body is None else (by_body[0], by_body[1] + ", in the note's headings")


def _words(text: str) -> set[str]:
    """The search terms of `text`, its `-` and `_` read as spaces; numbers (a date's, a
    record's) name no topic."""
    from k0maru.search.terms import tokenize

    return {w for w in tokenize(text.replace("-", " ").replace("_", " ")) if not w.isdigit()}


def _shared_weight(
    wanted: set[str], terms: set[str], own_name: set[str], df: Counter[str], folders: int
) -> float:
    """The weight of the card's words a folder holds: each the rarer across the `folders` the more
    (`df`: how many hold it), twice for a word of the folder's own name (the topic itself)."""
    return sum(math.log(1 + folders / df[w]) * (2 if w in own_name else 1) for w in wanted & terms)


def hinted(hint: str, folders: dict[str, list[str]]) -> tuple[str, str] | None:
    """(the folder, why) whose path names `hint` (`accepted`, `security`): the one folder whose
    path ends with it, else whose path holds all the hint's words; None where no hint is given or
    not one folder fits."""
    words = _words(hint)
    if not words:
        return None
    named = hint.strip().strip("/").lower()
    fits = [f for f in folders if f.lower() == named or f.lower().endswith("/" + named)]
    fits = fits if len(fits) == 1 else [f for f in folders if words <= _words(f)]
    return (
        (fits[0], f"the folder hint {hint.strip()!r} names {fits[0]}/") if len(fits) == 1 else None
    )
