"""Git integration: what changed between two HEADs, reindex only that, ADRs from commit trailers,
and installing plain git hooks without clobbering existing ones. Nothing here may fail a git command:
errors go to `.k0maru/hooks.log` and one stderr line, and the hook exits 0."""

from __future__ import annotations

import os
import re
import stat
import subprocess
import sys
import time
import traceback
from pathlib import Path
from typing import Any

from k0maru.config import STATE_DIR
from k0maru.fsutil import ensure_state_dir

HOOK_TYPES = ("post-commit", "post-merge", "post-checkout", "post-rewrite")
MARKER = "# k0maru-managed hook"
CHAINED_SUFFIX = ".k0maru-chained"
LOG_MAX_BYTES = 1_000_000
NULL_SHA = "0" * 40


def repo_root(start: Path) -> Path | None:
    for folder in (start, *start.parents):
        if (folder / ".git").exists():
            return folder
    return None


def hooks_dir(repo: Path) -> Path:
    out = subprocess.run(["git", "rev-parse", "--git-path", "hooks"], cwd=repo, capture_output=True, text=True)
    path = Path(out.stdout.strip()) if out.returncode == 0 and out.stdout.strip() else Path(".git/hooks")
    return path if path.is_absolute() else repo / path


def log_line(vault: Path, message: str) -> None:
    try:
        path = ensure_state_dir(vault) / "hooks.log"
        if path.exists() and path.stat().st_size > LOG_MAX_BYTES:
            path.replace(path.with_suffix(".log.1"))
        with path.open("a", encoding="utf-8") as fh:
            fh.write(f"{time.strftime('%Y-%m-%d %H:%M:%S')} {message}\n")
    except OSError:
        pass


# ---- what changed ----------------------------------------------------------------------------------
def _resolve(repo: Any, ref: str | None) -> str | None:
    if not ref or ref == NULL_SHA:
        return None
    try:
        return repo.commit(ref).hexsha
    except Exception:  # noqa: BLE001 - unknown ref, empty reflog, shallow clone...
        return None


def head_range(repo: Any, hook: str | None, args: list[str]) -> tuple[str | None, str | None]:
    """(previous HEAD, new HEAD) for the hook that fired; previous None means 'unknown'."""
    env_from, env_to = os.environ.get("PRE_COMMIT_FROM_REF"), os.environ.get("PRE_COMMIT_TO_REF")
    new = _resolve(repo, "HEAD")
    if env_from and env_to:
        return _resolve(repo, env_from), _resolve(repo, env_to) or new
    if hook == "post-checkout" and len(args) >= 2:
        return _resolve(repo, args[0]), _resolve(repo, args[1]) or new
    pre_commit_merge = hook is None and os.environ.get("PRE_COMMIT_IS_SQUASH_MERGE") is not None
    pre_commit_rebase = hook is None and os.environ.get("PRE_COMMIT_REWRITE_COMMAND") == "rebase"
    rebase = hook == "post-rewrite" and (args[:1] == ["rebase"] or not args)
    if hook == "post-merge" or rebase or pre_commit_merge or pre_commit_rebase:
        orig = _resolve(repo, "ORIG_HEAD")
        if orig and orig != new:
            return orig, new
    return _resolve(repo, "HEAD@{1}"), new


def changed_files(repo_dir: Path, hook: str | None, args: list[str]) -> list[str] | None:
    """Repo-relative paths that differ between the previous and the new HEAD (both sides of renames).

    None means "cannot tell" (first commit, no reflog): the caller falls back to a full incremental scan.
    """
    import git

    repo = git.Repo(repo_dir)
    old, new = head_range(repo, hook, args)
    if new is None:
        return None
    if old is None:
        commit = repo.commit(new)
        if commit.parents:
            return None
        return [item.path for item in commit.tree.traverse() if item.type == "blob"]  # the root commit
    if old == new:
        return []
    paths: set[str] = set()
    for diff in repo.commit(old).diff(new):
        for p in (diff.a_path, diff.b_path):
            if p:
                paths.add(p)
    return sorted(paths)


