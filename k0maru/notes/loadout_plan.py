"""The loadout's candidates, each scored, out of a vault's notes, its agent files and its manifests:
agent and rules files (whole where the budget allows, else their facts), facts of the guides and
the README, the commands the manifests and CI run, and the decisions in force. `fit` then takes
them, best first, deduplicated, within a token budget, and says what it read and left out."""

from __future__ import annotations

import itertools
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from k0maru.llm_tokens import count_tokens
from k0maru.notes import loadout_sources as src
from k0maru.notes.fix_hints import unfixed_card
from k0maru.notes.loadout_commands import all_commands
from k0maru.notes.loadout_facts import Section, split_sections
from k0maru.notes.supersede import MARK
from k0maru.text import shorten

FRAME = 8  # tokens a section's framing costs (kind, source)
AGENT_SHARE = 0.65  # agent files are carried whole while they fit this share of the budget
SECTION_TOKENS = 320  # a guide section is cut to its best blocks past this
MIN_BLOCK = 1.4
COMMANDS_SCORE = 1.2  # a command line read from a manifest or CI
DECISION_SCORE = 2.0
NESTED = 0.3  # a nested agent file's facts weigh this much, unless the focus names its folder
FOCUS_WEIGHT = 6.0  # a candidate holding every focus term counts this much more
_STOP = set(
    [
        "i",
        "im",
        "i'm",
        "we",
        "going",
        "to",
        "change",
        "changing",
        "add",
        "adding",
        "new",
        "a",
        "an",
        "the",
        "for",
        "with",
        "and",
        "fix",
        "fixing",
        "bug",
        "my",
        "in",
        "of",
        "want",
        "before",
        "after",
        "it",
        "its",
        "this",
        "that",
        "work",
        "working",
        "on",
        "update",
        "updating",
        "write",
        "writing",
        "preparing",
        "prepare",
        "open",
        "opening",
        "make",
        "sure",
        "from",
        "into",
        "about",
        "some",
        "one",
        "under",
        "inside",
        "within",
    ]
)
_STATUS_OUT = re.compile(r"supersed|reject|deprecat|withdrawn|obsolete|abandon|replaced", re.I)
_STATUS_LINE = re.compile(r"^(?:\*\*)?status(?:\*\*)?:?(?:\*\*)?\s*(.+)$", re.I | re.M)
_DECISION_HEAD = re.compile(r"decision|outcome|resolution|we decided|chosen", re.I)


@dataclass(slots=True)
class Note:
    path: str
    body: str
    frontmatter: dict[str, Any] = field(default_factory=dict)
    title: str = ""
    role: tuple[str, float] | str | None = None  # src.role_of(path), where known already


@dataclass(slots=True)
class Item:
    kind: str
    source: str
    lines: list[str]
    score: float
    tier: int = 2  # 0 agent/rules files whole, 1 k0maru's conventions, 2 the ranked pool
    focus: float = 0.0

    @property
    def text(self) -> str:
        return "\n".join(self.lines)


@dataclass(slots=True)
class Plan:
    items: list[Item]
    read: Counter[str] = field(default_factory=Counter)  # path -> sections offered
    left_out: Counter[str] = field(default_factory=Counter)  # reason -> notes
    agent_tokens: int = 0


def focus_terms(focus: str | None) -> list[str]:
    """The words and paths of a focus ("I'm going to change src/auth/"), stemmed crudely."""
    if not focus:
        return []
    words = re.findall(r"[\w./-]+", focus.lower())
    out = []
    for w in words:
        w = w.strip("./-")
        if len(w) < 2 or w in _STOP:
            continue
        out.append(w if "/" in w else w[:6] if len(w) > 6 else _singular(w))
    return list(dict.fromkeys(out))


def _singular(word: str) -> str:
    """ "tests" -> "test"; "css", "class" and "os" kept as they are."""
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


def focus_of(terms: list[str], source: str, text: str) -> float:
    """The share of the focus terms a candidate holds, a path term counting double."""
    if not terms:
        return 0.0
    hay = f"{source}\n{text}".lower()
    got = sum((2.0 if "/" in t else 1.0) for t in terms if _term(t).search(hay))
    return got / sum(2.0 if "/" in t else 1.0 for t in terms)


def _term(term: str) -> re.Pattern[str]:
    """A focus term as it must appear: at a word's start; a short one (`ty`, `ui`) as a word."""
    end = r"(?!\w)" if len(term) < 4 else ""
    return re.compile(rf"(?<!\w){re.escape(term)}{end}")


