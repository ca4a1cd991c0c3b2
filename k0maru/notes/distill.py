"""DistillEngine: turn a failure trace into a reusable skill card (and a Hermes / Agent Skills SKILL.md)."""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from k0maru.errors import K0maruError
from k0maru.fsutil import create_exclusive, file_lock, resolve_inside
from k0maru.notes.conventions import cut_at_word, slugify
from k0maru.notes.fix_hints import fix_for
from k0maru.notes.flush import FlushEngine, FlushResult
from k0maru.offload.analyzer import LogAnalyzer
from k0maru.offload.findings import Failure, Findings

if TYPE_CHECKING:
    from k0maru.index.vault import Vault

_HINT = re.compile(r"^\s*(?:=\s*)?(help|note|hint|suggestion):\s*(.+)$", re.I)
_PYTEST_E = re.compile(r"^E\s{2,}(.+)$")
MAX_EXCERPT = 30


@dataclass(slots=True)
class SkillCard:
    title: str
    stack: str
    codes: list[str]
    location: str | None
    message: str
    body: str
    related: list[str] = field(default_factory=list)
    note: FlushResult | None = None
    hermes_path: str | None = None
    hermes_outcome: str | None = None

    def as_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["note"] = self.note.as_dict() if self.note else None
        return data


def analyze_text(text: str) -> Findings:
    analyzer = LogAnalyzer()
    analyzer.feed(text)
    return analyzer.close()


def trace_hints(lines: list[str], primary: Failure) -> list[str]:
    """What the tool itself suggested near the failure: rustc help/note, pytest E-lines, free sites."""
    hints: list[str] = []
    start = max(primary.line - 1, 0)
    window = lines[start : start + 40]
    freed = False
    for line in window:
        m = _HINT.match(line)
        if m and m.group(2).strip() not in hints:
            hints.append(f"{m.group(1).lower()}: {m.group(2).strip()}")
        m = _PYTEST_E.match(line)
        if m and primary.stack == "pytest":
            hints.append(f"assertion: {m.group(1).strip()}")
        if "freed by thread" in line:
            freed = True
        elif (
            freed
            and " in " in line
            and "#" in line
            and "libsanitizer" not in line
            and "interceptor" not in line
        ):
            hints.append("freed at: " + line.strip().split(" in ", 1)[1])
            freed = False
    return hints[:6]


GENERATED_MARK = "Distilled by k0maru from"  # the first line of every card written here
HUMAN_HITS = 10  # the team's notes a card's related notes are chosen from
LOOK_PAST = 20  # cards distilled here that may rank above them