def run_reindex(vault_arg: str | None, hook: str | None, args: list[str]) -> int:
    """The reindex hook: rescan exactly the changed notes; embeddings and BM25 finish in the background."""
    from k0maru.config import resolve_vault

    t0 = time.perf_counter()
    vault_root = Path(vault_arg).resolve() if vault_arg else None
    try:
        vault_root = resolve_vault(vault_arg)
        repo = repo_root(vault_root)
        only: list[str] | None = None
        if repo is not None:
            files = changed_files(repo, hook, args)
            if files is not None:
                prefix = vault_root.relative_to(repo).as_posix()
                prefix = "" if prefix == "." else prefix + "/"
                only = [f[len(prefix):] for f in files if f.startswith(prefix)]
        from k0maru.service.vault import Vault

        with Vault.open(vault_root) as vault:
            report = vault.index(only=only, embed=False)
            pending = vault.store.unembedded_chunks()
        if (pending or report.scan.changed) and os.environ.get("K0MARU_HOOK_EMBED", "background") == "background":
            _finish_in_background(vault_root)  # vectors and the BM25 index, off the commit's path
        s = report.scan
        log_line(vault_root, f"reindex hook={hook or '-'} scope={'all' if only is None else len(only)} "
                             f"+{s.added} ~{s.modified} -{s.removed} in {(time.perf_counter() - t0) * 1000:.0f} ms")
    except Exception as exc:  # noqa: BLE001 - a hook must never fail git
        where = vault_root or Path.cwd()
        log_line(where, f"reindex failed: {exc}\n{traceback.format_exc()}")
        print(f"k0maru: reindex skipped ({exc}); details in {where / STATE_DIR / 'hooks.log'}", file=sys.stderr)
    return 0


def _finish_in_background(vault_root: Path) -> None:
    log = vault_root / STATE_DIR / "hooks.log"
    with log.open("a") as fh:
        subprocess.Popen([sys.executable, "-m", "k0maru", "scan", "--vault", str(vault_root)], stdin=subprocess.DEVNULL,
                         stdout=fh, stderr=fh, start_new_session=True, close_fds=True)


# ---- ADR from commit trailers --------------------------------------------------------------------
_TRAILER = re.compile(r"^([A-Za-z][\w-]*):\s*(.*)$")


def parse_trailers(message: str) -> tuple[dict[str, str], str]:
    """Trailers of the last paragraph (with continuation lines) and the body between subject and trailers."""
    paragraphs = message.strip().split("\n\n")
    trailers: dict[str, str] = {}
    body_parts = paragraphs[1:]
    if len(paragraphs) > 1:
        last = paragraphs[-1].splitlines()
        current = None
        parsed: dict[str, str] = {}
        ok = True
        for line in last:
            m = _TRAILER.match(line)
            if m:
                current = m.group(1).lower()
                parsed[current] = m.group(2).strip()
            elif line[:1] in " \t" and current:
                parsed[current] += " " + line.strip()
            else:
                ok = False
                break
        if ok and parsed:
            trailers = parsed
            body_parts = paragraphs[1:-1]
    return trailers, "\n\n".join(body_parts).strip()


def run_adr(vault_arg: str | None) -> int:
    from k0maru.config import resolve_vault

    vault_root = None
    try:
        vault_root = resolve_vault(vault_arg)
        result = adr_from_head(vault_root)
        if result:
            log_line(vault_root, f"adr {result['outcome']}: {result['path']}")
            if result["outcome"] == "created":
                print(f"k0maru: ADR written: {result['path']}", file=sys.stderr)
    except Exception as exc:  # noqa: BLE001 - a hook must never fail git
        where = vault_root or Path.cwd()
        log_line(where, f"adr failed: {exc}\n{traceback.format_exc()}")
        print(f"k0maru: ADR skipped ({exc}); details in {where / STATE_DIR / 'hooks.log'}", file=sys.stderr)
    return 0


def adr_from_head(vault_root: Path) -> dict[str, str] | None:
    import git

    from k0maru.index.markdown import hash_bytes
    from k0maru.notes.flush import FlushEngine

    repo_dir = repo_root(vault_root)
    if repo_dir is None:
        return None
    repo = git.Repo(repo_dir)
    commit = repo.head.commit
    trailers, body = parse_trailers(commit.message)
    title = trailers.get("adr", "").strip()
    if not title:
        return None
    context = trailers.get("context") or body or commit.summary
    decision = trailers.get("decision") or (commit.summary if trailers.get("context") or body else "")
    consequences = trailers.get("consequences", "")
    key = hash_bytes("\n".join([title, context, decision, consequences]).encode())
    engine = FlushEngine(vault_root)
    rule = engine.conventions.rules["adr"]
    folder = vault_root / rule.folder
    if folder.is_dir():
        for existing in folder.glob("*.md"):
            try:
                head = existing.read_text(encoding="utf-8")[:2000]
            except (OSError, UnicodeDecodeError):
                continue
            if f"decision_key: {key}" in head:
                return {"outcome": "up_to_date", "path": existing.relative_to(vault_root).as_posix()}
    if commit.parents:
        files = sorted({d.b_path or d.a_path for d in commit.parents[0].diff(commit)})
    else:
        files = sorted(item.path for item in commit.tree.traverse() if item.type == "blob")
    sections = [f"## Context\n\n{context}"]
    sections.append(f"## Decision\n\n{decision or title}")
    if consequences:
        sections.append(f"## Consequences\n\n{consequences}")
    sections.append("## Commit\n\n" + f"- sha: `{commit.hexsha}`\n- author: {commit.author.name} <{commit.author.email}>\n"
                    f"- date: {commit.committed_datetime.isoformat()}\n- changed files:\n"
                    + "\n".join(f"  - `{f}`" for f in files[:50]) + ("\n  - …" if len(files) > 50 else ""))
    result = engine.flush("adr", title, "\n\n".join(sections), tags=["adr", "from-commit"],
                          extra={"status": "accepted", "commit": commit.hexsha, "author": commit.author.name,
                                 "decision_key": key})
    from k0maru.service.vault import Vault

    with Vault.open(vault_root) as vault:
        vault.index(only=[result.path], embed=False)
    return {"outcome": result.outcome, "path": result.path}


