"""The layering is checked, not only described (ARCHITECTURE.md): core < engines < service < front
ends, imports point down only, front ends reach the engines through the service, only the
`index/*_store` modules run SQL, no import cycle exists, counting imports made inside functions,
and the engines get the vault as narrow types that mypy holds them to (a probe module)."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

from tests.helpers import REPO

PACKAGE = REPO / "k0maru"
ENGINES = ("index", "search", "offload", "notes", "wiring")
FRONT_ENDS = ("cli", "mcp", "console", "githooks")


def modules() -> dict[str, Path]:
    out = {}
    for path in PACKAGE.rglob("*.py"):
        rel = path.relative_to(REPO).with_suffix("")
        parts = rel.parts[:-1] if rel.name == "__init__" else rel.parts
        out[".".join(parts)] = path
    return out


def imports(path: Path, top_level_only: bool = False, runtime_only: bool = False) -> set[str]:
    """k0maru modules a file imports: all of them, only those run at import time (`top_level_only`),
    or all but the `if TYPE_CHECKING:` ones, which never run (`runtime_only`)."""
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if (
                isinstance(child, ast.If)
                and "TYPE_CHECKING" in ast.unparse(child.test)
                and (top_level_only or runtime_only)
            ):
                continue
            if isinstance(child, ast.Import):
                found.update(a.name for a in child.names if a.name.startswith("k0maru"))
            elif (
                isinstance(child, ast.ImportFrom)
                and child.module
                and child.module.startswith("k0maru")
            ):
                found.add(child.module)
                found.update(f"{child.module}.{a.name}" for a in child.names)
            if not (top_level_only and isinstance(child, ast.FunctionDef | ast.ClassDef)):
                visit(child)

    visit(ast.parse(path.read_text(encoding="utf-8")))
    known = modules()
    return {m for m in found if m in known}


def layer(module: str) -> str:
    if module == "k0maru.__main__":
        return "cli"
    parts = module.split(".")
    if len(parts) > 1 and parts[1] == "resources":  # packaged data files: core
        return "core"
    return (
        parts[1]
        if len(parts) > 2 or (len(parts) == 2 and (PACKAGE / parts[1]).is_dir())
        else "core"
    )


RANK = {"core": 0, **dict.fromkeys(ENGINES, 1), "service": 2, **dict.fromkeys(FRONT_ENDS, 3)}


def test_imports_point_down_only() -> None:
    """Core imports nothing above it, engines never the service or a front end, the service never a
    front end; `if TYPE_CHECKING:` imports and imports inside functions count too."""
    up = [
        f"{name} -> {m}"
        for name, path in modules().items()
        for m in imports(path)
        if RANK[layer(m)] > RANK[layer(name)]
    ]
    assert up == []


# `cli` is the process entry point: it starts the other front ends (their server, hook installer and
# hook runner modules).
FRONT_END_STARTS = (
    "k0maru.mcp.runner",
    "k0maru.mcp.server",
    "k0maru.console.server",
    "k0maru.githooks",
)


def test_front_ends_reach_the_engines_through_the_service() -> None:
    """A front end imports `service/`, core and its own package only."""
    found = set()
    for name, path in modules().items():
        own = layer(name)
        if own not in FRONT_ENDS:
            continue
        for m in imports(path):
            if layer(m) in ("service", "core", own):
                continue
            if own == "cli" and m.startswith(FRONT_END_STARTS):
                continue
            found.add(f"{name} -> {m}")
    assert sorted(found) == []


SQL_MODULES = ("k0maru.index.db", "k0maru.index.schema")  # the connection and the migrations


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


# The whole store, and the connection's lifecycle (close, migrations, the write-ahead log).
WHOLE_STORE = {"k0maru.index.store": "Store", "k0maru.index.base_store": "IndexConnection"}


def test_the_engines_take_the_store_families_they_use() -> None:
    """Search, notes and offload name the table families they read (`OffloadStore`, `VectorStore`,
    `SearchStore`, ...), never the whole `Store` nor its lifecycle (`IndexConnection`): mypy then
    holds each to its families' methods."""
    whole = []
    for name, path in modules().items():
        if layer(name) in ("search", "notes", "offload"):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            whole += [
                f"{name}:{node.lineno}"
                for node in ast.walk(tree)
                if isinstance(node, ast.ImportFrom)
                and node.module in WHOLE_STORE
                and any(a.name == WHOLE_STORE[node.module] for a in node.names)
            ]
    assert whole == []


