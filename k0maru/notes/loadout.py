"""The project loadout: what an agent taking over a project must know of its conventions, within a
token budget (issue #57).

Sources are chosen by what they are for (loadout_sources): the agent files (AGENTS.md, CLAUDE.md,
GEMINI.md, copilot and cursor rules, nested AGENTS.md) and the vault's rules files come first, whole
while they fit AGENT_SHARE of the budget, else by their facts; then, ranked by the facts they
state per token: the sections of the contributor, development, testing and style guides and of
the README's install/dev/test parts, cut to their rule sentences and command fences
(loadout_facts); the commands the manifests and CI run (loadout_commands); the decisions in force
(accepted ADRs, a title and its decision sentence each). Copies and translations are dropped;
changelogs, release notes, specs and licences are left out. Every section names its source (a path,
`path#Heading` for a part of a note) so `read_note` can read on; the last one says which files were
read and which were left out, and why. A `focus` (a task or a path) brings what concerns it first.
Its cost does not grow with the vault: the index's paths are listed once and the bodies of the
MAX_READ best-placed notes read at most (issue #61).

DEFAULT_BUDGET is 4,000 tokens, a ceiling, not a target: the loadout is asked for once, at the
start of a session, where 2% of a 200k context is cheap and a typical agent file (2-4k tokens)
fits whole beside the commands; it stays well under the 10,000 tokens at which Claude Code warns
of a large MCP answer. The answer ends sooner where the guide sections left state little (FLOOR)."""

from __future__ import annotations

import heapq
import json
from collections.abc import Iterator
from typing import TYPE_CHECKING, Protocol

from k0maru.fsutil import read_text
from k0maru.limits import LOADOUT_BUDGET
from k0maru.llm_tokens import count_tokens, fit_tokens
from k0maru.notes import loadout_sources as src
from k0maru.notes.conventions import ConventionSniffer
from k0maru.notes.loadout_facts import norm
from k0maru.notes.loadout_plan import (
    AGENT_SHARE,
    FOCUS_WEIGHT,
    FRAME,
    Item,
    Note,
    Plan,
    disk_note,
    plan_loadout,
)

if TYPE_CHECKING:
    from pathlib import Path

    from k0maru.config import Settings
    from k0maru.index.document_store import DocumentStore

DEFAULT_BUDGET = LOADOUT_BUDGET  # stated once, in limits.py, for the front ends too
HEAD_TOKENS = 32  # the answer's head and JSON keys, besides its vault path and focus
FOOTER_TOKENS = 110  # kept for the last section, which says what was read and left out
_MAX_DISK_BYTES = 512 * 1024
# the notes whose bodies a loadout reads at most, the best placed (agent files, guides, READMEs,
# decisions before other docs): its cost stays bounded in a vault of 100,000 notes, while the
# largest repository of the loadout eval keeps 456
MAX_READ = 2000
FOCUSED = 0.5  # a section holding this share of the focus terms is shown before the others
# the budget is a ceiling: a guide section stating less per token than this share of the third
# best guide section's is left out, so the answer ends where what is left says little
FLOOR = 0.2
FLOOR_RANK = 2

Section = dict[str, str]


class LoadoutVault(Protocol):
    """What the loadout gets of the open vault (the service hands it the wiring's `Vault`): its
    root, its settings (the folders indexed) and the notes of its index (`DocumentStore`), nothing
    more."""

    @property
    def root(self) -> Path: ...

    @property
    def settings(self) -> Settings: ...

    @property
    def store(self) -> DocumentStore: ...


def build_loadout(
    vault: LoadoutVault, budget: int, focus: str | None = None, max_read: int = MAX_READ
) -> tuple[list[Section], int, bool]:
    """Sections, best first, within `budget` tokens (FRAME a section for its framing), the bodies
    of `max_read` notes at most read: (sections, tokens used, whether any candidate was cut or
    left out for the budget)."""
    conv = ConventionSniffer(vault.root, vault.settings.include).sniff()
    lines = [
        f"new {k} notes go to {r.folder or '.'}/ ({r.naming})"
        for k, r in conv.rules.items()
        if r.source != "default" and not r.empty
    ]
    conventions = Item("conventions", "k0maru conventions", lines, 0.0, tier=1) if lines else None
    notes = list(_vault_notes(vault, conv.rules["adr"].folder, max_read))
    plan, agents = plan_loadout(vault.root, notes, focus, conv.rules["adr"].folder)
    head = HEAD_TOKENS + count_tokens(f"{vault.root} {focus or ''}")
    return fit_plan(plan, agents, budget - head, conventions, bool(focus))


