"""A scan's own embedding is bounded (#61): notes that make thousands of chunks (100k headings)
would keep `k0maru scan` embedding for minutes, so the worker a scan becomes embeds for
`SCAN_EMBED_S` at most and leaves the rest to a background worker, and the scan says so in one
line (real model, real background worker: slow)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from k0maru.index.store import Store
from k0maru.service import worker
from k0maru.service.operations import Service
from tests.helpers import write

pytestmark = pytest.mark.slow  # the rest is embedded by a background worker process


def test_a_scan_embeds_for_its_time_and_leaves_the_rest_to_the_worker(
    vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(vault, "heads.md", "# h\n\n" + "".join(f"## h{i}\n\nword{i}\n\n" for i in range(150)))
    monkeypatch.setattr(worker, "EMBED_SLICE", 100)  # a backlog past it is said in one line
    monkeypatch.setattr(worker, "SCAN_SLICE", 10)
    monkeypatch.setattr(worker, "SCAN_EMBED_S", 0.0)  # time is up after the first round
    with Service.open(vault) as svc:
        report = svc.scan()
    pending = report.pending_embedding
    assert pending > 150
    assert report.warnings == [
        f"{pending} chunk(s) wait for vectors: this scan embeds them for at most 0 s, then a "
        "background worker embeds the rest (`k0maru status` shows how many are left)"
    ]
    seen: list[tuple[int, int]] = []
    done = worker.run(vault, lambda n, total: seen.append((n, total)))  # as `scan` hands over
    assert done is not None and done.embedded == 10 and done.left == pending - 10
    assert f"; {done.left} left to a background worker" in str(done)
    deadline = time.monotonic() + 240
    while worker.busy(vault) and time.monotonic() < deadline:
        time.sleep(0.2)
    with Store.open(vault) as store:  # the background worker embedded the rest
        assert store.unembedded_chunks() == 0


def test_a_background_run_is_not_bounded(vault: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Nobody waits on the worker a git hook starts: it embeds everything."""
    write(vault, "heads.md", "# h\n\n" + "".join(f"## h{i}\n\nword{i}\n\n" for i in range(30)))
    monkeypatch.setattr(worker, "EMBED_SLICE", 8)
    monkeypatch.setattr(worker, "SCAN_EMBED_S", 0.0)
    done = worker.run(vault)
    assert done is not None and done.left == 0 and done.embedded >= 30
    with Store.open(vault) as store:
        assert store.unembedded_chunks() == 0
