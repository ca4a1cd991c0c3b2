"""A server's warm-up: what the first recall needs loaded before it is asked, off the request
path."""

from __future__ import annotations

import gc
import logging
import threading
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from k0maru.service.session import VaultSession
    from k0maru.wiring.vault import Vault

log = logging.getLogger("k0maru.mcp")


def warm_up(session: VaultSession) -> None:
    """Bring the index up to date and load the BM25 index, the model when the index has vectors (a
    hybrid recall embeds its query, so it is loaded for the first one either way) and the token
    counter the answers are fitted with. Then hand the heap this freed back and turn the garbage
    collector on again (a server starts with it off)."""
    from k0maru import llm_tokens
    from k0maru.memory import release_free_memory

    try:
        with session.session() as vault:
            vault.recall.lexical.get(vault.store)
            if vault.store.has_vectors():
                vault.embedder  # noqa: B018 - the property loads the model
            sample = "\n".join(vault.store.text_sample(64))
            vault.store.release_mapped_pages()
        llm_tokens.prepare(sample)  # a vault in other scripts: a counter that covers them at once
        gc.freeze()  # what the start made lives as long as the process: no collection walks it again
        release_free_memory()
    except Exception as exc:  # a failed warm-up must not end the server
        log.warning("warm-up failed: %s", exc)
    finally:
        gc.enable()


def load_model_early(vault: Vault) -> threading.Thread | None:
    """Start loading the embedding model in a thread of its own, beside the rest of the warm-up:
    onnxruntime builds its session without holding the interpreter lock. Its imports are done here
    first, since two threads importing at once slow each other down. None when embeddings are
    off."""
    if not vault.settings.embed:
        return None
    try:
        import numpy  # noqa: F401
        import onnxruntime  # noqa: F401
    except Exception:  # missing or broken (a library it links): the warm-up's load says so
        return None

    def load() -> None:
        try:
            vault.embedder  # noqa: B018 - the property loads the model
        except Exception as exc:  # the warm-up tries again and says why
            log.warning("loading the embedding model failed: %s", exc)

    thread = threading.Thread(target=load, name="k0maru-model")
    thread.start()
    return thread
