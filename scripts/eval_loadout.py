"""How many of a project's stated conventions `get_project_loadout` carries (issue #57).

tests/data/loadout/set.json lists public repositories at a commit, each with facts its agent files
state and its other Markdown, manifests or CI also state; a fact is carried when the answer holds
any of its `match` substrings (case-insensitive). The vault of a repository is its Markdown plus
its manifest and CI files at that commit (written to a temporary folder, indexed without
embeddings; nothing of it is kept), WITHOUT its agent files (`agent_files`, and every AGENTS.md,
CLAUDE.md, GEMINI.md, copilot or cursor rule and the agent-only folders the set's NOTES.md names);
a second run leaves the agent files in. Figures per half (test first, then dev), each with a 95%
bootstrap interval over repositories:
- loadout: the share of facts carried at the default budget, without and with the agent files;
- three baselines held to the same token count as the loadout's answer: the head of README.md and
  CONTRIBUTING.md; one BM25 query ("conventions rules how to test lint build contribute") over
  heading sections (bm25s), best first; k0maru's own recall of those words;
- idle: the share of the answer's tokens in sections that carry no fact;
- the ratio of the loadout's facts to the BM25 query's (the goal is 2x);
- focus: for each focus task, the share of its facts carried in the first half of the answer's
  tokens (the loadout built with that task as its focus).
A repository whose mirror is not on this machine is skipped with a note: this is a script, not a
test. `--set PATH` reads another file of the same shape (a held-out round); `--half NAME` keeps
that half (`round2`), and without it every half the file holds is measured, test and dev first.

    python scripts/eval_loadout.py [--set PATH] [--half test] [--budget N] [--json] [--show REPO]
        [--no-base]
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import random
import re
import shutil
import sys
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from mirrors import files, write_blobs  # noqa: E402 - a sibling module of scripts/

REPO = Path(__file__).resolve().parents[1]
SET = REPO / "tests" / "data" / "loadout" / "set.json"
MIRRORS = Path("/work/.mirror")
BOOTSTRAP_ROUNDS = 2000
BASELINE_QUERY = "conventions rules how to test lint build contribute"
_MAX_BLOB = 512 * 1024
_MANIFESTS = (
    "package.json",
    "Makefile",
    "makefile",
    "GNUmakefile",
    "justfile",
    "Justfile",
    ".justfile",
    "pyproject.toml",
    "tox.ini",
    "noxfile.py",
    ".pre-commit-config.yaml",
    ".pre-commit-config.yml",
    "composer.json",
    "Rakefile",
    "mix.exs",
    "Taskfile.yml",
    "Taskfile.yaml",
    "Cargo.toml",
    ".cargo/config.toml",
    "setup.cfg",
    "Gemfile",
    ".golangci.yml",
    ".golangci.yaml",
    ".github/.golangci.yml",
    "Directory.Packages.props",
)
_AGENT_NAMES = {"agents.md", "claude.md", "gemini.md", "copilot-instructions.md", "skill.md"}
_AGENT_ONLY = (
    ".agents/",
    ".claude/",
    ".cursor/",
    ".github/instructions/",
    ".agent_instructions/",
    "agent_docs/",
    "ai-docs/",
    ".windsurf/",
    ".junie/",
    ".clinerules",
    ".cursorrules",
    ".windsurfrules",
)


def _kept(path: str) -> bool:
    """Markdown, agent rule files, manifests and CI workflows: what a vault is made of here."""
    if "node_modules/" in path or "/vendor/" in path or path.startswith("vendor/"):
        return False
    name = path.rsplit("/", 1)[-1]
    if path.endswith((".md", ".mdc")) or name in (".cursorrules", ".windsurfrules"):
        return True
    if path.startswith(".github/workflows/") and path.endswith((".yml", ".yaml")):
        return True
    return path in _MANIFESTS or (name == "package.json" and path.count("/") <= 2)


def materialise(mirror: Path, commit: str, dest: Path) -> None:
    """The commit's Markdown, manifest and CI files, blob by blob (a mirror may lack big blobs)."""
    wanted = [
        (sha, path)
        for sha, path, size in files(mirror, commit)
        if _kept(path) and (size or 0) <= _MAX_BLOB
    ]
    write_blobs(mirror, wanted, dest)


