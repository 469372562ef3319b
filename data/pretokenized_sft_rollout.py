"""The slime / miles rollout plugin that trains on OpenRecipes rows (SPEC §1: step i reads rows [i·B, (i+1)·B)).

Use with `data/` on PYTHONPATH (data/README.md gives the whole flag set and why):

    --rollout-function-path pretokenized_sft_rollout.generate_rollout
    --disable-rollout-global-dataset --prompt-data $SFT_DATA          # rows.parquet, or the Megatron export's .bin
    --rollout-batch-size 128 --global-batch-size 128 --num-rollout 20
    --loss-type sft_loss --disable-compute-advantages-and-returns --debug-train-only --ref-load $TORCH_DIST

Contract (../shared/notes/slime.md §1.1–1.8, slime 624b824a and miles 31f1ca96): slime calls
`generate_rollout(args, rollout_id, data_source, evaluation=False)` in its RolloutManager actor once per rollout;
with `--rollout-batch-size` = `--global-batch-size` = B a rollout is one optimizer step, so rollout i gets rows
[i·B, (i+1)·B). Each sample is one row of L ids: `tokens` = the row, `response_length` = L − 1 and `loss_mask` =
[1]·(L − 1) (slime trains the last `response_length` predictions and position 0 has no predecessor, so L would
misalign them), `reward` 0, `status` COMPLETED, `response` "", `rollout_id` left None (miles reads a set one as a
"compact" output). The samples are the blank ones `data_source.get_samples(B)` returns when no prompt dataset is
loaded, so neither slime's nor miles' `Sample` is imported and the same file serves both frameworks.

The first call opens the rows (pyarrow for rows.parquet when importable, numpy memmap for PREFIX.bin/.idx; only a
step's rows are read), checks them against the build's manifest (L, row count) and, when OPENRECIPES_ROWS_SHA256 is
set, hashes the first OPENRECIPES_ROWS_COUNT rows (SPEC §1.8) and compares. Every call logs the rollout id and the
row range it served. Any mismatch stops the run with a `RowsError` that names the fix.
"""

import logging
import numbers
import os
import threading

from openrecipes_rows import RowsError, is_sha256_hex, manifest_path_for, open_rows, read_manifest, rows_sha256

logger = logging.getLogger("pretokenized_sft_rollout")

_lock = threading.Lock()  # miles calls the rollout function from a worker thread
_opened = {}  # rows path -> the open rows; the RolloutManager actor lives for the whole run


def _rows_for(args):
    """The rows of `args.prompt_data`, opened and checked on first use. Raises RowsError."""
    path = getattr(args, "prompt_data", None)
    if not path:
        raise RowsError("--prompt-data", "no rows file given",
                        "pass --disable-rollout-global-dataset --prompt-data $SFT_DATA (rows.parquet, or the "
                        "Megatron export's PREFIX.bin)")
    if isinstance(path, (list, tuple)):
        raise RowsError("--prompt-data", f"{len(path)} values given, the plugin reads one rows file",
                        "pass one rows.parquet or PREFIX.bin")
    path = str(path)
    rows = _opened.get(path)
    if rows is not None:
        return rows
    manifest = read_manifest(path)
    rows = open_rows(path)
    where = manifest_path_for(path)
    if rows.row_count > 0 and rows.row_length != manifest["row_length"]:
        raise RowsError(path, f"rows of {rows.row_length} ids, but the manifest {where} says L = "
                        f"{manifest['row_length']}", "keep each rows file with the manifest of its own build")
    if rows.row_length < 2:
        raise RowsError(path, f"rows of L = {rows.row_length}: nothing to predict",
                        "build rows of at least 2 tokens (openrecipes rows build --row-length L)")
    if rows.row_count != manifest["rows_written"]:
        raise RowsError(path, f"{rows.row_count} rows, the manifest {where} says {manifest['rows_written']} were "
                        "written", "keep each rows file with the manifest of its own build (or build the rows again)")
    _check_recorded_sha256(path, rows)
    logger.info("pretokenized_sft_rollout: serving %s: %d rows of L = %d (manifest %s, which records rows_sha256 %s)",
                path,
                rows.row_count, rows.row_length, where, manifest["rows_sha256"])
    _opened[path] = rows
    return rows


def _check_recorded_sha256(path, rows):
    """With OPENRECIPES_ROWS_SHA256 (and OPENRECIPES_ROWS_COUNT, the recipe's rows.count) set, the first R rows must
    hash to it (SPEC §1.8). Raises RowsError."""
    expected = os.environ.get("OPENRECIPES_ROWS_SHA256", "").strip().lower()
    count_text = os.environ.get("OPENRECIPES_ROWS_COUNT", "").strip()
    if not expected:
        if count_text:
            raise RowsError("OPENRECIPES_ROWS_COUNT", "is set, but OPENRECIPES_ROWS_SHA256 is not",
                            "set both from the recipe's rows (count and sha256), or neither")
        return
    if not is_sha256_hex(expected):
        raise RowsError("OPENRECIPES_ROWS_SHA256", f"'{expected}' is not a SHA-256 (64 hex characters)",
                        "copy rows.sha256 from the recipe")
    if not (count_text.isascii() and count_text.isdigit() and len(count_text) <= 19) or int(count_text) == 0:
        raise RowsError("OPENRECIPES_ROWS_COUNT", f"'{count_text}' is not a positive row count",
                        "set it to the recipe's rows.count, next to OPENRECIPES_ROWS_SHA256")
    count = int(count_text)
    if count > rows.row_count:
        raise RowsError(path, f"the file has {rows.row_count} rows, fewer than the {count} to verify",
                        "build at least that many rows (openrecipes rows build --rows R), or check the recipe's "
                        "rows.count")
    got = rows_sha256(rows, count)
    if got != expected:
        raise RowsError(path, f"the first {count} rows (L = {rows.row_length}) hash to {got}, expected {expected}",
                        "the rows differ from the recipe's: rebuild them with the recipe's tokenizer, seed and row "
                        "length (openrecipes rows build), then check them with data/verify_rows.py")
    logger.info("pretokenized_sft_rollout: the first %d rows of %s match rows_sha256 %s", count, path, expected)


