"""Log extractors, one module per tool family; each registers itself with `@register` on import.
Adding one is adding a module here: every module of this package is loaded."""

from __future__ import annotations

import importlib
import pkgutil

from k0maru.offload.extractors.base import EXTRACTORS, Extractor

_LOADED: list[bool] = []  # every module imported once (one may be imported on its own before)


def all_extractors() -> list[type[Extractor]]:
    """Every extractor class, in module-name order (loaded on first use)."""
    if not _LOADED:
        _LOADED.append(True)
        for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
            if info.name != "base":
                importlib.import_module(f"{__name__}.{info.name}")
    return list(EXTRACTORS)
