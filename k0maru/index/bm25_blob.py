"""The stored BM25 main segment's blob: its chunks' ids and their notes' ids, under a checksummed
header (each term's postings are rows of `bm25_terms`)."""

from __future__ import annotations

import struct
import zlib
from array import array
from dataclasses import dataclass

# magic, terms format, CRC-32 of what follows, chunks, average chunk length, documents bm25s
# counted; then the chunks' ids and their notes' ids (int64 each)
HEADER = struct.Struct("<4sIIIdI")
MAGIC = b"k0bm"


@dataclass(frozen=True, slots=True)
class SegmentBlob:
    terms_format: int  # the tokenizer's format the terms were made in
    chunk_ids: array[int]  # sorted: a chunk's position in the segment
    doc_ids: array[int]
    avgdl: float
    num_docs: int

    def pack(self) -> bytes:
        ids = self.chunk_ids.tobytes() + self.doc_ids.tobytes()
        n = len(self.chunk_ids)
        head = HEADER.pack(MAGIC, self.terms_format, zlib.crc32(ids), n, self.avgdl, self.num_docs)
        return head + ids

    @classmethod
    def unpack(cls, blob: bytes) -> SegmentBlob:
        """ValueError if `blob` is not such a segment or is damaged."""
        if len(blob) < HEADER.size:
            raise ValueError("not a BM25 segment")
        magic, terms_format, crc, n, avgdl, num_docs = HEADER.unpack_from(blob)
        ids = memoryview(blob)[HEADER.size :]
        if magic != MAGIC or len(ids) != 16 * n or zlib.crc32(ids) != crc:
            raise ValueError("a damaged BM25 segment")
        chunk_ids, doc_ids = array("q"), array("q")
        chunk_ids.frombytes(ids[: 8 * n])
        doc_ids.frombytes(ids[8 * n :])
        return cls(terms_format, chunk_ids, doc_ids, avgdl, num_docs)
