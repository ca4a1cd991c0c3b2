"""`k0maru mcp` and `k0maru ui`: the long-running front ends."""

from __future__ import annotations

import argparse

from k0maru.cli.output import Adder, say_vault

TYPE_CHECKING = False  # as typing's (mypy reads it so), without importing typing at start-up
if TYPE_CHECKING:
    from pathlib import Path

    from k0maru.hosts import Change


def mcp(vault: str | None) -> int:
    import gc

    gc.disable()  # before the imports: the warm-up turns it back on (service/warm_up.py)
    from k0maru.mcp.runner import LocalRunner

    runner = LocalRunner.open(vault)  # the model loads in a thread while the SDK is imported
    from k0maru.mcp.server import serve

    return serve(runner)


def port_number(text: str) -> int:
    """A TCP port for argparse (waitress would silently wrap 99999 to 34463)."""
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a port number: {text!r}") from None
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(
            f"port {port} is out of range; use 1-65535, or 0 for a free one"
        )
    return port


def ui(vault: str | None, host: str, port: int, open: bool) -> int:  # `open`: the flag's name
    from k0maru.console.server import serve
    from k0maru.layout import resolve_vault

    say_vault(resolve_vault(vault), False)
    return serve(vault, host, port, open)


def connect(
    vault: str | None,
    as_json: bool,
    host: str | None,
    list_hosts: bool,
    print_only: bool,
    remove: bool,
    hooks: bool,
) -> int:
    import json
    import sys

    from k0maru import hosts
    from k0maru.errors import K0maruError
    from k0maru.layout import resolve_vault

    root = resolve_vault(vault)
    say_vault(root, as_json)
    if list_hosts or host is None:
        return list_connections(root, as_json)
    if host not in hosts.HOSTS:
        raise K0maruError(f"unknown host {host[:40]!r}; use one of {', '.join(hosts.HOSTS)}")
    # --remove takes the hook out too: a hook left behind would go on rewriting commands
    with_hook = hooks or (remove and host in hosts.HOOK_FILES | hosts.OLD_HOOK_FILES)
    if with_hook:  # a host without command hooks is refused before anything is written
        hosts.hook_file(host, root, removing=remove)
    changes = [("entry", hosts.connect(host, root, write=not print_only, remove=remove))]
    if with_hook:
        hook = hosts.connect_hooks(host, root, write=not print_only, remove=remove)
        if hooks or hook.outcome != "absent":
            changes.append(("command hook", hook))
    for what, change in changes:
        if print_only:  # the text alone on stdout, as it would be written; its file on stderr
            print(f"k0maru: would write {change.path}:", file=sys.stderr)
            print(change.text, end="")
        elif as_json:
            gone = {"file_removed": change.file_removed} if remove else {}
            print(
                json.dumps(
                    {"host": host, "file": str(change.path), "outcome": change.outcome} | gone
                )
            )
        else:
            print(said(change, what))
        if change.warning:
            print(f"k0maru: warning: {change.warning}", file=sys.stderr)
    return 0


def said(change: Change, what: str) -> str:
    """The line `connect` prints for a change to one file; a removal says what went: k0maru's
    `what` (its `entry`, its `command hook`) from the file, or the file, when it held nothing
    else."""
    if change.outcome == "removed" and change.file_removed:
        return f"removed: {change.path} (it held only k0maru's {what})"
    if change.outcome == "removed":
        return f"removed k0maru's {what} from {change.path} (the rest of the file kept)"
    if change.outcome == "absent":
        return f"absent: no k0maru {what} in {change.path}; nothing removed"
    return f"{change.outcome}: {change.path}"


def list_connections(root: Path, as_json: bool) -> int:
    """Which hosts have k0maru's server, and which have its command hook."""
    import json

    from k0maru import hosts

    rows = [("server", *row) for row in hosts.configured(root)]
    rows += [("hook", *row) for row in hosts.hooks_configured(root)]
    if as_json:
        print(
            json.dumps(
                [{"host": h, "part": part, "file": str(p), "state": s} for part, h, p, s in rows]
            )
        )
        return 0
    for part, h, p, s in rows:
        print(f"{h + (' hook' if part == 'hook' else ''):<20} {s:<22} {p}")
    return 0


def register(add: Adder) -> None:
    add(
        "mcp",
        lambda a: mcp(vault=a.vault),
        "run the MCP server on stdio (its tools are listed by any MCP client)",
        json=False,
    )
    p = add(
        "ui",
        lambda a: ui(vault=a.vault, host=a.host, port=a.port, open=a.open),
        "web console: dashboard, search debugger, token scoreboard, log nodes, notes, status",
        json=False,
    )
    p.add_argument(
        "--host", default="127.0.0.1", help="address to bind (default: %(default)s, local only)"
    )
    p.add_argument(
        "--port",
        type=port_number,
        default=8765,
        help="port (default: %(default)s); 0 picks a free one",
    )
    p.add_argument("--open", action="store_true", help="open the browser")
    p = add(
        "connect",
        lambda a: connect(
            vault=a.vault,
            as_json=a.as_json,
            host=a.host,
            list_hosts=a.list_hosts,
            print_only=a.print_only,
            remove=a.remove,
            hooks=a.hooks,
        ),
        "register the MCP server with an agent host (claude-code, cursor, vscode, codex, "
        "claude-desktop), keeping the file's other entries",
    )
    p.add_argument("host", nargs="?", help="claude-code | cursor | vscode | codex | claude-desktop")
    p.add_argument(
        "--list",
        dest="list_hosts",
        action="store_true",
        help="say which hosts have the server and which the hook",
    )
    p.add_argument(
        "--print",
        dest="print_only",
        action="store_true",
        help="show the file it would write (its path on stderr); write nothing",
    )
    p.add_argument(
        "--remove",
        action="store_true",
        help="take k0maru's entry and its hook out (files it made and left empty go too)",
    )
    p.add_argument(
        "--hooks",
        action="store_true",
        help="also install the hook that runs test/build/lint commands through `k0maru offload` "
        "(claude-code; Codex takes no rewritten command without approving it)",
    )
