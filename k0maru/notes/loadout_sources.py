"""Which notes a loadout reads, by what they are for: agent files (read first, whole where the
budget allows), the vault's rules files, contributor and development guides, style guides, the
README's install/dev/test/usage parts, decisions in force; and which it leaves out (changelogs,
release notes, translations, specs, licences, CI workflows' prompts, archived records), each with
its reason."""

from __future__ import annotations

import re

AGENT = "agent"
RULES = "rules"
GUIDE = "guide"
README = "readme"
DOCS = "docs"
DECISION = "decision"

AGENT_NAMES = ("AGENTS.md", "CLAUDE.md", "GEMINI.md", "AGENT.md")
AGENT_FILES = (
    ".github/copilot-instructions.md",
    ".cursorrules",
    ".windsurfrules",
    ".clinerules",
)
AGENT_GLOBS = (".cursor/rules/*", ".github/instructions/*.instructions.md", ".clinerules/*")
# the globs as PurePosixPath.match reads them (matched from the end), one pattern for every path
_AGENT_PATH = re.compile(
    "|".join(f"(?:^|/){re.escape(g).replace(re.escape('*'), '[^/]*')}$" for g in AGENT_GLOBS)
)
VAULT_RULES = (".k0maru/rules.md",)

_TRANSLATION_DIR = re.compile(
    r"(?:^|/)(?:i18n|l10n|locales?|translations?|"
    r"(?:zh|ja|ko|ru|fr|de|es|pt|it|tr|pl|uk|vi|id|fa|ar|he|nl|cs|th|hi|bn|sv|da|fi|no|hu|ro|el)"
    r"(?:[-_][A-Za-z]{2,4})?)/",
)
_TRANSLATION_NAME = re.compile(
    r"\.(?:zh|ja|ko|ru|fr|de|es|pt|it|tr|pl|uk|vi|id|fa|ar|he|nl|cs)(?:[-_][A-Za-z]{2,4})?\.md$",
    re.I,
)
_LEFT_OUT = (
    (
        re.compile(r"(?:^|/)(?:changelog[^/]*|changes|history|news|whats?[-_]?new)\.md$", re.I),
        "changelog",
    ),
    (
        re.compile(r"(?:^|/)(?:changelog|changes|changelog\.d|\.changeset|\.changes)/", re.I),
        "changelog",
    ),
    (re.compile(r"(?:^|/)(?:release[-_ ]?notes?|releases?)(?:/|[^/]*$)", re.I), "release notes"),
    (re.compile(r"(?:^|/)(?:blog|posts|_posts|news)/", re.I), "blog posts"),
    (
        re.compile(
            r"(?:^|/)(?:licen[cs]e|copying|notice|authors|contributors|code[-_]of[-_]conduct"
            r"|security|support|funding|citation|third[-_]party)[^/]*$",
            re.I,
        ),
        "licence/policy",
    ),
    (re.compile(r"(?:^|/)(?:specs?|specification|rfcs?|proposals?|enhancements)/", re.I), "spec"),
    (
        re.compile(
            r"(?:^|/)(?:vendor|third[-_]party|node_modules|\.venv|fixtures?|testdata|mdtests?"
            r"|snapshots?|[\w.-]+-v?\d+\.\d+(?:\.\d+)*(?:[-_][\w.]+)?)/",
            re.I,
        ),
        "vendored or test data",
    ),
    (
        re.compile(r"(?:^|/)\.github/(?:ISSUE_TEMPLATE|DISCUSSION_TEMPLATE)/", re.I),
        "issue template",
    ),
    (re.compile(r"(?:^|/)\.github/workflows/", re.I), "CI prompt"),
)
_GUIDE_NAME = re.compile(
    r"(?:^|[-_ .])(?:contribut\w*|develop\w*|dev[-_]?guide|hacking|testing|tests?|building|build"
    r"|setup|getting[-_]started|style[-_]?guides?|styleguide|coding[-_]?(?:style|standards?)"
    r"|code[-_]?style|conventions?|guidelines?|review\w*|versioning|pull[-_]request[-_]template"
    r"|workflow|maintain\w*|onboarding|architecture|local[-_]dev\w*|debugging|releas(?:ing|e[-_]"
    r"process)|linting|formatting)(?:$|[-_ .])",
    re.I,
)
_GUIDE_DIR = re.compile(
    r"(?:^|/)(?:development|dev[-_]?guides?|developers?(?:[-_](?:guide|docs))?|contributing"
    r"|contributors?[-_]guide|guidelines|hacking|engineering|dev[-_]?docs)/",
    re.I,
)
_EXAMPLES = re.compile(r"(?:^|/)(?:examples?|samples?|demos?|templates?|playground)/", re.I)
_USER_DOCS = re.compile(r"(?:^|/)(?:website|site|www|api|reference|ref|tutorials?|guides)/", re.I)
_DECISION_DIR = re.compile(
    r"(?:^|/)(?:adrs?|decisions?|decision[-_]records?|architecture[-_]decisions?|"
    r"architectural[-_]decisions?|design[-_]decisions?)/",
    re.I,
)