def _section_item(section: Section, weight: float, kind: str) -> Item | None:
    blocks = [b for b in section.blocks if b.score >= MIN_BLOCK]
    if not blocks:
        return None
    blocks = _best_blocks(blocks)
    score = weight * sum(b.score for b in blocks)
    return Item(kind, section.source, [b.text for b in blocks], score)


def _best_blocks(blocks: list[Any]) -> list[Any]:
    """The blocks within SECTION_TOKENS, best first, shown in their order."""
    ranked = sorted(range(len(blocks)), key=lambda i: -blocks[i].score)
    keep: set[int] = set()
    used = 0
    for i in ranked:
        cost = count_tokens(blocks[i].text) + 1
        if used + cost > SECTION_TOKENS and keep:
            continue
        keep.add(i)
        used += cost
    return [b for i, b in enumerate(blocks) if i in keep]


def _decision_item(note: Note) -> Item | None:
    status = str(note.frontmatter.get("status", ""))
    if not status:
        m = _STATUS_LINE.search(note.body)
        status = m.group(1) if m else ""
        if not status:
            after = re.search(r"^#+\s*status\s*$\s*(.+)$", note.body, re.I | re.M)
            status = after.group(1) if after else ""
    if _STATUS_OUT.search(status) or re.search(r"propos|draft", status, re.I):
        return None
    sentence = _decision_sentence(note)
    if not sentence:
        return None
    h1 = re.search(r"^# (.+)$", note.body, re.M)
    title = note.title or (h1.group(1).strip() if h1 else PurePosixPath(note.path).stem)
    return Item("adr", note.path, [f"{title}: {sentence}"], DECISION_SCORE)


_NO_DECISION = ("#", "|", ">", "Status", "**Status")
_NEW_BLOCK = re.compile(r"\s*(?:[-*+]\s|\d+[.)]\s|#|\||>|```)")  # an item, heading, table...


def _decision_sentence(note: Note) -> str:
    """The first sentence under the note's Decision heading, else of its first long line; a
    sentence wrapped over several lines is read whole."""
    lines = note.body.splitlines()
    starts = [i for i, ln in enumerate(lines) if ln.startswith("#") and _DECISION_HEAD.search(ln)]
    after = starts[0] + 1 if starts else len(lines)
    for i, line in enumerate(lines[after:], start=after):
        if line.strip() and not line.startswith("#"):
            return _sentence(lines[i:])
    for i, line in enumerate(lines):  # not "Supersedes [[0006-x]]": it names a record, no more
        if len(line) > 40 and not line.startswith(_NO_DECISION) and not MARK.match(line):
            return _sentence(lines[i:])
    return ""


def _sentence(lines: list[str]) -> str:
    """The first sentence of the paragraph `lines` start with, in at most 300 characters."""
    rest = itertools.takewhile(lambda ln: ln.strip() and not _NEW_BLOCK.match(ln), lines[1:])
    paragraph = " ".join(ln.strip() for ln in [lines[0], *rest])
    first = re.split(r"(?<=[.!?])\s+", paragraph.lstrip("- "), maxsplit=1)[0]
    return shorten(first, 300, at_word=True)


def _agent_items(note: Note, weight: float) -> tuple[Item, list[Item]]:
    """The agent file whole (tier 0), and its facts (should it not fit whole)."""
    whole = Item("rules", note.path, [note.body.strip()], 0.0, tier=0)
    parts = []
    for section in split_sections(note.path, note.body):
        item = _section_item(section, weight * 3.0, "rules")
        if item:
            parts.append(item)
    return whole, parts


def _agent_order(path: str) -> tuple[int, int, str]:
    return (0 if path in src.VAULT_RULES else 1, path.count("/"), path)


