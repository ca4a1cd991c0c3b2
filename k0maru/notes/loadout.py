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
    candidates: list[dict[str, str]] = []
    for name in RULE_FILES:
        rule_path = vault.root / name
        if rule_path.is_file():
            candidates.append(
                {
                    "kind": "rules",
                    "source": name,
                    "text": read_text(rule_path, errors="replace").strip(),
                }
            )
    conv = ConventionSniffer(vault.root, vault.settings.include).sniff()
    lines = [f"layout: {conv.layout}"] + [
        f"{k}: {r.folder}/ naming={r.naming} ({r.source})" for k, r in conv.rules.items()
    ]
    candidates.append(
        {"kind": "conventions", "source": "k0maru conventions", "text": "\n".join(lines)}
    )
    store: LinkStore = vault.store
    for doc_id, path, title, n in store.hub_documents(HUBS):
        doc = store.document(doc_id)
        candidates.append(
            {
                "kind": "hub",
                "source": path,
                "text": f"{title} (linked from {n} notes)\n{_excerpt(doc.body if doc else '')}",
            }
        )
    adrs = store.latest_under(conv.rules["adr"].folder, ADRS)
    for doc_id, path, title in adrs:
        doc = store.document(doc_id)
        status = doc.frontmatter.get("status", "") if doc else ""
        candidates.append(
            {
                "kind": "adr",
                "source": path,
                "text": f"{title}"
                + (f" [{status}]" if status else "")
                + "\n"
                + _excerpt(doc.body if doc else "", 400),
            }
        )
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
