"""Token count of a log with the LLM tokenizer of `k0maru.llm_tokens`, taken while its bytes arrive
(`LogTokens.feed`), so that little is left to count once the command has ended. The spool counts
only an output past its threshold: one that passes through never loads the tokenizer.

The BPE is slow on long text, so a log of up to `EXACT_BYTES + SAMPLE_BYTES` is counted exactly (as
`llm_tokens.count_tokens` counts: a piece over `LONG_PIECE` characters in slices); a
longer one exactly on its first `EXACT_BYTES` (whole lines) and, beyond, on evenly spaced windows of
whole lines, whose token rate is scaled to the bytes they stand for. The windows are laid out as the
bytes arrive, so the log's length need not be known: one of `WINDOW` bytes every `stride` bytes from
the end of the exact part, the stride doubling (every other window dropped) whenever twice
`WINDOWS` no longer reach the end, so that `WINDOWS` to twice as many windows stand for the log
(`SAMPLE_BYTES` or more). The estimator string says which of the two was used.

The exact count is taken in cuts as the bytes come: a cut after a newline that no BPE piece runs on
past (`llm_tokens._SAFE_CUT`: the next character is neither whitespace nor "/") changes no count,
and a newline's byte ends any UTF-8 sequence, so each cut decodes as it does in the whole log."""

from __future__ import annotations

from pathlib import Path

from k0maru.llm_tokens import ESTIMATOR, count_tokens

EXACT_BYTES = 1 << 20
SAMPLE_BYTES = 1 << 20
WINDOWS = 64
WINDOW = SAMPLE_BYTES // WINDOWS
READ_SIZE = 1 << 16
# the ASCII bytes a cut may come before: printable, not a space, not "/"
_STARTS = frozenset(range(0x21, 0x7F)) - {ord("/")}


def _decoded(data: bytes | bytearray) -> str:
    return data.decode("utf-8", "replace")


def _cut_at(data: bytearray, newline: int) -> bool:
    """No BPE piece runs on past the newline at `newline` (the character after it is in `data`)."""
    byte = data[newline + 1]
    if byte < 0x80:
        return byte in _STARTS
    char = _decoded(data[newline + 1 : newline + 5])[0]  # a lead byte: its whole character is in
    return not char.isspace()


def _last_cut(data: bytearray, low: int) -> int:
    """Where the last cut of `data` at or after `low` ends (0: none). A character after a newline
    is judged once all its bytes (at most four) are in."""
    newline = data.rfind(b"\n", low, len(data) - 4)
    while newline >= low:
        if _cut_at(data, newline):
            return newline + 1
        newline = data.rfind(b"\n", low, newline)
    return 0


class _Window:
    """The bytes of one sampled window, until they are counted: then its tokens and bytes."""

    __slots__ = ("offset", "data", "counted")

    def __init__(self, offset: int):
        self.offset = offset
        self.data = bytearray()
        self.counted: tuple[int, int] | None = None  # (tokens, bytes) of its whole lines


class LogTokens:
    """A log's token count, fed its bytes in order (`feed`), read once all are in (`result`)."""

    def __init__(self) -> None:
        self.size = 0  # bytes fed
        self.counted = 0  # bytes counted exactly, up to a cut
        self.tokens = 0  # in those bytes
        # the bytes from `counted` on, while the log may still be counted whole
        self.pending: bytearray | None = bytearray()
        self.scanned = 0  # `pending` holds no cut before this index
        self.head: tuple[int, int] | None = None  # (bytes, tokens) counted exactly on a long log
        self.windows: list[_Window] = []
        self.stride = WINDOW

    def feed(self, chunk: bytes) -> None:
        start = self.size
        self.size += len(chunk)
        if self.head is not None:
            self._sample(chunk, start)
        if self.pending is None:
            return
        self.pending += chunk
        if self.head is None and self.size >= EXACT_BYTES:
            self._take_head()
        if self.size > EXACT_BYTES + SAMPLE_BYTES:  # too long to count whole: sampled from now on
            self.pending = None
            for window in self.windows:
                if len(window.data) == WINDOW:
                    self._count_window(window)
            return
        self._count_cuts()

    def _count_cuts(self) -> None:
        """Count the pending bytes up to their last cut."""
        assert self.pending is not None
        cut = _last_cut(self.pending, self.scanned)
        if cut:
            self.tokens += count_tokens(_decoded(self.pending[:cut]))
            self.counted += cut
            del self.pending[:cut]
        self.scanned = max(len(self.pending) - 5, 0)

    def _take_head(self) -> None:
        """The first EXACT_BYTES are in: count their whole lines, and sample the log from there."""
        assert self.pending is not None
        newline = self.pending.rfind(b"\n", 0, EXACT_BYTES - self.counted)
        # whole lines: no character is cut in two (a cut follows a newline)
        exact = self.counted + newline + 1 if newline >= 0 else self.counted or EXACT_BYTES
        tokens = self.tokens + count_tokens(_decoded(self.pending[: exact - self.counted]))
        self.head = (exact, tokens)
        self._sample(bytes(self.pending[exact - self.counted :]), exact)

    def _sample(self, data: bytes, offset: int) -> None:
        """Keep what falls in a window of the log's bytes `data`, which start at `offset`."""
        assert self.head is not None
        end = offset + len(data)
        while (start := self.head[0] + len(self.windows) * self.stride) < end:
            if len(self.windows) == 2 * WINDOWS:  # they reach no further: half as many, wider
                self.windows = self.windows[::2]
                self.stride *= 2
            else:
                self.windows.append(_Window(start))
        for window in reversed(self.windows):  # the windows this data reaches are the last ones
            if window.offset + WINDOW <= offset:
                break
            low = max(window.offset + len(window.data), offset)
            window.data += data[low - offset : min(window.offset + WINDOW, end) - offset]
            if len(window.data) == WINDOW and self.pending is None:
                self._count_window(window)

    def _count_window(self, window: _Window) -> None:
        assert self.head is not None
        if window.counted is not None:
            return
        data = window.data
        start = (
            data.find(b"\n") + 1 if window.offset > self.head[0] else 0
        )  # from a line's start...
        end = data.rfind(b"\n") + 1  # ...to a line's end, unless the window is inside one line
        piece = data[start:end] if end > start else data
        window.counted = (count_tokens(_decoded(piece)), len(piece))
        window.data = bytearray()

    def result(self) -> tuple[int, str]:
        """(tokens, estimator) of the bytes fed."""
        if self.pending is not None:
            return self.tokens + count_tokens(_decoded(self.pending)), ESTIMATOR
        assert self.head is not None
        exact_bytes, exact_tokens = self.head
        sample_tokens = sample_bytes = 0
        for window in self.windows:
            self._count_window(window)
            assert window.counted is not None
            sample_tokens += window.counted[0]
            sample_bytes += window.counted[1]
        rest = self.size - exact_bytes
        estimate = exact_tokens + round(sample_tokens / sample_bytes * rest)
        return estimate, (
            f"{ESTIMATOR}; exact on the first {exact_bytes:,} bytes, "
            f"{sample_bytes:,} bytes sampled in whole lines beyond"
        )


def count_log_tokens(path: Path) -> tuple[int, str]:
    """(tokens, estimator) for the log at `path`."""
    counter = LogTokens()
    with path.open("rb") as fh:
        while chunk := fh.read(READ_SIZE):
            counter.feed(chunk)
    return counter.result()