class DistillEngine:
    def __init__(self, vault: Vault):
        self.vault = vault

    def distill(
        self,
        text: str,
        source: str,
        export_dir: Path | None = None,
        findings: Findings | None = None,
        excerpt_lines: list[str] | None = None,
    ) -> SkillCard:
        findings = findings or analyze_text(text)
        failures = sorted(
            findings.failures, key=lambda f: f.line
        )  # a bare word "error" is not a failure
        if not failures:
            raise K0maruError(
                f"no failure found in {source}: looked for compiler and linter errors, tracebacks, "
                "failing tests and sanitizer reports (what `k0maru offload` reads); pass the "
                "failing output itself"
            )
        primary = next((f for f in failures if f.location and f.stack != "generic"), failures[0])
        lines = excerpt_lines if excerpt_lines is not None else text.splitlines()
        codes = findings.error_codes or [primary.code]
        stack = primary.stack
        hints = trace_hints(lines, primary)
        title = cut_at_word(" ".join(f"{primary.code} {primary.message}".split()), 90).rstrip(
            " .:,"
        )
        related = self._related(codes, primary, exclude_title=title)
        body = self._body(primary, failures, codes, stack, hints, related, lines, source)
        card = SkillCard(
            title=title,
            stack=stack,
            codes=codes,
            location=primary.location,
            message=primary.message,
            body=body,
            related=[r[0] for r in related],
        )
        engine = FlushEngine(self.vault.root)
        card.note = engine.flush(
            "skill",
            title,
            body,
            tags=["skill", stack, *codes[:5]],
            related=[r[0] for r in related],
            resolve=lambda name: name,
            extra={"stack": stack, "error_codes": codes, "source": source},
        )
        self.vault.index(only=[card.note.path], embed=False)  # vectors follow in the background
        if export_dir is not None:
            card.hermes_path, card.hermes_outcome = export_hermes(
                card, export_dir, self.vault.root, self.vault.settings.skill_license
            )
        return card

    def _related(
        self, codes: list[str], primary: Failure, exclude_title: str
    ) -> list[tuple[str, str, str]]:
        """(link name, path, fix excerpt) of vault notes about the same error, found by hybrid recall."""
        try:
            query = " ".join([*codes[:3], primary.message])
            hits = self.vault.recall.search(query, limit=HUMAN_HITS + LOOK_PAST).hits
        except K0maruError:
            return []
        # the same notes whether or not this card (an earlier run's) is in the index: idempotent. A note is
        # related when its text names one of the failure's codes, not merely because it ranked high.
        # A card distilled here is advice, not a fix someone made: never cited as "Fixed before" nor linked
        # (one from this same failure would cite itself, and each new card would change the next run's).
        # The first HUMAN_HITS notes that are not such cards are looked at, however many cards rank above.
        out, seen = [], 0
        for hit in hits:
            if hit.title == exclude_title:
                continue
            doc = self.vault.store.document_by_path(hit.path)
            body = doc.body if doc else ""
            if GENERATED_MARK in body[:600]:
                continue
            seen += 1
            if seen > HUMAN_HITS:
                break
            text = f"{hit.title}\n{body}".lower()
            if not any(c.lower() in text for c in codes if len(c) > 3):
                continue
            stem = hit.path.rsplit("/", 1)[-1].removesuffix(".md")  # what [[links]] resolve by
            out.append((stem, hit.path, _fix_section(body)))
        return out[:3]

    @staticmethod
    def _body(
        primary: Failure,
        failures: list[Failure],
        codes: list[str],
        stack: str,
        hints: list[str],
        related: list[tuple[str, str, str]],
        lines: list[str],
        source: str,
    ) -> str:
        diagnosis, fix = fix_for(primary.code)
        where = primary.location or f"line {primary.line} of the trace"
        out = [
            f"# {primary.code}: {primary.message}",
            "",
            f"{GENERATED_MARK} {source}. Stack: {stack}. Error codes: {', '.join(codes)}.",
            "",
            "## Symptoms",
        ]
        seen = set()
        for f in failures[:8]:
            key = (f.code, f.location)
            if key in seen:
                continue
            seen.add(key)
            test = f" in test `{f.test}`" if f.test else ""
            out.append(
                f"- `{f.code}`{test}: {f.message}" + (f" (at `{f.location}`)" if f.location else "")
            )
        out += [
            "",
            "## Diagnosis path",
            f"1. Open `{where}`: this is the first failing location the trace points to.",
            f"2. {diagnosis}",
        ]
        for i, hint in enumerate(hints, start=3):
            out.append(f"{i}. The tool says: {hint}")
        out += ["", "## Fix", f"- {fix}"]
        for name, _path, excerpt in related:
            if excerpt:
                out.append(f"- Fixed before in [[{name}]]: {excerpt}")
        out += ["", "## Evidence", "```text"]
        start = max(primary.line - 3, 0)
        out += [line.rstrip()[:300] for line in lines[start : start + MAX_EXCERPT]]
        out.append("```")
        return "\n".join(out)


def _fix_section(body: str) -> str:
    """First paragraph under a 'Fix' heading, or the sentence that starts with 'Fix:'."""
    m = re.search(r"^#{1,6}\s*Fix[^\n]*\n+(.+?)(?:\n\s*\n|\n#|\Z)", body, re.M | re.S | re.I)
    if not m:
        m = re.search(r"\bFix:\s*(.+?)(?:\n\s*\n|\Z)", body, re.S)
    if not m:
        return ""
    text = " ".join(m.group(1).split())
    return text if len(text) <= 300 else text[:299] + "…"


def hermes_name(card: SkillCard) -> str:
    """The skill's name as the Agent Skills spec allows it (a-z, 0-9, single hyphens): lower-case words
    joined by hyphens, at most 64 characters, cut between words."""
    title = f"{card.stack} {card.codes[0]} {card.message}"
    return cut_at_word(slugify(title, "kebab", limit=200, ascii_only=True), 64, "-")


