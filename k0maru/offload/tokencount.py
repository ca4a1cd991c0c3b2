"""Token count of a stored log with the LLM tokenizer of `k0maru.llm_tokens`, taken once the run is
over (an output that passes through never loads the tokenizer).

The BPE is slow on long text, so a log of up to `EXACT_BYTES + SAMPLE_BYTES` is counted exactly; a
longer one exactly on its first `EXACT_BYTES` (whole lines) and, beyond, on `WINDOWS` evenly spaced
windows of whole lines (`SAMPLE_BYTES` in all), whose token rate is scaled to the bytes they stand
for. The estimator string says which of the two was used."""

from __future__ import annotations

from pathlib import Path

from k0maru.llm_tokens import ESTIMATOR, count_tokens

EXACT_BYTES = 1 << 20
SAMPLE_BYTES = 1 << 20
WINDOWS = 64


def _decoded(data: bytes) -> str:
    return data.decode("utf-8", "replace")


def count_log_tokens(path: Path) -> tuple[int, str]:
    """(tokens, estimator) for the log at `path`."""
    size = path.stat().st_size
    with path.open("rb") as fh:
        if size <= EXACT_BYTES + SAMPLE_BYTES:
            return count_tokens(_decoded(fh.read())), ESTIMATOR
        head = fh.read(EXACT_BYTES)
        exact_bytes = head.rfind(b"\n") + 1 or len(head)  # whole lines: no character is cut in two
        exact_tokens = count_tokens(_decoded(head[:exact_bytes]))
        rest = size - exact_bytes
        sample_tokens = sample_bytes = 0
        for i in range(WINDOWS):
            offset = exact_bytes + i * rest // WINDOWS
            fh.seek(offset)
            window = fh.read(SAMPLE_BYTES // WINDOWS)
            start = window.find(b"\n") + 1 if offset > exact_bytes else 0  # from a line's start...
            # ...to a line's end, unless the window is inside one line
            end = window.rfind(b"\n") + 1
            piece = window[start:end] if end > start else window
            sample_tokens += count_tokens(_decoded(piece))
            sample_bytes += len(piece)
    estimate = exact_tokens + round(sample_tokens / sample_bytes * rest)
    return estimate, (
        f"{ESTIMATOR}; exact on the first {exact_bytes:,} bytes, "
        f"{sample_bytes:,} bytes sampled in whole lines beyond"
    )
