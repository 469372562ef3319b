#!/usr/bin/env python3
"""Checks a rows build against the rows_sha256 a recipe records (SPEC §1.8), in pure Python.

    python3 data/verify_rows.py <rows.parquet | PREFIX.bin> --recipe <recipe.yaml | recipe folder>
    python3 data/verify_rows.py <rows.parquet | PREFIX.bin> --rows R --sha256 HEX

The same verdict and message as `openrecipes rows verify`, so the two implementations check each other: the first R
rows' ids as little-endian int32, row-major, hashed with SHA-256, against the recipe's `workload.rows` {count,
sha256} (every row of the recipe's `workload.row_length`). rows.parquet is read with pyarrow; without pyarrow, give
the Megatron export (`openrecipes rows export rows.parquet --format megatron -o rows`, read with numpy). The recipe
is read with PyYAML's safe loader.

Exit codes as openrecipes': 0 the rows match, 1 they differ, 2 bad input or usage (the message names the file and
the fix).
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from openrecipes_rows import RowsError, is_sha256_hex, read_bounded, verify  # noqa: E402

MAX_RECIPE_BYTES = 4 << 20  # as openrecipes' YAML reader (src/core/yaml.h kMaxYamlBytes)


def recipe_rows(recipe):
    """(count, sha256, row_length) from a recipe's standard workload. Raises RowsError naming the field."""
    import yaml

    path = os.path.join(recipe, "recipe.yaml") if os.path.isdir(recipe) else recipe
    text = read_bounded(path, MAX_RECIPE_BYTES, "recipe")
    try:
        doc = yaml.safe_load(text.decode("utf-8"))
    except (UnicodeDecodeError, yaml.YAMLError) as e:
        raise RowsError(path, f"malformed YAML: {e}", "fix the recipe's YAML") from None
    w = doc.get("workload") if isinstance(doc, dict) else None
    if not isinstance(w, dict):
        raise RowsError(f"{path}: workload", "missing or not a mapping", "see docs/recipe-format.md")
    if w.get("kind") != "standard":
        raise RowsError(path, "the recipe ran a non-standard workload and records no rows to verify")
    rows = w.get("rows")
    if not isinstance(rows, dict):
        raise RowsError(f"{path}: workload.rows", "missing or not a mapping {count, sha256}",
                        "see docs/recipe-format.md")
    count, sha, length = rows.get("count"), rows.get("sha256"), w.get("row_length")
    if not isinstance(count, int) or isinstance(count, bool) or not 1 <= count <= 1 << 40:
        raise RowsError(f"{path}: workload.rows.count", f"'{count}' is not a row count from 1 to 2^40",
                        "give the number of rows the recipe's run trained on")
    if not is_sha256_hex(sha):
        raise RowsError(f"{path}: workload.rows.sha256", "expected 64 lowercase hex digits",
                        "copy rows_sha256 from the build's manifest")
    if not isinstance(length, int) or isinstance(length, bool) or not 1 <= length <= 1 << 24:
        raise RowsError(f"{path}: workload.row_length", f"'{length}' is not a row length from 1 to 2^24",
                        "give L, the tokens per row")
    return count, sha, length


def main(argv=None):
    p = argparse.ArgumentParser(prog="verify_rows.py", description=__doc__.split("\n\n")[0])
    p.add_argument("rows_file", help="rows.parquet, or a Megatron export's PREFIX.bin")
    p.add_argument("--recipe", help="recipe.yaml (or its folder) whose workload.rows to check against")
    p.add_argument("--rows", help="R, with --sha256")
    p.add_argument("--sha256", help="expected rows_sha256 of the first R rows")
    a = p.parse_args(argv)
    try:
        if a.recipe is not None:
            if a.rows is not None or a.sha256 is not None:
                raise RowsError("rows verify", "give --recipe or --rows with --sha256, not both")
            count, sha, length = recipe_rows(a.recipe)
        else:
            if a.rows is None or a.sha256 is None:
                raise RowsError("rows verify", "nothing to verify against",
                                "give --recipe recipe.yaml, or --rows R --sha256 HEX")
            if not (a.rows.isascii() and a.rows.isdigit()) or not 1 <= int(a.rows) <= 2**64 - 1:
                raise RowsError("--rows", f"'{a.rows}' is not a whole number from 1 to {2**64 - 1}",
                                "leave --rows out to verify against a recipe with --recipe")
            count, sha, length = int(a.rows), a.sha256, 0
        match, message = verify(a.rows_file, count, sha, length)
    except RowsError as e:
        print(f"verify_rows.py: error: {e}", file=sys.stderr)
        return 2
    print(message)
    return 0 if match else 1


if __name__ == "__main__":
    sys.exit(main())
