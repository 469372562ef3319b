#!/usr/bin/python3
"""active_params.py: N, the active parameters per token of a Hugging Face checkpoint (SPEC §3), from its
safetensors headers and config.json, or from config.json's arithmetic alone, with the Python standard library only.

SPEC §3: N counts every weight applied to each token in a matrix multiply: attention (incl. linear attention and
the sparse-attention indexer), dense and shared-expert MLPs, routers, the output projection (counted even when tied
to the input embedding); routed experts at top-k of the expert count. Left out: input embedding, norms, biases,
position embeddings, integer index tables, MTP layers, vision towers, quantization scales. FP4 weights stored two
per byte count unpacked. docs/params.md gives the rules class by class.

Usage:
    tools/active_params.py <checkpoint folder | model.safetensors.index.json | file.safetensors>
                           [--config config.json] [--json] [--tensors]
    tools/active_params.py --config config.json [--json]      # N from config arithmetic, before a download

config.json defaults to the one beside the checkpoint. Only the 8-byte little-endian header length and the JSON
header of each shard are read, never tensor data. With --config alone, N and the counted classes (and the input
embedding) come from the config's dimensions layer by layer, as `openrecipes params --config` counts them: source
"config", no tensors, no stored total. Bad input (a malformed header or index, a missing shard, a tensor no rule
classes, a config that cannot count the checkpoint, a missing or malformed config field) prints one line on stderr
naming the file, the tensor or field, and the fix, and exits 2.

This is the independent Python counterpart of `openrecipes params` (src/params/), written from the rules rather
than from the C++: tests/params/active_params_test.cpp runs both on every fixture architecture and requires the
same N, totals, scales and per-class tensors, parameters and active parameters, and the same --tensors listing;
tests/data/test_active_params.py runs both with --config alone on every fixture config and requires the same report.
A checkpoint count does not add the config.json arithmetic cross-check that `openrecipes params` adds (its
config_check).
"""

import argparse
import json
import os
import re
import struct
import sys

PROG = "active_params.py"
INT64_MAX = (1 << 63) - 1
UINT64_LIMIT = 1 << 64
MAX_HEADER_BYTES = 100_000_000  # huggingface/safetensors MAX_HEADER_SIZE
MAX_TEXT_FILE_BYTES = 64 << 20  # config.json and the index, as openrecipes reads them
MAX_JSON_DEPTH = 64
INDEX_FILE = "model.safetensors.index.json"
HEADER_FIX = "re-download the file; a safetensors header must describe every byte of the data region"
CONFIG_FIX = "use the checkpoint's own config.json"


class BadInput(Exception):
    """Bad input: `where` (file, tensor, field), what is wrong, and what to do."""

    def __init__(self, where, what, fix=""):
        where = str(where)
        super().__init__(where, what, fix)
        self.where, self.what, self.fix = where, what, fix

    def message(self):
        text = f"{self.where}: {self.what}" if self.where else self.what
        return text + (f" (fix: {self.fix})" if self.fix else "")


_PLAIN = re.compile(r"[\x20-\x26\x28-\x7e]*")


def quote(text, limit=80):
    """'text' for a message: printable ASCII kept, every other byte (and the quote) as \\xNN, cut after `limit`."""
    if len(text) <= limit and _PLAIN.fullmatch(text):
        return "'" + text + "'"
    out = []
    for count, byte in enumerate(text.encode("utf-8", "surrogatepass")):
        if count >= limit:
            out.append("...")
            break
        out.append(chr(byte) if 0x20 <= byte < 0x7F and byte != 0x27 else f"\\x{byte:02x}")
    return "'" + "".join(out) + "'"


def tensor_at(where, name):
    return f"{where}: tensor {quote(name, 200)}"


class _LazyWhere:
    """The "<file>: tensor '<name>'" part of a message, built only when a message needs it."""
    __slots__ = ("file", "name")

    def __init__(self, file, name):
        self.file, self.name = file, name

    def __str__(self):
        return tensor_at(self.file, self.name)


def thousands(n):
    return f"{n:,}"


def utf8_key(text):
    """Sort key giving std::string's byte order."""
    return text.encode("utf-8", "surrogatepass")


# ---- dtypes (huggingface/safetensors Dtype): bits per element, and whether it holds integers --------------------
DTYPES = {
    "BOOL": (8, True), "F4": (4, False), "F6_E2M3": (6, False), "F6_E3M2": (6, False), "U8": (8, True),
    "I8": (8, True), "F8_E5M2": (8, False), "F8_E4M3": (8, False), "F8_E8M0": (8, False),
    "F8_E4M3FNUZ": (8, False), "F8_E5M2FNUZ": (8, False), "I16": (16, True), "U16": (16, True),
    "F16": (16, False), "BF16": (16, False), "I32": (32, True), "U32": (32, True), "F32": (32, False),
    "C64": (64, False), "F64": (64, False), "I64": (64, True), "U64": (64, True),
}


# ---- JSON ------------------------------------------------------------------------------------------------------
class Pairs(list):
    """A JSON object as its (key, value) pairs in document order, duplicates kept."""


class Verbatim:
    """A JSON number a safetensors header may not hold (negative, or not an integer), kept as it was written."""

    def __init__(self, text):
        self.text = text


_LONE_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


def _check_strings(value):
    """Refuses strings holding a lone UTF-16 surrogate (an escape \\ud800 with no pair): not Unicode, so not JSON
    text that a strict reader accepts. Raises UnicodeEncodeError."""
    if isinstance(value, str):
        value.encode("utf-8")
    elif isinstance(value, (Pairs, dict)):
        for k, v in value if isinstance(value, Pairs) else value.items():
            k.encode("utf-8")
            _check_strings(v)
    elif isinstance(value, list):
        for v in value:
            _check_strings(v)


def _loads(text, **hooks):
    """json.loads with NaN and Infinity refused, and lone surrogates refused (checked only when an escape could
    write one)."""
    value = json.loads(text, parse_constant=_no_constant, **hooks)
    if _LONE_SURROGATE_ESCAPE.search(text):
        _check_strings(value)
    return value


def _no_constant(word):
    raise ValueError(f"{word} is not JSON")


