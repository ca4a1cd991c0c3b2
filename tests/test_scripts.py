"""scripts/: every script answers `--help` (so each one at least imports and builds its parser), the
benchmark harness answers it for each subcommand, and the capture cases (tests/data/capture/*.toml)
say what the stored expectations of their logs say."""

from __future__ import annotations

import contextlib
import importlib.util
import io
import json
import runpy
import sys
from pathlib import Path
from types import ModuleType

import pytest

SCRIPTS = Path(__file__).resolve().parents[1] / "scripts"
LIBRARIES = {
    "vaultgen.py",
    "mirrors.py",
}  # imported by the others and by tests; no command line of its own


def load(name: str) -> ModuleType:
    sys.path.insert(0, str(SCRIPTS))
    spec = importlib.util.spec_from_file_location(f"scripts_{name}", SCRIPTS / f"{name}.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize(
    "name", sorted(p.name for p in SCRIPTS.glob("*.py") if p.name not in LIBRARIES)
)
def test_every_script_answers_help(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Run as `python scripts/NAME --help` would, in this process (the fast tier starts none)."""
    monkeypatch.setattr(sys, "argv", [name, "--help"])
    monkeypatch.setattr(sys, "path", [str(SCRIPTS), *sys.path])
    out = io.StringIO()
    with contextlib.redirect_stdout(out), pytest.raises(SystemExit) as done:
        runpy.run_path(str(SCRIPTS / name), run_name="__main__")
    assert done.value.code in (0, None), name
    assert out.getvalue().startswith("usage:"), out.getvalue()[:200]


def test_each_benchmark_answers_help() -> None:
    bench = load("bench")
    for name in bench.SUBCOMMANDS:
        out = io.StringIO()
        with contextlib.redirect_stdout(out), pytest.raises(SystemExit) as done:
            bench.main([name, "--help"])
        assert done.value.code == 0, name
        assert f" {name} " in out.getvalue().splitlines()[0], out.getvalue()[:200]


def test_capture_cases_say_what_the_stored_expectations_say() -> None:
    capture = load("capture_logs")
    names: set[str] = set()
    for round_name in capture.rounds():
        settings, cases = capture.load(round_name)
        out = capture.REPO / settings["out"]
        for case in cases:
            assert case["name"] not in names, case["name"]
            names.add(case["name"])
            folder = out / "heldout" if case.get("heldout") else out
            stored = json.loads((folder / "expectations.json").read_text())
            want = stored[f"{case['name']}.log"]
            for key in ("tool", "family", "codes", "root", "cause"):
                assert case[key] == want[key], (round_name, case["name"], key)
            assert isinstance(case["command"], str | list), case["name"]
    assert len(names) >= 380


def test_the_write_path_eval_shuffles_sections_and_counts_foreign_keys(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """eval_write_path's evidence for #58: a body's sections passed out of order (a fixed seed,
    its text kept), the family order a written record keeps or breaks, and the keys no record of
    the family has."""
    spec = importlib.util.spec_from_file_location("scripts_eval_wp", SCRIPTS / "eval_write_path.py")
    assert spec and spec.loader
    ev = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "scripts_eval_wp", ev)  # its dataclasses look themselves up
    monkeypatch.setattr(sys, "path", [str(SCRIPTS), *sys.path])
    spec.loader.exec_module(ev)
    body = "Lead.\n\n## A\n\na\n\n```\n## not a section\n```\n\n## B\n\nb\n\n## C\n\nc"
    mixed = ev.shuffled(body, "seed")
    assert mixed.startswith("Lead.") and ev.section_heads(mixed) != ["a", "b", "c"]
    assert sorted(x for x in mixed.split("\n") if x) == sorted(x for x in body.split("\n") if x)
    assert mixed == ev.shuffled(body, "seed")
    order = {("a", "b"), ("a", "c"), ("b", "c")}
    assert ev.keeps_order(["a", "x", "c"], order) and not ev.keeps_order(["c", "a"], order)
    (tmp_path / "r1.md").write_text("---\ntitle: x\nstatus: y\n---\n\n# X\n")
    written = "---\ntitle: New\nstatus: y\naliases: []\n---\n\n# New\n\n- Owner: me\n"
    assert ev.foreign_keys(written, "# New\n", [tmp_path / "r1.md"]) == ["aliases", "owner"]
