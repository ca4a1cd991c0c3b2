"""Offload records outlive the index (#31 item 3: a JSON sidecar beside each log), and retention
(`log prune`, the size cap) never leaves a record pointing at a missing file."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import K0

pytestmark = pytest.mark.slow

LOG = "".join(f"step {i}: compiling unit_{i}.c ok\n" for i in range(600)) + (
    'Traceback (most recent call last):\n  File "app.py", line 3, in <module>\n'
    "ZeroDivisionError: division by zero\n"
)


def _offload(k0: K0, vault: Path, text: str = LOG, **env: str) -> str:
    r = k0("offload", "--vault", str(vault), "--task-id", "t", input=text, env=env or None)
    assert r.returncode == 0, r.stderr
    assert "first failure: app.py:3" in r.stdout, r.stdout
    return r.stdout.split("k0maru log show ", 1)[1].split()[0]


def _listed(k0: K0, vault: Path) -> list[dict[str, Any]]:
    r = k0("log", "list", "--vault", str(vault), "--json")
    assert r.returncode == 0, r.stderr
    listed: list[dict[str, Any]] = json.loads(r.stdout)
    return listed


def _refs(vault: Path) -> list[str]:
    return sorted(p.name for p in (vault / ".k0maru" / "refs").iterdir())


def test_records_come_back_after_a_rebuild_and_a_lost_index(k0: K0, vault: Path) -> None:
    node = _offload(k0, vault)
    assert _refs(vault) == [f"t_{node}.json", f"t_{node}.log.gz"]
    r = k0("scan", "--vault", str(vault), "--rebuild")
    assert r.returncode == 0, r.stderr
    (listed,) = _listed(k0, vault)
    assert listed["node_id"] == node and listed["error_codes"] == ["ZeroDivisionError"]
    for f in (vault / ".k0maru").glob("index.sqlite*"):
        f.unlink()
    r = k0("log", "show", node, "--vault", str(vault), "--grep", "ZeroDivisionError", "-F")
    assert r.returncode == 0 and "ZeroDivisionError: division by zero" in r.stdout, r.stderr


def test_prune_by_count_and_age_removes_log_sidecar_and_record_together(
    k0: K0, vault: Path
) -> None:
    nodes = [_offload(k0, vault) for _ in range(3)]
    r = k0("log", "prune", "--vault", str(vault), "--keep", "1")
    assert r.returncode == 0 and r.stdout.startswith("removed 2 log(s)"), r.stdout + r.stderr
    assert [n["node_id"] for n in _listed(k0, vault)] == [nodes[-1]]
    assert _refs(vault) == [f"t_{nodes[-1]}.json", f"t_{nodes[-1]}.log.gz"]
    gone = k0("log", "show", nodes[0], "--vault", str(vault))
    assert gone.returncode != 0 and "unknown log node" in gone.stderr
    r = k0("scan", "--vault", str(vault), "--rebuild")  # no pruned record comes back
    assert [n["node_id"] for n in _listed(k0, vault)] == [nodes[-1]]
    r = k0("log", "prune", "--vault", str(vault), "--older-than", "0s")
    assert r.returncode == 0 and _listed(k0, vault) == [] and _refs(vault) == []


def test_the_size_cap_keeps_the_newest_logs_within_it_on_disk(k0: K0, vault: Path) -> None:
    """The cap counts compressed bytes on disk: two logs of 0.8 MB each fit in 1 MB once
    compressed."""
    rng = random.Random(7)
    big = "".join(f"step {i}: {rng.randbytes(40).hex()}\n" for i in range(8000)) + LOG
    nodes = [_offload(k0, vault, big, K0MARU_OFFLOAD_MAX_MB="1") for _ in range(4)]
    listed = _listed(k0, vault)
    assert [n["node_id"] for n in listed] == [nodes[3], nodes[2]]
    assert len(big) * 2 > 1_400_000  # the two kept hold more than the cap, uncompressed
    refs = vault / ".k0maru" / "refs"
    assert 0 < sum(p.stat().st_size for p in refs.iterdir()) <= 1_000_000
    for n in listed:
        assert (vault / n["log_path"]).is_file()
    assert len(_refs(vault)) == 4


def test_a_bad_age_is_one_line(k0: K0, vault: Path) -> None:
    r = k0("log", "prune", "--vault", str(vault), "--older-than", "soon")
    assert r.returncode != 0 and "bad age 'soon'" in r.stderr and "Traceback" not in r.stderr