def excerpt(value, limit=200):
    """A config value echoed into a message, as openrecipes echoes one: compact JSON, cut after `limit` bytes."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    raw = text.encode("utf-8", "surrogatepass")
    return text if len(raw) <= limit else raw[:limit].decode("utf-8", "ignore") + "..."


def _json_error(where, fix, error, prefix="not valid JSON"):
    if isinstance(error, json.JSONDecodeError):
        return BadInput(where, f"{prefix} at byte {error.pos}: {error.msg}", fix)
    if isinstance(error, UnicodeDecodeError):
        return BadInput(where, f"{prefix} at byte {error.start}: invalid UTF-8", fix)
    if isinstance(error, UnicodeEncodeError):
        code = ord(error.object[error.start])
        return BadInput(where, f"{prefix}: a string holds a lone surrogate escape (\\u{code:04x})", fix)
    if isinstance(error, RecursionError):
        return BadInput(where, f"{prefix}: nested too deeply", fix)
    return BadInput(where, f"{prefix}: {error}", fix)


def check_depth(text, where, fix):
    """Refuses JSON nested deeper than MAX_JSON_DEPTH (brackets outside strings)."""
    if text.count("[") + text.count("{") <= MAX_JSON_DEPTH:
        return
    depth = 0
    for match in re.finditer(r'"(?:[^"\\]|\\.)*"?|[\[\]{}]', text, re.S):
        token = match.group()
        if token in "[{":
            depth += 1
            if depth > MAX_JSON_DEPTH:
                raise BadInput(where, f"JSON nested deeper than {MAX_JSON_DEPTH} levels (at byte {match.start()})",
                               fix)
        elif token in "]}" and depth > 0:
            depth -= 1


def read_text(path):
    try:
        info = os.stat(path)
    except FileNotFoundError:
        raise BadInput(path, "file not found", "check the path") from None
    if not os.path.isfile(path):
        raise BadInput(path, "not a regular file", "point at a file, not a folder or device")
    if info.st_size > MAX_TEXT_FILE_BYTES:
        raise BadInput(path, f"file is {info.st_size} bytes, over the limit of {MAX_TEXT_FILE_BYTES} bytes",
                       "split the file or trim it to what the step needs")
    with open(path, "rb") as f:
        return f.read()


def read_config(path):
    """config.json, parsed strictly: no key twice in one object, no NaN, at most 64 levels deep."""
    fix = "point --config at the model's config.json"
    raw = read_text(path)
    try:
        text = raw.decode("utf-8")
        check_depth(text, path, fix)

        def unique(pairs):
            seen = {}
            for key, value in pairs:
                if key in seen:
                    raise BadInput(path, f'the key "{key}" appears twice in one object (JSON readers disagree on '
                                         "which one wins)", fix)
                seen[key] = value
            return seen

        return _loads(text, object_pairs_hook=unique)
    except (ValueError, RecursionError) as e:
        raise _json_error(path, fix, e) from None


# ---- one safetensors header -------------------------------------------------------------------------------------
class Tensor:
    __slots__ = ("name", "dtype", "shape", "elements", "begin", "end")

    def __init__(self, name, dtype, shape, elements, begin, end):
        self.name, self.dtype, self.shape, self.elements, self.begin, self.end = (
            name, dtype, shape, elements, begin, end)


def _shown(v):
    if isinstance(v, Verbatim):
        return v.text
    if isinstance(v, Pairs):
        return "an object"
    if isinstance(v, list):
        return "an array"
    return json.dumps(v)


def _uints(values):
    """True for a JSON array of integers 0 .. 2^64 - 1."""
    return type(values) is list and all(type(v) is int and 0 <= v < UINT64_LIMIT for v in values)


def _entry_fields(name, entry, where):
    """(dtype, shape, data_offsets) of one header entry, None for a missing one; a malformed entry is an error."""
    at = _LazyWhere(where, name)
    if not isinstance(entry, Pairs):
        raise BadInput(at, f"entry is {_shown(entry)}, not an object with dtype, shape and data_offsets", HEADER_FIX)
    fields = {}
    for key, value in entry:
        if key not in ("dtype", "shape", "data_offsets"):
            raise BadInput(at, f"unexpected key {quote(key)} (a tensor entry has exactly dtype, shape and "
                               "data_offsets)", HEADER_FIX)
        if key in fields:
            raise BadInput(at, f"key {quote(key)} appears twice", HEADER_FIX)
        if key == "dtype" and not isinstance(value, str):
            raise BadInput(at, f"dtype is {_shown(value)}, not a string", HEADER_FIX)
        if key != "dtype":
            what = "a shape dimension holds {}" if key == "shape" else "data_offsets holds {}"
            if not isinstance(value, list) or isinstance(value, Pairs):
                raise BadInput(at, "shape is not an array" if key == "shape" else
                               "data_offsets is not a pair [begin, end]", HEADER_FIX)
            for v in value:
                if not _uints([v]):
                    raise BadInput(at, what.format(_shown(v)) + ", not a non-negative integer", HEADER_FIX)
        fields[key] = value
    return fields.get("dtype"), fields.get("shape"), fields.get("data_offsets")


def _header_entries(root, where):
    """The header's tensor entries as (name, dtype, shape, data_offsets), checking the JSON structure."""
    entries = []
    for name, entry in root:
        if name == "__metadata__":
            if not isinstance(entry, Pairs):
                raise BadInput(where, "__metadata__ is not an object", HEADER_FIX)
            for key, value in entry:
                if not isinstance(value, str):
                    raise BadInput(where, f"__metadata__ {quote(key)} is not a string", HEADER_FIX)
            continue
        # The usual entry, {"dtype": str, "shape": [...], "data_offsets": [...]}, is taken as it is; any other
        # goes through the field-by-field check, which names what is wrong.
        if type(entry) is Pairs and len(entry) == 3:
            (k0, dtype), (k1, shape), (k2, offsets) = entry
            if k0 == "dtype" and k1 == "shape" and k2 == "data_offsets" and type(dtype) is str and _uints(shape) \
                    and _uints(offsets):
                entries.append((name, dtype, shape, offsets))
                continue
        entries.append((name, *_entry_fields(name, entry, where)))
    return entries


# dtype -> values that fill whole bytes: 2 for F4 (one byte), 4 for F6 (three bytes), 1 for byte-sized types.
PACKED = {name: next(n for n in range(1, 9) if n * bits % 8 == 0) for name, (bits, _) in DTYPES.items()}


def _tensor(name, dtype, shape, offsets, where):
    at = _LazyWhere(where, name)
    for key, value in (("dtype", dtype), ("shape", shape), ("data_offsets", offsets)):
        if value is None:
            raise BadInput(at, f"entry lacks {key}", HEADER_FIX)
    if dtype not in DTYPES:
        raise BadInput(at, f"unknown dtype {quote(dtype)} (known: {', '.join(DTYPES)})",
                       "convert the checkpoint with a safetensors release that writes standard dtypes")
    if len(shape) > 64:
        raise BadInput(at, f"shape has {len(shape)} dimensions (limit 64)", HEADER_FIX)
    elements = 1
    for dim in shape:
        elements *= dim
        if elements >= UINT64_LIMIT:
            raise BadInput(at, "shape's element count overflows 64 bits", HEADER_FIX)
    if len(offsets) != 2:
        raise BadInput(at, "data_offsets is not a pair [begin, end]", HEADER_FIX)
    begin, end = offsets
    if end < begin:
        raise BadInput(at, f"data_offsets [{begin}, {end}) end before they begin", HEADER_FIX)
    bits = DTYPES[dtype][0]
    if elements * bits >= UINT64_LIMIT:
        raise BadInput(at, "shape × dtype size overflows 64 bits", HEADER_FIX)
    if elements * bits % 8:
        raise BadInput(at, f"{elements} elements of {dtype} are not a whole number of bytes", HEADER_FIX)
    packed = PACKED[dtype]
    if packed > 1 and shape and shape[-1] % packed:
        group = "a byte" if packed * bits // 8 == 1 else f"{packed * bits // 8} bytes"
        raise BadInput(at, f"shape {_dims(shape)} of {dtype} has last dimension {shape[-1]}, not a multiple of "
                           f"{packed}: {dtype} values are packed {packed} to {group} along the last dimension, so "
                           "each row must fill whole bytes",
                       "re-download or re-export the checkpoint; this tensor's shape cannot hold packed values")
    if end - begin != elements * bits // 8:
        raise BadInput(at, f"data_offsets [{begin}, {end}) hold {end - begin} bytes, but shape {_dims(shape)} of "
                           f"{dtype} needs {elements * bits // 8} bytes", HEADER_FIX)
    return Tensor(name, dtype, shape, elements, begin, end)


def _dims(shape):
    return "[" + ",".join(str(d) for d in shape) + "]"


def _parse_int(text):
    return Verbatim(text) if text[0] == "-" else int(text)


def parse_header(raw, data_bytes, where):
    """The tensors of one header (bytes of JSON) over a data region of `data_bytes`, sorted by name."""
    if not raw.startswith(b"{"):
        raise BadInput(where, "header does not start with '{' (not a safetensors file?)", HEADER_FIX)
    try:
        text = raw.decode("utf-8")
        # Negative integers (never valid in a header, not even -0) and other numbers are kept as written, for the
        # message; without a '-' there are no negative ones.
        root = _loads(text, object_pairs_hook=Pairs, parse_int=_parse_int if "-" in text else None,
                      parse_float=Verbatim)
    except (ValueError, RecursionError) as e:
        raise _json_error(where, HEADER_FIX, e, f"header is not valid JSON (of {len(raw)} bytes)") from None
    tensors = [_tensor(*entry, where) for entry in _header_entries(root, where)]
    # The tensors must tile [0, data_bytes) exactly: no overlap, no gap, nothing after the last one.
    at, previous = 0, None
    for t in sorted(tensors, key=lambda t: (t.begin, t.end, utf8_key(t.name))):
        if t.end > data_bytes:
            raise BadInput(tensor_at(where, t.name), f"data_offsets [{t.begin}, {t.end}) run past the data region, "
                                                     f"which holds {data_bytes} bytes", HEADER_FIX)
        if t.begin < at:
            raise BadInput(tensor_at(where, t.name), f"data_offsets [{t.begin}, {t.end}) overlap tensor "
                                                     f"{quote(previous.name, 200)} at [{previous.begin}, "
                                                     f"{previous.end})", HEADER_FIX)
        if t.begin > at:
            raise BadInput(tensor_at(where, t.name), f"data_offsets [{t.begin}, {t.end}) leave bytes [{at}, "
                                                     f"{t.begin}) of the data region to no tensor", HEADER_FIX)
        at, previous = t.end, t
    if at != data_bytes:
        raise BadInput(where, f"tensors end at byte {at} of the data region, but the file holds {data_bytes} data "
                              "bytes", HEADER_FIX)
    tensors.sort(key=lambda t: utf8_key(t.name))
    for a, b in zip(tensors, tensors[1:]):
        if a.name == b.name:
            raise BadInput(tensor_at(where, b.name), "appears twice in the header", HEADER_FIX)
    return tensors


