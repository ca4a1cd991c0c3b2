"""Known diagnosis paths and fix directions for common error identifiers, used by the distiller
next to what the trace itself says (compiler help lines, assertion diffs, sanitizer stacks), and the
lines by which a distilled card says it is one and whether a fix is recorded in it."""

from __future__ import annotations

GENERATED_MARK = "Distilled by k0maru from"  # the first line of every distilled card
NO_FIX = "No fix recorded yet"  # a card's Fix section until someone records what fixed it

FIXES: dict[str, tuple[str, str]] = {
    "E0502": (
        "Find the shared borrow that is still alive where the mutable borrow happens (the compiler marks "
        "both spans).",
        "End the shared borrow before mutating: copy out the value you need (ids, lengths, "
        "clones), reorder the statements, or split the struct so the borrows touch different fields.",
    ),
    "E0499": (
        "Two `&mut` to the same value are alive at once; look for a second mutable borrow inside a loop "
        "or a closure.",
        "Narrow the first borrow's scope, use indices instead of references, or "
        "`split_at_mut` for disjoint slices.",
    ),
    "E0382": (
        "A value was moved (passed by value, or into a closure) and used afterwards.",
        "Borrow instead of moving (`&x`), clone where the copy is cheap, or restructure so the move is last.",
    ),
    "E0277": (
        "A trait bound is not met; for `Send`/`Sync` a non-thread-safe type (`Rc`, `RefCell`) crosses "
        "threads.",
        "Use `Arc` and `Mutex`/`RwLock` for shared state across threads, or implement the trait.",
    ),
    "BorrowMutError": (
        "A `RefCell` was mutably borrowed while a `borrow()` guard was alive (often re-entrancy "
        "through a callback).",
        "Keep `Ref` guards short (clone the data out) and never call "
        "unknown code while holding one; use `Mutex` across threads.",
    ),
    "heap-use-after-free": (
        "Read the three ASan stacks: the bad access, where the memory was freed, and where "
        "it was allocated.",
        "Make ownership explicit: reference-count shared objects, "
        "clear dangling pointers after free, or free only in the single owner.",
    ),
    "heap-buffer-overflow": (
        "The access is past the end of a heap block; check the size computation and loop "
        "bounds at the reported line.",
        "Fix the bound (off-by-one, sizeof of the wrong type) and prefer length-carrying APIs.",
    ),
    "double-free": (
        "The same pointer is freed twice; find both free sites in the stacks.",
        "Set pointers to NULL after free and give each allocation a single owner.",
    ),
    "TS2345": (
        "An argument's type is wider than the parameter's (often `T | undefined`).",
        "Narrow before the call (`if (x === undefined) ...`) or supply a default (`x ?? fallback`); avoid `x!`.",
    ),
    "TS2322": (
        "A value's type is not assignable to the declared type.",
        "Fix the value or the declaration; convert explicitly (`Number(x)`) rather than casting.",
    ),
    "TS2307": (
        "A module or its type declarations cannot be found.",
        "Install the package or its `@types/...`, or fix `paths`/`moduleResolution` in tsconfig.json.",
    ),
    "deadlock": (
        "Every goroutine is blocked; the trace shows where each one waits (`chan send`, `chan receive`, "
        "`semacquire`).",
        "Start receivers before senders, buffer the channel, close channels that "
        "`range` loops read, and make sure every `WaitGroup.Add` has its `Done`.",
    ),
    "panic": (
        "Read the panic message and the first frame in your code below it.",
        "Guard the failing operation (nil map, index bounds, nil pointer) and add a test for the case.",
    ),
    "FAIL": (
        "A Go test failed; the `_test.go:LINE` line gives the assertion and the values.",
        "Fix the code under test or the expectation; rerun with `go test -run NAME -v`.",
    ),
    "InvalidStateError": (
        "An asyncio future's result was set twice or read before it was done; two code paths "
        "complete the same future.",
        "Check `future.done()` before `set_result`, and funnel completion through one place.",
    ),
    "AssertionError": (
        "Read the assertion's left and right values in the test output.",
        "Decide which side is wrong: the code under test or the expectation; fix that one and keep "
        "the test.",
    ),
    "NullPointerException": (
        "A reference is null at the first frame of your code.",
        "Validate inputs at the boundary, use Optional for maybe-absent values.",
    ),
    "IllegalStateException": (
        "An object was used in a state that does not allow the call.",
        "Check the lifecycle (initialise before use, do not reuse closed objects) at the "
        "first frame.",
    ),
    "SQLITE_BUSY": (
        "Another connection holds the lock; a deferred transaction that upgrades to write fails at once.",
        "Use WAL, a busy_timeout, `BEGIN IMMEDIATE` for write transactions, and one writer per process.",
    ),
}

GENERIC = (
    "Open the first failing location and read the error message in full.",
    "Fix the root cause at that location, then rerun the failing command to confirm.",
)


def fix_for(code: str) -> tuple[str, str]:
    return FIXES.get(code, GENERIC)


def fix_recorded(card_text: str) -> bool:
    """Whether a distilled card records a fix (one found before, or written in since): it no longer
    says that none is recorded."""
    return NO_FIX not in card_text


def unfixed_card(text: str) -> bool:
    """Whether a note is a card k0maru distilled that records no fix: the failure seen again, not
    something learnt (`offload.seen` never names one; the service hands it this)."""
    return GENERATED_MARK in text[:2000] and not fix_recorded(text)
