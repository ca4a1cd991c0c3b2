"""A vault shared by the threads of a long-running process (the MCP server, the web console).

One lock serialises use of the shared SQLite connection. Before answering, callers `fresh()`: a
lexical rescan at most every `rescan_interval` seconds; chunks still without vectors are embedded by a
background thread on its own connection, so a large un-embedded vault never stalls a request."""

from __future__ import annotations

import logging
import threading
import time
from typing import Any

from k0maru.service.vault import Vault

log = logging.getLogger("k0maru.service.session")


class LiveVault:
    def __init__(self, vault: Vault, rescan_interval: float = 2.0):
        self.vault = vault
        self.lock = threading.RLock()
        self.rescan_interval = rescan_interval
        self._last_scan = 0.0
        self._embedder_thread: threading.Thread | None = None
        self._closing = threading.Event()

    def fresh(self) -> None:
        """Lexical rescan on the request path (call it holding `lock`); new chunks get vectors in the
        background, and recall says when some are still missing."""
        if time.monotonic() - self._last_scan < self.rescan_interval:
            return
        report = self.vault.index(record=False, embed=False)
        self._last_scan = time.monotonic()
        for w in report.as_dict()["warnings"]:
            log.warning("%s", w)
        if self.vault.settings.embed and self.vault.store.unembedded_chunks():
            self._embed_in_background()

    def _embed_in_background(self) -> None:
        if self._embedder_thread is not None and self._embedder_thread.is_alive():
            return
        embedder = self.vault.embedder
        if embedder is None:
            return
        self._embedder_thread = threading.Thread(target=self._embed_pending, args=(embedder,), name="k0maru-embed")
        self._embedder_thread.start()

    def _embed_pending(self, embedder: Any) -> None:
        """On its own connection (SQLite connections are not shared across threads); batches commit as
        they finish, so recall sees vectors appear while the rest are computed."""
        from k0maru.index.store import Store
        from k0maru.search import vectors

        try:
            with Store.open(self.vault.root, self.vault.settings.busy_timeout_ms) as store:
                while not self._closing.is_set() and store.unembedded_chunks():
                    if not vectors.embed_pending(store, embedder, self.vault.settings.embed_batch, limit=256):
                        break
        except Exception as exc:  # noqa: BLE001 - the next rescan retries
            log.warning("background embedding stopped: %s", exc)

    def close(self) -> None:
        """Stop the background embedding and wait for it (tearing down under it crashes the interpreter)."""
        self._closing.set()
        if self._embedder_thread is not None:
            self._embedder_thread.join()