def plan_loadout(
    root: Path, notes: Iterable[Note], focus: str | None = None, adr_folder: str = ""
) -> tuple[Plan, list[tuple[Item, list[Item]]]]:
    """Every candidate of the vault, scored; and the agent files, whole and in parts. A pointer
    file (a body that only names a file, "CLAUDE.md" or "@AGENTS.md") is read as the file it
    names; a nested agent file weighs less unless the focus names its folder."""
    plan = Plan([])
    agents: list[tuple[Item, list[Item]]] = []
    notes = _follow_pointers(root, list(notes), plan)
    for note in sorted(notes, key=lambda n: _agent_order(n.path)):
        role = note.role if note.role is not None else src.role_of(note.path, adr_folder)
        if isinstance(role, str):
            plan.left_out[role] += 1
            continue
        kind, weight = role
        if kind in (src.AGENT, src.RULES):
            nested = src.agent_folder(note.path) != "" or scoped(note)
            agents.append(_agent_items(note, weight * (NESTED if nested else 1.0)))
            continue
        if unfixed_card(note.body):  # k0maru's own boilerplate of a failure, nothing learnt yet
            plan.left_out["a distilled card with no fix recorded"] += 1
            continue
        found = _note_items(note, kind, weight)
        if found:
            plan.read[note.path] += len(found)
            plan.items += found
        else:
            plan.left_out["no rule or command"] += 1
    for name, lines in all_commands(root):
        score = COMMANDS_SCORE * sum(_named(line) for line in lines)
        plan.items.append(Item("commands", f"{name} (read from the file)", lines, score))
    terms = focus_terms(focus)
    for item in plan.items + [i for whole, parts in agents for i in (whole, *parts)]:
        item.focus = focus_of(terms, item.source, item.text)
        item.score *= 1.0 + FOCUS_WEIGHT * item.focus
    return plan, agents


_SCOPE = re.compile(r"^(applyTo|globs|alwaysApply):[ \t]*(.*?)[ \t]*$", re.M)
_EVERYWHERE = {"", "*", "**", "**/*"}


def disk_note(path: str, text: str) -> Note:
    """A note read from disk, not from the index: the scope keys of its frontmatter are read off
    its head line by line (a cursor rule's `globs: **/*.ts` is no valid YAML); its body whole."""
    head = text.split("\n---", 1)[0] if text.startswith("---") else ""
    return Note(path, text, {m.group(1): m.group(2) for m in _SCOPE.finditer(head)})


def scoped(note: Note) -> bool:
    """Whether an agent file holds only for some files (copilot's `applyTo`, cursor's `globs`
    without `alwaysApply: true`), by its frontmatter: it speaks for them, as a nested one for its
    folder."""
    front = {k: "" if v is None else str(v) for k, v in note.frontmatter.items()}
    globs = [front[k].strip("\"'[] ") for k in ("applyTo", "globs") if k in front]
    always = front.get("alwaysApply", "").lower() == "true"
    return not always and any(g not in _EVERYWHERE for g in globs)


def _follow_pointers(root: Path, notes: list[Note], plan: Plan) -> list[Note]:
    """The notes with each pointer file replaced by the file it names, read as an agent file
    (from disk where it is not a note of the vault)."""
    by_path = {n.path: n for n in notes}
    out = []
    for note in notes:
        target = pointer_target(note)
        if target is None:
            out.append(note)
            continue
        plan.left_out["pointer to another file"] += 1
        body = "" if target in by_path else _read_small(root / target)
        if body:
            by_path[target] = disk_note(target, body)
            out.append(by_path[target])
        found = by_path.get(target)
        if found is not None:
            found.role = (src.AGENT, 3.0)
    return out


_POINTER = re.compile(r"^@?((?:[\w.-]+/)*[\w.-]+\.(?:md|mdc|txt))$")


def pointer_target(note: Note) -> str | None:
    """The path an agent file only points to ("CLAUDE.md", "@AGENTS.md"), from the vault's root."""
    if not src.is_agent_file(note.path):
        return None
    m = _POINTER.match(note.body.strip())
    if m is None:
        return None
    folder = note.path.rpartition("/")[0]
    target = str(PurePosixPath(folder, m.group(1))) if folder else m.group(1)
    return None if target == note.path else target


def _read_small(path: Path) -> str:
    try:
        if path.is_file() and path.stat().st_size <= 512 * 1024:
            return path.read_text(errors="replace")
    except OSError:
        pass
    return ""


def _named(line: str) -> int:
    """How many commands or tools a line read from a manifest names ("hooks: ruff, ty, loq")."""
    return min(4, 1 + line.count(", ")) if ": " in line and "#" not in line else 1


def _note_items(note: Note, kind: str, weight: float) -> list[Item]:
    if kind == src.DECISION:
        item = _decision_item(note)
        return [item] if item else []
    out = []
    for section in split_sections(note.path, note.body):
        w = weight * src.heading_weight(kind, section.heading)
        item = _section_item(section, w, "guide")
        if item:
            out.append(item)
    return out
