"""The layering is checked, not only described (ARCHITECTURE.md): engines never import a front end or the
service, front ends never run SQL, only the index package runs SQL, and module-level imports have no cycle."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.helpers import REPO

PACKAGE = REPO / "k0maru"
ENGINES = ("index", "search", "offload", "notes")
FRONT_ENDS = ("cli", "mcp", "console", "githooks")


def modules() -> dict[str, Path]:
    out = {}
    for path in PACKAGE.rglob("*.py"):
        rel = path.relative_to(REPO).with_suffix("")
        parts = rel.parts[:-1] if rel.name == "__init__" else rel.parts
        out[".".join(parts)] = path
    return out


def imports(path: Path, top_level_only: bool = False) -> set[str]:
    """k0maru modules imported by a file (all imports, or only those run at import time)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    nodes = tree.body if top_level_only else list(ast.walk(tree))
    found: set[str] = set()
    for node in nodes:
        if isinstance(node, ast.If) and top_level_only:  # `if TYPE_CHECKING:` imports never run
            continue
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.startswith("k0maru")}
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("k0maru"):
            found.add(node.module)
            found |= {f"{node.module}.{a.name}" for a in node.names}
    known = modules()
    return {m for m in found if m in known}


def layer(module: str) -> str:
    if module == "k0maru.__main__":
        return "cli"
    parts = module.split(".")
    return (
        parts[1]
        if len(parts) > 2 or (len(parts) == 2 and (PACKAGE / parts[1]).is_dir())
        else "core"
    )


def test_engines_and_service_never_import_a_front_end() -> None:
    bad = []
    for name, path in modules().items():
        if layer(name) in (*ENGINES, "service", "core"):
            bad += [f"{name} -> {m}" for m in imports(path) if layer(m) in FRONT_ENDS]
        if layer(name) in ENGINES:
            bad += [
                f"{name} -> {m}"
                for m in imports(path)
                if layer(m) == "service" and not m.endswith(".vault")
            ]
    assert bad == []


# index/snapshot.py's read-only look at the corpus version is being replaced (#31); until then it is
# the one module outside the stores that runs SQL.
SQL_MODULES = ("k0maru.index.db", "k0maru.index.schema", "k0maru.index.snapshot")


def test_only_the_store_modules_run_sql() -> None:
    """Only `index/*_store` modules (and db.py, which opens the connection) run SQL."""
    offenders = []
    for name, path in modules().items():
        if (name.endswith("_store") and layer(name) == "index") or name in SQL_MODULES:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute) and node.attr in (
                "execute",
                "executemany",
                "executescript",
                "conn",
            ):
                offenders.append(f"{name}:{node.lineno} .{node.attr}")
    assert offenders == []


def test_no_import_cycles_at_module_level() -> None:
    graph = {name: imports(path, top_level_only=True) - {name} for name, path in modules().items()}
    # a package's __init__ importing its own submodules is not a cycle through the package
    state: dict[str, int] = {}
    cycles: list[str] = []

    def visit(node: str, trail: list[str]) -> None:
        state[node] = 1
        for nxt in graph.get(node, ()):
            if nxt.startswith(node + "."):
                continue
            if state.get(nxt) == 1:
                cycles.append(
                    " -> ".join([*trail[trail.index(nxt) :], nxt])
                    if nxt in trail
                    else f"{node} -> {nxt}"
                )
            elif nxt not in state:
                visit(nxt, [*trail, nxt])
        state[node] = 2

    for name in sorted(graph):
        if name not in state:
            visit(name, [name])
    assert cycles == []


def test_the_mcp_tool_list_is_written_once() -> None:
    """Tool names appear in the tools registry only, never repeated in another module's prose (a tool
    named after the service operation it calls, like read_note, is that operation's name elsewhere)."""
    from k0maru.mcp.tools import TOOLS
    from k0maru.service.operations import Service

    names = [t.name for t in TOOLS if not hasattr(Service, t.name)]
    elsewhere = [
        f"{n} in {p.relative_to(REPO)}"
        for p in PACKAGE.rglob("*.py")
        if p.name != "tools.py"
        for n in names
        if n in p.read_text(encoding="utf-8")
    ]
    assert elsewhere == []
