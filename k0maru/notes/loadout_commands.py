"""The commands a repository actually runs, read from its manifests and CI at the vault root (they
need not be indexed): package.json scripts, Makefile and justfile targets, pyproject.toml tasks and
tools, tox.ini, noxfile.py, .pre-commit-config.yaml, composer.json, mix.exs aliases, Rakefile tasks,
Taskfile, cargo aliases and CI workflow `run:` lines; and what a Gemfile's development and test
groups, a mix.exs's dev and test dependencies, a .golangci.yml (its linters, and what its forbidigo
and depguard rules forbid) and a Directory.Packages.props say of the tools and the dependencies.
Each source gives one section, labelled with the file it was read from, its testing, linting,
building and formatting commands first."""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from k0maru.fsutil import read_text
from k0maru.text import shorten

MAX_LINES = 16
MAX_LINE = 110
_MAX_BYTES = 256 * 1024
_TOPICAL = re.compile(
    r"test|lint|check|fmt|format|build|type|clippy|install|sync|setup|dev\b|generate|gen\b|proto"
    r"|snapshot|coverage|docs|bench|migrat|ci\b|verify|pre-commit|prek|tidy|vet|update",
    re.I,
)
_SKIP_RUN = re.compile(
    r"^(?:echo|cd|export|set|if|fi|then|else|for|do|done|exit|mkdir|rm|cat|ls|sleep|sudo apt|"
    r"apt-get|brew|curl|wget|chmod|git config|git fetch|\w+=|\[|#|\}|\{|gh |printf|tee)",
)
_BAD_WORKFLOW = re.compile(
    r"release|publish|deploy|stale|label|triage|bot|claude|notify|promote|docker|nightly|"
    r"cleanup|lock|sync-|report|welcome|greet|backport|auto-|dependabot|codeql|scorecard",
    re.I,
)
_MAKE_TARGET = re.compile(r"^([A-Za-z0-9][\w./-]*)\s*:(?!=)([^#\n]*)(?:##\s*(.*)|#.*)?$", re.M)
_JUST_RECIPE = re.compile(r"^@?([A-Za-z][\w-]*)(?:\s+[^:=\n]*)?:(?!=)", re.M)


_TIERS = (
    re.compile(r"\btest|spec\b|nextest", re.I),
    re.compile(r"lint|check|clippy|vet\b|rubocop|eslint|biome|pint|credo|brakeman", re.I),
    re.compile(r"fmt|format|style|prettier", re.I),
    re.compile(r"type|pyright|mypy|tsc\b|srb\b", re.I),
    re.compile(r"build|install|sync|setup|\bdev\b|start|bootstrap|restore", re.I),
)


def _rank(item: str) -> tuple[int, int]:
    head = item.split("#", 1)[0].split(":", 1)[0]
    for tier, pattern in enumerate(_TIERS):
        if pattern.search(head):
            return tier, len(head)
    return (len(_TIERS) if _TOPICAL.search(item) else len(_TIERS) + 1), len(head)


def _topical_first(items: list[str]) -> list[str]:
    """The items by kind (test, lint, format, types, build, other topical), the shortest of each
    kind in turn, so every kind is represented."""
    tiers: dict[int, list[str]] = {}
    for item in sorted(dict.fromkeys(items), key=_rank):
        tiers.setdefault(_rank(item)[0], []).append(item)
    out: list[str] = []
    while len(out) < MAX_LINES and any(tiers.values()):
        for tier in sorted(tiers):
            if tiers[tier] and len(out) < MAX_LINES:
                out.append(tiers[tier].pop(0))
    return out


def _clip(text: str) -> str:
    return shorten(" ".join(text.split()), MAX_LINE)


def _read(path: Path) -> str | None:
    try:
        if not path.is_file() or path.stat().st_size > _MAX_BYTES:
            return None
        return read_text(path, errors="replace")
    except OSError:
        return None


def _package_json(text: str) -> list[str]:
    data = json.loads(text)
    scripts = data.get("scripts") if isinstance(data, dict) else None
    if not isinstance(scripts, dict):
        return []
    manager = str(data.get("packageManager", "npm")).split("@")[0] or "npm"
    run = {"npm": "npm run", "yarn": "yarn", "pnpm": "pnpm", "bun": "bun run"}.get(
        manager, "npm run"
    )
    return [f"{run} {k}: {_clip(str(v))[:70]}" for k, v in scripts.items()]


def _makefile(text: str) -> list[str]:
    """`make target`, with its help comment, or else the targets it runs (`lint: lint-code ...`)."""
    found = _MAKE_TARGET.findall(text)
    targets = {name for name, _, _ in found}
    out = []
    for name, deps, help_text in found:
        if name.startswith(".") or "%" in name or "/" in name or "." in name:
            continue
        runs = " ".join(d for d in deps.split() if d in targets)
        note = help_text or (f"runs {runs}" if runs else "")
        out.append(f"make {name}" + (f"  # {_clip(note)[:60]}" if note else ""))
    return out


