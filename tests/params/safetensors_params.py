#!/usr/bin/env python3
"""Reference reader for the params tests and bench: reads the safetensors headers of a checkpoint (folder with
model.safetensors.index.json, or one .safetensors file) with the standard library only, and prints
{"shards", "tensors", "elements", "data_bytes"} as JSON. Elements are counted as stored (no FP4 unpacking, no
classing): it checks the header reader, not the counting rules. Independent of src/params."""
import json
import os
import struct
import sys

BITS = {"BOOL": 8, "F4": 4, "F6_E2M3": 6, "F6_E3M2": 6, "U8": 8, "I8": 8, "F8_E5M2": 8, "F8_E4M3": 8,
        "F8_E8M0": 8, "I16": 16, "U16": 16, "F16": 16, "BF16": 16, "I32": 32, "U32": 32, "F32": 32, "C64": 64,
        "F64": 64, "I64": 64, "U64": 64}


def read_header(path):
    with open(path, "rb") as f:
        (n,) = struct.unpack("<Q", f.read(8))
        if n > 100_000_000:
            raise SystemExit(f"{path}: header length {n} over 100 MB")
        header = json.loads(f.read(n))
    size = os.path.getsize(path)
    header.pop("__metadata__", None)
    end = 0
    for name, t in sorted(header.items(), key=lambda kv: kv[1]["data_offsets"]):
        begin, stop = t["data_offsets"]
        elements = 1
        for d in t["shape"]:
            elements *= d
        if begin != end or stop - begin != elements * BITS[t["dtype"]] // 8:
            raise SystemExit(f"{path}: tensor {name}: bad offsets")
        end = stop
    if end != size - 8 - n:
        raise SystemExit(f"{path}: data region not covered")
    return header, end


def main():
    path = sys.argv[1]
    if os.path.isdir(path):
        index = os.path.join(path, "model.safetensors.index.json")
        if os.path.exists(index):
            with open(index) as f:
                files = sorted(set(json.load(f)["weight_map"].values()))
            files = [os.path.join(path, name) for name in files]
        else:
            files = [os.path.join(path, "model.safetensors")]
    else:
        files = [path]
    tensors = elements = data = 0
    for file in files:
        header, size = read_header(file)
        tensors += len(header)
        data += size
        for t in header.values():
            n = 1
            for d in t["shape"]:
                n *= d
            elements += n
    print(json.dumps({"shards": len(files), "tensors": tensors, "elements": elements, "data_bytes": data}))


if __name__ == "__main__":
    main()
