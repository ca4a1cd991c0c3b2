"""Token counts of long logs and the bounds that keep an offload's memory flat."""

import subprocess
import sys
from pathlib import Path

import pytest

from k0maru.offload.analyzer import LogAnalyzer
from k0maru.offload.findings import MAX_KEPT
from k0maru.offload.summary import render

DATA = Path(__file__).parents[1] / "data" / "logs"


@pytest.mark.slow
def test_the_encoder_holds_only_the_vocabulary_the_text_needs_and_counts_exactly() -> None:
    """ASCII text loads a narrow vocabulary; a text with other bytes widens it to the whole one;
    every count equals bpe-openai's over the whole vocabulary (fresh process: the order of texts
    matters here)."""
    code = f"""
import bpe_openai
from pathlib import Path
from k0maru import llm_tokens
ref = bpe_openai.get_encoding("o200k_base")
ascii_log = Path(r"{DATA}/cargo_test_many.log").read_text()
assert llm_tokens.loaded_vocabulary() == 0
assert llm_tokens.count_tokens(ascii_log) == len(ref.encode(ascii_log))
narrow = llm_tokens.loaded_vocabulary()
assert 120_000 < narrow < 140_000, narrow
mixed = "summary · ✓ passed — 3 failures"
assert llm_tokens.count_tokens(mixed) == len(ref.encode(mixed)) and llm_tokens.loaded_vocabulary() == narrow
for text in ["déjà vu", "日本語のログ 🚀", ascii_log]:
    assert llm_tokens.count_tokens(text) == len(ref.encode(text)), text[:40]
assert llm_tokens.loaded_vocabulary() == 199_998
print("ok")
"""
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stderr


def test_a_long_log_is_counted_exactly_at_its_head_and_estimated_closely_beyond(
    tmp_path: Path,
) -> None:
    from k0maru.llm_tokens import ESTIMATOR, count_tokens
    from k0maru.offload.tokencount import EXACT_BYTES, count_log_tokens

    real = [p.read_text(encoding="utf-8", errors="replace") for p in sorted(DATA.glob("*.log"))]
    short = tmp_path / "short.log"
    short.write_text(real[0], encoding="utf-8")
    assert count_log_tokens(short) == (count_tokens(real[0]), ESTIMATOR)
    text = "".join(real) * (3 * EXACT_BYTES // len("".join(real).encode()) + 1)
    long_log = tmp_path / "long.log"
    long_log.write_text(text, encoding="utf-8")
    estimate, estimator = count_log_tokens(long_log)
    exact = count_tokens(text)
    assert (
        estimator.startswith(ESTIMATOR + "; exact on the first")
        and abs(estimate - exact) / exact < 0.02
    )


def test_findings_stay_bounded_whatever_the_number_of_failures() -> None:
    analyzer = LogAnalyzer()
    block = "".join(
        f"src/app.ts({i},7): error TS{2000 + i % 1500}: bad {i}\n" for i in range(20_000)
    )
    analyzer.feed(block)
    findings = analyzer.close()
    assert findings.total == 20_000 and len(findings.failures) == MAX_KEPT
    assert len(findings.groups) == MAX_KEPT and findings.error_codes[:2] == ["TS2000", "TS2001"]
    assert findings.latest is not None and findings.latest.message == "bad 19999"
    text = render(
        command="tsc",
        findings=findings,
        exit_code=2,
        lines=20_000,
        raw_tokens=1,
        log_rel="x.log",
        node_id="n",
    )
    assert "20,000 failure(s)" in text and "first failure: src/app.ts:0:7" in text


@pytest.mark.slow
def test_a_pass_through_never_loads_the_tokenizer(tmp_path: Path) -> None:
    code = (
        "import io, sys; from k0maru.offload.runner import run_offload; "
        "o = run_offload(__import__('pathlib').Path(sys.argv[1]), None, stdin=io.BytesIO(b'ok\\n' * 10), "
        "out=io.BytesIO(), err=io.BytesIO(), progress=False); "
        "from k0maru.llm_tokens import loaded_vocabulary; "
        "assert o.passed_through; print(loaded_vocabulary())"
    )
    r = subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout.strip() == "0", r.stderr


def test_a_long_text_counted_in_pieces_counts_as_it_does_whole(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Counting in pieces bounds the token list held at once; the cuts never change the count, on
    every real log of the corpus and on text made of the characters that end BPE pieces."""
    import random

    from k0maru import llm_tokens

    rng = random.Random(27)
    parts = [
        "\n",
        "\n",
        " ",
        "  ",
        "/",
        "word",
        "Ab",
        ":",
        "12345",
        "é",
        "\r",
        "\t",
        "'s",
        "//",
        "—",
    ]
    texts = [p.read_text("utf-8", "replace") for p in sorted(DATA.glob("*.log"))]
    texts += ["".join(rng.choice(parts) for _ in range(rng.randint(1, 60))) for _ in range(400)]
    monkeypatch.setattr(llm_tokens, "COUNT_PIECE", len(max(texts, key=len)))
    whole = [llm_tokens.count_tokens(t) for t in texts]
    for piece in (3, 64, 4096):
        monkeypatch.setattr(llm_tokens, "COUNT_PIECE", piece)
        assert [llm_tokens.count_tokens(t) for t in texts] == whole