def read_header(path):
    """Reads the 8-byte length and the JSON header of one .safetensors file (never its data)."""
    try:
        info = os.stat(path)
    except FileNotFoundError:
        raise BadInput(path, "file not found", "check the path") from None
    if not os.path.isfile(path):
        raise BadInput(path, "not a regular file", "point at a .safetensors file")
    size = info.st_size
    if size < 8:
        raise BadInput(path, f"file is {size} bytes, shorter than the 8-byte header length", HEADER_FIX)
    with open(path, "rb") as f:
        (length,) = struct.unpack("<Q", f.read(8))
        if length > MAX_HEADER_BYTES:
            raise BadInput(path, f"header length {length} is over the 100 MB limit ({MAX_HEADER_BYTES} bytes)",
                           HEADER_FIX)
        if length > size - 8:
            raise BadInput(path, f"header length {length} runs past the end of the file ({size} bytes)", HEADER_FIX)
        raw = f.read(length)
    if len(raw) != length:
        raise BadInput(path, "file ended while reading the header (file changed while reading?)")
    return parse_header(raw, size - 8 - length, path)


# ---- the checkpoint: a folder, its index, or one file -----------------------------------------------------------
def _extension(name):
    """The file name's extension as std::filesystem gives it ('' for '.safetensors' alone)."""
    dot = name.rfind(".")
    return "" if dot <= 0 or name == ".." else name[dot:]


def _read_index(index_path):
    """(tensor, shard) pairs of the index's weight_map, in document order."""
    where = index_path
    fix = "point at the checkpoint's model.safetensors.index.json"
    raw = read_text(index_path)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise _json_error(where, "re-download the index from the checkpoint's repository", e) from None
    check_depth(text, where, fix)
    try:
        root = _loads(text, object_pairs_hook=Pairs)
    except (ValueError, RecursionError) as e:
        raise _json_error(where, "re-download the index from the checkpoint's repository", e) from None
    if not isinstance(root, Pairs):
        raise BadInput(where, "is not a JSON object", fix)
    entries, saw_map = [], False
    for key, value in root:
        if key != "weight_map":
            continue
        if not isinstance(value, Pairs):
            raise BadInput(where, "has no weight_map object (tensor name -> shard file)", fix)
        saw_map = True
        for tensor, shard in value:
            if not isinstance(shard, str):
                kind = "null" if shard is None else "a boolean" if isinstance(shard, bool) else \
                    "a number" if isinstance(shard, (int, float)) else None
                raise BadInput(where, f"weight_map {quote(tensor, 200)}: shard name is "
                                      f"{kind + ', ' if kind else ''}not a string", fix)
            entries.append((tensor, shard))
    if not saw_map:
        raise BadInput(where, "has no weight_map object (tensor name -> shard file)", fix)
    if not entries:
        raise BadInput(where, "weight_map is empty", "re-download the index from the checkpoint's repository")
    return entries


def open_index(index_path):
    """[(shard file, tensors sorted by name)], shards sorted by file name, checked against the index."""
    where = index_path
    entries = _read_index(index_path)
    members = {}
    for tensor, shard in entries:
        members.setdefault(shard, []).append(tensor)
    shard_names = sorted(members, key=utf8_key)
    shard_of = {}
    for shard in shard_names:
        for tensor in members[shard]:
            if tensor in shard_of:
                raise BadInput(f"{where}: weight_map {quote(tensor, 200)}", "is listed twice",
                               "re-download the index from the checkpoint's repository")
            shard_of[tensor] = shard
    folder = os.path.dirname(index_path) or "."
    files = []
    for shard in shard_names:
        field = f"{where}: weight_map {quote(members[shard][0], 200)}"
        if shard in ("", ".", "..") or "/" in shard or "\\" in shard or "\0" in shard:
            raise BadInput(field, f"shard name {quote(shard)} is not a plain file name",
                           "an index names shards in its own folder, e.g. model-00001-of-00002.safetensors")
        path = os.path.join(folder, shard)
        if not os.path.exists(path):
            raise BadInput(field, f"maps to shard {quote(shard)} ({len(members[shard])} tensors), which is missing: "
                                  f"{path}", "download every shard the index names, or point at a complete checkpoint")
        files.append(path)
    shards = [(path, read_header(path)) for path in files]
    for shard, (path, tensors) in zip(shard_names, shards):
        for t in tensors:
            listed = shard_of.get(t.name)
            if listed != shard:
                raise BadInput(tensor_at(path, t.name),
                               "is in the shard but not in the index's weight_map" if listed is None else
                               f"is in this shard, but the index puts it in {quote(listed)}",
                               "re-download the index; it does not match the shards")
        if len(tensors) != len(members[shard]):
            present = {t.name for t in tensors}
            missing = sorted((n for n in members[shard] if n not in present), key=utf8_key)
            raise BadInput(f"{where}: weight_map {quote(missing[0], 200)}",
                           f"tensor is not in shard {quote(shard)} where the index puts it",
                           "re-download the shard or the index; they do not match")
    return shards


def open_checkpoint(path):
    """The shards of the checkpoint at `path`: [(file, tensors sorted by name)], in file-name order."""
    if not os.path.exists(path):
        raise BadInput(path, "not found", "give a checkpoint folder, its index.json or a .safetensors file")
    if os.path.isdir(path):
        if os.path.exists(os.path.join(path, INDEX_FILE)):
            return open_index(os.path.join(path, INDEX_FILE))
        single = os.path.join(path, "model.safetensors")
        if os.path.exists(single):
            return [(single, read_header(single))]
        found = sorted((os.path.join(path, n) for n in os.listdir(path)
                        if _extension(n) == ".safetensors" and os.path.isfile(os.path.join(path, n))), key=utf8_key)
        if not found:
            raise BadInput(path, "holds no .safetensors file", "download the checkpoint's weights")
        if len(found) > 1:
            raise BadInput(path, f"holds {len(found)} .safetensors files and no {INDEX_FILE}",
                           "download the index too, or point at one file")
        return [(found[0], read_header(found[0]))]
    if _extension(os.path.basename(path)) == ".json":
        return open_index(path)
    return [(path, read_header(path))]


# ---- config.json ------------------------------------------------------------------------------------------------
# model_type -> (family, has the sparse-attention indexer, has routed experts)
MODEL_TYPES = {
    "llama": ("llama", False, False),
    "qwen3": ("qwen3", False, False),
    "qwen3_moe": ("qwen3_moe", False, True),
    "qwen3_next": ("qwen3_next", False, True),
    "qwen3_5": ("qwen3_5", False, False),
    "qwen3_5_text": ("qwen3_5", False, False),
    "qwen3_5_moe": ("qwen3_5", False, True),
    "qwen3_5_moe_text": ("qwen3_5", False, True),
    "deepseek_v3": ("deepseek_v3", False, True),
    "kimi_k2": ("deepseek_v3", False, True),
    "deepseek_v32": ("deepseek_v3", True, True),
    "glm_moe_dsa": ("deepseek_v3", True, True),
    "glm4_moe": ("glm4_moe", False, True),
    "gpt_oss": ("gpt_oss", False, True),
    "mixtral": ("mixtral", False, True),
}
EXPERTS_FIELD = {"deepseek_v3": "n_routed_experts", "glm4_moe": "n_routed_experts", "gpt_oss": "num_local_experts",
                 "mixtral": "num_local_experts"}  # every other family: num_experts


def _is_int(v):
    return type(v) is int


def _says_fp4(v):
    return isinstance(v, str) and ("FP4" in v or "fp4" in v)


def _groups_4bit_float(q):
    groups = q.get("config_groups")
    if not isinstance(groups, dict):
        return False
    for group in groups.values():
        weights = group.get("weights") if isinstance(group, dict) else None
        if isinstance(weights, dict) and _is_int(weights.get("num_bits")) and weights["num_bits"] == 4 and \
                weights.get("type") == "float":
            return True
    return False


