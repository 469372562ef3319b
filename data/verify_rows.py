#!/usr/bin/env python3
"""Checks a rows build against the rows_sha256 a recipe records (SPEC §1.8), in pure Python.

    python3 data/verify_rows.py <rows.parquet | PREFIX.bin> --recipe <recipe.yaml | recipe folder>
    python3 data/verify_rows.py <rows.parquet | PREFIX.bin> --build <registry/rows/<id> | its rows.yaml>
    python3 data/verify_rows.py <rows.parquet | PREFIX.bin> --rows R --sha256 HEX

The same verdict and message as `openrecipes rows verify`, so the two implementations check each other: the first
R rows' ids as little-endian int32, row-major, hashed with SHA-256, against the recipe's `workload.rows` {count,
sha256} (every row of the recipe's `workload.row_length`), or against a registered reference rows build's
rows_written and rows_sha256 (every row of its row_length; its rows.yaml must agree with its rows.manifest.json on
them). rows.parquet is read with pyarrow; without pyarrow, give
the Megatron export (`openrecipes rows export rows.parquet --format megatron -o rows`, read with numpy). Of a recipe
only the workload is read (PyYAML's BaseLoader, numbers read as openrecipes reads them); openrecipes checks the whole
recipe, so for a recipe it refuses over another field the two messages differ.

Exit codes as openrecipes': 0 the rows match, 1 they differ, 2 bad input or usage (the message names the file and
the fix), or no numpy (one line saying how to install it).
"""

import argparse
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

NUMPY_FIX = "Debian: apt install python3-numpy; pip: pip install numpy"
try:
    from openrecipes_rows import RowsError, is_sha256_hex, read_bounded, verify  # noqa: E402
    NO_NUMPY = None
except ImportError as e:  # openrecipes_rows reads rows with numpy, which a cluster's Python may lack
    if e.name is not None and e.name != "numpy" and not e.name.startswith("numpy."):
        raise  # not numpy (openrecipes_rows imports nothing else outside the standard library): a bug
    if isinstance(e, ModuleNotFoundError) and e.name == "numpy":
        NO_NUMPY = f"needs numpy ({NUMPY_FIX})"
    else:  # numpy is there but broken
        why = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        NO_NUMPY = f"needs numpy, which does not import here: {why} ({NUMPY_FIX})"

MAX_RECIPE_BYTES = 4 << 20  # as openrecipes' YAML reader (src/core/yaml.h kMaxYamlBytes)


def _loader():
    """PyYAML's BaseLoader (every scalar a string, as openrecipes' reader sees it: no YAML 1.1 octal, hex, base-60 or
    underscore integers) that refuses duplicate keys, as openrecipes does."""
    import yaml

    class Loader(yaml.BaseLoader):
        def construct_mapping(self, node, deep=False):
            keys = set()
            for key_node, _ in node.value:
                key = self.construct_object(key_node, deep=deep)
                if not isinstance(key, str) or key in keys:
                    raise yaml.constructor.ConstructorError(None, None, f"duplicate key {key!r}", key_node.start_mark)
                keys.add(key)
            return super().construct_mapping(node, deep=deep)

    return Loader


def _int_field(value, where, low, high, fix):
    """A whole number read as openrecipes reads one (src/core/text.cpp parse_int): the scalar's text, trimmed, an
    optional sign, decimal digits (leading zeros are decimal), in [low, high]. Raises RowsError."""
    text = value.strip() if isinstance(value, str) else None
    if text is None or not re.fullmatch(r"[+-]?[0-9]{1,19}", text):
        raise RowsError(where, f"expected an integer, got {value!r}", fix)
    n = int(text)
    if not low <= n <= high:
        raise RowsError(where, f"{n} is out of range [{low}, {high}]", fix)
    return n


def _load_yaml(given, file_name, what, fix_syntax, fix_depth):
    """(path, document) of a registry YAML file (`given`, or `given`/`file_name` for a folder), read as openrecipes
    reads one (_loader). Raises RowsError naming the file."""
    import yaml

    path = os.path.join(given, file_name) if os.path.isdir(given) else given
    text = read_bounded(path, MAX_RECIPE_BYTES, what)
    try:
        return path, yaml.load(text.decode("utf-8"), Loader=_loader())  # noqa: S506 (BaseLoader builds strings only)
    except (UnicodeDecodeError, yaml.YAMLError) as e:
        raise RowsError(path, f"malformed YAML: {e}", fix_syntax) from None
    except RecursionError:
        raise RowsError(path, "the YAML nests too deeply", fix_depth) from None


