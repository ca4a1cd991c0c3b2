"""CLI commands of the subsystems built on the core index (offload, logs, notes, agents, git, console)."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable

from k0maru.cli.main import _common, _vault
from k0maru.errors import K0maruError

Handler = Callable[[argparse.Namespace], int]
Adder = Callable[[str, Handler, str], argparse.ArgumentParser]


# ---- offload & logs --------------------------------------------------------------------------------
def cmd_offload(args: argparse.Namespace) -> int:
    from k0maru.offload import records
    from k0maru.offload.runner import run_offload

    command = list(args.cmd)
    if command and command[0] == "--":
        command = command[1:]
    if not command and sys.stdin.isatty():
        raise K0maruError("nothing to run: use `k0maru offload -- CMD ARGS` or pipe output into `k0maru offload`")
    vault = _vault(args, offload_threshold=args.threshold)
    with vault:
        def save(rec: records.OffloadRecord) -> None:
            try:
                records.save(vault.store, rec)
            except K0maruError as exc:  # the log is safe on disk; losing the record must not lose the exit code
                print(f"k0maru: warning: log kept at {rec.log_path} but not recorded: {exc}", file=sys.stderr)

        outcome = run_offload(vault.root, command or None, threshold=vault.settings.offload_threshold,
                              task_id=args.task_id, save_record=save)
    if args.json and outcome.record is not None:
        print(json.dumps(outcome.record.as_dict()), file=sys.stderr)
    return outcome.exit_code


def cmd_log_list(args: argparse.Namespace) -> int:
    import time

    from k0maru.offload import records

    with _vault(args) as vault:
        recs = records.list_all(vault.store, args.limit)
        if args.json:
            print(json.dumps([r.as_dict() | {"summary": None, "mermaid": None} for r in recs]))
            return 0
        if not recs:
            print("no offloaded logs yet; run `k0maru offload -- CMD`")
        for r in recs:
            when = time.strftime("%Y-%m-%d %H:%M", time.localtime(r.created_at))
            print(f"{r.node_id}  {when}  exit {r.exit_code if r.exit_code is not None else '-':>3}  "
                  f"{r.raw_lines:>7,} lines  {r.raw_tokens:>8,} -> {r.summary_tokens:,} tok  "
                  f"{','.join(r.error_codes[:4]) or '-'}  {r.command[:60]}")
    return 0


def cmd_log_show(args: argparse.Namespace) -> int:
    from k0maru.offload import records, slices

    with _vault(args) as vault:
        rec = records.get(vault.store, args.node)
        path = records.log_file(vault.root, rec)
        if args.grep is not None:
            lines, total = slices.grep(path, args.grep, args.context, args.max_matches)
            payload = {"node_id": rec.node_id, "matches": total,
                       "lines": [{"n": n, "text": t, "match": m} for n, t, m in lines]}
            text_lines = [f"{n:>7}{':' if m else '-'} {t}" for n, t, m in lines]
            text_lines.append(f"({total} matching line(s){', showing the first ' + str(args.max_matches) if total > args.max_matches else ''})")
        elif args.lines:
            start, end = slices.parse_range(args.lines)
            lines2 = slices.line_range(path, start, end)
            payload = {"node_id": rec.node_id, "lines": [{"n": n, "text": t} for n, t in lines2]}
            text_lines = [f"{n:>7}  {t}" for n, t in lines2]
        else:
            payload = rec.as_dict()
            text_lines = [rec.summary]
        if args.json:
            print(json.dumps(payload))
        else:
            print("\n".join(text_lines))
    return 0


def register(add: Adder) -> None:
    p = add("offload", cmd_offload, "run CMD; past the line threshold, keep its log and print a short summary")
    p.add_argument("--threshold", type=int, metavar="N", help="lines passed through unchanged (default 50)")
    p.add_argument("--task-id", metavar="ID", help="task the log belongs to (default: $K0MARU_TASK_ID or git branch)")
    p.add_argument("cmd", nargs=argparse.REMAINDER, help="-- CMD [ARGS...]; omit to read stdin")
    p = add("log", cmd_log_list, "offloaded logs: `log list`, `log show NODE`")
    log_sub = p.add_subparsers(dest="log_command", metavar="ACTION")
    lp = log_sub.add_parser("list", help="recorded offloads, newest first")
    lp.add_argument("--limit", type=int, default=50)
    _common(lp)
    lp.set_defaults(handler=cmd_log_list)
    sp = log_sub.add_parser("show", help="summary, a line range, or matches with context")
    sp.add_argument("node")
    sp.add_argument("--lines", metavar="A:B", help="1-based inclusive line range")
    sp.add_argument("--grep", metavar="PAT", help="regular expression to look for")
    sp.add_argument("--context", type=int, default=3, metavar="N")
    sp.add_argument("--max-matches", type=int, default=20, metavar="N")
    _common(sp)
    sp.set_defaults(handler=cmd_log_show)
    p.set_defaults(limit=50)
    register_notes(add)


# ---- conventions, flush, distill --------------------------------------------------------------------
def cmd_conventions(args: argparse.Namespace) -> int:
    from k0maru.notes.conventions import ConventionSniffer

    with _vault(args) as vault:
        conv = ConventionSniffer(vault.root, vault.settings.include).sniff()
        if args.json:
            print(json.dumps(conv.as_dict()))
            return 0
        print(f"layout: {conv.layout}   rules from: {', '.join(conv.rule_files) or 'none'}")
        for kind, rule in conv.rules.items():
            print(f"\n{kind:<9} -> {rule.folder}/  naming={rule.naming} slug={rule.slug_style} ({rule.source})")
            for ev in rule.evidence:
                print(f"           evidence: {ev}")
            if rule.template:
                print(f"           template fields: {', '.join(rule.template)}")
    return 0


def _read_body(path: str | None) -> str:
    if path:
        try:
            return open(path, encoding="utf-8").read()  # noqa: SIM115 - small file
        except OSError as exc:
            raise K0maruError(f"cannot read {path}: {exc.strerror}") from None
        except UnicodeDecodeError:
            raise K0maruError(f"{path} is not valid UTF-8; re-save it as UTF-8") from None
    if sys.stdin.isatty():
        raise K0maruError("no body: pass --body-file FILE or pipe the text on stdin")
    return sys.stdin.read()


def _split_list(value: str | None) -> list[str]:
    return [v.strip() for v in (value or "").split(",") if v.strip()]


def cmd_flush(args: argparse.Namespace) -> int:
    with _vault(args) as vault:
        vault.index(record=False, embed=False)
        from k0maru.notes.flush import flush_indexed

        result = flush_indexed(vault, args.kind, args.title, _read_body(args.body_file), _split_list(args.tags),
                            _split_list(args.related))
        if args.json:
            print(json.dumps(result.as_dict()))
        else:
            print(f"{result.outcome}: {result.path}")
            if result.unresolved:
                print(f"k0maru: warning: related notes not found: {', '.join(result.unresolved)}", file=sys.stderr)
    return 0


def cmd_distill(args: argparse.Namespace) -> int:
    with _vault(args) as vault:
        vault.index(record=False)
        text = None if args.node else _read_body(args.trace_file)
        export = None
        if args.export_hermes is not None:
            export = args.export_hermes or vault.settings.hermes_dir
        from k0maru.notes.distill import distill_source

        card = distill_source(vault, text, args.node, args.trace_file or "stdin", export)
        if args.json:
            print(json.dumps(card.as_dict()))
        else:
            print(f"{card.note.outcome}: {card.note.path}  [{card.stack}: {', '.join(card.codes)}]")
            if card.hermes_path:
                print(f"hermes skill {card.hermes_outcome}: {card.hermes_path}")
    return 0


def cmd_mcp(args: argparse.Namespace) -> int:
    from k0maru.mcp.server import serve

    return serve(args.vault)


def cmd_hooks(args: argparse.Namespace) -> int:
    from pathlib import Path

    from k0maru.githooks import hooks as githooks

    action = args.hooks_action
    if action == "run":
        if args.what == "reindex":
            return githooks.run_reindex(args.vault, args.hook, args.hook_args)
        return githooks.run_adr(args.vault)
    from k0maru.config import resolve_vault

    vault_root = resolve_vault(args.vault)
    repo = githooks.repo_root(vault_root)
    if repo is None:
        raise K0maruError(f"{vault_root} is not inside a git repository; run `git init` first")
    if action == "install":
        lines = githooks.install(repo)
    elif action == "uninstall":
        lines = githooks.uninstall(repo) or ["no k0maru hooks were installed"]
    else:
        info = githooks.status(repo, vault_root)
        if args.json:
            print(json.dumps(info))
            return 0
        lines = [f"{hook:<14} {state}" for hook, state in info["hooks"].items()]
        p = info["pending"]
        lines.append("index current" if info["index_current"] else
                     f"index behind: {p['new']} new, {p['changed']} changed, {p['removed']} removed file(s), "
                     f"{info['chunks_pending_embedding']} chunk(s) without vectors; run `k0maru scan`")
    if args.json:
        print(json.dumps({"done": lines, "repo": str(Path(repo))}))
    else:
        print("\n".join(lines))
    return 0


def _port(text: str) -> int:
    """A TCP port for argparse (waitress would silently wrap 99999 to 34463)."""
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a port number: {text!r}") from None
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"port {port} is out of range; use 1-65535, or 0 for a free one")
    return port


def cmd_ui(args: argparse.Namespace) -> int:
    from k0maru.console.server import serve

    return serve(args.vault, args.host, args.port, args.open)


def register_notes(add: Adder) -> None:
    p = add("ui", cmd_ui, "web console: search debugger, token scoreboard, log nodes, notes, status")
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1, local only)")
    p.add_argument("--port", type=_port, default=8765, help="port; 0 picks a free one")
    p.add_argument("--open", action="store_true", help="open the browser")
    p = add("hooks", cmd_hooks, "git hooks: install, uninstall, status (and `run`, used by the hooks)")
    hs = p.add_subparsers(dest="hooks_action", metavar="ACTION", required=True)
    for name, text in (("install", "install plain git hooks (existing hooks are kept and chained)"),
                       ("uninstall", "remove k0maru's hooks, restoring chained ones"),
                       ("status", "which hooks are installed and whether the index is current")):
        sp = hs.add_parser(name, help=text)
        _common(sp)
        sp.set_defaults(handler=cmd_hooks)
    rp = hs.add_parser("run", help="what the hooks call: `run reindex` or `run adr` (always exits 0)")
    rp.add_argument("what", choices=["reindex", "adr"])
    rp.add_argument("--hook", choices=["post-commit", "post-merge", "post-checkout", "post-rewrite"])
    rp.add_argument("hook_args", nargs="*", help="arguments git gave the hook")
    _common(rp)
    rp.set_defaults(handler=cmd_hooks)
    p = add("mcp", cmd_mcp, "run the MCP server on stdio (tools: loadout, recall, inspect log, flush, distill)")
    add("conventions", cmd_conventions, "show where each kind of note goes and how it is named, with evidence")
    p = add("flush", cmd_flush, "write a note (adr, decision, card, log, skill) following the vault's conventions")
    p.add_argument("--kind", required=True, choices=["adr", "decision", "card", "log", "skill"])
    p.add_argument("--title", required=True)
    p.add_argument("--body-file", metavar="FILE", help="note text (default: stdin)")
    p.add_argument("--tags", metavar="a,b", help="comma-separated tags")
    p.add_argument("--related", metavar="'Note A,Note B'", help="notes to link: file name, vault path or title")
    p = add("distill", cmd_distill, "turn a failure trace into a skill card (optionally a Hermes skill)")
    src = p.add_mutually_exclusive_group()
    src.add_argument("--trace-file", metavar="FILE")
    src.add_argument("--node", metavar="NODE_ID", help="an offloaded log node")
    p.add_argument("--export-hermes", nargs="?", const="", metavar="DIR",
                   help="also write SKILL.md under DIR (default: hermes_dir, ~/.hermes/skills)")
