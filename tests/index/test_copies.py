"""Near-identical notes by MinHash sketch: copies fold, different notes and unsigned rows do not."""

from k0maru.index.copies import fold, signature, similarity, sketch

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