def vault_license(root: Path, configured: str) -> str:
    """The licence a skill is exported under: the configured SPDX id, else the one the vault's LICENSE file
    names, else MIT."""
    if configured:
        return configured
    for name in ("LICENSE", "LICENSE.md", "LICENSE.txt", "COPYING"):
        path = root / name
        if path.is_file():
            head = path.read_text(encoding="utf-8", errors="replace")[:400].lower()
            for marker, spdx in (
                ("mit license", "MIT"),
                ("apache license", "Apache-2.0"),
                ("bsd 3-clause", "BSD-3-Clause"),
                ("bsd 2-clause", "BSD-2-Clause"),
                ("mozilla public license", "MPL-2.0"),
                ("gnu general public license", "GPL-3.0-or-later"),
                ("creative commons attribution 4.0", "CC-BY-4.0"),
                ("isc license", "ISC"),
            ):
                if marker in head:
                    return spdx
    return "MIT"


def skill_md(card: SkillCard, name: str, license_id: str) -> str:
    """A SKILL.md valid for Hermes and the Agent Skills spec (Hermes fields under metadata.hermes)."""
    description = (
        f"Use when {card.stack} fails with {', '.join(card.codes[:4])}: {card.message}. "
        "Gives the symptoms, the diagnosis path and the fix found before."
    )[:1024]
    fm = {
        "name": name,
        "description": description,
        "license": license_id,
        "metadata": {
            "author": "k0maru",
            "version": "1.0.0",
            "source": card.note.path if card.note else "",
            "hermes": {"tags": [card.stack, *card.codes[:5]], "related_skills": []},
        },
    }
    body = card.body
    text = (
        "---\n"
        + yaml.safe_dump(fm, sort_keys=False, allow_unicode=True, width=1000)
        + "---\n\n"
        + body
        + "\n"
    )
    return text[:100_000]


def export_hermes(
    card: SkillCard, target: Path, vault_root: Path, license_id: str = ""
) -> tuple[str, str]:
    """Write `<target>/<stack>/<name>/SKILL.md`; an existing different skill gets `<name>-v2`. The lock that
    serialises exports lives in the vault's state folder: the skills folder gets the skill and nothing else."""
    from k0maru.fsutil import ensure_state_dir

    target = target.expanduser()
    target.mkdir(parents=True, exist_ok=True)
    base = hermes_name(card)
    license_id = vault_license(vault_root, license_id)
    with file_lock(ensure_state_dir(vault_root) / "export.lock"):
        for version in range(1, 100):
            name = base if version == 1 else f"{cut_at_word(base, 60, '-')}-v{version}"
            content = skill_md(card, name, license_id)
            path = resolve_inside(target, f"{card.stack}/{name}/SKILL.md")
            if path.exists():
                if path.read_text(encoding="utf-8") == content:
                    return str(path), "up_to_date"
                continue
            if create_exclusive(path, content.encode("utf-8")):
                return str(path), "created" if version == 1 else "versioned"
    raise K0maruError(f"{target}: too many versions of skill {base}")


def distill_source(
    vault: Vault, trace_text: str | None, node: str | None, source: str, export: str | None
) -> SkillCard:
    """Distil a trace given as text, or the log of an offloaded node (streamed, never loaded whole)."""
    from k0maru.offload import records, reflog, slices

    engine = DistillEngine(vault)
    export_dir = Path(export).expanduser() if export else None
    if not node:
        return engine.distill(trace_text or "", source, export_dir)
    rec = records.get(vault.store, node)
    path = records.log_file(vault.root, rec)
    analyzer = LogAnalyzer()
    for piece in reflog.text(path):
        analyzer.feed(piece)
    findings = analyzer.close()
    first = min((f.line for f in findings.all_failures), default=1)
    lines = [""] * max(first - 4, 0) + [
        t for _, t in slices.line_range(path, max(first - 3, 1), first + 60)
    ]
    return engine.distill(
        "", f"log node {rec.node_id} ({rec.command})", export_dir, findings, lines
    )
