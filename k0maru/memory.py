"""Hand freed heap back to the operating system between the phases of a long process.

glibc keeps freed memory mapped for reuse, so a phase that allocated and freed a lot (parsing the
model, building the BM25 segment) leaves the process's RSS at its peak for the rest of its life.
`malloc_trim` returns the free pages; where there is no glibc this is only a garbage collection."""

from __future__ import annotations

import gc
from functools import cache
from typing import Any


@cache
def _malloc_trim() -> Any:
    import ctypes

    try:
        return ctypes.CDLL(None).malloc_trim  # the C library the interpreter runs on
    except (OSError, AttributeError):  # not glibc (musl, macOS): nothing to trim
        return None


def release_free_memory() -> None:
    """Collect garbage, then give the heap's free pages back (after loading the onnxruntime
    session)."""
    gc.collect()
    trim = _malloc_trim()
    if trim is not None:
        trim(0)
