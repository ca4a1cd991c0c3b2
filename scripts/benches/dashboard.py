"""What the console's dashboard costs on a generated vault (issue #42).

Generates a vault (scripts/vaultgen.py, BM25 only: no vectors needed for the counts), indexes it
once, then times GET / and GET /status through Flask's test client: the median of `--runs` after a
warm-up. Run it with `PYTHONPATH=<other checkout>` to time another version of k0maru on the same
vault.
"""

from __future__ import annotations

import argparse
import shutil
from functools import partial
from pathlib import Path

from bench import clock, emit, median
from vaultgen import generate


def add_arguments(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--notes", type=int, default=7425)
    ap.add_argument("--dir", type=Path, default=Path("/tmp/k0maru-bench-dashboard"))
    ap.add_argument("--runs", type=int, default=15)


def run(args: argparse.Namespace) -> None:
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
    out: dict[str, object] = {"notes": client.get("/api/status").get_json()["documents"]}
    for url in ("/", "/status"):
        client.get(url)
        out[f"GET {url} ms_median"] = median(clock(partial(client.get, url), args.runs), 1000)
    svc.close()
    emit(out, args.json, 16)
