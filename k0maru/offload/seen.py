"""`seen before`: the vault's note or distilled skill about the same failure, named in one summary
line.

BM25 recall (no model load) over the indexed notes with the failure's code, the words of its message
(numbers, quoted values and addresses removed: its shape) and its file's name; a hit counts only
when its note holds the same code (a code the tool wrote) and either the same file name or most of
the message's words. A card distilled by k0maru that records no fix is never named: it is this
failure seen again (often a minute ago, by the same agent), not something learnt. Nothing is named
otherwise, and a vault with no index answers nothing."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from k0maru.offload.findings import UNCODED, Failure

if TYPE_CHECKING:
    from k0maru.search.recall import Recall

VARIABLE = re.compile(r"'[^']*'|\"[^\"]*\"|`[^`]*`|0x[0-9a-fA-F]+|\d+")
WORD = re.compile(r"[A-Za-z_][A-Za-z_]{2,}")
MIN_SHARED = 0.6  # share of the message's words a note must hold, without the file's name


def shape(message: str) -> list[str]:
    """The message's words once its values (numbers, quoted strings, addresses) are taken out."""
    return list(dict.fromkeys(w.lower() for w in WORD.findall(VARIABLE.sub(" ", message))))


class SeenVault(Protocol):
    """What `seen_before` gets of the open vault (the service hands it the wiring's `Vault`): its
    root and its recall, nothing more."""

    @property
    def root(self) -> Path: ...

    @property
    def recall(self) -> Recall: ...


def seen_before(
    vault: SeenVault, root: Failure | None, unfixed_card: Callable[[str], bool]
) -> str | None:
    """The vault-relative path of a note about the same failure as `root`, else None.
    `unfixed_card(text)`: the note is a card k0maru distilled that records no fix (notes'
    `fix_hints`, handed in by the service): never named."""
    if root is None or root.code in UNCODED or root.stack == "generic":
        return None
    words = shape(root.message)
    place = Path(root.location.split(":", 1)[0]).name if root.location else ""
    query = " ".join([root.code, *words[:12], place]).strip()
    result = vault.recall.search(query, limit=3, mode="bm25")
    for hit in result.hits:
        text = _read(vault.root / hit.path)
        if (
            text is not None
            and _learnt(text, root.code, unfixed_card)
            and _same_failure(text, words, place)
        ):
            return hit.path
    return None


def _read(path: Path) -> str | None:
    """A note's text, or None when it cannot be read."""
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None


def _learnt(text: str, code: str, unfixed_card: Callable[[str], bool]) -> bool:
    """The note holds the failure's code and is no card k0maru distilled without a fix."""
    return code in text and not unfixed_card(text)


def _same_failure(text: str, words: list[str], place: str) -> bool:
    """The note names the failure's file, or holds most of its message's words (two at least)."""
    if place and place in text:
        return True
    held = {w.lower() for w in WORD.findall(text)}
    shared = sum(1 for w in words if w in held) / len(words) if len(words) >= 2 else 0.0
    return shared >= MIN_SHARED