# The engines that work on a vault get it as a narrow type, never the wiring's `Vault`.
TAKE_NO_VAULT = ("search", "notes", "offload")


def test_the_engines_never_name_the_wiring() -> None:
    """`search/`, `notes/` and `offload/` never import `wiring/` (`Vault`), not even under
    `if TYPE_CHECKING:`: each takes the collaborators it uses, typed narrowly (a Protocol listing
    them, a table family's store, a callable), and the service hands them the `Vault`."""
    up = [
        f"{name} -> {m}"
        for name, path in modules().items()
        if layer(name) in TAKE_NO_VAULT
        for m in imports(path)
        if layer(m) == "wiring"
    ]
    assert up == []


def test_notes_and_offload_meet_through_the_service() -> None:
    """Notes never import offload nor offload notes, not even for types: what distill needs of
    offload (reading failures) and what offload's `seen` needs of notes (which cards record no
    fix) are handed in by the service (`service/bridges.py`)."""
    apart = {"notes": "offload", "offload": "notes"}
    found = [
        f"{name} -> {m}"
        for name, path in modules().items()
        if layer(name) in apart
        for m in imports(path)
        if layer(m) == apart[layer(name)]
    ]
    assert found == []


# The type each engine entry point gets of the vault: (module, function, parameter).
ENGINE_VAULTS = (
    ("k0maru.notes.flush", "flush_indexed", "vault"),
    ("k0maru.notes.distill", "distill_source", "vault"),
    ("k0maru.notes.loadout", "build_loadout", "vault"),
    ("k0maru.offload.seen", "seen_before", "vault"),
)
# What none of them may do: write another family's rows, close the index, scan the vault, or reach
# the lifecycle through recall's store. Each line must be a mypy error.
FORBIDDEN = (
    "vault.store.insert_offload([], [])",
    "vault.store.close()",
    "vault.store.migrate()",
    "vault.close()",
    "vault.index()",
    "vault.recall.store.close()",
)


def _probe_source() -> tuple[str, set[int], set[int]]:
    """A module over the engines' vault types, and the lines mypy must refuse and accept in it."""
    import importlib
    import inspect

    lines = ["from k0maru.index.store import Store", ""]
    for n, (module, function, parameter) in enumerate(ENGINE_VAULTS):
        annotation = (
            inspect.signature(getattr(importlib.import_module(module), function))
            .parameters[parameter]
            .annotation
        )
        lines.insert(0, f"from {module} import {annotation} as Vault{n}")
    refused, accepted = set(), set()
    lines += ["", "def whole(store: Store) -> None:"]  # the control: the whole store can
    for call in ("store.insert_offload([], [])", "store.close()", "store.migrate()"):
        lines.append(f"    {call}")
        accepted.add(len(lines))
    for n in range(len(ENGINE_VAULTS)):
        lines += ["", f"def probe{n}(vault: Vault{n}) -> None:", "    print(vault.root)"]
        accepted.add(len(lines))
        for call in FORBIDDEN:
            lines.append(f"    {call}")
            refused.add(len(lines))
    return "\n".join(lines) + "\n", refused, accepted


