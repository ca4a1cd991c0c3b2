"""The one compact JSON shape every front end sends: `Result.payload()`. The base of every result
dataclass, in core so that an engine's result (search's `RecallResult`) is the very type the service
returns."""

from __future__ import annotations

import dataclasses
from typing import Any, Self

# the only numbers shortened on the wire (to 4 significant digits): ranking scores and their parts,
# whose later digits carry nothing; timestamps, counts, sizes and money are sent as they are
SCORES = frozenset(
    {"score", "bm25_score", "cosine", "bm25_part", "vector_part", "graph_boost", "bm25_weight"}
)


def _compact(value: Any) -> Any:
    """Dataclasses as dicts without the fields that are None or at their default; scores (`SCORES`)
    to 4 significant digits, every other number exact; sequences as lists."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {
            f.name: _compact_field(f.name, v)
            for f in dataclasses.fields(value)
            if not _left_out(f, v := getattr(value, f.name))
        }
    if isinstance(value, dict):
        return {k: _compact(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_compact(v) for v in value]
    return value


def _left_out(f: dataclasses.Field[Any], v: Any) -> bool:
    """Whether a field's value goes unsent: None, or its default (an empty sequence for `()`)."""
    if v is None:
        return True
    if f.default is not dataclasses.MISSING:
        return bool(v == f.default or (isinstance(v, list | tuple) and not v and f.default == ()))
    return f.default_factory is not dataclasses.MISSING and bool(v == f.default_factory())


def _compact_field(name: str, v: Any) -> Any:
    return float(f"{v:.4g}") if name in SCORES and isinstance(v, float) else _compact(v)


class Result:
    def payload(self) -> dict[str, Any]:
        """The compact JSON-ready shape every front end sends: fields that are None or still at
        their default (empty sequences, false flags) are left out, scores carry 4 significant
        digits."""
        out: dict[str, Any] = _compact(self)
        return out

    def but(self, **changes: Any) -> Self:
        """A copy with `changes`."""
        copy: Self = dataclasses.replace(self, **changes)  # type: ignore[type-var]
        return copy
