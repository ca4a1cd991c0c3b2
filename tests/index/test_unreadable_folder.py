"""An unreadable folder is counted and warned, and its notes stay indexed (#32 item 11). Root reads
any folder, so the scan runs under `setpriv` without the capabilities that bypass permissions."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from k0maru.index.store import Store
from tests.helpers import REPO, scan, write

pytestmark = pytest.mark.slow  # a process without CAP_DAC_OVERRIDE


def test_an_unreadable_folder_is_warned_and_keeps_its_notes(vault: Path) -> None:
    if shutil.which("setpriv") is None:
        pytest.skip("needs setpriv (util-linux) to scan without permission overrides")
    write(vault, "ok/a.md", "# A\n\nalpha\n")
    write(vault, "locked/b.md", "# B\n\nbeta\n")
    assert scan(vault).added == 2
    (vault / "locked").chmod(0)
    try:
        r = subprocess.run(
            ["setpriv", "--bounding-set", "-dac_override,-dac_read_search"]
            + [sys.executable, "-m", "k0maru", "scan", "--no-embed", "--vault", str(vault)],
            capture_output=True,
            text=True,
            cwd=REPO,
            timeout=120,
        )
    finally:
        (vault / "locked").chmod(0o755)
    assert r.returncode == 0, r.stderr
    assert "removed 0" in r.stdout and "skipped 1" in r.stdout
    warnings = [line for line in r.stderr.splitlines() if "warning" in line]
    assert warnings == [
        "k0maru: warning: skipped locked/: an unreadable folder (Permission denied); its notes stay "
        "as last indexed, check its permissions"
    ]
    with Store.open(vault) as store:
        assert store.document_by_path("locked/b.md") is not None
