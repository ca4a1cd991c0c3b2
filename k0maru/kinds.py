"""The folder names each kind of note is filed by: the one table the conventions place kinds by
(`notes/conventions.py`) and the index reads a note's kind from (`index/markdown.py`), so that the
folder `conventions` names for a kind holds notes `search --kind` finds as that kind."""

from __future__ import annotations

FOLDER_WORDS: dict[str, frozenset[str]] = {
    "adr": frozenset({"adr", "adrs", "architecture-decisions", "decision-records"}),
    "decision": frozenset({"decisions", "decision", "decision-log"}),
    "card": frozenset(
        {
            *("cards", "card", "zettel", "zettelkasten", "permanent", "notes", "knowledge"),
            *("runbooks", "runbook", "howtos", "how-to", "manual", "handbook", "sops"),
            *("procedures", "kb", "knowledge-base", "wiki", "til", "evergreen", "literature"),
        }
    ),
    "log": frozenset(
        {
            *("logs", "log", "journal", "journals", "daily", "incidents", "dailies"),
            *("postmortems", "post-mortems", "postmortem", "minutes", "meetings"),
            *("meeting-notes", "retros", "retrospectives", "newsletters", "news", "weekly"),
            *("issues", "incident", "incident-reports", "outages", "rca", "rcas", "standups"),
            *("standup", "newsletter", "digest", "digests", "monthly", "meeting", "notulen"),
            "actas",
        }
    ),
    "skill": frozenset({"skills", "skill", "playbooks"}),
}

# a project's decision records are its RFCs, proposals or design docs: folders named so hold ADRs
PROPOSAL_WORDS = frozenset(
    {
        *("rfc", "rfcs", "proposal", "proposals", "design", "designs", "enhancements", "spec"),
        *("specs", "kep", "keps", "pep", "peps", "rfd", "rfds", "enhancement", "blueprints"),
        *("design-docs", "designdocs", "improvement-proposals"),
    }
)

# kinds the index keeps of their own, though the conventions file them with cards and logs
OWN_KINDS = {
    "runbook": "runbook",
    "runbooks": "runbook",
    "incident": "incident",
    "incidents": "incident",
}


def folder_kind(word: str) -> str | None:
    """The kind of the notes in a folder named `word` (lower case, `-` for spaces and `_`)."""
    if word in OWN_KINDS:
        return OWN_KINDS[word]
    found = next((kind for kind, words in FOLDER_WORDS.items() if word in words), None)
    return found or ("adr" if word in PROPOSAL_WORDS else None)