# what a vault keeps out of use (the conventions' `aside`): a record there is no decision in force
_ARCHIVED = re.compile(r"(?:^|/)(?:archived?|archives|attic|deprecated|obsolete|\.?trash)/", re.I)
_NOT_DECISION = re.compile(r"(?:^|/)(?:index|readme|toc|[\w-]*template[\w-]*)\.md$", re.I)


def is_agent_file(path: str) -> bool:
    """An instructions file written for coding agents (or the vault's own rules)."""
    name = path.rsplit("/", 1)[-1]
    if name in AGENT_NAMES or path in AGENT_FILES or path in VAULT_RULES:
        return True
    return _AGENT_PATH.search(path) is not None


def agent_folder(path: str) -> str:
    """The folder a nested agent file (`util/Seeder/CLAUDE.md`) speaks for; "" for the root's own
    (`CLAUDE.md`, `.github/copilot-instructions.md`, `.cursor/rules/*`)."""
    folder = path.rpartition("/")[0]
    if not folder or folder.startswith(".") or path in AGENT_FILES or _AGENT_PATH.search(path):
        return ""
    return folder


def role_of(path: str, adr_folder: str = "") -> tuple[str, float] | str:
    """(role, weight) of a note, or the reason it is left out."""
    if path in VAULT_RULES:
        return RULES, 3.0
    if is_agent_file(path):
        return AGENT, 3.0
    if _TRANSLATION_DIR.search(path) or _TRANSLATION_NAME.search(path):
        return "translation"
    in_adrs = adr_folder and path.startswith(adr_folder.rstrip("/") + "/")
    if (in_adrs or _DECISION_DIR.search(path)) and not _NOT_DECISION.search(path):
        return "archived record" if _ARCHIVED.search(path) else (DECISION, 1.0)
    for pattern, why in _LEFT_OUT:
        if pattern.search(path):
            return why
    return _weighted(path)


_GUIDE_DEPTH = (2.5, 2.0, 1.4)
_README_DEPTH = (1.5, 0.6, 0.6)
_DOCS_DEPTH = (0.25, 0.25, 0.25)


def _weighted(path: str) -> tuple[str, float]:
    """(role, weight) of a note kept: guides weigh most, then READMEs, then other docs; the
    deeper, the less; examples and user docs less still."""
    depth = path.count("/")
    damp = 0.3 if _EXAMPLES.search(path) else 0.5 if _USER_DOCS.search(path) else 1.0
    stem = _stem(path)
    if _GUIDE_NAME.search(stem) or _GUIDE_DIR.search(path):
        role, weights, deep = GUIDE, _GUIDE_DEPTH, 1.0
    elif stem.lower() == "readme":
        role, weights, deep = README, _README_DEPTH, 0.4
    elif path.startswith(".github/"):
        return GUIDE, 1.2
    else:
        role, weights, deep = DOCS, _DOCS_DEPTH, 0.3
    return role, damp * (weights[depth] if depth < len(weights) else deep)


def _stem(path: str) -> str:
    """`PurePosixPath(path).stem` without building a path: this runs once per note of the vault."""
    name = path.rsplit("/", 1)[-1]
    dot = name.rfind(".")
    return name[:dot] if 0 < dot < len(name) - 1 else name


_README_KEEP = re.compile(
    r"install|setup|set up|getting started|develop|test|lint|build|usage|contribut|running|run "
    r"|quick ?start|requirements|prerequisites|structure|layout|architecture|stack|commands?"
    r"|local|configur|migrat|deploy|format|style|convention|debug|scripts|tooling|workflow",
    re.I,
)


def heading_weight(role: str, heading: str) -> float:
    """How much a section's heading says it is about working on the project."""
    if not heading:
        return 0.8 if role == README else 1.0
    if _README_KEEP.search(heading):
        return 1.0 if role == DOCS else 1.5  # a user doc's "Installation" is for its users
    return 0.3 if role == README else 0.8