def _glob_match(path: str, pattern: str) -> bool:
    if "**/" in pattern:
        head, _, tail = pattern.partition("**/")
        return path.startswith(head) and any(
            fnmatch.fnmatchcase(path[len(head) :].split("/", i)[-1], tail) for i in range(0, 20)
        )
    return fnmatch.fnmatchcase(path, pattern) and path.count("/") == pattern.count("/")


def agent_filter(globs: list[str]) -> Callable[[str], bool]:
    """Whether a vault path is agent material: listed in `agent_files`, an agent file by name
    anywhere, or under an agent-only folder."""

    def is_agent(path: str) -> bool:
        name = path.rsplit("/", 1)[-1].lower()
        if name in _AGENT_NAMES or name.endswith(".instructions.md") or path.endswith(".mdc"):
            return True
        if any(path.startswith(a) or f"/{a}" in path for a in _AGENT_ONLY):
            return True
        return any(_glob_match(path, g) for g in globs)

    return is_agent


def _skill_dirs(root: Path) -> list[str]:
    return [str(p.parent.relative_to(root)) + "/" for p in root.rglob("SKILL.md")]


def split_vaults(full: Path, globs: list[str], dest: Path) -> None:
    """`dest` holds `full` without its agent material (and without any folder of a skill)."""
    is_agent = agent_filter(globs)
    skills = _skill_dirs(full)
    for path in full.rglob("*"):
        if not path.is_file():
            continue
        rel = str(path.relative_to(full))
        if is_agent(rel) or any(rel.startswith(s) for s in skills):
            continue
        target = dest / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(path.read_bytes())


def render(sections: list[dict[str, str]]) -> list[str]:
    """Each section as the MCP text block shows it."""
    return [f"## {s['kind']}: {s['source']}\n{s['text']}" for s in sections]


def carried(facts: list[dict[str, Any]], text: str) -> set[str]:
    low = text.lower()
    return {f["id"] for f in facts if any(m.lower() in low for m in f["match"])}


@dataclass
class Case:
    repo: str
    half: str
    facts: list[dict[str, Any]]
    focus: list[dict[str, Any]]
    got: dict[str, set[str]] = field(default_factory=dict)  # run -> fact ids carried
    tokens: dict[str, int] = field(default_factory=dict)
    idle: int = 0  # answer tokens in sections carrying no fact
    focus_got: list[tuple[int, int]] = field(default_factory=list)  # (carried, asked) per task
    answer: str = ""


def loadout_of(root: Path, budget: int, focus: str | None = None) -> list[dict[str, str]]:
    from k0maru.notes.loadout import build_loadout
    from k0maru.wiring.vault import Vault

    with Vault.open(root, writes_state=True, embed=False) as v:
        v.index(embed=False)
        return build_loadout(v, budget, focus)[0]


