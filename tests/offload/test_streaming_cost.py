"""What offload leaves to do once the command has ended (issue #62): the log's tokens are counted
while it arrives, to the same figures as a count of the whole log, by a counter that splits ASCII
text with the `re` module; the log is compressed while its summary is written."""

from __future__ import annotations

import functools
import io
import random
from pathlib import Path

import pytest
import regex
from hypothesis import given, settings
from hypothesis import strategies as st

from k0maru import llm_tokens
from k0maru.llm_tokens import ESTIMATOR, count_tokens
from k0maru.offload import tokencount
from k0maru.offload.runner import run_offload
from k0maru.offload.tokencount import LogTokens, count_log_tokens

DATA = Path(__file__).parents[1] / "data" / "logs"
PUBLISHED = regex.compile(llm_tokens._O200K_PATTERN)
# the characters where the two patterns could part: every ASCII one (controls, the separators
# \x1c-\x1f), letters, digits, apostrophes, slashes, newlines, and other scripts' letters, marks,
# digits and spaces
ASCII = st.text(st.sampled_from([chr(c) for c in range(128)] + list("aZ'sT/\n 19")), max_size=80)
MIXED = st.text(
    st.sampled_from([chr(c) for c in range(128)] + list("é·✓日Ω٣\u0301\xa0\x85\u2003\u3000\ufffd")),
    max_size=80,
)


def _logs() -> list[Path]:
    return sorted(DATA.rglob("*.log"))


def _corpus(size: int) -> bytes:
    """The corpus's logs one after another, `size` bytes or a little more."""
    data = b""
    while len(data) < size:
        data += b"".join(log.read_bytes() for log in _logs())
    return data[: data.index(b"\n", size) + 1]


@functools.cache
def _whole_vocabulary() -> llm_tokens._Encoder:
    return llm_tokens._Encoder(llm_tokens._EVERY_BYTE)


def _published_count(encoder: llm_tokens._Encoder, text: str) -> int:
    """The count over the pieces of the published pattern, as the counter took it before."""
    return sum(llm_tokens._merged(encoder.ranks, p.encode()) for p in PUBLISHED.findall(text))


@given(ASCII)
@settings(max_examples=400, deadline=None)
def test_ascii_text_splits_into_the_pieces_of_the_published_pattern(text: str) -> None:
    assert llm_tokens._ASCII_PIECES.findall(text) == PUBLISHED.findall(text)


def test_the_logs_ascii_splits_into_the_pieces_of_the_published_pattern() -> None:
    for log in _logs():
        text = log.read_bytes().decode("ascii", "ignore")
        assert llm_tokens._ASCII_PIECES.findall(text) == PUBLISHED.findall(text), log.name


@given(MIXED)
@settings(max_examples=400, deadline=None)
def test_text_with_other_characters_counts_as_over_the_published_pattern(text: str) -> None:
    encoder = _whole_vocabulary()
    assert encoder.count(text) == _published_count(encoder, text)
    assert "".join(run for run, _ in llm_tokens._runs(text)) == text


def _fed(data: bytes, sizes: list[int], seed: int) -> LogTokens:
    rng = random.Random(seed)
    counter = LogTokens()
    pos = 0
    while pos < len(data):
        size = rng.choice(sizes)
        counter.feed(data[pos : pos + size])
        pos += size
    return counter


def test_a_log_fed_in_any_chunks_counts_as_the_whole_log() -> None:
    """Whatever the chunks (a pipe hands them as it likes), the count of a log is the count of its
    whole text: the corpus, and bytes that cut characters, invalid UTF-8 and spaces after
    newlines."""
    for i, log in enumerate(_logs()):
        data = log.read_bytes()
        expected = count_tokens(data.decode("utf-8", "replace"))
        assert _fed(data, [1, 5, 100, 4096, 1 << 16], i).result() == (expected, ESTIMATOR)
    rng = random.Random(5)
    odd = [b"\n", b"a", b" ", b"/", b"\xc2\x85", b"\xe3\x80\x80", b"\xff", b"\xc3", b"\xc3\xa9"]
    odd += [b"x\n\n", b"\t", b"\r\n", b"\xe2\x9c\x93", b"error: ", b"  --> src/a.rs:1:2\n"]
    for seed in range(300):
        data = b"".join(rng.choice(odd) for _ in range(rng.randrange(1, 300)))
        expected = count_tokens(data.decode("utf-8", "replace"))
        assert _fed(data, [1, 2, 3, 7, 64], seed).result()[0] == expected, data