def _declares_fp4(q):
    """True when a quantization_config stores 4-bit floats two per byte in U8 tensors."""
    if not isinstance(q, dict):
        return False
    method = q.get("quant_method") if isinstance(q.get("quant_method"), str) else ""
    if method == "mxfp4":
        return True
    if method == "modelopt":  # NVIDIA ModelOpt: NVFP4 by quant_algo, per layer, or a 4-bit float group
        if _says_fp4(q.get("quant_algo")):
            return True
        layers = q.get("quantized_layers")
        if isinstance(layers, dict) and any(isinstance(l, dict) and _says_fp4(l.get("quant_algo"))
                                            for l in layers.values()):
            return True
        return _groups_4bit_float(q)
    if method == "compressed-tensors":
        fmt = q.get("format")
        return (isinstance(fmt, str) and "nvfp4" in fmt) or _groups_4bit_float(q)
    return False


class Config:
    """The parts of config.json counting needs; the text model's fields live under text_config when it is there."""

    def __init__(self, data, source):
        self.source = source
        if not isinstance(data, dict):
            raise BadInput(source, "is not a JSON object", "point --config at the model's config.json")
        self.root = data
        model_type = data.get("model_type")
        if not isinstance(model_type, str):
            raise BadInput(f"{source}: model_type", "missing (it selects the counting rules)",
                           "use the checkpoint's own config.json")
        if model_type not in MODEL_TYPES:
            raise BadInput(f"{source}: model_type", f"{quote(model_type)} has no counting rules (known: "
                                                    f"{', '.join(MODEL_TYPES)})",
                           "add rules for the architecture in src/params/tensor_rules.cpp and count_config.cpp")
        self.model_type = model_type
        self.family, self.indexer, self.experts = MODEL_TYPES[model_type]
        self.nested = isinstance(data.get("text_config"), dict)
        self.text = data["text_config"] if self.nested else data
        self._check_shape()

    def _lookup(self, key):
        """(value, where) from text_config, then the root; (None, where) when missing or null."""
        if self.text.get(key) is not None:
            return self.text[key], f"{self.source}: {'text_config.' if self.nested else ''}{key}"
        if self.nested and self.root.get(key) is not None:
            return self.root[key], f"{self.source}: {key}"
        return None, f"{self.source}: {key}"

    def find_int(self, key):
        value, where = self._lookup(key)
        if value is None:
            return None
        if not _is_int(value):
            raise BadInput(where, f"is {excerpt(value)}, not an integer", CONFIG_FIX)
        if value < 0 or value > 1 << 40:
            raise BadInput(where, f"is {value}, outside 0..2^40", CONFIG_FIX)
        return value

    def require_int(self, key):
        value = self.find_int(key)
        if value is None:
            raise BadInput(f"{self.source}: {key}", f"missing; model_type {self.model_type} needs it to count N",
                           CONFIG_FIX)
        return value

    def find_bool(self, key, fallback):
        value, _ = self._lookup(key)
        if value is None:
            return fallback
        if not isinstance(value, bool):
            raise BadInput(f"{self.source}: {key}", f"is {excerpt(value)}, not true or false",
                           "use the model's config.json")
        return value

    def _check_shape(self):
        def at(key):
            return f"{self.source}: {'text_config.' if self.nested else ''}{key}"

        for key in ("hidden_size", "num_hidden_layers", "num_attention_heads", "num_key_value_heads"):
            if self.find_int(key) == 0:
                raise BadInput(at(key), "is 0; a model has at least one", CONFIG_FIX)
        heads, kv = self.find_int("num_attention_heads"), self.find_int("num_key_value_heads")
        if heads is not None and kv is not None:
            if kv > heads:
                raise BadInput(at("num_key_value_heads"), f"is {kv}, more than num_attention_heads ({heads}); each "
                                                          "key/value head serves a group of query heads", CONFIG_FIX)
            if heads % kv:
                raise BadInput(at("num_key_value_heads"), f"is {kv}, which does not divide num_attention_heads "
                                                          f"({heads}) into equal groups", CONFIG_FIX)

    def mtp_layers(self):
        n = self.find_int("num_nextn_predict_layers")
        if n is None:
            n = self.find_int("mtp_num_hidden_layers")
        return n or 0

    def tied(self):
        return self.find_bool("tie_word_embeddings", True)

    def fp4_two_per_byte(self):
        return _declares_fp4(self.root.get("quantization_config")) or (
            self.nested and _declares_fp4(self.text.get("quantization_config")))

    def experts_field(self):
        return EXPERTS_FIELD.get(self.family, "num_experts")

    def num_experts(self):
        field = self.experts_field()
        n = self.find_int(field)
        if n == 0:
            raise BadInput(f"{self.source}: {field}", "is 0, but the model has routed experts", CONFIG_FIX)
        if n is None:
            fix = CONFIG_FIX
            if field == "n_routed_experts" and self.find_int("num_routed_experts") is not None:
                fix = ("this config names it num_routed_experts (InferSim renames Hugging Face's n_routed_experts); "
                       "use the checkpoint's own config.json")
            raise BadInput(f"{self.source}: {field}", f"missing; a {self.model_type} checkpoint has routed experts "
                                                      f"and N counts them at top-k / {field}", fix)
        return n

    def top_k(self):
        k = self.find_int("num_experts_per_tok")
        if k is None and self.family == "gpt_oss":
            k = self.find_int("experts_per_token")
        if k is None:
            raise BadInput(f"{self.source}: num_experts_per_tok",
                           f"missing; a {self.model_type} checkpoint has routed experts and N counts them at top-k "
                           "(num_experts_per_tok) of the expert count", CONFIG_FIX)
        experts = self.num_experts()
        if k == 0 or k > experts:
            raise BadInput(f"{self.source}: num_experts_per_tok", f"is {k}, outside 1..{experts} "
                                                                  f"({self.experts_field()})", CONFIG_FIX)
        return k


# ---- classes (SPEC §3) ------------------------------------------------------------------------------------------
# name -> (counted in N, reason), in report order: the six counted classes first.
CLASSES = {
    "attention": (True, "attention projections (incl. MLA, linear attention and the sparse-attention indexer)"),
    "dense_mlp": (True, "dense MLP layers"),
    "shared_expert": (True, "shared-expert MLPs and their gates"),
    "routed_expert": (True, "routed experts, counted at top-k of the expert count"),
    "router": (True, "expert routers"),
    "output_projection": (True, "output projection, counted even when tied to the input embedding"),
    "embedding": (False, "input embedding: a table lookup, not a matrix multiply"),
    "norm": (False, "normalization weights: elementwise scales"),
    "bias": (False, "biases: added, not multiplied"),
    "elementwise": (False, "per-channel parameters applied elementwise (attention sinks, SSM decay, depthwise "
                           "convolution): not a matrix multiply"),
    "position_embedding": (False, "position embeddings"),
    "index_table": (False, "integer index tables"),
    "mtp": (False, "multi-token prediction layers: an auxiliary head outside the model's forward pass"),
    "vision": (False, "vision tower: not part of the text model"),
    "quantization_scale": (False, "quantization scales: metadata of quantized weights, not weights (nor "
                                  "parameters)"),
}
SCALE_SUFFIXES = ("weight_scale_inv", "weight_scale", "weight_scale_2", "input_scale", "k_scale", "v_scale")
WEIGHT_SCALES = SCALE_SUFFIXES[:4]  # what a non-attention weight (lm_head, embed_tokens) may carry


class Role:
    """What a tensor name means: its class; for routed experts the layer, how experts are stored and the
    projection; fp4_blocks for MXFP4 blocks (U8, two values per byte)."""
    __slots__ = ("cls", "layer", "stacking", "expert", "projection", "fp4_blocks")

    def __init__(self, cls, layer=-1, stacking=None, expert=-1, projection="", fp4_blocks=False):
        self.cls, self.layer, self.stacking, self.expert = cls, layer, stacking, expert
        self.projection, self.fp4_blocks = projection, fp4_blocks


class Pattern:
    """A layer-relative tensor name (numbers written '#') and what it is. `weight`: may have scale companions."""
    __slots__ = ("cls", "stacking", "projection", "fp4_blocks", "weight")

    def __init__(self, cls, weight, stacking=None, projection="", fp4_blocks=False):
        self.cls, self.weight, self.stacking, self.projection, self.fp4_blocks = (
            cls, weight, stacking, projection, fp4_blocks)


