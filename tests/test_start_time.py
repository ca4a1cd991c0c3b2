"""What `k0maru --version` and `k0maru --help` cost to start (#62): the command line imports what
argparse imports, and each command the rest when it runs. The fast test lists what building the
whole parser and answering --version and --help import; the slow one times the real commands beside
Python importing argparse, sqlite3 and json."""

from __future__ import annotations

import builtins
import contextlib
import io
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from tests.helpers import write

# what the command line may not import before a command runs: the service and its engines, the
# third-party libraries behind them, and the standard modules they (not argparse) bring
HEAVY = (
    "k0maru.service",
    "k0maru.search",
    "k0maru.index",
    "k0maru.wiring",
    "k0maru.notes",
    "k0maru.offload",
    "k0maru.mcp",
    "k0maru.console",
    "k0maru.githooks",
    "k0maru.config",
    "k0maru.text",
    "pydantic",
    "numpy",
    "sqlite_vec",
    "onnxruntime",
    "tokenizers",
    "tiktoken",
    "mcp",
    "sqlite3",
    "typing",
    "pathlib",
    "dataclasses",
)


def within(name: str, packages: Sequence[str]) -> bool:
    return any(name == p or name.startswith(p + ".") for p in packages)


def heavy(name: str) -> bool:
    return within(name, HEAVY)


@contextlib.contextmanager
def fresh_imports() -> Iterator[set[str]]:
    """The names of the modules imported in the block, with k0maru's own modules imported anew
    (so each of their imports runs again and is seen, even of a module this process already has);
    afterwards sys.modules is as it was, the modules this process had before included."""
    saved = dict(sys.modules)
    for name in [n for n in sys.modules if n == "k0maru" or n.startswith("k0maru.")]:
        del sys.modules[name]
    before = set(sys.modules)
    seen: set[str] = set()
    real = builtins.__import__

    def spy(
        name: str,
        globals: Mapping[str, object] | None = None,
        locals: Mapping[str, object] | None = None,
        fromlist: Sequence[str] | None = (),
        level: int = 0,
    ) -> ModuleType:
        seen.add(name)
        seen.update(f"{name}.{f}" for f in fromlist or ())
        return real(name, globals, locals, fromlist, level)

    builtins.__import__ = spy
    try:
        yield seen
    finally:
        builtins.__import__ = real
        seen.update(set(sys.modules) - before)
        seen.intersection_update(sys.modules)  # the modules, not the names `from m import` took
        sys.modules.clear()
        sys.modules.update(saved)


def test_version_and_help_import_no_service_nor_its_libraries() -> None:
    out = io.StringIO()
    with fresh_imports() as seen, contextlib.redirect_stdout(out):
        from k0maru.cli.main import main

        assert main(["--version"]) == 0
        with pytest.raises(SystemExit) as done:
            main(["--help"])  # builds every command's parser
        assert done.value.code == 0
    assert out.getvalue().startswith("k0maru ") and "show" in out.getvalue()
    assert {"k0maru.cli.main", "k0maru.cli.search_cmd", "k0maru.cli.show_cmd"} <= seen
    assert sorted(n for n in seen if heavy(n)) == []


def test_the_version_builds_no_parser() -> None:
    with fresh_imports() as seen, contextlib.redirect_stdout(io.StringIO()):
        from k0maru.cli.main import main

        assert main(["--version"]) == 0
    assert sorted(n for n in seen if n.startswith("k0maru.cli.")) == [
        "k0maru.cli.main",
        "k0maru.cli.output",
    ]


# what a scan with nothing to do may not import: it stats the files the walk snapshot names and
# stops, without opening the index, the scanner, the parser or the settings' validation
NOT_ON_A_NO_CHANGE_SCAN = (
    "k0maru.index.store",
    "k0maru.index.scanner",
    "k0maru.index.markdown",
    "k0maru.service.session",
    "k0maru.wiring",
    "k0maru.notes",
    "k0maru.search.lexical",
    "sqlite3",
    "pysqlite3",
    "pydantic",
    "yaml",
    "k0maru.index.base_store",
    "dataclasses",  # the result types (service/models.py, scan_report.py)
    "k0maru.service.scan_report",
    "shutil",  # argparse's formatter asks it for the terminal's width (cli/main.py's does not)
    "k0maru.index.walker",  # the snapshot's check lists no folder
    "locale",  # gettext's, for argparse's words: the parser is not built (cli.main.quick_scan)
    "typing",
    "pathlib",  # the snapshot's check works on strings
)


