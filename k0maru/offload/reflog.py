"""The stored logs of `.k0maru/refs`, written and read here only. A kept log is
`<task>_<node>.log.gz`: gzip members of about `BLOCK` bytes of the log each, cut after a newline
where a line fits, then one empty member whose header comment is the block index (each block's byte
offset and the lines before it). A line range or a page near the end decompresses only its blocks;
`gzip -dc` reads the whole file. Plain `.log` refs (older versions, output of interrupted runs) read
as they are."""

from __future__ import annotations

import codecs
import os
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

from k0maru.errors import K0maruError
from k0maru.fsutil import durable_temp

SUFFIX = ".log.gz"
PLAIN = ".log"
BLOCK = 1 << 20
LEVEL = 1
_TAG = b"k0maru-blocks 1"
_HEADER = b"\x1f\x8b\x08\x10\x00\x00\x00\x00\x00\xff"  # gzip, FCOMMENT set, no mtime, OS unknown
_END = b"\x03\x00" + bytes(8)  # an empty deflate stream, its CRC32 and its size (0)
_DIGITS = 12  # the index member's length, last in its comment
_TAIL = _DIGITS + 1 + len(_END)


class CorruptLog(K0maruError):
    """A compressed ref that is cut short or damaged."""


def stem(name: str) -> str:
    """`main_1a2b3c4d` for `main_1a2b3c4d.log.gz` or `main_1a2b3c4d.log`."""
    return name.removesuffix(".gz").removesuffix(PLAIN)


def is_log(path: Path) -> bool:
    return path.name.endswith((SUFFIX, PLAIN))


def write(src: int, size: int, folder: Path) -> Path:
    """The first `size` bytes of the plain log open at file descriptor `src`, compressed into a new
    temp file in `folder` (fsynced, with the mode the user's umask gives); its path. The caller
    renames it."""
    return durable_temp(
        folder,
        lambda out: _write_blocks(src, size, out),
        prefix=f".offload-{os.getpid()}-",
        suffix=".gz.part",
    )


def _write_blocks(src: int, size: int, out: BinaryIO) -> None:
    index: list[bytes] = []
    offset = pos = lines = 0
    while pos < size:
        data = os.pread(src, min(BLOCK, size - pos), pos)
        if not data:
            break
        cut = len(data)
        if pos + cut < size:
            cut = data.rfind(b"\n") + 1 or cut  # a line longer than a block is cut inside
        block = memoryview(data)[:cut]
        member = zlib.compress(block, LEVEL, wbits=31)
        out.write(member)
        index.append(b"%d:%d" % (offset, lines))
        offset += len(member)
        lines += data.count(b"\n", 0, cut)
        pos += cut
    comment = b" ".join([_TAG, *index]) + b" "
    length = len(_HEADER) + len(comment) + _TAIL
    out.write(_HEADER + comment + b"%0*d\x00" % (_DIGITS, length) + _END)


def _corrupt(path: Path, detail: str) -> CorruptLog:
    shown = path.relative_to(Path.cwd()) if path.is_relative_to(Path.cwd()) else path
    return CorruptLog(
        f"log file {shown} is cut short or corrupt ({detail}); "
        f"`gzip -dc {shown}` shows what is left of it"
    )


def _index(path: Path, fh: BinaryIO) -> tuple[list[tuple[int, int]], int]:
    """([(byte offset, lines before)] per block, where the index member starts)."""
    size = os.fstat(fh.fileno()).st_size
    if size < len(_HEADER) + len(_TAG) + _TAIL:
        raise _corrupt(path, f"{size} bytes")
    fh.seek(size - _TAIL)
    tail = fh.read(_TAIL)
    digits = tail[:_DIGITS]
    if not tail.endswith(b"\x00" + _END) or not digits.isdigit():
        raise _corrupt(path, "no block index at its end")
    length = int(digits)
    if not _TAIL < length <= size:
        raise _corrupt(path, "bad block index")
    fh.seek(size - length)
    member = fh.read(length)
    words = member[len(_HEADER) : -_TAIL].split()
    if not member.startswith(_HEADER) or b" ".join(words[:2]) != _TAG:
        raise _corrupt(path, "bad block index")
    try:
        blocks = [(int(a), int(b)) for a, b in (w.split(b":") for w in words[2:])]
    except ValueError:
        raise _corrupt(path, "bad block index") from None
    end = size - length
    if any(not 0 <= off <= end for off, _ in blocks) or blocks != sorted(blocks):
        raise _corrupt(path, "bad block index")
    return blocks, end


def _pieces(path: Path, start: int) -> Iterator[tuple[int, bytes]]:
    """The log's bytes from a point at or before line `start`'s first byte: the first item says how
    many lines came before that point (its bytes are b""), then the bytes in pieces."""
    with path.open("rb") as fh:
        if not path.name.endswith(".gz"):
            yield 0, b""
            while piece := fh.read(BLOCK):
                yield 0, piece
            return
        blocks, end = _index(path, fh)
        # the last block with fewer than start-1 lines before it holds line `start`'s first byte
        first = max((i for i, (_, before) in enumerate(blocks) if before < start - 1), default=0)
        yield (blocks[first][1] if blocks else 0), b""
        for i in range(first, len(blocks)):
            offset = blocks[i][0]
            stop = blocks[i + 1][0] if i + 1 < len(blocks) else end
            fh.seek(offset)
            data = fh.read(stop - offset)
            z = zlib.decompressobj(wbits=31)
            try:
                raw = z.decompress(data)
            except zlib.error as exc:
                raise _corrupt(path, f"block {i + 1} of {len(blocks)}: {exc}") from None
            if len(data) < stop - offset or not z.eof or z.unused_data:
                raise _corrupt(path, f"block {i + 1} of {len(blocks)} is incomplete")
            yield 0, raw


def lines(path: Path, start: int = 1, limit: int | None = None) -> Iterator[tuple[int, bytes]]:
    """(line number, line without its newline) from line `start` on; a line is split at "\\n" only,
    as the offload counted it. `limit`: a longer line comes back cut to its first `limit` bytes."""
    pieces = _pieces(path, start)
    n = next(pieces)[0]  # complete lines passed
    carry = bytearray()
    for _, piece in pieces:
        pos = 0
        if n < start - 1:  # whole pieces before the range are skipped without splitting them
            count = piece.count(b"\n")
            if n + count < start - 1:
                n += count
                carry.clear()
                continue
        while (cut := piece.find(b"\n", pos)) >= 0:
            n += 1
            if n >= start:
                _append(carry, piece, pos, cut, limit)
                yield n, bytes(carry)
            carry.clear()
            pos = cut + 1
        _append(carry, piece, pos, len(piece), limit)
    if carry and n + 1 >= start:
        yield n + 1, bytes(carry)


def _append(carry: bytearray, piece: bytes, a: int, b: int, limit: int | None) -> None:
    if limit is not None:
        b = min(b, a + max(limit - len(carry), 0))
    carry += piece[a:b]


def text(path: Path) -> Iterator[str]:
    """The whole log as text in pieces (UTF-8, undecodable bytes replaced)."""
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    for _, piece in _pieces(path, 1):
        yield decoder.decode(piece)
    yield decoder.decode(b"", final=True)
