"""`k0maru mcp` and `k0maru ui`: the long-running front ends."""

from __future__ import annotations

import argparse

from k0maru.cli.output import Adder


def mcp(vault: str | None) -> int:
    from k0maru.mcp.server import serve

    return serve(vault)


def port_number(text: str) -> int:
    """A TCP port for argparse (waitress would silently wrap 99999 to 34463)."""
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a port number: {text!r}") from None
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"port {port} is out of range; use 1-65535, or 0 for a free one")
    return port


def ui(vault: str | None, host: str, port: int, open: bool) -> int:  # noqa: A002 - the flag's name
    from k0maru.console.server import serve

    return serve(vault, host, port, open)


def register(add: Adder) -> None:
    add("mcp", mcp, "run the MCP server on stdio (its tools are listed by any MCP client)")
    p = add("ui", ui, "web console: search debugger, token scoreboard, log nodes, notes, status")
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default: %(default)s, local only)")
    p.add_argument("--port", type=port_number, default=8765, help="port (default: %(default)s); 0 picks a free one")
    p.add_argument("--open", action="store_true", help="open the browser")
