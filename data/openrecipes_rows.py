"""Reading OpenRecipes rows from Python (SPEC §1.7–1.8; formats in docs/rows-format.md).

The one home of the rows readers that `pretokenized_sft_rollout.py` (the slime/miles plugin) and `verify_rows.py`
share, so that a GPU cluster with only Python can serve and check the rows `openrecipes rows build` wrote:

- `open_rows(path)`: `rows.parquet` through pyarrow when it is importable, or the Megatron-LM export
  (`PREFIX.bin` / `PREFIX.idx`, `openrecipes rows export --format megatron`) through a numpy memmap, so a cluster
  without pyarrow works. Rows are read lazily: `rows.read(start, stop)` touches the row groups (parquet) or the
  pages (memmap) of rows [start, stop) only.
- `read_manifest(rows_path)`: the build's `<stem>.manifest.json` (`rows.parquet` -> `rows.manifest.json`,
  `PREFIX.bin` -> `PREFIX.manifest.json`), with the fields the readers check.
- `rows_sha256(rows, count)`: SPEC §1.8, SHA-256 of the first `count` rows' ids as little-endian int32, row-major.
- `verify(rows, count, sha256)`: the verdict and message of `openrecipes rows verify`, word for word.

Every failure is a `RowsError` whose text names the file (and row) and the fix, as the C++ tool's errors do.
Shapes: a row is L token ids (int32); `read` returns a numpy array of shape (stop - start, L), dtype int32.
"""

import hashlib
import json
import os
import struct

import numpy as np

# Bounds, as the C++ readers have them (src/rows/output/rows_hash.h kMaxRowLength; manifest at most 16 MiB).
MAX_ROW_LENGTH = 4_194_304
MAX_MANIFEST_BYTES = 16 << 20
# What `rows build` writes and the reader needs (docs/rows-format.md, "rows.parquet").
PARQUET_FIX = "give a rows.parquet written by `openrecipes rows build` (one column input_ids: list<int32>)"
DAMAGED_FIX = "the file is damaged or incomplete: build the rows again (openrecipes rows build)"
EXPORT_FIX = "export the rows again: openrecipes rows export rows.parquet --format megatron -o PREFIX"
# Megatron-LM's DType codes (megatron/core/datasets/indexed_dataset.py) read here: 4 (int32, what the export writes)
# and 8 (uint16, Megatron's own choice for small vocabularies). Both hold every id exactly as int32; the narrower and
# wider codes would not (a cast would change ids silently), so they are refused.
MEGATRON_DTYPES = {4: np.int32, 8: np.uint16}
INDEX_CHUNK = 1 << 20  # index entries checked at a time (a hostile count never becomes one allocation)
MEGATRON_MAGIC = b"MMIDIDX\x00\x00"


class RowsError(Exception):
    """Bad rows input: `where` (file, row or option), `what` went wrong, and the `fix`. str() is
    "where: what (fix: fix)", the text of the C++ tool's InputError."""

    def __init__(self, where, what, fix=""):
        self.where, self.what, self.fix = str(where), what, fix
        super().__init__(f"{self.where}: {what}" + (f" (fix: {fix})" if fix else ""))


def manifest_path_for(rows_path):
    """`x.parquet` -> `x.manifest.json`; `PREFIX.bin` / `PREFIX.idx` / `PREFIX` -> `PREFIX.manifest.json` (the
    manifest `rows build` wrote beside `PREFIX.parquet` when the export uses the same stem)."""
    base = str(rows_path)
    for ext in (".parquet", ".bin", ".idx"):
        if base.endswith(ext):
            return base[: -len(ext)] + ".manifest.json"
    return base + ".manifest.json"