def _layer_patterns(config):
    """Layer-relative names (with '#' for numbers) of one architecture family, and what each one is."""
    fam = config.family
    pats = {}

    def weights(cls, names, fmt):  # matrices: may carry quantization-scale companions
        for n in names:
            pats[fmt.format(n)] = Pattern(cls, True)

    def others(cls, *names):
        for n in names:
            pats[n] = Pattern(cls, False)

    others("norm", "input_layernorm.weight", "post_attention_layernorm.weight")
    others("position_embedding", "self_attn.rotary_emb.inv_freq")
    if fam == "deepseek_v3":  # multi-head latent attention
        weights("attention", ("q_proj", "q_a_proj", "q_b_proj", "kv_a_proj_with_mqa", "kv_b_proj", "o_proj"),
                "self_attn.{}.weight")
        others("norm", "self_attn.q_a_layernorm.weight", "self_attn.kv_a_layernorm.weight")
        if config.indexer:  # DeepSeek-V3.2 / GLM-5 sparse-attention indexer
            weights("attention", ("wq_b", "wk", "weights_proj"), "self_attn.indexer.{}.weight")
            others("norm", "self_attn.indexer.k_norm.weight", "self_attn.indexer.k_norm.bias")
    else:  # grouped-query attention
        weights("attention", ("q_proj", "k_proj", "v_proj", "o_proj"), "self_attn.{}.weight")
        others("bias", *(f"self_attn.{p}.bias" for p in ("q_proj", "k_proj", "v_proj", "o_proj")))
    if fam in ("qwen3", "qwen3_moe", "qwen3_next", "qwen3_5", "glm4_moe"):
        others("norm", "self_attn.q_norm.weight", "self_attn.k_norm.weight")
    if fam in ("qwen3_next", "qwen3_5"):  # gated DeltaNet linear attention
        weights("attention", ("in_proj_qkvz", "in_proj_ba", "in_proj_qkv", "in_proj_z", "in_proj_a", "in_proj_b",
                              "out_proj"), "linear_attn.{}.weight")
        others("elementwise", "linear_attn.conv1d.weight", "linear_attn.A_log")
        others("bias", "linear_attn.conv1d.bias", "linear_attn.dt_bias")
        others("norm", "linear_attn.norm.weight")
    if fam == "gpt_oss":  # router with bias; MXFP4 experts stacked [E, ...]
        others("elementwise", "self_attn.sinks")
        weights("router", ("router",), "mlp.{}.weight")
        others("bias", "mlp.router.bias")
        for p in ("gate_up_proj", "down_proj"):
            pats[f"mlp.experts.{p}_blocks"] = Pattern("routed_expert", False, "stacked", p, fp4_blocks=True)
            pats[f"mlp.experts.{p}"] = Pattern("routed_expert", False, "stacked", p)  # a BF16 export
            others("quantization_scale", f"mlp.experts.{p}_scales")
            others("bias", f"mlp.experts.{p}_bias")
        return pats
    if fam == "mixtral":  # every layer sparse: router, experts w1 (gate), w3 (up), w2 (down)
        weights("router", ("gate",), "block_sparse_moe.{}.weight")
        for p in ("w1", "w3", "w2"):
            pats[f"block_sparse_moe.experts.#.{p}.weight"] = Pattern("routed_expert", True, "each", p)
        return pats
    weights("dense_mlp", ("gate_proj", "up_proj", "down_proj"), "mlp.{}.weight")
    others("bias", "mlp.gate_proj.bias", "mlp.up_proj.bias", "mlp.down_proj.bias")
    if not config.experts:
        return pats
    weights("router", ("gate",), "mlp.{}.weight")
    for p in ("gate_proj", "up_proj", "down_proj"):
        pats[f"mlp.experts.#.{p}.weight"] = Pattern("routed_expert", True, "each", p)
    if fam == "qwen3_5":  # BF16 Qwen3.5/3.6 stack the experts: [E, 2I, H] and [E, H, I]
        for p in ("gate_up_proj", "down_proj"):
            pats[f"mlp.experts.{p}"] = Pattern("routed_expert", False, "stacked", p)
    if fam in ("qwen3_next", "qwen3_5"):
        weights("shared_expert", ("gate_proj", "up_proj", "down_proj"), "mlp.shared_expert.{}.weight")
        weights("shared_expert", ("shared_expert_gate",), "mlp.{}.weight")
    if fam in ("deepseek_v3", "glm4_moe"):
        weights("shared_expert", ("gate_proj", "up_proj", "down_proj"), "mlp.shared_experts.{}.weight")
        others("bias", "mlp.gate.e_score_correction_bias")
    return pats


# A dotted part of a name made of 1 to 9 decimal digits, no leading zero: a layer or expert index. ("03" is not one:
# it would name expert 3 twice; such a name matches no rule and is refused.)
_NUMBER_TOKEN = re.compile(r"(?<![^.])(?:0|[1-9][0-9]{0,8})(?![^.])")


def _index(token):
    """The value of a layer or expert index token (1 to 9 decimal digits, no leading zero), else None."""
    ok = 0 < len(token) <= 9 and token.isascii() and token.isdigit() and (len(token) == 1 or token[0] != "0")
    return int(token) if ok else None


def _ends_with_scale(name):
    return name.rsplit(".", 1)[-1] in SCALE_SUFFIXES if "." in name else False


class Rules:
    """Classes each tensor name of one architecture family; a name no rule classes is an error naming it."""

    def __init__(self, config):
        self.config = config
        self.family = config.family
        self.layers = config.require_int("num_hidden_layers")
        self.mtp = config.mtp_layers() if self.family in ("deepseek_v3", "glm4_moe") else 0
        self.patterns = _layer_patterns(config)

    def unclassed(self, name, why=None):
        raise BadInput(f"tensor {quote(name, 200)}",
                       why or f"no rule for model_type {self.config.model_type} classes this tensor",
                       "check that config.json belongs to this checkpoint; a new kind of tensor needs a rule in "
                       "src/params/tensor_rules.cpp (counted, or excluded with its reason)")

    def classify(self, name):
        if name == "lm_head.weight":
            return Role("output_projection")
        if name.startswith("lm_head.") and name[len("lm_head."):] in WEIGHT_SCALES:
            return Role("quantization_scale")
        if self.family in ("qwen3_next", "qwen3_5") and name.startswith("mtp."):
            return Role("quantization_scale" if _ends_with_scale(name) else "mtp")
        if self.family == "qwen3_5":
            if name.startswith(("model.visual.", "visual.")):
                return Role("quantization_scale" if _ends_with_scale(name) else "vision")
            prefix = "model.language_model." if name.startswith("model.language_model.") else "model."
        else:
            prefix = "model."
        if not name.startswith(prefix):
            self.unclassed(name)
        rest = name[len(prefix):]
        if rest == "embed_tokens.weight":
            return Role("embedding")
        if rest == "norm.weight":
            return Role("norm")
        if rest.startswith("embed_tokens.") and rest[len("embed_tokens."):] in WEIGHT_SCALES:
            return Role("quantization_scale")
        if rest.startswith("layers."):
            layer_token, dot, within = rest[len("layers."):].partition(".")
            layer = _index(layer_token)
            if dot and layer is not None:
                return self._in_layer(name, within, layer)
        self.unclassed(name)

    def _in_layer(self, name, within, layer):
        if layer >= self.layers:
            if layer < self.layers + self.mtp:  # DeepSeek/Kimi/GLM MTP modules: layers L .. L + nextn - 1
                return Role("quantization_scale" if _ends_with_scale(within) else "mtp", layer)
            extra = f" + {self.mtp} MTP layers" if self.mtp else ""
            self.unclassed(name, f"layer {layer} is past num_hidden_layers {self.layers}{extra}")
        pattern = _NUMBER_TOKEN.sub("#", within)  # mlp.experts.17.up_proj.weight -> mlp.experts.#.up_proj.weight
        found = self.patterns.get(pattern)
        if found:
            expert = int(_NUMBER_TOKEN.search(within).group()) if found.stacking == "each" else -1
            return Role(found.cls, layer, found.stacking, expert, found.projection, found.fp4_blocks)
        # A quantization companion of a classed matrix: X.weight_scale_inv, X.input_scale, k_proj.k_scale, ...
        base, _, suffix = pattern.rpartition(".")
        if base and suffix in SCALE_SUFFIXES:
            owner = self.patterns.get(base + ".weight")
            kv_ok = (suffix != "k_scale" or "k_proj." in pattern) and (suffix != "v_scale" or "v_proj." in pattern)
            if owner and owner.weight and kv_ok:
                return Role("quantization_scale", layer)
        self.unclassed(name)


