"""Compressed refs (offload/reflog.py, #27): every real log round-trips byte for byte, a line range
reads only its blocks, grep and line numbers match the plain file, a ref cut short or damaged is one
line, old plain refs still read and prune, and the size cap counts the bytes on disk."""

from __future__ import annotations

import gzip
import io
import json
import os
import random
from pathlib import Path
from typing import Any

import pytest

from k0maru.cli.main import main
from k0maru.offload import reflog, slices
from tests.helpers import REPO, errors

DATA = REPO / "tests" / "data" / "logs"  # the dev logs; heldout/ is not read


def pack(folder: Path, data: bytes, name: str = "t_x.log.gz") -> Path:
    plain = folder / "plain.log"
    plain.write_bytes(data)
    with plain.open("rb") as fh:
        part = reflog.write(fh.fileno(), len(data), folder)
    return part.replace(folder / name)


def split(data: bytes) -> list[bytes]:
    rows = data.split(b"\n")
    if data.endswith(b"\n"):
        rows.pop()
    return rows


@pytest.mark.parametrize("block", [reflog.BLOCK, 4096])
def test_every_real_log_round_trips_byte_for_byte(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, block: int
) -> None:
    monkeypatch.setattr(reflog, "BLOCK", block)
    logs = sorted(DATA.glob("*.log"))
    assert len(logs) > 100
    raw = packed = 0
    for log in logs:
        data = log.read_bytes()
        ref = pack(tmp_path, data)
        assert gzip.decompress(ref.read_bytes()) == data, log.name  # any gzip reader reads it
        rows = split(data)
        assert list(reflog.lines(ref)) == list(enumerate(rows, start=1)), log.name
        assert "".join(reflog.text(ref)) == data.decode("utf-8", "replace"), log.name
        middle = len(rows) // 2 + 1
        assert [t for _, t in reflog.lines(ref, middle)] == rows[middle - 1 :], log.name
        raw, packed = raw + len(data), packed + ref.stat().st_size
    assert packed * 3 < raw


def test_line_ranges_at_block_boundaries(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Blocks of 64 bytes: lines end exactly at a block's end, span several blocks, or are empty."""
    monkeypatch.setattr(reflog, "BLOCK", 64)
    rows = [b"" if i % 11 == 0 else b"x" * (i * 7 % 150) + b" %d \xc3\xa9" % i for i in range(300)]
    data = b"\n".join(rows)  # the last line has no newline
    ref = pack(tmp_path, data)
    plain = tmp_path / "old.log"
    plain.write_bytes(data)
    numbered = list(enumerate(rows, start=1))
    for start in range(1, len(rows) + 2):
        assert list(reflog.lines(ref, start)) == numbered[start - 1 :], start
    for a in range(1, 301, 3):
        assert slices.line_range(ref, a, a + 4) == slices.line_range(plain, a, a + 4), a
    assert slices.line_range(ref, 299, 400)[-1] == (300, "x" * (299 * 7 % 150) + " 299 é")


def test_a_page_near_the_end_reads_only_its_blocks(tmp_path: Path) -> None:
    rows = [f"step {i}: {'ok ' * (i % 40)}".encode() for i in range(60_000)]
    ref = pack(tmp_path, b"\n".join(rows) + b"\n")
    data = bytearray(ref.read_bytes())
    data[200] ^= 0xFF  # the first block is damaged
    ref.write_bytes(bytes(data))
    end = slices.line_range(ref, 59_990, 60_000)
    assert end == [(n, rows[n - 1].decode()) for n in range(59_990, 60_001)]
    with pytest.raises(reflog.CorruptLog, match=r"is cut short or corrupt \(block 1 of \d+"):
        slices.line_range(ref, 1, 5)


def test_grep_on_a_compressed_ref_matches_the_plain_file(tmp_path: Path) -> None:
    data = (DATA / "pytest_many_verbose.log").read_bytes() * 40
    ref = pack(tmp_path, data)
    plain = tmp_path / "old.log"
    plain.write_bytes(data)
    found = slices.grep(ref, r"ZeroDivision\w+", context=2, max_matches=5, skip=3)
    assert found == slices.grep(plain, r"ZeroDivision\w+", context=2, max_matches=5, skip=3)
    assert found[1] == 40 * data[: len(data) // 40].count(b"ZeroDivisionError")
    assert [n for n, _, match in found[0] if match][0] > 332  # the skipped matches were in copy 1


def _offload(
    vault: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, data: bytes
) -> dict[str, Any]:
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(data)))
    assert main(["offload", "--vault", str(vault), "--task-id", "t", "--json"]) == 0
    report: dict[str, Any] = json.loads(capsys.readouterr().out)
    return report


