"""The project loadout: explicit rules, sniffed conventions, hub notes and recent ADRs, within a
token budget."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from k0maru.fsutil import read_text
from k0maru.llm_tokens import count_tokens, fit_tokens
from k0maru.notes.conventions import RULE_FILES, ConventionSniffer
from k0maru.text import shorten

if TYPE_CHECKING:
    from k0maru.index.link_store import LinkStore
    from k0maru.wiring.vault import Vault

HUBS = 5
ADRS = 5


def _excerpt(body: str, chars: int = 600) -> str:
    text = re.sub(r"\n{3,}", "\n\n", body.strip())
    return shorten(text, chars, at_word=True)


def build_loadout(vault: Vault, budget: int) -> tuple[list[dict[str, str]], int, bool]:
    """Sections in priority order; stops (and says so) where the next one would pass the budget."""
    rules = _rules_sections(vault)
    conv = ConventionSniffer(vault.root, vault.settings.include).sniff()
    lines = [f"layout: {conv.layout}"] + [
        f"{k}: {r.folder}/ naming={r.naming} ({r.source})" for k, r in conv.rules.items()
    ]
    candidates = [
        *rules,
        {"kind": "conventions", "source": "k0maru conventions", "text": "\n".join(lines)},
        *_hub_sections(vault.store),
        *_adr_sections(vault.store, conv.rules["adr"].folder),
    ]
    return _fit(candidates, budget)


def _rules_sections(vault: Vault) -> list[dict[str, str]]:
    """The vault's rules files, each whole."""
    out = []
    for name in RULE_FILES:
        rule_path = vault.root / name
        if rule_path.is_file():
            text = read_text(rule_path, errors="replace").strip()
            out.append({"kind": "rules", "source": name, "text": text})
    return out


def _hub_sections(store: LinkStore) -> list[dict[str, str]]:
    """The most linked notes, each with how many notes link it and the start of its text."""
    out = []
    for doc_id, path, title, n in store.hub_documents(HUBS):
        doc = store.document(doc_id)
        text = f"{title} (linked from {n} notes)\n{_excerpt(doc.body if doc else '')}"
        out.append({"kind": "hub", "source": path, "text": text})
    return out


def _adr_sections(store: LinkStore, folder: str) -> list[dict[str, str]]:
    """The latest ADRs of `folder`, each with its status and the start of its text."""
    out = []
    for doc_id, path, title in store.latest_under(folder, ADRS):
        doc = store.document(doc_id)
        status = doc.frontmatter.get("status", "") if doc else ""
        shown = f"{title}" + (f" [{status}]" if status else "")
        out.append(
            {
                "kind": "adr",
                "source": path,
                "text": f"{shown}\n{_excerpt(doc.body if doc else '', 400)}",
            }
        )
    return out


def _fit(candidates: list[dict[str, str]], budget: int) -> tuple[list[dict[str, str]], int, bool]:
    """The sections that fit `budget` tokens (8 a section for its framing), in order; a rules
    section that does not fit is cut to what does. (sections, tokens used, whether any was cut or
    left out)."""
    out: list[dict[str, str]] = []
    used = 0
    truncated = False
    for section in candidates:
        cost = count_tokens(section["text"]) + 8
        if used + cost > budget:
            room = budget - used - 8
            if room > 40 and section["kind"] == "rules":  # rules matter most: include what fits
                text = fit_tokens(section["text"], room)
                out.append({**section, "text": text})
                used += count_tokens(text) + 8
            truncated = True
            continue
        out.append(section)
        used += cost
    return out, used, truncated