def _justfile(text: str) -> list[str]:
    return [f"just {n}" for n in _JUST_RECIPE.findall(text) if n not in ("set", "import", "alias")]


def _pyproject(text: str) -> list[str]:
    data = tomllib.loads(text)
    out = []
    python = data.get("project", {}).get("requires-python")
    if python:
        out.append(f"requires-python {python}")
    tool = data.get("tool", {})
    for name, tasks in (
        ("poe", tool.get("poe", {}).get("tasks", {})),
        ("pdm run", tool.get("pdm", {}).get("scripts", {})),
        ("task", tool.get("taskipy", {}).get("tasks", {})),
    ):
        out += [f"{name} {k}" for k in tasks]
    for env, spec in tool.get("hatch", {}).get("envs", {}).items():
        out += [f"hatch run {env}:{k}" for k in (spec or {}).get("scripts", {})]
    groups = data.get("dependency-groups", {})
    if groups:
        out.append("dependency groups: " + ", ".join(groups))
    if tool:
        out.append("tools configured: " + ", ".join(sorted(tool)))
    return out + _pytest_options(tool.get("pytest", {}).get("ini_options", {}))


def _pytest_options(options: dict[str, Any]) -> list[str]:
    """The settings every test run gets (`timeout = 5`) and the markers' names."""
    plain = [f"{k} = {v}" for k, v in options.items() if isinstance(v, (str, int, float))]
    markers = [str(m).split(":", 1)[0] for m in options.get("markers", [])]
    out = ["pytest: " + ", ".join(_clip(p)[:80] for p in plain)] if plain else []
    return out + (["pytest markers: " + ", ".join(markers)] if markers else [])


def _precommit(text: str) -> list[str]:
    hooks = re.findall(r"^\s*-\s+id:\s*([\w./-]+)", text, re.M)
    return ["hooks: " + ", ".join(dict.fromkeys(hooks))] if hooks else []


def _tox(text: str) -> list[str]:
    envs = re.findall(r"^\[testenv:([^\]]+)\]", text, re.M)
    commands = re.findall(r"^commands\s*=\s*(.+)$", text, re.M)
    return [f"tox -e {e}" for e in envs] + [_clip(c) for c in commands]


def _noxfile(text: str) -> list[str]:
    return [f"nox -s {n}" for n in re.findall(r"@nox\.session[^\n]*\n\s*def (\w+)", text)]


def _composer(text: str) -> list[str]:
    data = json.loads(text)
    if not isinstance(data, dict):
        return []
    scripts = data.get("scripts", {}) or {}
    out = [f"composer {k}: {_clip(json.dumps(v))[:70]}" for k, v in scripts.items()]
    dev = list((data.get("require-dev") or {}).keys())
    return out + (["require-dev: " + ", ".join(dev)] if dev else [])


def _mix(text: str) -> list[str]:
    """The aliases of a mix.exs with what each runs (`mix lint: credo`), and the dependencies only
    its dev and test environments take: the tools the project checks itself with."""
    block = re.search(r"defp aliases[^\n]*\n(.*?)\n\s*end", text, re.S)
    found = re.findall(r"^\s*\"?([\w.]+)\"?:\s(.*)$", block.group(1), re.M) if block else []
    out = []
    for name, rest in found:
        runs = ", ".join(re.findall(r'"([^"]+)"', rest))
        out.append(_clip(f"mix {name}: {runs}" if runs else f"mix {name}"))
    tools = re.findall(r"\{:(\w+),[^}\n]*only:\s*\[?:(?:dev|test)\b[^}\n]*\}", text)
    return out + (["deps (dev, test): " + ", ".join(tools)] if tools else [])


def _rake(text: str) -> list[str]:
    return [f"rake {n}" for n in re.findall(r"^\s*task\s+:?\"?'?([\w:]+)", text, re.M)]


def _taskfile(text: str) -> list[str]:
    block = text.split("\ntasks:", 1)[-1]
    return [f"task {n}" for n in re.findall(r"^  ([\w:-]+):\s*$", block, re.M)]


def _cargo_config(text: str) -> list[str]:
    alias = tomllib.loads(text).get("alias", {})
    return [
        f"cargo {k}: {_clip(v if isinstance(v, str) else ' '.join(v))}" for k, v in alias.items()
    ]


def _workflow(text: str) -> list[str]:
    """The commands of a workflow's `run:` steps, one a line."""
    out = []
    lines = text.splitlines()
    for i, line in enumerate(lines):
        m = re.match(r"^(\s*)(?:-\s+)?run:\s*(.*)$", line)
        if not m:
            continue
        head = m.group(2).strip()
        if head and head not in ("|", ">", "|-", ">-"):
            out.append(head)
            continue
        indent = len(m.group(1))
        for nxt in lines[i + 1 :]:
            if nxt.strip() and len(nxt) - len(nxt.lstrip()) <= indent + 2:
                break
            out.append(nxt.strip())
    return [_clip(c) for c in out if c and not _SKIP_RUN.match(c) and "${{" not in c and len(c) > 4]