def _vault_notes(vault: LoadoutVault, adr_folder: str, max_read: int) -> Iterator[Note]:
    """The indexed notes a loadout may read, in the index's order: the `max_read` best placed with
    their bodies, the others by path only (bodies not read, their reason given); then the agent
    files that are not Markdown or not indexed, from disk."""
    store = vault.store
    listed = [(i, path, src.role_of(path, adr_folder)) for i, path, _ in store.list_documents()]
    chosen = _to_read(listed, max_read)
    for doc_id, path, role in listed:
        if doc_id not in chosen:
            past = f"past the {max_read:,} best-placed notes read"
            yield Note(path, "", role=role if isinstance(role, str) else past)
            continue
        doc = store.document(doc_id)
        if doc is not None:
            yield Note(path, doc.body, doc.frontmatter, doc.title, role)
    yield from disk_agent_notes(vault.root, {path for _, path, _ in listed})


def _to_read(listed: list[tuple[int, str, tuple[str, float] | str]], most: int) -> set[int]:
    """The ids of the `most` notes kept that weigh most (then the shallowest, then by path)."""
    kept = [(-r[1], p.count("/"), p, i) for i, p, r in listed if not isinstance(r, str)]
    return {i for *_, i in heapq.nsmallest(most, kept)}


def disk_agent_notes(root: Path, seen: set[str]) -> Iterator[Note]:
    """The agent and rules files at their known places under `root` that are not in `seen`."""
    paths = [*src.VAULT_RULES, *src.AGENT_FILES, *(n for n in src.AGENT_NAMES)]
    for pattern in src.AGENT_GLOBS:
        paths += sorted(str(p.relative_to(root)) for p in root.glob(pattern))
    for rel in dict.fromkeys(paths):
        path = root / rel
        if rel in seen or not path.is_file():
            continue
        try:
            if path.stat().st_size > _MAX_DISK_BYTES:
                continue
            yield disk_note(rel, read_text(path, errors="replace"))
        except OSError:
            continue


def _cost(item: Item) -> int:
    """The item's tokens as the answer shows it, the more of its text (`## kind: source` and
    its text) and its JSON (escapes and keys), since each is held to the budget."""
    shown = f"## {item.kind}: {item.source}\n{item.text}"
    keyed = {"kind": item.kind, "source": item.source, "text": item.text}
    as_json = json.dumps(keyed, ensure_ascii=False, separators=(",", ":"))
    return max(count_tokens(shown), count_tokens(as_json)) + 1


def _density(item: Item) -> float:
    """What a ranked item states per token, as the pool is ordered."""
    damped: float = _cost(item) ** 0.7
    return item.score / damped


def _floor(pool: list[Item]) -> float:
    """The least a guide section must state per token, its focus left aside (FLOOR)."""
    guides = sorted((_own(i) for i in pool if i.kind == "guide"), reverse=True)
    return FLOOR * guides[min(FLOOR_RANK, len(guides) - 1)] if guides else 0.0


def _own(item: Item) -> float:
    """What an item states per token by its own evidence, without its focus weight."""
    return item.score / _cost(item) / (1.0 + FOCUS_WEIGHT * item.focus)


def _keys(text: str) -> set[str]:
    return {k for k in (norm(line.split("  #")[0]) for line in text.splitlines()) if k}


class _Fitter:
    """Takes items in turn while they fit, dropping the lines already carried."""

    def __init__(self, room: int) -> None:
        self.room = room
        self.used = 0
        self.seen: set[str] = set()
        self.chosen: list[Item] = []
        self.cut = 0
        self.weak = 0  # guide sections under the floor

    def take(self, item: Item, whole: bool = False) -> bool:
        lines = item.lines if whole else [ln for ln in item.lines if not _keys(ln) <= self.seen]
        if not lines:
            return False
        fresh = Item(item.kind, item.source, lines, item.score, item.tier, item.focus)
        cost = _cost(fresh)
        if self.used + cost > self.room:
            self.cut += 1
            return False
        self.chosen.append(fresh)
        self.used += cost
        for line in lines:
            self.seen |= _keys(line)
        return True


