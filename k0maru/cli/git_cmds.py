"""`k0maru hooks install|uninstall|status|run`."""

from __future__ import annotations

from k0maru.cli.output import Adder, common, say_vault
from k0maru.errors import K0maruError

TYPE_CHECKING = False  # as typing's (mypy reads it so), without importing typing at start-up
if TYPE_CHECKING:
    from typing import Any

HOOKS = ["post-commit", "post-merge", "post-checkout", "post-rewrite"]


def hooks(vault: str | None, as_json: bool, hooks_action: str) -> int:
    import json

    from k0maru.githooks import install
    from k0maru.gitutil import repo_root
    from k0maru.layout import resolve_vault

    vault_root = resolve_vault(vault)
    say_vault(vault_root, as_json)
    repo = repo_root(vault_root)
    if repo is None:
        raise K0maruError(f"{vault_root} is not inside a git repository; run `git init` first")
    if hooks_action == "install":
        lines = install.install(repo)
    elif hooks_action == "uninstall":
        lines = install.uninstall(repo) or ["no k0maru hooks were installed"]
    else:
        info = install.status(repo, vault_root)
        if as_json:
            print(json.dumps(info))
            return 0
        lines = [f"{hook:<14} {state}" for hook, state in info["hooks"].items()]
        if info["double"]:
            lines.append(
                "k0maru is installed twice (plain hooks and pre-commit): keep one; "
                "`k0maru hooks uninstall` removes the plain ones"
            )
        if info["last_error"]:
            lines.append(f"last background failure: {info['last_error']} (see .k0maru/hooks.log)")
        if info["adr_pending"]:
            shas = ", ".join(sha[:12] for sha in info["adr_pending"])
            lines.append(
                f"ADR owed by {len(info['adr_pending'])} commit(s) ({shas}): a hook was stopped "
                "before writing it; the next hook writes it"
            )
        lines.append(index_line(info))
    print(json.dumps({"done": lines, "repo": str(repo)}) if as_json else "\n".join(lines))
    return 0


def index_line(info: dict[str, Any]) -> str:
    """The index's state as `k0maru status` words it: a running worker's vectors are not a
    backlog."""
    p, vectors = info["pending"], info["chunks_pending_embedding"]
    if info["index_error"]:
        return f"index unusable: {info['index_error']}"
    if info["index_current"]:
        return "index current"
    if not any(p.values()) and info["worker_running"]:
        return f"index current; {vectors:,} chunk(s) wait for vectors: the worker is embedding them"
    return (
        f"index behind: {p['new']} new, {p['changed']} changed, {p['removed']} removed file(s), "
        f"{vectors:,} chunk(s) without vectors; run `k0maru scan`"
    )


def hooks_run(vault: str | None, what: str, hook: str | None, hook_args: list[str]) -> int:
    from k0maru.githooks import run

    return run.run_reindex(vault, hook, hook_args) if what == "reindex" else run.run_adr(vault)


def register(add: Adder) -> None:
    p = add(
        "hooks",
        lambda a: hooks(vault=a.vault, as_json=a.as_json, hooks_action=a.hooks_action),
        "git hooks: install, uninstall, status (and `run`, used by the hooks)",
    )
    hs = p.add_subparsers(dest="hooks_action", metavar="ACTION", required=True)
    for name, text in (
        ("install", "install plain git hooks (existing hooks are kept and chained)"),
        ("uninstall", "remove k0maru's hooks, restoring chained ones"),
        ("status", "which hooks are installed and whether the index is current"),
    ):
        common(hs.add_parser(name, help=text), sub=True)
    rp = hs.add_parser(
        "run", help="what the hooks call: `run reindex` or `run adr` (always exits 0)"
    )
    rp.add_argument(
        "what", choices=["reindex", "adr"], help="re-index changed notes, or only write ADRs"
    )
    rp.add_argument("--hook", choices=HOOKS, help="the git hook that calls it")
    rp.add_argument("hook_args", nargs="*", help="arguments git gave the hook")
    common(rp, json=False, sub=True)
    rp.set_defaults(
        run=lambda a: hooks_run(vault=a.vault, what=a.what, hook=a.hook, hook_args=a.hook_args)
    )
