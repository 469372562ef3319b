#!/usr/bin/python3
# Oracle for src/rows rows files (SPEC §1.7-1.8) and the Megatron-LM export, written from the formats' definitions
# with numpy, hashlib and struct only (no code of ours).
# Usage: rows_oracle.py hash R L SEED     -> sha256 of R x L formula rows as little-endian int32 (row-major)
#        rows_oracle.py megatron PREFIX   -> JSON summary of PREFIX.idx / PREFIX.bin read the way Megatron-LM's
#                                            _IndexReader and IndexedDataset do
# Formula rows (the tests build the same ids in C++): id(i) = (i * 2654435761 + SEED) mod 2147483647, i = r*L + k.
import hashlib
import json
import struct
import sys

import numpy as np

DTYPES = {1: np.uint8, 2: np.int8, 3: np.int16, 4: np.int32, 5: np.int64, 6: np.float64, 7: np.float32, 8: np.uint16}


def formula_rows(r, l, seed):
    i = np.arange(r * l, dtype=np.uint64)
    ids = (i * np.uint64(2654435761) + np.uint64(seed)) % np.uint64(2147483647)
    return ids.astype(np.int32).reshape(r, l)


def cmd_hash(r, l, seed):
    rows = formula_rows(r, l, seed)
    print(hashlib.sha256(rows.astype("<i4").tobytes(order="C")).hexdigest())


def cmd_megatron(prefix):
    with open(prefix + ".idx", "rb") as f:
        header = f.read(9)
        version = struct.unpack("<Q", f.read(8))[0]
        code = struct.unpack("<B", f.read(1))[0]
        seq_count = struct.unpack("<Q", f.read(8))[0]
        doc_count = struct.unpack("<Q", f.read(8))[0]
        offset = f.tell()
    idx = np.memmap(prefix + ".idx", mode="r", order="C")
    lengths = np.frombuffer(idx, dtype=np.int32, count=seq_count, offset=offset)
    pointers = np.frombuffer(idx, dtype=np.int64, count=seq_count, offset=offset + lengths.nbytes)
    docs = np.frombuffer(idx, dtype=np.int64, count=doc_count, offset=offset + lengths.nbytes + pointers.nbytes)
    idx_end = offset + lengths.nbytes + pointers.nbytes + docs.nbytes
    dtype = DTYPES[code]
    bin_ = np.memmap(prefix + ".bin", mode="r", order="C")
    h = hashlib.sha256()
    for i in range(seq_count):
        seq = np.frombuffer(bin_, dtype=dtype, count=int(lengths[i]), offset=int(pointers[i]))
        h.update(seq.astype("<i4").tobytes())
    print(json.dumps({
        "header_ok": header == b"MMIDIDX\x00\x00",
        "version": version,
        "dtype_code": code,
        "sequence_count": seq_count,
        "document_count": doc_count,
        "lengths": sorted(set(int(x) for x in lengths)),
        "pointers_contiguous": bool(seq_count == 0 or (pointers[0] == 0 and np.all(
            np.diff(pointers) == lengths[:-1].astype(np.int64) * np.dtype(dtype).itemsize))),
        "document_indices": [int(x) for x in docs[:5]] + ([int(docs[-1])] if doc_count > 5 else []),
        "idx_bytes": len(idx),
        "idx_expected_bytes": idx_end,
        "bin_bytes": len(bin_),
        "tokens_sha256": h.hexdigest(),
    }))


def main():
    if sys.argv[1] == "hash":
        cmd_hash(int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]))
    elif sys.argv[1] == "megatron":
        cmd_megatron(sys.argv[2])
    else:
        sys.exit("unknown mode " + sys.argv[1])


if __name__ == "__main__":
    main()