def head_baseline(root: Path, tokens: int) -> str:
    from k0maru.llm_tokens import fit_tokens

    parts = []
    for name in ("README.md", "CONTRIBUTING.md", ".github/CONTRIBUTING.md", "docs/CONTRIBUTING.md"):
        if (root / name).is_file():
            parts.append((root / name).read_text(errors="replace"))
    half = fit_tokens(parts[0], tokens // 2) if len(parts) > 1 else ""
    rest = tokens - _count(half)
    return half + "\n" + fit_tokens("\n".join(parts[1:] if half else parts), rest)


def _count(text: str) -> int:
    from k0maru.llm_tokens import count_tokens

    return count_tokens(text)


def bm25_baseline(root: Path, tokens: int) -> str:
    import bm25s

    from k0maru.llm_tokens import fit_tokens

    sections = []
    for path in sorted(root.rglob("*.md")):
        if ".k0maru" in path.parts:
            continue
        text = path.read_text(errors="replace")
        for part in re.split(r"\n(?=#{1,6} )", text):
            if part.strip():
                sections.append(f"{path.relative_to(root)}\n{part.strip()}")
    if not sections:
        return ""
    retriever = bm25s.BM25()
    retriever.index(
        bm25s.tokenize(sections, stopwords="en", show_progress=False), show_progress=False
    )
    k = min(60, len(sections))
    docs, _ = retriever.retrieve(
        bm25s.tokenize([BASELINE_QUERY], stopwords="en", show_progress=False),
        k=k,
        show_progress=False,
    )
    out, used = [], 0
    for i in docs[0]:
        piece = sections[int(i)]
        cost = _count(piece)
        if used + cost > tokens:
            out.append(fit_tokens(piece, tokens - used))
            break
        out.append(piece)
        used += cost
    return "\n\n".join(out)


def recall_baseline(root: Path, tokens: int) -> str:
    from k0maru.service.operations import Service

    with Service.open(str(root), settings={"embed": False}) as service:
        result = service.recall(BASELINE_QUERY, limit=30, token_budget=tokens)
        return json.dumps(result.payload(), ensure_ascii=False)


def run_case(case: Case, spec: dict[str, Any], work: Path, budget: int, base: bool) -> None:
    mirror = MIRRORS / spec["repo"].replace("/", "+") / "repo"
    full, bare = work / "full", work / "bare"
    materialise(mirror, spec["commit"], full)
    split_vaults(full, spec["agent_files"], bare)
    sections = loadout_of(bare, budget)
    blocks = render(sections)
    answer = "\n\n".join(blocks)
    case.answer = answer
    tokens = _count(answer)
    case.tokens["loadout"] = tokens
    case.got["loadout"] = carried(case.facts, answer)
    case.idle = sum(_count(b) for b in blocks if not carried(case.facts, b))
    with_agents = "\n\n".join(render(loadout_of(full, budget)))
    case.got["with agent files"] = carried(case.facts, with_agents)
    if base:
        case.got["README+CONTRIBUTING head"] = carried(case.facts, head_baseline(bare, tokens))
        case.got["BM25 sections"] = carried(case.facts, bm25_baseline(bare, tokens))
        case.got["k0maru recall"] = carried(case.facts, recall_baseline(bare, tokens))
    for task in case.focus:
        from k0maru.llm_tokens import fit_tokens

        text = "\n\n".join(render(loadout_of(bare, budget, task["task"])))
        first = fit_tokens(text, _count(text) // 2)
        wanted = [f for f in case.facts if f["id"] in task["facts"]]
        case.focus_got.append((len(carried(wanted, first)), len(wanted)))


@contextmanager
def workdir() -> Iterator[Path]:
    """A folder for one repository's vaults, named the same from run to run (the first free
    `run<n>`): the answer's head counts the vault's path, so a random name moved the budget by a
    few tokens and a fact in or out between two runs of the same code."""
    base = Path(tempfile.gettempdir()) / "k0maru-loadout-eval"
    for n in range(1000):
        path = base / f"run{n}"
        try:
            path.mkdir(parents=True)
        except FileExistsError:
            continue
        try:
            yield path
        finally:
            shutil.rmtree(path, ignore_errors=True)
        return
    raise RuntimeError(f"no free folder under {base}")


def bootstrap(pairs: list[tuple[int, int]], seed: int = 57) -> tuple[float, float]:
    """A 95% interval of sum(carried)/sum(asked) over resampled repositories."""
    if not pairs:
        return 0.0, 0.0
    rng = random.Random(seed)
    stats = []
    for _ in range(BOOTSTRAP_ROUNDS):
        pick = [rng.choice(pairs) for _ in pairs]
        asked = sum(b for _, b in pick)
        stats.append(sum(a for a, _ in pick) / asked if asked else 0.0)
    stats.sort()
    return stats[int(0.025 * len(stats))], stats[int(0.975 * len(stats)) - 1]


def _figure(pairs: list[tuple[int, int]]) -> dict[str, Any]:
    got, asked = sum(a for a, _ in pairs), sum(b for _, b in pairs)
    low, high = bootstrap(pairs)
    return {
        "share": got / asked if asked else 0.0,
        "carried": got,
        "of": asked,
        "ci95": [low, high],
    }


def summary(cases: list[Case]) -> dict[str, Any]:
    runs = list(dict.fromkeys(r for c in cases for r in c.got))
    out: dict[str, Any] = {"repos": len(cases)}
    for run in runs:
        out[run] = _figure([(len(c.got[run]), len(c.facts)) for c in cases if run in c.got])
    out["idle tokens"] = _figure([(c.idle, c.tokens["loadout"]) for c in cases])
    out["mean answer tokens"] = sum(c.tokens["loadout"] for c in cases) / max(1, len(cases))
    out["focus"] = _figure([p for c in cases for p in c.focus_got])
    if "BM25 sections" in out:  # the goal: twice the facts of one BM25 query at the same tokens
        out["ratio to BM25"] = out["loadout"]["carried"] / max(1, out["BM25 sections"]["carried"])
    return out


def _print(half: str, s: dict[str, Any]) -> None:
    print(f"\n== {half} half: {s['repos']} repos, mean answer {s['mean answer tokens']:.0f} tokens")
    for key, fig in s.items():
        if isinstance(fig, dict):
            low, high = fig["ci95"]
            print(
                f"  {key:28} {fig['share']:6.1%}  ({fig['carried']}/{fig['of']})"
                f"  95% CI {low:.1%}-{high:.1%}"
            )
    if "ratio to BM25" in s:
        print(f"  {'ratio to BM25':28} {s['ratio to BM25']:6.2f}x")


def halves(spec: dict[str, Any]) -> list[str]:
    """The halves a set holds, test and dev first, then the others (a held-out round)."""
    found = {r["half"] for r in spec["repos"]}
    return [h for h in ("test", "dev") if h in found] + sorted(found - {"test", "dev"})


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--set", type=Path, default=SET, help="the labelled set (set.json)")
    parser.add_argument(
        "--half", action="append", help="test, dev, round2 (default: every half, test first)"
    )
    parser.add_argument("--budget", type=int, default=None)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--show", help="print this repository's answer and its missed facts")
    parser.add_argument("--no-base", action="store_true", help="skip the three baselines")
    parser.add_argument("--repo", help="only this repository")
    args = parser.parse_args()
    from k0maru.notes.loadout import DEFAULT_BUDGET

    budget = args.budget or DEFAULT_BUDGET
    try:
        spec = json.loads(args.set.read_text())
    except (OSError, ValueError) as e:
        print(f"cannot read the set {args.set}: {e}", file=sys.stderr)
        return 2
    results = {}
    for half in args.half or halves(spec):
        cases = []
        for repo in spec["repos"]:
            if repo["half"] != half or (args.repo and repo["repo"] != args.repo):
                continue
            if not (MIRRORS / repo["repo"].replace("/", "+") / "repo").is_dir():
                print(f"skipped {repo['repo']}: no mirror", file=sys.stderr)
                continue
            case = Case(repo["repo"], half, repo["facts"], repo.get("focus", []))
            with workdir() as tmp:
                run_case(case, repo, tmp, budget, not args.no_base)
            cases.append(case)
            _show(case, args.show)
        results[half] = summary(cases)
        if not args.json:
            _print(half, results[half])
            for c in cases:
                runs = "  ".join(f"{len(v)}" for v in c.got.values())
                print(
                    f"    {c.repo:40} {runs}  / {len(c.facts)}  tokens {c.tokens['loadout']}"
                    f"  idle {c.idle}  focus {c.focus_got}"
                )
    if args.json:
        print(json.dumps({"budget": budget, **results}, indent=1))
    return 0


def _show(case: Case, name: str | None) -> None:
    if name and name in case.repo:
        print(case.answer)
        missed = [f for f in case.facts if f["id"] not in case.got["loadout"]]
        print(
            "\nMISSED:", *(f"{f['id']} {f['match']} {f['stated_in'][:2]}" for f in missed), sep="\n"
        )


if __name__ == "__main__":
    sys.exit(main())
