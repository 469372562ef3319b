#!/usr/bin/env python3
"""The protocol's rows build (SPEC §1) as a user writes it with the Hugging Face stack, timed beside
`openrecipes rows build` by bench/rows_scale.sh: transformers' apply_chat_template(tokenize=False) in a process
pool of WORKERS (in the process itself for 1), tokenizers' encode_batch_fast(add_special_tokens=False) with
RAYON_NUM_THREADS=WORKERS, numpy's default_rng(SEED).permutation, the EOS join and the cut into rows of
ROW_LENGTH, and pyarrow's parquet writer (one list<int32> column, zstd). Prints one JSON line:
{"rows", "rows_sha256", "tokens", "rendered_bytes", "stages": {read, render, tokenize, pack, write}}.

usage: hf_stack_rows.py CONVERSATIONS.jsonl TOKENIZER_DIR ROW_LENGTH SEED WORKERS OUT.parquet
Needs transformers, tokenizers, numpy and pyarrow (the device machine has them; they are not installed here)."""
import os
import sys

if len(sys.argv) != 7:
    sys.exit(__doc__)
WORKERS = int(sys.argv[5])
os.environ["RAYON_NUM_THREADS"] = str(WORKERS)  # before tokenizers starts its thread pool
os.environ["TOKENIZERS_PARALLELISM"] = "true"

import hashlib  # noqa: E402
import json  # noqa: E402
import multiprocessing  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

TOKENIZER = None


def load_tokenizer(folder):
    global TOKENIZER
    from transformers import AutoTokenizer

    TOKENIZER = AutoTokenizer.from_pretrained(folder)


def render(conversations):
    return [TOKENIZER.apply_chat_template(m, tokenize=False) for m in conversations]


def main():
    source, folder, row_length, seed, out = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[6]
    stages = {}
    t = time.perf_counter()

    def stage(name):
        nonlocal t
        now = time.perf_counter()
        stages[name] = now - t
        t = now

    with open(source, encoding="utf-8") as f:
        conversations = [json.loads(line)["messages"] for line in f if line.strip()]
    n = len(conversations)
    stage("read")

    chunks = [conversations[i:i + 512] for i in range(0, n, 512)]
    if WORKERS == 1:
        load_tokenizer(folder)
        rendered = [text for chunk in chunks for text in render(chunk)]
    else:
        ctx = multiprocessing.get_context("fork")
        with ctx.Pool(WORKERS, initializer=load_tokenizer, initargs=(folder,)) as pool:
            rendered = [text for part in pool.imap(render, chunks) for text in part]  # imap keeps the order
    stage("render")

    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(os.path.join(folder, "tokenizer.json"))
    with open(os.path.join(folder, "tokenizer_config.json"), encoding="utf-8") as f:
        eos_token = json.load(f)["eos_token"]
    eos = tok.token_to_id(eos_token["content"] if isinstance(eos_token, dict) else eos_token)
    encodings = tok.encode_batch_fast(rendered, add_special_tokens=False)
    ids = [np.asarray(e.ids, dtype=np.int32) for e in encodings]
    stage("tokenize")

    order = np.random.default_rng(seed).permutation(n)
    eos_piece = np.asarray([eos], dtype=np.int32)
    pieces = []
    for k, i in enumerate(order):
        if k:
            pieces.append(eos_piece)
        pieces.append(ids[i])
    stream = np.concatenate(pieces)
    rows = len(stream) // row_length
    table = stream[: rows * row_length].reshape(rows, row_length)
    digest = hashlib.sha256(table.astype("<i4").tobytes()).hexdigest()
    stage("pack")

    import pyarrow as pa
    import pyarrow.parquet as pq

    offsets = pa.array(np.arange(0, rows * row_length + 1, row_length, dtype=np.int32))
    column = pa.ListArray.from_arrays(offsets, pa.array(table.reshape(-1)))
    pq.write_table(pa.table({"input_ids": column}), out, compression="zstd")
    stage("write")

    print(json.dumps({"rows": rows, "rows_sha256": digest, "tokens": int(len(stream)),
                      "rendered_bytes": sum(len(r.encode("utf-8")) for r in rendered), "stages": stages}))


if __name__ == "__main__":
    main()