# ---- counting ---------------------------------------------------------------------------------------------------
def _add(total, n, where):
    total += n
    if total > INT64_MAX:
        raise BadInput(where, "parameter count overflows 64 bits")
    return total


def _stored_values(t, role, fp4, at):
    """(values the tensor stores, whether FP4 was unpacked): elements, or two per byte for FP4 in U8 (MXFP4 blocks,
    and U8 tensors when config.json declares FP4). An F8_E8M0 tensor becomes a quantization scale (exponents only:
    under a counted weight's name, an error). U8 weights without an FP4 declaration and integer-packed weights are
    errors."""
    if t.dtype == "F8_E8M0" and role.cls != "quantization_scale":
        if CLASSES[role.cls][0]:  # exponents only: a scale stored under a weight's name
            raise BadInput(at, f"is F8_E8M0, but its name makes it a {role.cls} weight; E8M0 holds exponents only "
                               "(no mantissa), so it is a quantization scale, not a weight",
                           "check that config.json belongs to this checkpoint; a scale stored under a weight's name "
                           "needs a rule in src/params/tensor_rules.cpp")
        role.cls = "quantization_scale"
    if role.fp4_blocks:
        if t.dtype != "U8":
            raise BadInput(at, f"MXFP4 blocks are {t.dtype}, not U8 (two FP4 values per byte)",
                           "re-download the checkpoint; the blocks tensor does not match the MXFP4 layout")
        return 2 * t.elements, True
    if not DTYPES[t.dtype][1] or role.cls in ("quantization_scale", "index_table"):
        return t.elements, False
    counted = CLASSES[role.cls][0]
    if t.dtype == "U8" and fp4:
        return 2 * t.elements, True
    if t.dtype == "U8" and counted:
        raise BadInput(at, "is a U8 weight, but config.json's quantization_config declares no 4-bit format, so how "
                           "many values each byte holds is unknown",
                       "use the checkpoint's own config.json (with its quantization_config)")
    if t.dtype not in ("U8", "I8") and counted:
        raise BadInput(at, f"is a {t.dtype} weight: integer-packed weights (GPTQ/AWQ-style) are not supported",
                       "count N from the unquantized (BF16) or FP8/FP4 checkpoint")
    return t.elements, False


def _routed_active(params, top_k, experts, where):
    """Routed experts' share of N: params × top-k / expert count, which must be a whole number."""
    scaled = params * top_k
    if scaled > INT64_MAX:
        raise BadInput(where, "routed-expert arithmetic overflows 64 bits")
    if scaled % experts:
        raise BadInput(where, f"routed-expert parameters {params} × top-k {top_k} are not a multiple of the expert "
                              f"count {experts} (experts of unequal size?)",
                       "check that config.json belongs to this checkpoint")
    return scaled // experts


def count(checkpoint, config_data, config_source):
    """N and its breakdown from the checkpoint's headers and config.json, as a dict (the --json keys) plus the
    tensor list [(class, params, name)]."""
    config = Config(config_data, config_source)
    rules = Rules(config)
    shards = open_checkpoint(checkpoint)
    fp4 = config.fp4_two_per_byte()
    classes = {name: {"tensors": 0, "params": 0, "active": 0, "example": ""} for name in CLASSES}
    tensor_list = []
    total = scale_tensors = scale_values = 0
    embedding = None  # (name, params)
    has_output = unpacked = False
    experts = top_k = None
    first_routed = ""
    seen_experts = {}  # (layer, projection) -> (set of expert indices, first tensor)
    for file, tensors in shards:
        for t in tensors:
            at = _LazyWhere(file, t.name)
            try:
                role = rules.classify(t.name)
            except BadInput as e:
                raise BadInput(f"{file}: {e.where}", e.what, e.fix) from None
            if t.elements > INT64_MAX // 2:
                raise BadInput(at, "element count is too large to count")
            params, fp4_unpacked = _stored_values(t, role, fp4, at)
            unpacked = unpacked or fp4_unpacked
            if role.cls == "routed_expert":
                if experts is None:
                    try:
                        experts = config.num_experts()
                        top_k = config.top_k()
                    except BadInput as e:
                        raise BadInput(e.where, f"{e.what} (the checkpoint has routed-expert tensors, e.g. "
                                                f"{quote(t.name, 200)})", e.fix) from None
                    first_routed = t.name
                if role.stacking == "stacked":
                    first = t.shape[0] if t.shape else 0
                    if first != experts:
                        raise BadInput(at, f"stacks {first} experts on its first dimension, but config.json "
                                           f"{config.experts_field()} is {experts}", CONFIG_FIX)
                else:
                    if role.expert >= experts:
                        raise BadInput(at, f"expert index {role.expert} is past config.json "
                                           f"{config.experts_field()} {experts}", CONFIG_FIX)
                    present, _ = seen_experts.setdefault((role.layer, role.projection), (set(), t.name))
                    present.add(role.expert)
            if role.cls == "embedding":
                if embedding is not None:
                    raise BadInput(at, f"is a second input embedding (first: {quote(embedding[0], 200)})",
                                   "check that config.json belongs to this checkpoint")
                embedding = (t.name, params)
            if role.cls == "output_projection":
                has_output = True
            entry = classes[role.cls]
            if entry["tensors"] == 0:
                entry["example"] = t.name
            entry["tensors"] += 1
            entry["params"] = _add(entry["params"], params, t.name)
            if role.cls == "quantization_scale":
                scale_tensors += 1
                scale_values = _add(scale_values, params, t.name)
            else:
                total = _add(total, params, t.name)
            tensor_list.append((role.cls, params, t.name))

    # Every routed projection of every layer needs all num_experts experts.
    for (layer, projection), (present, example) in sorted(seen_experts.items(),
                                                          key=lambda kv: (kv[0][0], utf8_key(kv[0][1]))):
        if len(present) != experts:
            field = config.experts_field()
            raise BadInput(f"{checkpoint}: layer {layer} {projection}",
                           f"has {len(present)} of the {experts} routed experts config.json declares ({field} "
                           f"{experts}), e.g. {quote(example, 200)}",
                           "download every shard, or use the checkpoint's own config.json")
    notes = []
    tied = False
    if not has_output:  # the output projection is the input embedding: counted once at its size
        if not config.tied():
            raise BadInput(checkpoint, "has no lm_head.weight, and config.json says tie_word_embeddings is false",
                           "download every shard, or use the checkpoint's own config.json")
        if embedding is None:
            raise BadInput(checkpoint, "has neither lm_head.weight nor an input embedding (embed_tokens.weight)",
                           "download every shard of the checkpoint")
        output = classes["output_projection"]
        output["params"] = embedding[1]
        output["example"] = embedding[0] + " (tied)"
        tied = True
        notes.append(f"output projection tied to {embedding[0]}: counted once at its size, as the output matrix "
                     "multiply uses it (docs/params.md)")
    n_active = counted_total = 0
    for name, (counted, _) in CLASSES.items():
        if not counted:
            continue
        entry = classes[name]
        if name == "routed_expert" and entry["params"] > 0:
            entry["active"] = _routed_active(entry["params"], top_k, experts, f"{checkpoint}: {first_routed}")
            notes.append(f"routed experts counted at top-k {top_k} of {experts} experts")
        else:
            entry["active"] = entry["params"]
        n_active = _add(n_active, entry["active"], checkpoint)
        counted_total = _add(counted_total, entry["params"], checkpoint)
    if unpacked:
        notes.append("FP4 weights stored two per byte counted unpacked (2 values per byte)")
    if classes["mtp"]["tensors"]:
        notes.append(f"MTP: {classes['mtp']['tensors']} tensors left out ({config.mtp_layers()} MTP layers in "
                     "config.json)")
    report = {
        "source": "checkpoint",
        "where": checkpoint,
        "model_type": config.model_type,
        "N": n_active,
        "counted_total": counted_total,
        "total_params": total,
        "quantization_scales": {"tensors": scale_tensors, "values": scale_values},
        "shards": len(shards),
        "tensors": len(tensor_list),
        "top_k": top_k,
        "num_experts": experts,
        "output_tied": tied,
        "classes": {name: {"counted": counted, "tensors": classes[name]["tensors"],
                           "params": classes[name]["params"], "active": classes[name]["active"], "reason": reason,
                           "example": classes[name]["example"]}
                    for name, (counted, reason) in CLASSES.items()},
        "notes": notes,
    }
    return report, tensor_list