def fit_plan(
    plan: Plan,
    agents: list[tuple[Item, list[Item]]],
    budget: int,
    conventions: Item | None = None,
    focused: bool = False,
) -> tuple[list[Section], int, bool]:
    """The plan's items that fit `budget`, agent files first, then best per token; the sources
    section last."""
    fitter = _Fitter(max(0, budget - FOOTER_TOKENS))
    pool = list(plan.items)
    agent_room = int(fitter.room * AGENT_SHARE)
    in_parts: list[str] = []
    for whole, parts in agents:  # whole while they fit in turn; after one in parts, all are
        if not in_parts and fitter.used + _cost(whole) <= agent_room and fitter.take(whole, True):
            for part in parts:
                fitter.seen |= _keys(part.text)
        else:
            pool += parts
            in_parts.append(whole.source)
    if conventions is not None:
        fitter.take(conventions, whole=True)
    pool.sort(key=lambda i: -_density(i))
    floor = _floor(pool)
    for item in pool:
        if item.kind == "guide" and _own(item) < floor:
            fitter.weak += 1
        else:
            fitter.take(item)
    chosen = _ordered(fitter.chosen, focused)
    sections = [{"kind": i.kind, "source": i.source, "text": i.text} for i in chosen]
    footer = _footer(plan, chosen, in_parts, fitter)
    room = budget - fitter.used - FRAME
    if room > 20:
        text = fit_tokens(footer, room)
        sections.append({"kind": "sources", "source": "loadout", "text": text})
        fitter.used += count_tokens(text) + FRAME
    return sections, fitter.used, fitter.cut > 0 or bool(in_parts)


def _ordered(chosen: list[Item], focused: bool) -> list[Item]:
    """As taken (agent files first, then the ranked facts); with a focus, what concerns it first,
    then the commands and decisions, then the rest, each by what it states per token (the focus
    weighs in it), not by the share of the focus words it holds. k0maru's conventions last."""
    conventions = [i for i in chosen if i.tier == 1]
    rest = [i for i in chosen if i.tier != 1]
    if focused:
        rest.sort(key=lambda i: (_place(i), -_density(i)))
    return rest + conventions


def _place(item: Item) -> int:
    """With a focus: what concerns it, then what holds for any change (the commands that check
    it, the decisions in force), then the rest."""
    return 0 if item.focus >= FOCUSED else 1 if item.kind in ("commands", "adr") else 2


def _sections(n: int) -> str:
    return f"{n} section" + ("s" if n != 1 else "")


def _footer(plan: Plan, chosen: list[Item], in_parts: list[str], fitter: _Fitter) -> str:
    """Which files were read and which left out, and why."""
    carried: dict[str, int] = {}
    for item in chosen:
        if item.kind in ("conventions",):
            continue
        path = item.source.split("#", 1)[0].removesuffix(" (read from the file)")
        carried[path] = carried.get(path, 0) + 1
    names = [f"{p}" + (f" ({n})" if n > 1 else "") for p, n in carried.items()]
    text = "carried: " + (", ".join(names[:14]) or "nothing")
    if len(names) > 14:
        text += f" and {len(names) - 14} more"
    if in_parts:
        text += f"\nin parts (too long whole): {', '.join(in_parts[:6])}"
    why = _left_out(plan, [p for p in plan.read if p not in carried], fitter)
    if why:
        text += "\nleft out: " + "; ".join(why)
    return text + "\nread_note(path) reads any of them on."


def _left_out(plan: Plan, others: list[str], fitter: _Fitter) -> list[str]:
    """Why what was not carried was left out: the plan's reasons, the files read but not carried
    (the first five named), the sections past the budget or under the floor."""
    why = [f"{n} {reason}" for reason, n in plan.left_out.most_common()]
    if others:
        named = ", ".join(others[:5]) + (" …" if len(others) > 5 else "")
        why.append(f"{len(others)} read but not carried ({named})")
    if fitter.cut:
        why.append(f"{_sections(fitter.cut)} past the budget")
    if fitter.weak:
        why.append(f"{_sections(fitter.weak)} stating too little per token")
    return why