def test_mypy_holds_the_engines_to_their_doors(tmp_path: Path, monkeypatch: Any) -> None:
    """The narrowing is real: a module calling `insert_offload`, `close` or `migrate` on the store
    that a notes or offload engine gets (or the vault's own `close` and `index`) fails mypy strict,
    one error per call, while the same calls on the whole `Store` pass. In-process, with a kept
    cache (`.cache/mypy-probe`): about 3 s cold, under 1 s warm."""
    from mypy import api

    source, refused, accepted = _probe_source()
    probe = tmp_path / "probe_doors.py"
    probe.write_text(source, encoding="utf-8")
    monkeypatch.chdir(REPO)
    out, err, _ = api.run(
        [
            "--config-file",
            str(REPO / "pyproject.toml"),
            "--cache-dir",
            str(REPO / ".cache" / "mypy-probe"),
            "--follow-imports",
            "silent",
            str(probe),
        ]
    )
    errors = [line for line in out.splitlines() if ": error: " in line]
    failed = {int(line.split(":")[1]) for line in errors}
    assert err == "" and all(line.endswith("[attr-defined]") for line in errors), out
    assert failed == refused and not failed & accepted, out


def test_no_import_cycles() -> None:
    """No cycle among the imports that run, those inside functions included (a package's __init__
    importing its own submodules is not a cycle through the package)."""
    graph = {name: imports(path, runtime_only=True) - {name} for name, path in modules().items()}
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
    """Tool names appear in the tools registry only, never repeated in another module's prose (a
    tool named after the service operation it calls, like read_note, is that operation's name
    elsewhere)."""
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


# The storage package: the index and its stores, below the search and notes engines that read them.
STORAGE_MAY_NOT_IMPORT = ("search", "notes", "offload")


def test_the_storage_package_imports_no_engine_above_it() -> None:
    """`index/` (the index and its stores) never imports `search/`, `notes/` or `offload/`, not even
    under `if TYPE_CHECKING:`: those read the index, so the wiring of all of them lives
    elsewhere."""
    up = [
        f"{name} -> {m}"
        for name, path in modules().items()
        if layer(name) == "index"
        for m in imports(path)
        if layer(m) in STORAGE_MAY_NOT_IMPORT
    ]
    assert up == []


def _service_class() -> ast.ClassDef:
    tree = ast.parse((PACKAGE / "service" / "operations.py").read_text(encoding="utf-8"))
    return next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Service")


def test_the_service_hands_out_no_engine_object() -> None:
    """Every attribute a `Service` keeps is private, so a front end cannot reach an engine object
    (the session, the vault, its store) through one: it calls a method, whose result is a service
    model."""
    assigned = {
        node.attr
        for node in ast.walk(_service_class())
        if isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id == "self"
        and isinstance(node.ctx, ast.Store)
    }
    assert sorted(a for a in assigned if not a.startswith("_")) == []


def test_front_ends_use_no_private_attribute_of_the_service() -> None:
    """No front end reads an attribute the `Service` keeps to itself (`svc._session.vault...`)."""
    private = {
        node.attr
        for node in ast.walk(_service_class())
        if isinstance(node, ast.Attribute) and node.attr.startswith("_")
    } - {"__init__", "__enter__", "__exit__"}
    found = [
        f"{name}:{node.lineno} .{node.attr}"
        for name, path in modules().items()
        if layer(name) in FRONT_ENDS
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Attribute) and node.attr in private
    ]
    assert found == []


def test_service_operations_return_service_models() -> None:
    """Each public `Service` method returns a service model, a core type or a builtin, never an
    engine type: every name in its return annotation is imported from `service/`, core or the
    standard library."""
    tree = ast.parse((PACKAGE / "service" / "operations.py").read_text(encoding="utf-8"))
    source = {
        alias.asname or alias.name: node.module
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module
        for alias in node.names
    }
    wrong = [
        f"Service.{fn.name} -> {name.id} from {source[name.id]}"
        for fn in _service_class().body
        if isinstance(fn, ast.FunctionDef) and not fn.name.startswith("_") and fn.returns
        for name in ast.walk(fn.returns)
        if isinstance(name, ast.Name)
        and layer(source.get(name.id, "k0maru.core")) not in ("core", "service")
    ]
    assert wrong == []