# ---- installing plain hooks --------------------------------------------------------------------------
def template(hook: str) -> str:
    from k0maru.resources import resource_text

    return resource_text("hooks", hook)


def _script(hook: str, chained: bool) -> str:
    body = template(hook).replace('K0MARU="${K0MARU:-k0maru}"',
                                  f'K0MARU="${{K0MARU:-{sys.executable} -m k0maru}}"')
    lines = body.splitlines()
    head, rest = lines[0], lines[1:]
    chain = []
    if chained:
        if hook == "post-rewrite":  # git passes the rewritten commits on stdin: give them to the old hook
            chain = ['input=$(cat)', f'printf "%s\\n" "$input" | "$(dirname "$0")/{hook}{CHAINED_SUFFIX}" "$@"']
        else:
            chain = [f'"$(dirname "$0")/{hook}{CHAINED_SUFFIX}" "$@"']
        chain.append("chained_status=$?")
    out = [head, MARKER, *chain, *rest]
    if chained:
        out = [line.replace("exit 0", "exit $chained_status") for line in out]
    return "\n".join(out) + "\n"


def install(repo: Path) -> list[str]:
    target = hooks_dir(repo)
    target.mkdir(parents=True, exist_ok=True)
    done = []
    for hook in HOOK_TYPES:
        path = target / hook
        chained = target / f"{hook}{CHAINED_SUFFIX}"
        if path.exists() and MARKER not in path.read_text(encoding="utf-8", errors="replace"):
            if chained.exists():
                raise RuntimeError(f"{chained} already exists; resolve it by hand before installing")
            path.replace(chained)
            done.append(f"{hook}: kept your hook as {chained.name}, chained before k0maru")
        else:
            done.append(f"{hook}: installed")
        path.write_text(_script(hook, chained.exists()), encoding="utf-8")
        path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return done


def uninstall(repo: Path) -> list[str]:
    target = hooks_dir(repo)
    done = []
    for hook in HOOK_TYPES:
        path = target / hook
        chained = target / f"{hook}{CHAINED_SUFFIX}"
        if path.exists() and MARKER in path.read_text(encoding="utf-8", errors="replace"):
            path.unlink()
            done.append(f"{hook}: removed")
            if chained.exists():
                chained.replace(path)
                done.append(f"{hook}: restored your original hook")
    return done


def status(repo: Path, vault_root: Path) -> dict[str, Any]:
    target = hooks_dir(repo)
    hooks = {}
    for hook in HOOK_TYPES:
        path = target / hook
        if not path.exists():
            hooks[hook] = "missing"
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        if MARKER in text:
            hooks[hook] = "k0maru" + (" (chained)" if (target / f"{hook}{CHAINED_SUFFIX}").exists() else "")
        elif "pre-commit" in text:
            hooks[hook] = "pre-commit" + (" (k0maru via .pre-commit-config.yaml)" if _precommit_has_k0maru(repo) else "")
        else:
            hooks[hook] = "other"
    from k0maru.index.scanner import IncrementalScanner
    from k0maru.service.vault import Vault

    with Vault.open(vault_root) as vault:
        pending = IncrementalScanner(vault.store, vault.settings).pending()
        unembedded = vault.store.unembedded_chunks()
    return {"hooks": hooks, "index_current": not any(pending.values()) and unembedded == 0,
            "pending": pending, "chunks_pending_embedding": unembedded}


def _precommit_has_k0maru(repo: Path) -> bool:
    config = repo / ".pre-commit-config.yaml"
    return config.is_file() and "k0maru-" in config.read_text(encoding="utf-8", errors="replace")
