"""CLI commands of the subsystems built on the core index (offload, logs, notes, agents, git, console)."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable

from k0maru.errors import K0maruError

Handler = Callable[[argparse.Namespace], int]
Adder = Callable[[str, Handler, str], argparse.ArgumentParser]


def _vault(args: argparse.Namespace, **flags):
    from k0maru.vault import Vault

    return Vault.open(args.vault, **flags)


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


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--vault", metavar="DIR", help="vault root (default: enclosing git repo, else cwd)")
    p.add_argument("--json", action="store_true", help="machine-readable output")