def read_manifest(rows_path):
    """The build's manifest as a dict (the keys of docs/rows-format.md). Raises RowsError when it is missing, over
    16 MiB, not JSON, or lacks a well-typed row_length, rows_written or rows_sha256."""
    path = manifest_path_for(rows_path)
    text = read_bounded(path, MAX_MANIFEST_BYTES, "manifest",
                        missing=(f"no manifest beside {rows_path}",
                                 "keep the rows.manifest.json that `openrecipes rows build` wrote next to the rows "
                                 "(for a Megatron export, export to the parquet's stem, e.g. -o rows for "
                                 "rows.parquet)"))
    try:
        m = json.loads(text.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as e:  # JSONDecodeError, and Python's limit on an integer's digits
        raise RowsError(path, f"not a JSON manifest: {e}", "build the rows again (openrecipes rows build)") from None
    except RecursionError:
        raise RowsError(path, "not a manifest: the JSON nests too deeply",
                        "build the rows again (openrecipes rows build)") from None
    if not isinstance(m, dict):
        raise RowsError(path, "the manifest is not a JSON object", "build the rows again (openrecipes rows build)")
    if m.get("format_version") != 1 or isinstance(m.get("format_version"), bool):
        raise RowsError(path, f"format_version {m.get('format_version')!r}, this reader knows 1",
                        "build the rows again with this checkout's openrecipes")
    for key in ("row_length", "rows_written"):
        if not isinstance(m.get(key), int) or isinstance(m.get(key), bool) or m[key] < 0:
            raise RowsError(path, f"'{key}' is missing or not a non-negative integer",
                            "build the rows again (openrecipes rows build)")
    if not is_sha256_hex(m.get("rows_sha256")):
        raise RowsError(path, "'rows_sha256' is missing or not 64 lowercase hex characters",
                        "build the rows again (openrecipes rows build)")
    return m


def read_bounded(path, limit, what, missing=None):
    """The bytes of a small input file (a manifest, a recipe), at most `limit` bytes. Raises RowsError naming `what`:
    `missing` = (what, fix) for a file that is not there, else "cannot read the <what>"; over the limit."""
    try:
        with open(path, "rb") as f:
            data = f.read(limit + 1)
    except FileNotFoundError:
        if missing:
            raise RowsError(path, *missing) from None
        raise RowsError(path, f"no {what} there", "check the path") from None
    except OSError as e:
        raise RowsError(path, f"cannot read the {what}: {e.strerror}", "check the file's permissions") from None
    if len(data) > limit:
        raise RowsError(path, f"the {what} is over {limit >> 20} MiB", f"give the {what} itself")
    return data


def is_sha256_hex(s):
    """True for 64 lowercase hex characters."""
    return isinstance(s, str) and len(s) == 64 and all(c in "0123456789abcdef" for c in s)


class ParquetRows:
    """rows.parquet through pyarrow: one column input_ids: list<int32>, every row L ids, no nulls. Reads one row group
    at a time and keeps the last one (a step's rows usually lie in one group)."""

    def __init__(self, path, row_length=0):
        import pyarrow as pa
        import pyarrow.parquet as pq

        self.path, self._pa = str(path), pa
        try:
            self._file = pq.ParquetFile(self.path)
        except (OSError, pa.ArrowException) as e:
            raise RowsError(self.path, f"cannot read the parquet file: {e}", DAMAGED_FIX) from None
        schema = self._file.schema_arrow
        listing = ", ".join(f"{f.name} {f.type}" for f in schema)
        if len(schema) != 1 or schema[0].name != "input_ids":
            raise RowsError(self.path, f"expected one column input_ids: list<int32>, the file has: {listing}",
                            PARQUET_FIX)
        t = schema[0].type
        if not (pa.types.is_list(t) or pa.types.is_large_list(t)) or not pa.types.is_int32(t.value_type):
            raise RowsError(self.path, f"column input_ids has type {t}, expected list<int32> (INTEGER[])", PARQUET_FIX)
        meta = self._file.metadata
        self.row_count = meta.num_rows
        self._group_starts = [0]
        for g in range(meta.num_row_groups):
            self._group_starts.append(self._group_starts[-1] + meta.row_group(g).num_rows)
        if self._group_starts[-1] != self.row_count:
            raise RowsError(self.path, f"the row groups hold {self._group_starts[-1]} rows but the footer says "
                            f"{self.row_count}", DAMAGED_FIX)
        self.row_length = row_length
        self._cached = (-1, None)  # (row group, its ids as an (n, L) array)
        if self.row_length == 0 and self.row_count > 0:
            self.row_length = self._group(0).shape[1]

    def _group(self, g):
        if self._cached[0] == g:
            return self._cached[1]
        first = self._group_starts[g]
        try:
            col = self._file.read_row_group(g, columns=["input_ids"]).column(0).combine_chunks()
        except (OSError, self._pa.ArrowException) as e:
            raise RowsError(f"{self.path}: row {first} or later", f"cannot read the parquet file: {e}",
                            DAMAGED_FIX) from None
        if col.null_count:
            row = first + next(i for i, v in enumerate(col.is_null().to_pylist()) if v)
            raise RowsError(f"{self.path}: row {row}", "input_ids is null", DAMAGED_FIX)
        offsets = np.asarray(col.offsets, dtype=np.int64)
        lengths = np.diff(offsets)
        values = col.values.slice(offsets[0], offsets[-1] - offsets[0]) if len(offsets) else col.values
        if values.null_count:
            nulls = np.flatnonzero(np.asarray(values.is_null(), dtype=bool))[0] + offsets[0]
            r = int(np.searchsorted(offsets, nulls, side="right") - 1)
            raise RowsError(f"{self.path}: row {first + r}", f"input_ids[{int(nulls - offsets[r])}] is null",
                            DAMAGED_FIX)
        for r, n in enumerate(lengths):
            if n > MAX_ROW_LENGTH:
                raise RowsError(f"{self.path}: row {first + r}",
                                f"row has {n} ids, over the limit of {MAX_ROW_LENGTH}", PARQUET_FIX)
            if self.row_length == 0:
                if n == 0:
                    raise RowsError(f"{self.path}: row {first + r}", "row has no ids", PARQUET_FIX)
                self.row_length = int(n)
            if n != self.row_length:
                raise RowsError(f"{self.path}: row {first + r}",
                                f"row has {n} ids, expected {self.row_length} (every row has length L)", PARQUET_FIX)
        ids = np.asarray(values, dtype=np.int32).reshape(len(lengths), self.row_length)
        self._cached = (g, ids)
        return ids

    def read(self, start, stop):
        """Rows [start, stop) as an int32 array of shape (stop - start, L); 0 <= start <= stop <= row_count."""
        parts = []
        g = max(0, int(np.searchsorted(self._group_starts, start, side="right")) - 1)
        row = start
        while row < stop:
            ids = self._group(g)
            first = self._group_starts[g]
            take = min(stop, self._group_starts[g + 1]) - row
            parts.append(ids[row - first: row - first + take])
            row += take
            g += 1
        if not parts:
            return np.empty((0, self.row_length), dtype=np.int32)
        return parts[0] if len(parts) == 1 else np.concatenate(parts)


class MegatronRows:
    """The Megatron-LM export, PREFIX.idx / PREFIX.bin (docs/rows-format.md): the header, the file sizes, every
    sequence length (L) and every pointer (rows back to back) are checked, a chunk at a time, and the .bin must hold
    exactly N · L ids; the document index is not read (a row is a sequence either way). The ids are a read-only numpy
    memmap of shape (N, L)."""

    def __init__(self, path, row_length=0):
        base = str(path)
        for ext in (".bin", ".idx"):
            if base.endswith(ext):
                base = base[: -len(ext)]
        self.path = base + ".bin"
        idx = base + ".idx"
        try:
            with open(idx, "rb") as f:
                head = f.read(9 + 8 + 1 + 8 + 8)
                if len(head) < 34 or head[:9] != MEGATRON_MAGIC:
                    raise RowsError(idx, "not a Megatron-LM index (no MMIDIDX header)", EXPORT_FIX)
                version, code, n, docs = struct.unpack("<QBQQ", head[9:])
                if version != 1:
                    raise RowsError(idx, f"index version {version}, expected 1", EXPORT_FIX)
                if code not in MEGATRON_DTYPES:
                    raise RowsError(idx, f"dtype code {code}: token ids must be int32 (code 4) or uint16 (code 8)",
                                    EXPORT_FIX)
                size = os.fstat(f.fileno()).st_size
                if size != 34 + n * 4 + n * 8 + docs * 8:
                    raise RowsError(idx, f"the index has {size} bytes, {n} sequences and {docs} document entries "
                                    f"need {34 + n * 12 + docs * 8}", EXPORT_FIX)
                first = np.fromfile(f, dtype="<i4", count=1)
        except FileNotFoundError as e:
            raise RowsError(e.filename, "file not found",
                            "give the rows.parquet, or a Megatron export's PREFIX.bin with its PREFIX.idx") from None
        except OSError as e:
            raise RowsError(idx, f"cannot read the index: {e.strerror}", "check the file's permissions") from None
        dtype = np.dtype(MEGATRON_DTYPES[code]).newbyteorder("<")
        self.row_count = int(n)
        if n and row_length == 0:
            row_length = int(first[0])
        self.row_length = row_length
        if n and not 0 < row_length <= MAX_ROW_LENGTH:
            raise RowsError(idx, f"row length {row_length} is outside 1..{MAX_ROW_LENGTH}", EXPORT_FIX)
        if n and int(first[0]) != row_length:
            raise RowsError(f"{idx}: row 0", f"row has {int(first[0])} ids, expected {row_length} (every row has "
                            "length L)", "give rows of the recipe's row length")
        need = self.row_count * row_length * dtype.itemsize
        try:
            have = os.path.getsize(self.path)
        except FileNotFoundError:
            raise RowsError(self.path, "file not found", "keep PREFIX.bin next to PREFIX.idx") from None
        if have != need:
            raise RowsError(self.path, f"the file has {have} bytes, but {self.row_count} rows of {row_length} ids "
                            f"need {need} (truncated or from another export)", EXPORT_FIX)
        self._check_index(idx, row_length, dtype.itemsize)
        self._ids = (np.memmap(self.path, dtype=dtype, mode="r", shape=(self.row_count, row_length))
                     if need else np.empty((0, row_length), dtype=dtype))

    def _check_index(self, idx, row_length, itemsize):
        """Every sequence length L and every pointer i·L·itemsize, read INDEX_CHUNK entries at a time."""
        n = self.row_count
        with open(idx, "rb") as f:
            for part, dtype, what in ((34, "<i4", "length"), (34 + 4 * n, "<i8", "pointer")):
                for start in range(0, n, INDEX_CHUNK):
                    count = min(INDEX_CHUNK, n - start)
                    f.seek(part + start * np.dtype(dtype).itemsize)
                    got = np.fromfile(f, dtype=dtype, count=count)
                    want = (np.full(count, row_length, dtype=np.int64) if what == "length"
                            else np.arange(start, start + count, dtype=np.int64) * (row_length * itemsize))
                    bad = np.flatnonzero(got != want)
                    if bad.size:
                        r = start + int(bad[0])
                        if what == "length":
                            raise RowsError(f"{idx}: row {r}", f"row has {int(got[bad[0]])} ids, expected "
                                            f"{row_length} (every row has length L)", EXPORT_FIX)
                        raise RowsError(f"{idx}: row {r}", f"sequence pointer {int(got[bad[0]])}, expected "
                                        f"{int(want[bad[0]])} (rows stored back to back)", EXPORT_FIX)

    def read(self, start, stop):
        """Rows [start, stop) as an int32 array of shape (stop - start, L); 0 <= start <= stop <= row_count."""
        return np.asarray(self._ids[start:stop], dtype=np.int32)


def have_pyarrow():
    """True when pyarrow can be imported (then rows.parquet can be read directly)."""
    try:
        import pyarrow.parquet  # noqa: F401
    except ImportError:
        return False
    return True


def open_rows(path, row_length=0):
    """Opens rows at `path`: a `.parquet` (pyarrow) or a Megatron export (`PREFIX.bin`, `PREFIX.idx` or `PREFIX`).
    `row_length` 0: L is the first row's length; otherwise every row must have that many ids. Raises RowsError for a
    missing file, a parquet file without pyarrow (naming the export that works without it), and every check of the
    readers."""
    path = str(path)
    if path.endswith(".parquet"):
        if not os.path.exists(path):
            raise RowsError(path, "file not found", "check the path")
        if not os.path.isfile(path):
            raise RowsError(path, "not a regular file", "give the rows.parquet file")
        if not have_pyarrow():
            stem = path[: -len(".parquet")]
            raise RowsError(path, "reading parquet needs pyarrow, which this Python does not have",
                            f"install pyarrow, or export the rows and pass {stem}.bin: openrecipes rows export "
                            f"{path} --format megatron -o {stem}")
        return ParquetRows(path, row_length)
    return MegatronRows(path, row_length)


def rows_sha256(rows, count, chunk=256):
    """SPEC §1.8 over rows [0, count) of `rows` (an open_rows result): SHA-256 of the ids as little-endian int32,
    row-major, as 64 lowercase hex characters. Reads `chunk` rows at a time. count must be <= rows.row_count."""
    h = hashlib.sha256()
    for start in range(0, count, chunk):
        h.update(rows.read(start, min(count, start + chunk)).astype("<i4", copy=False).tobytes(order="C"))
    return h.hexdigest()


def verify(path, count, expected_sha256, row_length=0):
    """`openrecipes rows verify`'s verdict: (match, message). The message is the C++ tool's line, word for word.
    Raises RowsError, with the C++ tool's text, for a bad sha256, a count of 0, a file with fewer than `count` rows,
    and every reader error."""
    expected = str(expected_sha256).lower()
    if not is_sha256_hex(expected):
        raise RowsError("--sha256", f"'{expected_sha256}' is not a SHA-256 (64 hex characters)",
                        "copy rows.sha256 from the recipe")
    if count == 0:
        raise RowsError("--rows", "the row count is 0", "give the recipe's rows.count (at least 1)")
    rows = open_rows(path, row_length)
    if count > rows.row_count:
        raise RowsError(path, f"the file has {rows.row_count} rows, fewer than the {count} to verify",
                        "build at least that many rows (openrecipes rows build --rows R), or check the recipe's "
                        "rows.count")
    got = rows_sha256(rows, count)
    if got == expected:
        return True, f"{path}: the first {count} rows (L = {rows.row_length}) match sha256 {expected}"
    return False, (f"{path}: the first {count} rows (L = {rows.row_length}) hash to {got}, expected {expected} (the "
                   "rows differ from the recorded ones: rebuild them with the recorded tokenizer, seed and row length)")
