"""What `pip install k0maru` brings: every runtime dependency is a distribution k0maru imports (a
never-imported one fails here: bpe-openai for a data file, pre-commit, and rich for one progress
bar cost 100 MB before #56), the package's own data files ship in the wheel, and the progress line
that replaced rich draws only on a terminal."""

from __future__ import annotations

import ast
import importlib.metadata
import io
import re
import tomllib

import pytest

from tests.helpers import REPO

PACKAGE = REPO / "k0maru"


def _name(requirement: str) -> str:
    """A requirement's distribution name, normalised as PEP 503 does."""
    match = re.match(r"[A-Za-z0-9][A-Za-z0-9._-]*", requirement.strip())
    assert match, requirement
    return re.sub(r"[-_.]+", "-", match.group()).lower()


def _runtime(requirements: list[str]) -> set[str]:
    return {_name(r) for r in requirements if "extra ==" not in r.partition(";")[2]}


def _declared() -> set[str]:
    return _runtime(importlib.metadata.requires("k0maru") or [])


DYNAMIC = ("import_module", "find_spec")  # a module named by a string: `pysqlite3`, `sqlite_vec`


def _imported() -> set[str]:
    """The top-level modules k0maru's code imports anywhere (at the top, inside functions, under
    `if TYPE_CHECKING:` or `try:`) or looks up by name (`importlib.import_module("x")`,
    `importlib.util.find_spec("x")`)."""
    found: set[str] = set()
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                found.update(alias.name.partition(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                found.add(node.module.partition(".")[0])
            elif (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute | ast.Name)
                and getattr(node.func, "attr", getattr(node.func, "id", "")) in DYNAMIC
                and node.args
                and isinstance(node.args[0], ast.Constant)
                and isinstance(node.args[0].value, str)
            ):
                found.add(node.args[0].value.partition(".")[0])
    return found


def test_the_installed_metadata_declares_what_pyproject_does() -> None:
    """The checks below read the installed metadata, so it must be this pyproject's (an editable
    install keeps the metadata of the day it was made)."""
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert _declared() == _runtime(project["dependencies"]), (
        "k0maru's installed metadata is stale: pip install -e '.[test]'"
    )


def test_every_runtime_dependency_is_imported_by_k0maru() -> None:
    """Each distribution `pip install k0maru` pulls in for itself provides a module that k0maru/
    imports somewhere: no dependency installed for a data file, a tool or one small feature."""
    provides: dict[str, set[str]] = {}
    for module, dists in importlib.metadata.packages_distributions().items():
        for dist in dists:
            provides.setdefault(_name(dist), set()).add(module)
    imported = _imported()
    unused, missing = [], []
    for dist in sorted(_declared()):
        if dist not in provides:  # not installed here: only a platform marker may explain that
            missing.append(dist)
        elif not provides[dist] & imported:
            unused.append(f"{dist} (provides {sorted(provides[dist])})")
    assert unused == []
    requirements = importlib.metadata.requires("k0maru") or []
    assert all(";" in r for r in requirements if _name(r) in missing), missing


def test_the_package_data_ships_in_the_wheel() -> None:
    """The wheel is the `k0maru` folder whole (hatch's `packages`) less what git ignores, so every
    data file under `resources/`, the o200k vocabulary and its licence among them, is installed."""
    import pathspec

    config = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    assert config["tool"]["hatch"]["build"]["targets"]["wheel"]["packages"] == ["k0maru"]
    ignored = pathspec.GitIgnoreSpec.from_lines(
        (REPO / ".gitignore").read_text(encoding="utf-8").splitlines()
    )
    data = [
        str(p.relative_to(REPO))
        for p in (PACKAGE / "resources").rglob("*")
        if p.is_file() and "__pycache__" not in p.parts
    ]
    assert {
        "k0maru/resources/o200k_base.tiktoken.gz",
        "k0maru/resources/o200k_base.LICENSE",
    } <= set(data)
    assert [p for p in data if ignored.match_file(p)] == []


class _Terminal(io.StringIO):
    def __init__(self, tty: bool):
        super().__init__()
        self.tty = tty

    def isatty(self) -> bool:
        return self.tty


@pytest.mark.parametrize("tty", [True, False])
def test_the_progress_line_draws_only_on_a_terminal(
    tty: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Nothing before `delay` nor off a terminal; then one line redrawn in place, never wider than
    the terminal, and erased on close."""
    from k0maru import progress

    out = _Terminal(tty)
    monkeypatch.setattr("sys.stdout", out)
    monkeypatch.setenv("COLUMNS", "40")
    with progress.LazyProgress("embedding", True, delay=3600) as early:
        early(1, 10)
    assert out.getvalue() == ""
    with progress.LazyProgress("embedding", True, delay=0) as bar:
        bar(5, 10)
        drawn = out.getvalue()
    if not tty:
        assert out.getvalue() == ""
        return
    assert drawn.startswith(progress.ERASE + "embedding [") and "5/10" in drawn
    assert len(drawn) - len(progress.ERASE) <= 39 and "\n" not in drawn
    assert out.getvalue() == drawn + progress.ERASE


def test_the_progress_line_says_the_time_left_and_fits_the_terminal() -> None:
    from k0maru.progress import BAR, line

    assert line("scanning", 25, 100, 10.0, 200) == f"scanning [{'=' * 7}>{' ' * 22}] 25/100 0:00:30"
    assert line("scanning", 100, 100, 10.0, 200).endswith(f"[{'=' * BAR}] 100/100 0:00:00")
    assert line("scanning", 0, 0, 1.0, 200).endswith("] 0/0 -:--:--")
    assert line("x", 1, 7200, 1.0, 200).endswith(" 1:59:59")
    assert line("scanning", 50, 100, 1.0, 40) == "scanning [======>      ] 50/100 0:00:01"
    assert line("scanning", 50, 100, 1.0, 30) == "scanning 50/100 0:00:01"
    assert line("scanning", 50, 100, 1.0, 10) == "scanning "
