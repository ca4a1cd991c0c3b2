"""`k0maru loadout`: what the project tells a newcomer, as the MCP server's loadout tool gives it to
an agent (the same answer, the same budget). A budget too small for any section is refused in one
line that names the least budget that carries one."""

from __future__ import annotations

import sys

from k0maru.cli.output import Adder, emit, positive_int, service

TYPE_CHECKING = False  # as typing's (mypy reads it so), without importing typing at start-up
if TYPE_CHECKING:
    from k0maru.service.operations import Service


def loadout(vault: str | None, as_json: bool, budget: int | None, focus: str | None) -> int:
    from k0maru.limits import LOADOUT_BUDGET

    asked = budget or LOADOUT_BUDGET
    with service(vault, as_json) as svc:
        answer = svc.loadout(asked, focus=focus)
        least = None if answer.carries() else least_budget(svc, asked, focus)
    if least is not None:
        print(
            f"k0maru: error: {asked:,} tokens carry no section of this loadout;"
            f" the least that carries one is --budget {least}",
            file=sys.stderr,
        )
        return 2
    emit(as_json, answer.payload(), lambda: print(answer.text()))
    return 0


def least_budget(svc: Service, asked: int, focus: str | None) -> int | None:
    """The least budget over `asked` whose loadout carries a section, up to the default (past it,
    a vault with nothing to carry: None)."""
    from k0maru.limits import LOADOUT_BUDGET
    from k0maru.llm_tokens import largest

    most = max(asked, LOADOUT_BUDGET)
    if not svc.loadout(most, focus=focus).carries():
        return None
    empty = largest(most - asked - 1, lambda n: not svc.loadout(asked + n, focus=focus).carries())
    return asked + empty + 1


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
        help="the most tokens the answer takes (default: the loadout's 4,000, as over MCP);"
        " one too small for any section is refused, naming the least that carries one",
    )
    p.add_argument(
        "--focus", metavar="TEXT", help="a task or a path you are about to work on: it comes first"
    )