@pytest.fixture
def small_sample(monkeypatch: pytest.MonkeyPatch) -> None:
    """The rule of a long log at a smaller scale: exact on 64 KiB, 8 windows of 8 KiB beyond."""
    monkeypatch.setattr(tokencount, "EXACT_BYTES", 1 << 16)
    monkeypatch.setattr(tokencount, "SAMPLE_BYTES", 1 << 16)
    monkeypatch.setattr(tokencount, "WINDOWS", 8)
    monkeypatch.setattr(tokencount, "WINDOW", 1 << 13)


@pytest.mark.usefixtures("small_sample")
def test_a_long_log_is_exact_on_its_head_and_the_same_estimate_whatever_its_chunks() -> None:
    data = _corpus(700_000)
    first = _fed(data, [1 << 16], 0)
    again = _fed(data, [1, 333, 4096, 50_000], 1)
    estimate, estimator = first.result()
    assert again.result() == (estimate, estimator)
    head = data[: 1 << 16]
    exact = head.rfind(b"\n") + 1
    assert first.head == (exact, count_tokens(head[:exact].decode("utf-8", "replace")))
    assert estimator.startswith(f"{ESTIMATOR}; exact on the first {exact:,} bytes, ")
    assert 8 <= len(first.windows) <= 16  # WINDOWS to twice as many, spread over the whole log
    assert first.windows[-1].offset > len(data) - 2 * first.stride
    whole = count_tokens(data.decode("utf-8", "replace"))
    assert abs(estimate - whole) / whole < 0.1


@pytest.mark.usefixtures("small_sample")
def test_a_log_just_over_the_exact_size_is_estimated_just_past_it() -> None:
    data = _corpus(300_000)
    limit = 2 * (1 << 16)
    whole = data[:limit]
    assert _fed(whole, [4096], 0).result() == (
        count_tokens(whole.decode("utf-8", "replace")),
        ESTIMATOR,
    )
    assert _fed(data[: limit + 1], [4096], 0).result()[1] != ESTIMATOR


def test_a_file_is_counted_by_the_same_rule(tmp_path: Path) -> None:
    data = (DATA / "cargo_test_many.log").read_bytes()
    log = tmp_path / "x.log"
    log.write_bytes(data)
    assert count_log_tokens(log) == _fed(data, [1 << 16], 0).result()


def test_an_output_that_passes_through_never_loads_the_tokenizer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A short output (under the threshold) starts no count: the tokenizer is not loaded."""
    monkeypatch.setattr(llm_tokens, "_encoder", None)
    done = run_offload(
        tmp_path,
        None,
        task_id="t",
        stdin=io.BytesIO(b"ok\n" * 10),
        out=io.BytesIO(),
        err=io.BytesIO(),
        tree=tmp_path,
    )
    assert done.passed_through and llm_tokens.loaded_vocabulary() == 0


def test_a_kept_log_has_the_exact_count_and_leaves_no_temp_file(tmp_path: Path) -> None:
    data = (DATA / "cargo_test_many.log").read_bytes()
    out = io.BytesIO()
    done = run_offload(
        tmp_path,
        None,
        task_id="t",
        stdin=io.BytesIO(data),
        out=out,
        err=io.BytesIO(),
        tree=tmp_path,
    )
    assert done.record is not None and not done.passed_through
    assert done.record.raw_tokens == count_tokens(data.decode("utf-8", "replace"))
    refs = tmp_path / ".k0maru" / "refs"
    assert sorted(p.name for p in refs.iterdir() if p.name.startswith(".offload-")) == []
    assert (tmp_path / done.record.log_path).is_file()


def test_a_count_that_fails_passes_the_log_through(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The counting thread's error reaches the run as a count that failed at the end did: the
    output passes through, the compressed copy made meanwhile is removed."""

    def broken(self: LogTokens, chunk: bytes) -> None:
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(LogTokens, "feed", broken)
    data = (DATA / "cargo_test_many.log").read_bytes()
    out = io.BytesIO()
    done = run_offload(
        tmp_path,
        None,
        task_id="t",
        stdin=io.BytesIO(data),
        out=out,
        err=io.BytesIO(),
        tree=tmp_path,
    )
    assert done.passed_through and out.getvalue() == data
    assert "the log could not be kept (Input/output error" in capsys.readouterr().err
    assert list((tmp_path / ".k0maru" / "refs").iterdir()) == []
