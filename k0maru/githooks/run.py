"""What the git hooks run: reindex the files a git operation changed, and write ADRs from commit
trailers. Nothing here may fail or block a git command: errors go to `.k0maru/hooks.log` and one stderr
line, and the hook exits 0."""

from __future__ import annotations

import os
import sys
import time
import traceback
from collections.abc import Callable
from pathlib import Path

from k0maru.config import STATE_DIR, resolve_vault
from k0maru.errors import IndexLockedError
from k0maru.fsutil import ensure_state_dir
from k0maru.gitutil import changed_files, repo_root
from k0maru.service import worker
from k0maru.service.vault import Vault

LOG_MAX_BYTES = 1_000_000
HOOK_LOCK_WAIT_MS = 750  # a commit waits at most this long on another k0maru's write lock


def log_line(vault: Path, message: str) -> None:
    try:
        path = ensure_state_dir(vault) / "hooks.log"
        if path.exists() and path.stat().st_size > LOG_MAX_BYTES:
            path.replace(path.with_suffix(".log.1"))
        with path.open("a", encoding="utf-8") as fh:
            fh.write(f"{time.strftime('%Y-%m-%d %H:%M:%S')} {message}\n")
    except OSError:
        pass


def never_fail(job: str, vault_arg: str | None, work: Callable[[Path], str | None]) -> int:
    """Run a hook's `work(vault_root)`; its line (if any) goes to hooks.log. Any failure becomes one stderr
    line and a log entry with the traceback. Always 0: a hook never fails git."""
    vault_root: Path | None = None
    try:
        vault_root = resolve_vault(vault_arg)
        line = work(vault_root)
        if line:
            log_line(vault_root, line)
    except Exception as exc:  # noqa: BLE001 - a hook must never fail git
        where = vault_root or Path.cwd()
        log_line(where, f"{job} failed: {exc}\n{traceback.format_exc()}")
        print(f"k0maru: {job} skipped ({exc}); details in {where / STATE_DIR / 'hooks.log'}", file=sys.stderr)
    return 0


ADR_HOOKS = (None, "post-commit", "post-rewrite")  # None: pre-commit, which names the stage in its manifest


def run_reindex(vault_arg: str | None, hook: str | None, args: list[str]) -> int:
    """The one hook process per git event: an ADR from HEAD's trailer (after a commit or rewrite), then a
    rescan of exactly the changed notes; embeddings and BM25 finish in the background worker."""
    def work(root: Path) -> str:
        adr_line = _adr(root, index=False) if hook in ADR_HOOKS else None
        return "; ".join(x for x in (adr_line, _reindex(root, hook, args, extra=_adr_path(adr_line))) if x)

    return never_fail("reindex", vault_arg, work)


def _adr_path(line: str | None) -> list[str]:
    return [line.rsplit(": ", 1)[1]] if line and line.startswith("adr ") else []


def _reindex(vault_root: Path, hook: str | None, args: list[str], extra: list[str] | None = None) -> str:
    """Index the changed files now, waiting at most HOOK_LOCK_WAIT_MS for another k0maru's write lock; if
    the index stays busy, queue them for the worker instead. Vectors, the BM25 index and a stale index
    (the previous HEAD is not the one the index matches, e.g. after `git reset --hard`) go to the worker."""
    t0 = time.perf_counter()
    repo = repo_root(vault_root)
    only: list[str] | None = None
    old = new = None
    if repo is not None:
        old, new, files = changed_files(repo, hook, args)
        if files is not None:
            prefix = vault_root.relative_to(repo).as_posix()
            prefix = "" if prefix == "." else prefix + "/"
            only = [f[len(prefix):] for f in files if f.startswith(prefix)]
    if only is not None and extra:
        only = sorted({*only, *extra})
    background = os.environ.get("K0MARU_HOOK_EMBED", "background") == "background"
    try:
        with Vault.open(vault_root, busy_timeout_ms=HOOK_LOCK_WAIT_MS) as vault:
            marked = vault.store.get_meta("git_head")
            stale = bool(marked and old and marked != old)
            if stale:
                worker.queue_paths(vault_root, None)
            report = vault.index(only=only, embed=False)
            if new and only is not None and not stale:
                vault.mark_git_head(new)
            pending = vault.store.unembedded_chunks()
    except IndexLockedError:
        worker.queue_paths(vault_root, only)
        if background:
            worker.start(vault_root)
        return (f"reindex hook={hook or '-'}: index busy, {'all' if only is None else len(only)} path(s) "
                f"queued for the worker in {(time.perf_counter() - t0) * 1000:.0f} ms")
    if background and (pending or report.scan.changed or stale):
        worker.start(vault_root)  # vectors and the BM25 index, off the commit's path
    s = report.scan
    return (f"reindex hook={hook or '-'} scope={'all' if only is None else len(only)}{' stale' if stale else ''} "
            f"+{s.added} ~{s.modified} -{s.removed} in {(time.perf_counter() - t0) * 1000:.0f} ms")


def run_adr(vault_arg: str | None) -> int:
    """The ADR hook: HEAD's `ADR:` trailer becomes an ADR note, indexed at once."""
    return never_fail("ADR", vault_arg, _adr)


def _adr(vault_root: Path, index: bool = True) -> str | None:
    from k0maru.notes.adr import adr_from_head

    result = adr_from_head(vault_root)
    if not result:
        return None
    if index:
        with Vault.open(vault_root, busy_timeout_ms=HOOK_LOCK_WAIT_MS) as vault:
            vault.index(only=[result["path"]], embed=False)
    if result["outcome"] in ("created", "updated"):
        print(f"k0maru: ADR {'written' if result['outcome'] == 'created' else 'updated'}: {result['path']}",
              file=sys.stderr)
    return f"adr {result['outcome']}: {result['path']}"