# ---- N from config.json alone -----------------------------------------------------------------------------------
# The planning count before a download (`openrecipes params --config`): every counted class from the config's
# dimensions, layer by layer. It predicts the counted classes and the input embedding; norms, biases, MTP layers,
# vision towers and quantization scales have no tensors to read, so they are not predicted (total_params and
# quantization_scales are null, tensors and shards 0).
MAX_LAYERS = 4096  # bounds on config counts (docs/limits.md): a hostile count must not loop for hours
MAX_EXPERTS = 65536


class _Int64:
    """Sums and products of config values (each 0..2^40) that stop at 64 bits, where openrecipes' arithmetic does:
    at the first running product or sum past 2^63 - 1."""

    def __init__(self, where):
        self.where = where

    def _check(self, n):
        if n > INT64_MAX:
            raise BadInput(self.where, "parameter arithmetic overflows 64 bits", "check the config's dimensions")
        return n

    def mul(self, *factors):
        product = 1
        for f in factors:
            product = self._check(product * f)
        return product

    def add(self, *terms):
        total = 0
        for t in terms:
            total = self._check(total + t)
        return total


def _at_most(n, limit, where):
    if n > limit:
        raise BadInput(where, f"is {n}, over the limit of {limit} (docs/limits.md)", CONFIG_FIX)
    return n


def _head_dim(config, hidden, heads):
    """head_dim, or hidden_size / num_attention_heads when the config leaves it out."""
    dim = config.find_int("head_dim")
    if dim is not None:
        return dim
    if hidden % heads:
        raise BadInput(f"{config.source}: head_dim", "missing, and hidden_size is not a multiple of "
                                                     "num_attention_heads", CONFIG_FIX)
    return hidden // heads


def _softmax_attention(config, big, hidden, gated):
    """Grouped-query attention: q [heads·d, H] (twice that when an output gate rides on q: Qwen3-Next, Qwen3.5),
    k and v [kv_heads·d, H] each, o [H, heads·d]."""
    heads = config.require_int("num_attention_heads")
    kv_heads = config.require_int("num_key_value_heads")
    dim = _head_dim(config, hidden, heads)
    q = big.mul(hidden, heads, dim, 2 if gated else 1)
    k_and_v = big.mul(2, hidden, kv_heads, dim)
    o = big.mul(heads, dim, hidden)
    return big.add(q, k_and_v, o)


def _gated_deltanet(config, big, hidden):
    """Gated DeltaNet linear attention: the input projections make q and k (key heads × key dim each), v and the
    gate z (value heads × value dim each), and beta and alpha (one per value head); out maps the values back to H.
    The depthwise conv1d is elementwise, not a matrix multiply."""
    key_heads = config.require_int("linear_num_key_heads")
    value_heads = config.require_int("linear_num_value_heads")
    key_dim = config.require_int("linear_key_head_dim")
    value_dim = config.require_int("linear_value_head_dim")
    keys, values = big.mul(key_heads, key_dim), big.mul(value_heads, value_dim)
    inputs = big.mul(hidden, big.add(big.mul(2, keys), big.mul(2, values), big.mul(2, value_heads)))
    return big.add(inputs, big.mul(values, hidden))


def _latent_attention(config, big, hidden):
    """Multi-head latent attention (DeepSeek-V3, Kimi-K2, GLM-5): q through the q_lora_rank latent when there is one,
    the shared kv latent plus the rope key, its up-projection to per-head nope keys and values, and o; DeepSeek-V3.2
    and GLM-5 add the sparse-attention indexer (wq_b from the q latent, wk and weights_proj from H)."""
    heads = config.require_int("num_attention_heads")
    kv_rank = config.require_int("kv_lora_rank")
    nope = config.require_int("qk_nope_head_dim")
    rope = config.require_int("qk_rope_head_dim")
    value_dim = config.require_int("v_head_dim")
    q_rank = config.find_int("q_lora_rank")  # absent: q straight from H (0 is a rank, if a useless one)
    qk_dim = big.add(nope, rope)
    if q_rank is None:
        q = big.mul(hidden, heads, qk_dim)
    else:
        q = big.add(big.mul(hidden, q_rank), big.mul(q_rank, heads, qk_dim))
    kv_down = big.mul(hidden, big.add(kv_rank, rope))
    kv_up = big.mul(kv_rank, heads, big.add(nope, value_dim))
    o = big.mul(heads, value_dim, hidden)
    total = big.add(q, kv_down, kv_up, o)
    if config.indexer:
        if q_rank is None:
            raise BadInput(f"{config.source}: q_lora_rank", "missing; the sparse-attention indexer reads the q latent",
                           CONFIG_FIX)
        index_heads = config.require_int("index_n_heads")
        index_dim = config.require_int("index_head_dim")
        total = big.add(total, big.mul(q_rank, index_heads, index_dim), big.mul(hidden, index_dim),
                        big.mul(hidden, index_heads))
    return total


def _full_attention(config, layer, layers):
    """Whether a Qwen3-Next / Qwen3.5 layer is softmax attention (else gated DeltaNet): its layer_types entry when
    the config lists them, else every full_attention_interval-th layer."""
    types = config.text.get("layer_types")
    if isinstance(types, list):
        where = f"{config.source}: layer_types"
        if len(types) != layers:
            raise BadInput(where, f"has {len(types)} entries for {layers} layers", CONFIG_FIX)
        kind = types[layer]
        if not isinstance(kind, str):
            raise BadInput(where, "holds a non-string entry")
        if kind not in ("full_attention", "linear_attention"):
            raise BadInput(where, f"holds {excerpt(kind)} (expected full_attention or linear_attention)", CONFIG_FIX)
        return kind == "full_attention"
    interval = config.require_int("full_attention_interval")
    if interval == 0:
        raise BadInput(f"{config.source}: full_attention_interval", "is 0")
    return (layer + 1) % interval == 0


def _sparse_layer(config, layer):
    """Whether a layer of a model with routed experts has them (else a dense MLP): Qwen skips mlp_only_layers and
    keeps every decoder_sparse_step-th layer; DeepSeek, Kimi and GLM keep the first first_k_dense_replace layers dense,
    then every moe_layer_freq-th; gpt-oss and Mixtral have experts in every layer."""
    if config.family in ("qwen3_moe", "qwen3_next", "qwen3_5"):
        step = config.find_int("decoder_sparse_step")
        step = 1 if step is None else step
        dense_list = config.text.get("mlp_only_layers")
        listed = isinstance(dense_list, list) and any(_is_int(v) and v == layer for v in dense_list)
        return not listed and step > 0 and (layer + 1) % step == 0
    if config.family in ("deepseek_v3", "glm4_moe"):
        first_dense = config.find_int("first_k_dense_replace") or 0
        freq = config.find_int("moe_layer_freq")
        freq = 1 if freq is None else freq
        return layer >= first_dense and freq > 0 and layer % freq == 0
    return True


