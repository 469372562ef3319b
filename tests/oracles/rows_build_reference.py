#!/usr/bin/python3
"""Independent reference for a whole rows build (SPEC §1), from the reference implementations only:
Python Jinja2 configured as transformers' apply_chat_template configures it, Hugging Face tokenizers 0.23.2
(through tests/oracles/tokenize.js and its Node binding) and numpy's default_rng permutation.

usage: rows_build_reference.py CONVERSATIONS.jsonl TOKENIZER_DIR ROW_LENGTH SEED [ROWS] [--config F] [--template F]
prints one JSON line: {"rows": R, "rows_sha256": H, "tokens": T, "tokens_dropped": D}
Run with /usr/bin/python3 (Debian's python3-jinja2 and python3-numpy)."""
import argparse
import datetime
import hashlib
import json
import os
import struct
import subprocess
import sys

import jinja2
import numpy as np
from jinja2.ext import loopcontrols
from jinja2.sandbox import ImmutableSandboxedEnvironment

ap = argparse.ArgumentParser()
ap.add_argument("conversations")
ap.add_argument("tokenizer_dir")
ap.add_argument("row_length", type=int)
ap.add_argument("seed", type=int)
ap.add_argument("rows", type=int, nargs="?")
ap.add_argument("--config")
ap.add_argument("--template")
ap.add_argument("--today", default="2026-01-01")
a = ap.parse_args()

config = json.load(open(a.config or os.path.join(a.tokenizer_dir, "tokenizer_config.json"), encoding="utf-8"))
if a.template:
    source = open(a.template, encoding="utf-8").read()
elif os.path.exists(os.path.join(a.tokenizer_dir, "chat_template.jinja")):
    source = open(os.path.join(a.tokenizer_dir, "chat_template.jinja"), encoding="utf-8").read()
else:
    source = config["chat_template"]


def raise_exception(message):
    raise jinja2.exceptions.TemplateError(message)


def tojson(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
    return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)


today = datetime.datetime.strptime(a.today, "%Y-%m-%d")
env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True, extensions=[loopcontrols])
env.filters["tojson"] = tojson
env.globals["raise_exception"] = raise_exception
env.globals["strftime_now"] = lambda fmt: today.strftime(fmt)
template = env.from_string(source)


def token(v):
    return v["content"] if isinstance(v, dict) else v


special = {k: token(config[k]) for k in ("bos_token", "eos_token", "pad_token", "unk_token") if config.get(k) is not None}

conversations = [json.loads(line)["messages"] for line in open(a.conversations, encoding="utf-8") if line.strip()]
rendered = [template.render(messages=m, tools=None, documents=None, add_generation_prompt=False, **special)
            for m in conversations]

tok_json = os.path.join(a.tokenizer_dir, "tokenizer.json")
here = os.path.dirname(os.path.abspath(__file__))
modules = os.path.join(here, "..", "..", "third_party", "oracles", "node_modules")
requests = "".join(json.dumps({"tokenizer": tok_json, "text": t}) + "\n" for t in rendered)
requests += json.dumps({"tokenizer": tok_json, "text": special["eos_token"]}) + "\n"
out = subprocess.run(["node", os.path.join(here, "tokenize.js"), modules], input=requests.encode("utf-8"),
                     capture_output=True, check=True).stdout.decode("utf-8").splitlines()
ids = [json.loads(line)["ids"] for line in out]
eos_ids = ids.pop()
assert len(eos_ids) == 1, eos_ids
eos = eos_ids[0]

order = np.random.default_rng(a.seed).permutation(len(conversations))
L = a.row_length
stream = []
digest = hashlib.sha256()
rows = 0
tokens = 0
for k, i in enumerate(order):
    if k:
        stream.append(eos)
    stream.extend(ids[i])
    tokens += len(ids[i]) + (1 if k else 0)
    start = 0
    while len(stream) - start >= L and (a.rows is None or rows < a.rows):
        digest.update(struct.pack("<%di" % L, *stream[start:start + L]))
        start += L
        rows += 1
    del stream[:start]
    if a.rows is not None and rows >= a.rows:
        break
dropped = len(stream)
print(json.dumps({"rows": rows, "rows_sha256": digest.hexdigest(), "tokens": tokens, "tokens_dropped": dropped}))