def _gemfile(text: str) -> list[str]:
    """The gems of the development and test groups: the tools the project checks itself with."""
    groups: dict[str, list[str]] = {}
    current = ""
    for line in text.splitlines():
        head = line.rstrip()
        if head.startswith("group ") and head.endswith(" do"):
            names = [g for g in re.findall(r":(\w+)", head) if g in ("development", "test")]
            current = ", ".join(names)
        elif line.startswith("end"):
            current = ""
        gem = re.match(r"\s+gem\s+[\"']([\w.-]+)", line) if current else None
        if gem:
            groups.setdefault(current, []).append(gem.group(1))
    return [f"gems ({names}): " + ", ".join(gems) for names, gems in groups.items()]


_FORBID = re.compile(
    r"^[ \t]*-[ \t]*(?:pattern|p|pkg):[ \t]*(['\"]?)(.+?)\1[ \t]*\n"
    r"[ \t]*(?:msg|desc):[ \t]*(['\"]?)(.+?)\3[ \t]*$",
    re.M,
)


def _first(message: str) -> str:
    """A message's first sentence or clause ("Use X instead of Y — Y does not ..." gives its
    first part)."""
    return re.split(r"(?<=[.;!?])\s|\s[—–]\s", message, maxsplit=1)[0].rstrip(";")


def _golangci(text: str) -> list[str]:
    """golangci-lint and the linters it enables; what its forbidigo and depguard rules forbid,
    each with its message ("forbidden time.Sleep: use await.Require")."""
    blocks = re.findall(
        r"^[ \t]*enable:[ \t]*\n((?:[ \t]+-[ \t]*[\w-]+[ \t]*(?:#.*)?\n?)+)", text, re.M
    )
    linters = [n for b in blocks for n in re.findall(r"-\s*([\w-]+)", b)]
    rules = [_clip(f"forbidden {what}: {_first(why)}") for _, what, _, why in _FORBID.findall(text)]
    return ["golangci-lint run" + (": " + ", ".join(linters) if linters else ""), *rules]


def _packages_props(text: str) -> list[str]:
    """Central package management: NuGet versions are set in this file, not in the projects."""
    count = len(re.findall(r"<PackageVersion\b", text))
    return [f"package versions are managed centrally here ({count} PackageVersion entries)"]


PARSERS: tuple[tuple[str, Callable[[str], list[str]]], ...] = (
    ("Makefile", _makefile),
    ("makefile", _makefile),
    ("GNUmakefile", _makefile),
    ("justfile", _justfile),
    ("Justfile", _justfile),
    ("package.json", _package_json),
    ("pyproject.toml", _pyproject),
    ("tox.ini", _tox),
    ("noxfile.py", _noxfile),
    (".pre-commit-config.yaml", _precommit),
    ("composer.json", _composer),
    ("mix.exs", _mix),
    ("Rakefile", _rake),
    ("Taskfile.yml", _taskfile),
    (".cargo/config.toml", _cargo_config),
    ("Gemfile", _gemfile),
    (".golangci.yml", _golangci),
    (".golangci.yaml", _golangci),
    (".github/.golangci.yml", _golangci),
    ("Directory.Packages.props", _packages_props),
)


def _parsed(parse: Callable[[str], list[str]], text: str) -> list[str]:
    try:
        return parse(text)
    except (ValueError, TypeError, AttributeError, KeyError):  # a manifest that does not parse
        return []


def manifest_commands(root: Path) -> list[tuple[str, list[str]]]:
    """(file, its command lines, topical first) for each manifest at the vault root."""
    out = []
    for name, parse in PARSERS:
        text = _read(root / name)
        lines = _parsed(parse, text) if text else []
        if lines:
            out.append((name, _topical_first(lines)))
    return out


def ci_commands(root: Path) -> list[tuple[str, list[str]]]:
    """(workflow file, its `run:` commands) of the CI workflows that test, lint or build."""
    folder = root / ".github" / "workflows"
    if not folder.is_dir():
        return []
    lines: list[str] = []
    files = []
    for path in sorted(folder.iterdir()):
        if path.suffix not in (".yml", ".yaml") or _BAD_WORKFLOW.search(path.stem):
            continue
        text = _read(path)
        found = _parsed(_workflow, text) if text else []
        if found:
            files.append(path.name)
            lines += found
    if not lines:
        return []
    return [(".github/workflows/" + ("{" + ",".join(files[:6]) + "}"), _topical_first(lines))]


def all_commands(root: Path) -> list[tuple[str, list[str]]]:
    return manifest_commands(root) + ci_commands(root)


def summary(found: list[tuple[str, Any]]) -> str:
    return ", ".join(name for name, _ in found)