def count_config(config_data, config_source):
    """N and its breakdown from config.json arithmetic alone, as a dict with the --json keys of a checkpoint count
    (source "config")."""
    config = Config(config_data, config_source)
    big = _Int64(config_source)
    hidden = config.require_int("hidden_size")
    vocab = config.require_int("vocab_size")
    layers = _at_most(config.require_int("num_hidden_layers"), MAX_LAYERS, f"{config_source}: num_hidden_layers")
    experts = top_k = None
    if config.experts:
        experts = _at_most(config.num_experts(), MAX_EXPERTS, f"{config_source}: {config.experts_field()}")
        top_k = config.top_k()
    hybrid = config.family in ("qwen3_next", "qwen3_5")
    gated = hybrid and config.find_bool("attn_output_gate", True)
    params = {name: 0 for name in CLASSES}

    def add(cls, n):
        params[cls] = big.add(params[cls], n)

    for layer in range(layers):
        if config.family == "deepseek_v3":
            add("attention", _latent_attention(config, big, hidden))
        elif hybrid and not _full_attention(config, layer, layers):
            add("attention", _gated_deltanet(config, big, hidden))
        else:
            add("attention", _softmax_attention(config, big, hidden, gated))
        if not (config.experts and _sparse_layer(config, layer)):
            add("dense_mlp", big.mul(3, hidden, config.require_int("intermediate_size")))  # gate, up, down
            continue
        add("router", big.mul(experts, hidden))
        # gpt-oss and Mixtral have no dense MLP and size their experts by intermediate_size.
        expert_size = config.require_int("intermediate_size" if config.family in ("gpt_oss", "mixtral")
                                         else "moe_intermediate_size")
        add("routed_expert", big.mul(experts, 3, hidden, expert_size))
        if hybrid:  # one shared expert, plus its sigmoid gate [1, H]
            shared = config.find_int("shared_expert_intermediate_size")
            if shared:
                add("shared_expert", big.add(big.mul(3, hidden, shared), hidden))
        elif config.family in ("deepseek_v3", "glm4_moe"):
            shared = config.find_int("n_shared_experts")
            if shared:
                add("shared_expert", big.mul(shared, 3, hidden, expert_size))
    add("output_projection", big.mul(vocab, hidden))  # counted once even when tied
    add("embedding", big.mul(vocab, hidden))  # predicted, not counted
    tied = config.tied()

    notes = []
    active = {name: 0 for name in CLASSES}
    n_active = counted_total = 0
    for name, (counted, _) in CLASSES.items():
        if not counted:
            continue
        if name == "routed_expert" and params[name] > 0:
            active[name] = _routed_active(params[name], top_k, experts, config_source)
            notes.append(f"routed experts counted at top-k {top_k} of {experts} experts")
        else:
            active[name] = params[name]
        n_active = big.add(n_active, active[name])
        counted_total = big.add(counted_total, params[name])
    if tied:
        notes.append("tie_word_embeddings: the output projection (vocab_size × hidden_size) is counted once")
    mtp = 0
    for field in ("num_nextn_predict_layers", "mtp_num_hidden_layers"):
        n = config.find_int(field)
        if n is not None:
            mtp = _at_most(n, MAX_LAYERS, f"{config_source}: {field}")
            break
    if mtp:
        notes.append(f"{mtp} MTP layer{'' if mtp == 1 else 's'} in config.json: left out")
    if "vision_config" in config.root:
        notes.append("vision tower (vision_config): left out")
    notes.append("from config.json arithmetic: norms, biases, MTP, vision and quantization scales not predicted")
    return {
        "source": "config",
        "where": config_source,
        "model_type": config.model_type,
        "N": n_active,
        "counted_total": counted_total,
        "total_params": None,
        "quantization_scales": None,
        "shards": 0,
        "tensors": 0,
        "top_k": top_k,
        "num_experts": experts,
        "output_tied": tied,
        "classes": {name: {"counted": counted, "tensors": 0, "params": params[name], "active": active[name],
                           "reason": reason, "example": ""}
                    for name, (counted, reason) in CLASSES.items()},
        "notes": notes,
    }


# ---- output -----------------------------------------------------------------------------------------------------
def table(r):
    """The human report, laid out as `openrecipes params` lays out a checkpoint count or a config count."""
    def billions(n):
        return f"{n / 1e9:.2f} B"

    from_config = r["source"] == "config"
    if from_config:  # no tensors were read: the tensors column shows "-"
        title = f"N for {r['model_type']} from config arithmetic ({r['where']})"
    else:
        title = (f"N for {r['model_type']} from checkpoint {r['where']} ({r['shards']} shard"
                 f"{'' if r['shards'] == 1 else 's'}, {r['tensors']} tensors)")
    lines = [title, "", f"{'counted':<20}{'tensors':>9}{'parameters':>20}{'in N':>20}"]

    def tensors(c):
        return "-" if from_config else c["tensors"]
    for name, c in r["classes"].items():
        if not c["counted"]:
            continue
        extra = ""
        if name == "routed_expert" and r["top_k"] is not None and c["params"] > 0:
            extra = f"   top-{r['top_k']} of {r['num_experts']} experts"
        if name == "output_projection" and r["output_tied"]:
            extra = "   tied to the input embedding"
        lines.append(f"{name:<20}{tensors(c):>9}{thousands(c['params']):>20}{thousands(c['active']):>20}{extra}")
    lines.append(f"{'N (active parameters per token)':<49}{thousands(r['N']):>20}   ({billions(r['N'])})")
    lines.append("")
    excluded = [(name, c) for name, c in r["classes"].items() if not c["counted"] and (c["tensors"] or c["params"])]
    if excluded:
        lines.append(f"{'left out of N':<20}{'tensors':>9}{'values':>20}   why")
        for name, c in excluded:
            lines.append(f"{name:<20}{tensors(c):>9}{thousands(c['params']):>20}   {c['reason']}")
        lines.append("")
    if r["total_params"] is not None:
        lines.append(f"stored parameters (FP4 unpacked): {thousands(r['total_params'])} "
                     f"({billions(r['total_params'])})")
    scales = r["quantization_scales"]
    if scales and scales["tensors"]:
        lines.append(f"quantization scales: {thousands(scales['values'])} values in {thousands(scales['tensors'])} "
                     "tensors (not parameters: not in the total above)")
    lines.extend("note: " + note for note in r["notes"])
    return "\n".join(lines) + "\n"


def tensor_lines(tensor_list):
    """Every tensor: class, parameters, name; in shard order, by name within a shard."""
    return "".join(f"{cls:<20}{thousands(params):>18}  {name}\n" for cls, params, name in tensor_list)


def config_beside(checkpoint):
    folder = checkpoint if os.path.isdir(checkpoint) else (os.path.dirname(checkpoint) or ".")
    path = os.path.join(folder, "config.json")
    if not os.path.exists(path):
        raise BadInput(checkpoint, "has no config.json beside it (N needs its top-k, expert count and MTP layout)",
                       "pass --config path/to/config.json")
    return path


def _terminal_safe(text):
    return re.sub(r"[\x00-\x1f\x7f]", lambda m: f"\\x{ord(m.group()):02x}", text)


def main(argv=None):
    parser = argparse.ArgumentParser(prog=PROG, description="N, the active parameters per token (docs/params.md), from "
                                     "safetensors headers and config.json; the Python counterpart of "
                                     "`openrecipes params`. Exit codes: 0 ok; 2 bad input.")
    parser.add_argument("checkpoint", nargs="?", default="", help="checkpoint folder, its "
                        "model.safetensors.index.json, or one .safetensors file")
    parser.add_argument("--config", help="config.json (default: the one beside the checkpoint); alone, N from its "
                                         "arithmetic before a download")
    parser.add_argument("--json", action="store_true", help="JSON output (the key order of openrecipes params)")
    parser.add_argument("--tensors", action="store_true", help="also list every tensor with its class and "
                                                               "parameters")
    args = parser.parse_args(argv)
    try:
        if not args.checkpoint and not args.config:
            raise BadInput("", "nothing to count", "give a checkpoint (folder, index.json or .safetensors), --config "
                                                   "config.json, or both")
        if not args.checkpoint and args.tensors:
            raise BadInput("--tensors", "lists a checkpoint's tensors, and none was given (--config alone counts "
                                        "from config.json's arithmetic)", "give the checkpoint too, or leave "
                                                                          "--tensors out")
        config_path = args.config if args.config else config_beside(args.checkpoint)
        if args.checkpoint:
            report, tensor_list = count(args.checkpoint, read_config(config_path), config_path)
        else:
            report, tensor_list = count_config(read_config(config_path), config_path), []
    except BadInput as e:
        print(f"{PROG}: error: {_terminal_safe(e.message())}", file=sys.stderr)
        return 2
    except OSError as e:  # unreadable file or folder
        print(f"{PROG}: error: {_terminal_safe(f'{e.filename}: cannot read: {e.strerror}')}", file=sys.stderr)
        return 2
    if args.json:
        if args.tensors:
            report["tensor_list"] = [{"name": name, "class": cls, "params": params}
                                     for cls, params, name in tensor_list]
        sys.stdout.write(json.dumps(report, indent=2, ensure_ascii=False) + "\n")
    else:
        sys.stdout.write(table(report))
        if args.tensors:
            sys.stdout.write("\n" + tensor_lines(tensor_list))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except BrokenPipeError:
        sys.exit(0)
    except Exception as e:  # a bug here, never the input's fault
        print(f"{PROG}: internal error: {type(e).__name__}: {e} (this is a bug in {PROG}, not in the input)",
              file=sys.stderr)
        sys.exit(3)
