"""Complexity a reader feels, held by a ratchet: no function of the package over 15 by radon's
cyclomatic complexity, which counts boolean operators and comprehensions as a reader meets them
(ruff's mccabe, at 10, counts branches only)."""

from __future__ import annotations

from pathlib import Path

from radon.complexity import cc_visit

from tests.helpers import REPO

LIMIT = 15


def over_limit(root: Path) -> list[str]:
    """Every function or method under `root` past LIMIT, as `path:line name (complexity)`."""
    found = []
    for path in sorted(root.rglob("*.py")):
        for block in cc_visit(path.read_text(encoding="utf-8")):
            for item in [block, *getattr(block, "methods", [])]:
                if item.complexity > LIMIT and not hasattr(item, "methods"):
                    rel = path.relative_to(root)
                    found.append(f"{rel}:{item.lineno} {item.name} ({item.complexity})")
    return sorted(set(found))


def test_no_function_of_the_package_is_over_the_limit() -> None:
    assert over_limit(REPO / "k0maru") == []  # k0maru/... relative to the package


def test_the_ratchet_sees_a_complex_function(tmp_path: Path) -> None:
    branches = "".join(f"    if x == {i} and y:\n        return {i}\n" for i in range(16))
    (tmp_path / "m.py").write_text(f"def f(x, y):\n{branches}    return -1\n")
    (tmp_path / "ok.py").write_text("def g(x):\n    return x\n")
    assert over_limit(tmp_path) == ["m.py:1 f (33)"]
