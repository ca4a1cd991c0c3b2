"""What the console's dashboard costs on a generated vault (issue #42).

    python scripts/bench_dashboard.py [--notes 7425] [--dir /tmp/k0maru-bench-dashboard] [--runs 15]

Generates a vault (scripts/vaultgen.py, BM25 only: no vectors needed for the counts), indexes it
once, then times GET / and GET /status through Flask's test client: the median of `--runs` after a
warm-up. Run it with `PYTHONPATH=<other checkout>` to time another version of k0maru on the same
vault."""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from vaultgen import generate  # noqa: E402


def median_ms(get: Callable[[str], object], url: str, runs: int) -> float:
    get(url)
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        get(url)
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1000


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--notes", type=int, default=7425)
    ap.add_argument("--dir", type=Path, default=Path("/tmp/k0maru-bench-dashboard"))
    ap.add_argument("--runs", type=int, default=15)
    args = ap.parse_args()
    from k0maru.console.app import create_app
    from k0maru.service.operations import Service
    from k0maru.service.session import VaultSession
    from k0maru.wiring.vault import Vault

    root: Path = args.dir
    if not (root / ".k0maru" / "index.sqlite").exists():
        shutil.rmtree(root, ignore_errors=True)
        (root / ".k0maru").mkdir(parents=True)
        (root / ".k0maru" / "config.toml").write_text("embed = false\n")
        generate(root, args.notes, min_kb=0.5, max_kb=3)
        with Vault.open(root) as vault:
            vault.index()
    svc = Service(VaultSession(Vault.open(root)))
    client = create_app(svc).test_client()
    notes = client.get("/api/status").get_json()["documents"]
    for url in ("/", "/status"):
        print(f"{url:8} {median_ms(client.get, url, args.runs):8.1f} ms  ({notes:,} notes)")
    svc.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
