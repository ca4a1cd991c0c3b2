"""Near-identical notes by MinHash sketch: copies fold, different notes and unsigned rows do not."""

from array import array

from hypothesis import given, settings
from hypothesis import strategies as st

from k0maru.index.copies import COPY_SIMILARITY, SLOTS, fold, signature, similarity, sketch

PAGE = " ".join(f"word{i % 97} item{i}" for i in range(200))


def sim(a: str, b: str) -> float:
    return similarity(sketch(signature(a)), sketch(signature(b)))


def test_case_whitespace_and_small_edits_keep_the_sketch_close() -> None:
    assert sim(PAGE, PAGE.upper().replace(" ", "\n  ")) == 1.0
    edited = PAGE.replace("item50 ", "changed words here ") + " a short footer line"
    assert sim(PAGE, edited) >= 0.8
    assert sim(PAGE, PAGE[: len(PAGE) // 2]) < 0.8


def test_fold_keeps_the_first_of_each_family_up_to_the_limit() -> None:
    other = " ".join(f"other{i}" for i in range(300))
    sigs = [
        signature(PAGE),
        signature(other),
        signature(PAGE + " footer"),
        b"",
        b"",
        signature(other),
    ]
    assert fold(sigs, 10) == {0: [2], 1: [5], 3: [], 4: []}  # rows without a signature never fold
    assert fold(sigs, 1) == {0: [2]}


def pairwise_fold(signatures: list[bytes], limit: int) -> dict[int, list[int]]:
    """The rule `fold` keeps, written plainly: each sketch against every kept one, in order."""
    kept: dict[int, list[int]] = {}
    sketches = [sketch(s) for s in signatures]
    for i, mine in enumerate(sketches):
        original = next(
            (k for k in kept if mine and similarity(mine, sketches[k]) >= COPY_SIMILARITY), None
        )
        if original is not None:
            kept[original].append(i)
        elif len(kept) < limit:
            kept[i] = []
    return kept


# windows of one run of hashes, some with hashes swapped, and rows without a signature: pairs near,
# at and far from the threshold, and rows close to two kept ones that are not close to each other
@st.composite
def candidates(draw: st.DrawFn) -> list[bytes]:
    rows = []
    for _ in range(draw(st.integers(0, 30))):
        start, size = draw(st.integers(0, 24)), draw(st.integers(8, SLOTS))
        swapped = draw(st.lists(st.integers(-50, 200), max_size=8))
        hashes = sorted(set(range(start, start + size - len(swapped))) | set(swapped))[:SLOTS]
        rows.append(b"" if draw(st.integers(0, 9)) == 0 else array("q", hashes).tobytes())
    return rows


@settings(max_examples=200, deadline=None)
@given(signatures=candidates(), limit=st.integers(0, 12))
def test_fold_gives_what_the_pairwise_rule_gives(signatures: list[bytes], limit: int) -> None:
    assert fold(signatures, limit) == pairwise_fold(signatures, limit)
