"""What the git hooks run: one short process per git event. It writes the ADR that HEAD's `ADR:`
trailer asks for (after a commit or rewrite) and hands the reindex to the background worker; it
never opens the index, so it never waits on a lock and never fails git. Errors go to
`.k0maru/hooks.log` and one stderr line, and the hook exits 0. Only light modules load here (see
scripts/bench_hooks.py).

A commit's ADR is never lost to a hook that was killed, interrupted or failed: `.k0maru/adr-checked`
names the last HEAD whose ADR step completed, written (atomically) only after its ADRs are, so the
next hook's ADR step takes every commit since (`checked..HEAD`, up to MAX_MERGED_ADRS) and writes
what was missed (idempotent: an ADR already written is left as it is); before any step
completed, every commit since the hook file was written. `pending_adrs` names them meanwhile
(`k0maru hooks status`). The hook ignores Ctrl+C (it stops git, never the ADR step)."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

from k0maru.gitutil import git, repo_root
from k0maru.layout import STATE_DIR, find_vault, resolve_vault
from k0maru.service import worker

# None: pre-commit, which names the stage in its manifest
ADR_HOOKS = (
    None,
    "post-commit",
    "post-rewrite",
    "post-rebase",  # post-rewrite after a rebase
    "post-merge",
)
MAX_MERGED_ADRS = 50  # commits a merge or pull brought in, newest first, that are looked at
ADR_CHECKED = "adr-checked"  # under .k0maru/: the last HEAD whose ADR step completed
TRAILERS = "--format=%H%x00%(trailers:key=ADR,valueonly,unfold,separator=%x20)%x00"


def never_fail(job: str, vault_arg: str | None, work: Callable[[Path], str | None]) -> int:
    """Run a hook's `work(vault_root)`; its line (if any) goes to hooks.log. Any failure becomes one
    stderr line and a log entry with the traceback. Always 0: a hook never fails git."""
    vault_root: Path | None = None
    try:
        vault_root = hook_vault(vault_arg)
        line = work(vault_root)
        if line:
            worker.log_line(vault_root, line)
    except (Exception, KeyboardInterrupt) as exc:  # a hook must never fail git (Ctrl+C included)
        import traceback

        where = vault_root or Path.cwd()
        why = "interrupted" if isinstance(exc, KeyboardInterrupt) else str(exc)
        worker.log_line(where, f"{job} failed: {why}\n{traceback.format_exc()}")
        print(
            f"k0maru: {job} skipped ({why}); details in {where / STATE_DIR / worker.LOG}"
            + ("; the next hook writes any ADR it left" if job in ("reindex", "ADR") else ""),
            file=sys.stderr,
        )
    return 0


HOOKS = ("post-commit", "post-merge", "post-checkout", "post-rewrite")


def run_argv(argv: list[str]) -> int | None:
    """`k0maru hooks run` for the arguments after `run` (`reindex|adr [GIT ARGS] [--hook H] [--vault
    D]`), without the command line's parser and modules, which a git command would wait for; None
    for any other arguments (the command line then answers them, errors included)."""
    what, rest = (argv[0], argv[1:]) if argv else ("", [])
    flags: dict[str, str] = {}
    args: list[str] = []
    while rest:
        word = rest.pop(0)
        if word in ("--hook", "--vault") and rest and word not in flags:
            flags[word] = rest.pop(0)
        elif word.startswith("-"):
            return None
        else:
            args.append(word)
    hook = flags.get("--hook")
    if what not in ("reindex", "adr") or (hook is not None and hook not in HOOKS):
        return None
    vault = flags.get("--vault")
    return run_reindex(vault, hook, args) if what == "reindex" else run_adr(vault)


def hook_vault(vault_arg: str | None) -> Path:
    """`--vault`, else the repository git runs the hook in. $K0MARU_VAULT, meant for one's own
    shell, is honoured only when it names a folder inside that repository: a hook never writes
    elsewhere."""
    if vault_arg:
        return resolve_vault(vault_arg)
    repo = find_vault()
    chosen = os.environ.get("K0MARU_VAULT")
    if chosen:
        path = Path(chosen).expanduser().resolve()
        if path.is_dir() and (path == repo or repo in path.parents):
            return path
    return repo


def run_reindex(vault_arg: str | None, hook: str | None, args: list[str]) -> int:
    """The hook of every git event: the ADR step where it applies, then a request to the worker."""

    hook = _stage(hook, args)

    def work(root: Path) -> str:
        adr_line = _adr(root, hook) if hook in ADR_HOOKS else None
        return "; ".join(x for x in (adr_line, _hand_to_worker(root, hook)) if x)

    return never_fail("reindex", vault_arg, work)


def _stage(hook: str | None, args: list[str]) -> str | None:
    """The git event: `hook`, else the one pre-commit names in its environment (None: a commit);
    `post-rebase` for the post-rewrite after a rebase, whose ADR step takes every commit it
    wrote."""
    if hook is None and "PRE_COMMIT_IS_SQUASH_MERGE" in os.environ:  # pre-commit's post-merge stage
        hook = "post-merge"
    if hook is None and "PRE_COMMIT_REWRITE_COMMAND" in os.environ:  # its post-rewrite stage
        hook, args = "post-rewrite", [os.environ["PRE_COMMIT_REWRITE_COMMAND"]]
    return "post-rebase" if hook == "post-rewrite" and args[:1] == ["rebase"] else hook


def run_adr(vault_arg: str | None) -> int:
    """Only the ADR step (pre-commit's `k0maru-adr`); a written ADR is handed to the worker to
    index."""

    def work(root: Path) -> str | None:
        line = _adr(root, _stage(None, []))
        return f"{line}; {_hand_to_worker(root, None)}" if line else None

    return never_fail("ADR", vault_arg, work)


def _hand_to_worker(root: Path, hook: str | None) -> str:
    """Ask the worker to bring the index up to date (started unless one runs, or
    K0MARU_HOOK_EMBED=off, when the next k0maru command catches up); show the last background
    failure, if any."""
    t0 = time.perf_counter()
    failed = worker.last_error(root)
    if failed:
        print(
            f"k0maru: background reindex failed: {failed} (details in {root / STATE_DIR / worker.LOG})",
            file=sys.stderr,
        )
    spawn = os.environ.get("K0MARU_HOOK_EMBED", "background") == "background"
    started = worker.request(root, spawn=spawn)
    state = (
        "worker started"
        if started
        else ("worker already running" if spawn else "left to the next command")
    )
    return f"reindex hook={hook or '-'}: {state} in {(time.perf_counter() - t0) * 1000:.0f} ms"


def _adr(root: Path, hook: str | None) -> str | None:
    """The ADRs that commits' trailers ask for: HEAD's and those of the commits since the last
    completed ADR step (a hook killed before it finished), or after a merge or pull every commit it
    brought in, after a rebase every commit it wrote (ORIG_HEAD..HEAD); none between a rebase's
    picks. Nothing heavy is imported unless git sees such a trailer."""
    repo = repo_root(root)
    if repo is None:
        return None
    head = (git(repo, "rev-parse", "--verify", "-q", "HEAD") or "").strip()
    if not head or (hook != "post-rebase" and _rebasing(repo)):
        return None  # no commit yet; a rebase's picks: its post-rewrite takes them
    since = "ORIG_HEAD" if hook in ("post-merge", "post-rebase") else _checked(root, repo, head)
    span = ["-1", head] if since is None else [f"{since}..{head}", "-n", str(MAX_MERGED_ADRS)]
    if since is None and not (root / STATE_DIR / ADR_CHECKED).exists():
        span = _since_installed(repo, head, hook) or span  # a first hook, or all before killed
        _mark_checked(root, f"{head}^")  # killed after this, the next hook still takes HEAD
    lines = _write_adrs(root, _trailer_commits(repo, span))
    _mark_checked(root, head)  # only now: a hook killed before this point is caught up next time
    return "; ".join(lines) or None


def _rebasing(repo: Path) -> bool:
    """Whether a rebase is under way (git runs post-commit for each commit it picks). Its ADRs wait
    for its post-rewrite hook: written between picks, an ADR file would stop the pick of a later
    commit that adds it ("untracked working tree files would be overwritten")."""
    out = git(repo, "rev-parse", "--git-path", "rebase-merge", "--git-path", "rebase-apply") or ""
    return any((repo / line).exists() for line in out.splitlines() if line)


def _since_installed(repo: Path, head: str, hook: str | None) -> list[str] | None:
    """The git log span of a hook that finds no completed ADR step: every commit since its hook
    file was written (installed), so the ADRs of first commits whose hooks were all killed before
    they recorded anything are still written; None when no such hook file is there."""
    from k0maru.gitutil import hooks_dir

    try:
        installed = int((hooks_dir(repo) / (hook or "post-commit")).stat().st_mtime)
    except OSError:
        return None
    return [head, f"--since=@{installed}", "-n", str(MAX_MERGED_ADRS)]


def _write_adrs(root: Path, shas: list[str]) -> list[str]:
    """Write the ADRs of these commits' trailers, oldest first (ADR numbers follow the history);
    their log lines."""
    if not shas:
        return []
    from k0maru.service.operations import adr_from_commit

    lines = []
    for sha in reversed(shas):
        result = adr_from_commit(root, sha)
        if not result:
            continue
        if result.outcome in ("created", "updated"):
            done = "written" if result.outcome == "created" else "updated"
            print(f"k0maru: ADR {done}: {result.path}", file=sys.stderr)
        lines.append(f"adr {result.outcome}: {result.path}")
    return lines


def _trailer_commits(repo: Path, span: list[str]) -> list[str]:
    """The commits of `span` (git log arguments) that carry an `ADR:` trailer, newest first."""
    fields = (git(repo, "log", TRAILERS, *span, "--") or "").split("\0")
    return [
        sha.strip() for sha, value in zip(fields[::2], fields[1::2], strict=False) if value.strip()
    ]


def _checked(root: Path, repo: Path, head: str) -> str | None:
    """The last HEAD whose ADR step completed when it is an older ancestor of `head` (the step
    then covers `checked..head`); None when it is `head` itself, a commit not below it (a branch
    switched, a rebase) or unknown: the step covers `head` alone."""
    from k0maru.fsutil import read_text

    try:
        checked = read_text(root / STATE_DIR / ADR_CHECKED, errors="replace").strip()
    except OSError:
        return None
    below = git(repo, "merge-base", "--is-ancestor", checked, head) if checked else None
    if checked != head and below is not None:  # "" when it is an ancestor
        return checked
    return None


def _mark_checked(root: Path, rev: str) -> None:
    """Record `rev` as the last commit whose ADR step completed (atomically: a kill leaves the old
    record or the new one)."""
    from k0maru.fsutil import atomic_write_text, ensure_state_dir

    repo = repo_root(root)
    sha = (git(repo, "rev-parse", "--verify", "-q", rev) or "").strip() if repo else ""
    if sha:
        atomic_write_text(ensure_state_dir(root) / ADR_CHECKED, sha + "\n")


def pending_adrs(root: Path) -> list[str]:
    """The commits whose `ADR:` trailer no completed hook has taken yet (a hook killed, interrupted
    or failed before it wrote their ADR), newest first: what the next hook writes."""
    repo = repo_root(root)
    head = (git(repo, "rev-parse", "--verify", "-q", "HEAD") or "").strip() if repo else ""
    if repo is None or not head:
        return []
    checked = _checked(root, repo, head)
    span = None if checked is None else [f"{checked}..{head}", "-n", str(MAX_MERGED_ADRS)]
    if checked is None and not (root / STATE_DIR / ADR_CHECKED).exists():
        span = _since_installed(repo, head, None)  # no hook has completed its ADR step yet
    return _trailer_commits(repo, span) if span else []