def recipe_rows(recipe):
    """(count, sha256, row_length) from a recipe's standard workload, read as openrecipes reads these fields. Raises
    RowsError naming the field. Only the workload is checked: `openrecipes rows verify --recipe` loads and checks the
    whole recipe, so for a recipe it refuses the two tools' messages differ."""
    path, doc = _load_yaml(recipe, "recipe.yaml", "recipe", "fix the recipe's YAML",
                           "give the recipe.yaml of a registry recipe")
    w = doc.get("workload") if isinstance(doc, dict) else None
    if not isinstance(w, dict):
        raise RowsError(f"{path}: workload", "missing or not a mapping", "see docs/recipe-format.md")
    rows = w.get("rows")
    if rows is None and w.get("kind") != "standard":
        raise RowsError(path, "the recipe ran a non-standard workload and records no rows to verify (workload.rows)",
                        "record the rows the run trained on as workload.rows: {count, sha256} (docs/recipe-format.md)")
    if not isinstance(rows, dict):
        raise RowsError(f"{path}: workload.rows", "missing or not a mapping {count, sha256}",
                        "see docs/recipe-format.md")
    count = _int_field(rows.get("count"), f"{path}: workload.rows.count", 1, 1 << 40,
                       "give the number of rows the recipe's run trained on")
    sha = rows.get("sha256")
    if not is_sha256_hex(sha):
        raise RowsError(f"{path}: workload.rows.sha256", "expected 64 lowercase hex digits",
                        "copy rows_sha256 from the build's manifest")
    length = _int_field(w.get("row_length"), f"{path}: workload.row_length", 1, 1 << 24, "give L, the tokens per row")
    return count, sha, length


def build_rows(build):
    """(count, sha256, row_length) of a registered reference rows build (registry/rows/<id>/rows.yaml): its
    rows_written, rows_sha256 and row_length, which its rows.manifest.json must record too. Raises RowsError naming the
    field. openrecipes checks every field of both files, so for a build it refuses over another field the two messages
    differ."""
    import json

    if os.path.basename(os.path.normpath(build)) == "rows.manifest.json":  # the build's manifest names it too
        build = os.path.dirname(os.path.normpath(build))
    path, doc = _load_yaml(build, "rows.yaml", "rows build", "write it again with openrecipes rows register",
                           "give a registered build's rows.yaml")
    if not isinstance(doc, dict):
        raise RowsError(path, "not a rows build's rows.yaml", "give registry/rows/<id>/rows.yaml")
    fix = ('write it again with openrecipes rows register <rows.manifest.json> (docs/rows-format.md, "Reference rows '
           'builds")')
    count = _int_field(doc.get("rows_written"), f"{path}: rows_written", 1, 1 << 63, fix)
    sha = doc.get("rows_sha256")
    if not is_sha256_hex(sha):
        raise RowsError(f"{path}: rows_sha256", "expected 64 lowercase hex digits", fix)
    length = _int_field(doc.get("row_length"), f"{path}: row_length", 1, 1 << 24, fix)
    manifest = os.path.join(os.path.dirname(path), "rows.manifest.json")
    try:
        m = json.loads(read_bounded(manifest, 16 << 20, "manifest").decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as e:
        raise RowsError(manifest, f"not a rows manifest: {e}", fix) from None
    for key, value in (("rows_written", count), ("rows_sha256", sha), ("row_length", length)):
        if not isinstance(m, dict) or m.get(key) != value:
            theirs = m.get(key) if isinstance(m, dict) else None
            raise RowsError(f"{path}: {key}", f"rows.yaml records {json.dumps(value)} but its manifest "
                            f"rows.manifest.json records {json.dumps(theirs)}", fix)
    return count, sha, length


def main(argv=None):
    p = argparse.ArgumentParser(prog="verify_rows.py", description=__doc__.split("\n\n")[0])
    p.add_argument("rows_file", help="rows.parquet, or a Megatron export's PREFIX.bin")
    p.add_argument("--recipe", help="recipe.yaml (or its folder) whose workload.rows to check against")
    p.add_argument("--build", help="a registered reference rows build (registry/rows/<id>) to check against")
    p.add_argument("--rows", help="R, with --sha256")
    p.add_argument("--sha256", help="expected rows_sha256 of the first R rows")
    a = p.parse_args(argv)
    if NO_NUMPY:
        print(f"verify_rows.py: error: {NO_NUMPY}", file=sys.stderr)
        return 2
    try:
        given = (a.recipe is not None) + (a.build is not None) + (a.rows is not None or a.sha256 is not None)
        if given > 1:
            raise RowsError("rows verify", "give one of --recipe, --build, or --rows with --sha256")
        if a.recipe is not None:
            count, sha, length = recipe_rows(a.recipe)
        elif a.build is not None:
            count, sha, length = build_rows(a.build)
        else:
            if a.rows is None or a.sha256 is None:
                raise RowsError("rows verify", "nothing to verify against",
                                "give --recipe recipe.yaml, --build registry/rows/<id>, or --rows R --sha256 HEX")
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