def _whole(v):
    """v as an int when it is a whole number (int, numpy integer), else None (bool, float and str are not)."""
    return int(v) if isinstance(v, numbers.Integral) and not isinstance(v, bool) else None


def _check_args(args, evaluation):
    """The run settings the plugin needs (one step per rollout, one sample per row). Returns B. Raises RowsError."""
    if evaluation:
        raise RowsError("generate_rollout", "called with evaluation=True; the rows are training data only",
                        "run with --debug-train-only (slime then skips evaluation), and without --eval-interval")
    if getattr(args, "rollout_global_dataset", False):
        raise RowsError("--disable-rollout-global-dataset", "the rollout global dataset is on",
                        "pass --disable-rollout-global-dataset: otherwise slime and miles load --prompt-data as a "
                        "prompt dataset, which rows are not")
    b = _whole(getattr(args, "rollout_batch_size", None))
    gbs = _whole(getattr(args, "global_batch_size", None))
    if b is None or b <= 0:
        raise RowsError("--rollout-batch-size", f"{getattr(args, 'rollout_batch_size', None)!r} is not a positive "
                        "row count", "pass --rollout-batch-size 128")
    if b != gbs:
        raise RowsError("--rollout-batch-size",
                        f"rollout batch size {b} differs from global batch size {gbs}: a rollout would not be one "
                        "step, and step i would not read rows [i·B, (i+1)·B)",
                        "pass the same value to both, e.g. --rollout-batch-size 128 --global-batch-size 128")
    n = getattr(args, "n_samples_per_prompt", 1)
    if _whole(n) != 1:
        raise RowsError("--n-samples-per-prompt", f"{n!r} samples per prompt: each row must be one sample",
                        "leave --n-samples-per-prompt at 1")
    return b


def generate_rollout(args, rollout_id, data_source, evaluation=False):
    """Rollout `rollout_id`'s training samples: rows [rollout_id·B, (rollout_id+1)·B) of `args.prompt_data`, B =
    `args.rollout_batch_size`, as B groups of one sample (slime's `list[list[Sample]]`).

    `data_source` is slime's or miles' RolloutDataSource with no dataset (--disable-rollout-global-dataset): its
    `get_samples(B)` gives B groups of one blank Sample, which are filled in and returned. Raises RowsError for
    evaluation=True, B != global batch size, more than one sample per prompt, a rollout past the last full batch, a
    row of the wrong length, rows that disagree with their manifest or with OPENRECIPES_ROWS_SHA256, and every error
    of the rows readers (data/openrecipes_rows.py)."""
    b = _check_args(args, evaluation)
    with _lock:
        rows = _rows_for(args)
        step = _whole(rollout_id)
        if step is None or step < 0:
            raise RowsError("generate_rollout", f"rollout id {rollout_id!r} is not a step number",
                            "start the run at rollout 0: pass --ref-load $TORCH_DIST with a fresh --load/--save "
                            "folder, or --start-rollout-id 0")
        start, stop = step * b, (step + 1) * b
        if stop > rows.row_count:
            full = rows.row_count // b
            served = f"rollouts 0..{full - 1}" if full else "not one full batch"
            raise RowsError(str(args.prompt_data),
                            f"rollout {step} needs rows [{start}, {stop}), the file has {rows.row_count} rows "
                            f"({full} full batches of {b}: {served})",
                            "build more rows (openrecipes rows build --rows R with R >= num_rollout x "
                            "rollout_batch_size), or pass a smaller --num-rollout")
        ids = rows.read(start, stop)
    if ids.shape != (b, rows.row_length):
        raise RowsError(f"{args.prompt_data}: rows [{start}, {stop})",
                        f"read {ids.shape[0]} rows of {ids.shape[1]} ids, expected {b} of {rows.row_length}",
                        "build the rows again (openrecipes rows build)")
    groups = data_source.get_samples(b)
    if len(groups) != b:
        raise RowsError("data_source.get_samples", f"gave {len(groups)} groups for {b} rows",
                        "use the framework's default data source with --disable-rollout-global-dataset")
    length = rows.row_length
    for i, group in enumerate(groups):
        if len(group) != 1:
            raise RowsError("data_source.get_samples", f"group {i} holds {len(group)} samples, expected 1",
                            "leave --n-samples-per-prompt at 1")
        sample = group[0]
        sample.tokens = ids[i].tolist()
        sample.response = ""
        sample.response_length = length - 1
        sample.loss_mask = [1] * (length - 1)
        sample.reward = 0
        sample.status = type(sample).Status.COMPLETED
    logger.info("pretokenized_sft_rollout: rollout %d served rows [%d, %d) of %s", step, start, stop,
                args.prompt_data)
    return groups