def test_no_function_is_excused_from_the_complexity_limit() -> None:
    """C901 (complexity 10, pyproject.toml) holds for every function: none is excused by a comment,
    but in the files still listed there while their functions are split (#43)."""
    import tomllib

    config = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    waiting = set(config["tool"]["ruff"]["lint"].get("per-file-ignores", {}))
    excused = [
        str(path.relative_to(REPO))
        for folder in ("k0maru", "scripts", "tests")
        for path in (REPO / folder).rglob("*.py")
        if "C901"
        in "".join(
            line.partition("noqa")[2] for line in path.read_text(encoding="utf-8").splitlines()
        )
        and str(path.relative_to(REPO)) not in waiting
    ]
    assert excused == []


def test_text_is_cut_in_one_place() -> None:
    """A shortened text ends in "…" through `text.shorten` (characters) or `llm_tokens.fit_tokens`
    (tokens) only."""
    cuts = [
        f"{name}:{node.lineno}"
        for name, path in modules().items()
        if name not in ("k0maru.text", "k0maru.llm_tokens")
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.BinOp)
        and isinstance(node.right, ast.Constant)
        and isinstance(node.right.value, str)
        and node.right.value.strip().startswith("…")
    ]
    assert cuts == []


def test_architecture_md_names_every_public_method_of_the_service() -> None:
    """ARCHITECTURE.md's paragraph on the service (from "**The service.**" to the blank line) names
    exactly the `Service`'s public methods and properties: a method added, renamed or removed
    fails here until the doc says so."""
    import re

    text = (REPO / "ARCHITECTURE.md").read_text(encoding="utf-8")
    start = text.index("**The service.**")
    paragraph = text[start : text.index("\n\n", start)]
    named = set(re.findall(r"`([a-z_][a-z0-9_]*)`", paragraph))
    public = {
        node.name
        for node in _service_class().body
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and not node.name.startswith("_")
    }
    assert sorted(named - public) == [] and sorted(public - named) == []


def _service_names_used_by_front_ends() -> set[str]:
    """`module:name` of each name a front end imports from `service/` (a module imported whole
    counts by the attributes read from it)."""
    used = set()
    for name, path in modules().items():
        if layer(name) not in FRONT_ENDS:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        whole = {}
        for node in ast.walk(tree):
            if not isinstance(node, ast.ImportFrom):
                continue
            module = node.module or ""
            if not module.startswith("k0maru.service"):
                continue
            for alias in node.names:
                if module == "k0maru.service":  # a module of the package, imported whole
                    whole[alias.asname or alias.name] = alias.name
                else:
                    used.add(f"{module.rsplit('.', 1)[1]}:{alias.name}")
        used |= {
            f"{whole[node.value.id]}:{node.attr}"
            for node in ast.walk(tree)
            if isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id in whole
        }
    return used


def test_architecture_md_names_every_service_name_a_front_end_uses() -> None:
    """Beside `Service`, a front end uses only the module-level names of `service/` that
    ARCHITECTURE.md lists (the dataclasses of `service/models.py` are listed as a kind): a new one
    fails here until the doc names it."""
    import re

    text = (REPO / "ARCHITECTURE.md").read_text(encoding="utf-8")
    start = text.index("None bypasses the service")
    paragraph = text[start : text.index("(each is checked by the test)", start)]
    named = set(re.findall(r"`([A-Za-z_][A-Za-z0-9_]*)`", paragraph))
    unnamed = {
        used
        for used in _service_names_used_by_front_ends()
        if not used.startswith(("models:", "operations:Service"))
        and used.split(":")[1] not in named
    }
    assert sorted(unnamed) == []
