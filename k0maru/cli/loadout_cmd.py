"""`k0maru loadout`: what the project tells a newcomer, as the MCP server's loadout tool gives it to
an agent (the same answer, the same budget)."""

from __future__ import annotations

from k0maru.cli.output import Adder, emit, positive_int, service


def loadout(vault: str | None, as_json: bool, budget: int | None, focus: str | None) -> int:
    from k0maru.limits import LOADOUT_BUDGET

    with service(vault, as_json) as svc:
        answer = svc.loadout(budget or LOADOUT_BUDGET, focus=focus)
    emit(as_json, answer.payload(), lambda: print(answer.text()))
    return 0


def register(add: Adder) -> None:
    p = add(
        "loadout",
        lambda a: loadout(vault=a.vault, as_json=a.as_json, budget=a.budget, focus=a.focus),
        "what the project tells a newcomer: agent files, guides, commands, decisions in force",
    )
    p.add_argument(
        "--budget",
        type=positive_int,
        metavar="TOKENS",
        help="the most tokens the answer takes (default: the loadout's 4,000, as over MCP)",
    )
    p.add_argument(
        "--focus", metavar="TEXT", help="a task or a path you are about to work on: it comes first"
    )