def test_a_scan_with_nothing_to_do_opens_no_index(vault: Path) -> None:
    from k0maru.cli.main import main
    from k0maru.service.scan_report import SCAN_COUNTS, ScanReport

    for i in range(3):
        write(vault, f"notes/n{i}.md", f"# Note {i}\n\nbody {i}\n")
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        assert main(["scan", "--vault", str(vault), "--no-embed"]) == 0
        # reads the index once (it opens the write-ahead log the scan had closed), and records its
        # files' stat: the next scan trusts them
        assert main(["scan", "--vault", str(vault), "--no-embed"]) == 0
        assert main(["scan", "--vault", str(vault), "--no-embed"]) == 0
    out = io.StringIO()
    with fresh_imports() as seen, contextlib.redirect_stdout(out):
        from k0maru.cli.main import main as fresh_main

        assert fresh_main(["scan", "--vault", str(vault), "--no-embed", "--json"]) == 0
    report = json.loads(out.getvalue().splitlines()[-1])
    assert report["walk_only"] and report["unchanged"] == 3
    counts: dict[str, Any] = dict.fromkeys(SCAN_COUNTS, 0)
    assert report.keys() == ScanReport(**counts).payload().keys()  # the shape of every scan's
    assert sorted(n for n in seen if within(n, NOT_ON_A_NO_CHANGE_SCAN)) == []


def test_a_scan_with_nothing_to_do_reads_the_index_without_a_store(vault: Path) -> None:
    """After another process wrote to the index (a search's close drops its write-ahead log), the
    no-change scan reads the corpus version through index/db.py alone: no store, no schema, no
    dataclasses."""
    from k0maru.cli.main import main

    write(vault, "a.md", "# A\n\nbody\n")
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        for _ in range(2):
            assert main(["scan", "--vault", str(vault), "--no-embed"]) == 0
    snap_path = vault / ".k0maru" / "scan-snapshot.json"
    snap = json.loads(snap_path.read_text(encoding="utf-8"))
    snap.pop("index", None)  # the index files as the last read found them: now unknown
    snap_path.write_text(json.dumps(snap), encoding="utf-8")
    out = io.StringIO()
    with fresh_imports() as seen, contextlib.redirect_stdout(out):
        from k0maru.cli.main import main as fresh_main

        assert fresh_main(["scan", "--vault", str(vault), "--no-embed", "--json"]) == 0
    assert json.loads(out.getvalue())["walk_only"]
    assert "k0maru.index.db" in seen
    # it writes the snapshot anew, through fsutil's atomic write of a Path
    no_store = [n for n in NOT_ON_A_NO_CHANGE_SCAN if not n.endswith("sqlite3") and n != "pathlib"]
    assert sorted(n for n in seen if within(n, no_store)) == []


@pytest.mark.parametrize("columns", ["120", "", "x", "-3", "0"])
def test_the_help_is_as_wide_as_shutil_says(columns: str, monkeypatch: pytest.MonkeyPatch) -> None:
    import shutil

    from k0maru.cli.main import terminal_columns

    monkeypatch.setenv("COLUMNS", columns)
    assert terminal_columns() == shutil.get_terminal_size().columns


RUNS = 21  # of each command, interleaved, so a moment of load falls on all three alike
RATIO = 1.5  # the most --version and --help may cost, in times the baseline's cost
SLACK = 0.15  # for a loaded machine: starting a process varies more than the work it does


@pytest.mark.slow
def test_version_and_help_start_about_as_fast_as_python_importing_argparse() -> None:
    """The median over RUNS rounds of each command's time over the baseline's in the same round:
    at most RATIO (plus SLACK, for the variance of a loaded machine)."""
    commands = {
        "baseline": [sys.executable, "-c", "import argparse, sqlite3, json"],
        "--version": [sys.executable, "-m", "k0maru", "--version"],
        "--help": [sys.executable, "-m", "k0maru", "--help"],
    }
    # as installed: byte-compiled (a first run writes what PYTHONDONTWRITEBYTECODE would not)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    times: dict[str, list[float]] = {name: [] for name in commands}
    for turn in range(RUNS + 1):
        for name, argv in commands.items():
            start = time.perf_counter()
            subprocess.run(argv, stdout=subprocess.DEVNULL, env=env, check=True)
            if turn:  # the first turn compiles
                times[name].append(time.perf_counter() - start)
    ratios = {
        name: statistics.median(t / b for t, b in zip(times[name], times["baseline"], strict=True))
        for name in ("--version", "--help")
    }
    ms = {name: round(statistics.median(t) * 1000, 1) for name, t in times.items()}
    assert max(ratios.values()) <= RATIO + SLACK, (ratios, ms)