def test_a_ref_cut_short_is_one_clear_line(
    vault: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(vault)  # the error names the file relative to the current folder
    rec = _offload(vault, capsys, monkeypatch, (DATA / "pytest_many_verbose.log").read_bytes())
    ref = vault / rec["log_path"]
    assert ref.name.endswith(".log.gz")
    ref.write_bytes(ref.read_bytes()[:-40])
    for flags in (["--lines", "1:5"], ["--grep", "Error"]):
        code = main(["log", "show", rec["node_id"], "--vault", str(vault), *flags])
        out, err = capsys.readouterr()
        err = errors(err)
        assert code == 2 and out == "" and err.count("\n") == 1, err
        assert f"log file {rec['log_path']} is cut short or corrupt" in err
        assert f"`gzip -dc {rec['log_path']}` shows" in err


def test_old_plain_refs_still_read_and_prune(
    vault: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A plain `.log` with its sidecar, as offload wrote them before #27, read after the index is
    lost."""
    data = (DATA / "pytest_many_verbose.log").read_bytes()
    rec = _offload(vault, capsys, monkeypatch, data)
    refs = vault / ".k0maru" / "refs"
    (refs / f"t_{rec['node_id']}.log.gz").unlink()
    (refs / f"t_{rec['node_id']}.log").write_bytes(data)
    sidecar = refs / f"t_{rec['node_id']}.json"
    old = json.loads(sidecar.read_text())
    sidecar.write_text(json.dumps({**old, "log_path": old["log_path"].removesuffix(".gz")}))
    for f in (vault / ".k0maru").glob("index.sqlite*"):
        f.unlink()
    assert (
        main(
            ["log", "show", f"t_{rec['node_id']}.log", "--vault", str(vault), "--lines", "330:332"]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert [int(ln.split()[0]) for ln in out.splitlines()] == [330, 331, 332]
    assert out.splitlines()[0].endswith(split(data)[329].decode())
    assert (
        main(
            [
                "log",
                "show",
                rec["node_id"],
                "--vault",
                str(vault),
                "-F",
                "--grep",
                "ZeroDivisionError:",
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert (
        "327: E       ZeroDivisionError: integer division" in out and "(2 matching line(s))" in out
    )
    assert main(["log", "prune", "--vault", str(vault), "--keep", "0"]) == 0
    assert capsys.readouterr().out.startswith("removed 1 log(s)") and list(refs.iterdir()) == []


def test_prune_counts_compressed_bytes_on_disk(
    vault: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    rng = random.Random(5)
    nodes = []
    for _ in range(3):  # 0.6 MB each, about 0.35 MB compressed
        data = "".join(f"step {i}: {rng.randbytes(32).hex()}\n" for i in range(8000))
        data += 'Traceback (most recent call last):\n  File "app.py", line 3, in <module>\n'
        nodes.append(_offload(vault, capsys, monkeypatch, (data + "ValueError: x\n").encode()))
    refs = vault / ".k0maru" / "refs"
    on_disk = sum(p.stat().st_size for p in refs.iterdir())
    assert main(["log", "prune", "--vault", str(vault), "--max-mb", "1", "--json"]) == 0
    done = json.loads(capsys.readouterr().out)
    assert done["removed"] == 1 and done["kept"] == 2
    assert done["kept_bytes"] == sum(p.stat().st_size for p in refs.iterdir())
    assert done["freed_bytes"] + done["kept_bytes"] == on_disk
    assert sorted(p.name for p in refs.iterdir()) == sorted(
        f"t_{n['node_id']}{ext}" for n in nodes[1:] for ext in (".json", ".log.gz")
    )


def test_a_compressed_copy_left_by_a_killed_offload_goes_its_spool_stays(tmp_path: Path) -> None:
    from k0maru.offload.runner import keep_orphaned_spools

    dead = 4_999_999  # above any pid_max: no such process
    part = tmp_path / f".offload-{dead}-abc.gz.part"
    ours = tmp_path / f".offload-{os.getpid()}-abc.gz.part"
    spool = tmp_path / f".offload-{dead}-def.tmp"
    for f in (part, ours, spool):
        f.write_bytes(b"step 1\n")
    assert keep_orphaned_spools(tmp_path) == [tmp_path / f"partial-{dead}-0.log"]
    assert sorted(p.name for p in tmp_path.iterdir()) == [ours.name, f"partial-{dead}-0.log"]


def test_line_numbers_agree_with_the_summary_on_a_log_with_progress_bars(tmp_path: Path) -> None:
    """A lone "\\r" does not end a line, for the analyzer and for every reader, plain refs too."""
    from k0maru.offload.analyzer import LogAnalyzer

    data = b"".join(b"fetch %d: 10%%\r50%%\r100%%\n" % i for i in range(99)) + b"error: boom\n"
    analyzer = LogAnalyzer()
    analyzer.feed(data.decode())
    assert analyzer.close().all_failures[0].line == 100
    plain = tmp_path / "old.log"
    plain.write_bytes(data)
    for ref in (pack(tmp_path, data), plain):
        assert slices.line_range(ref, 100, 100) == [(100, "error: boom")]
        assert slices.grep(ref, "boom", context=0)[0] == [(100, "error: boom", True)]
