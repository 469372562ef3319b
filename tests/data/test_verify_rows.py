"""data/verify_rows.py against `openrecipes rows verify` on real builds of ../shared/fixtures/tulu3
(tests/data/rows_fixture.py): the same exit code and the same message, word for word (only the file name differs
when the C++ tool reads rows.parquet and the Python one the Megatron export of the same build), on a good build, a
tampered build (another seed's rows) and a tampered export (one id changed), with --rows/--sha256 and --recipe."""

import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

import numpy as np

import rows_fixture
from rows_fixture import REPO, ROW_LENGTH, ROWS

import openrecipes_rows

SCRIPT = os.path.join(REPO, "data", "verify_rows.py")

# A standard workload in the bundled ref recipe's shape (openrecipes reads the whole recipe; verify_rows.py only the
# workload). {kind}, {length}, {count} and {sha} are filled in per test.
WORKLOAD = """workload:
  kind: {kind}
  dataset: allenai/tulu-3-sft-mixture
  revision: b14afda60f1bbebe55d5d2fa1e4df5042f97f8be
  tokenizer: Qwen/Qwen3-0.6B
  seed: 0
  row_length: {length}
  global_batch: 32
  rows: {{count: {count}, sha256: {sha}}}
"""
NON_STANDARD = """workload:
  kind: non-standard
  key: fixture-rows
  description: "test rows"
  row_length: {length}
  global_batch: 32
"""
ROWS_FIELD = """  rows: {{count: {count}, sha256: {sha}}}
"""
BUNDLED = os.path.join(REPO, "registry", "recipes", "qwen3-0.6b", "H200", "ref")


def tearDownModule():
    rows_fixture.cleanup()


def run_python(*args):
    p = subprocess.run([sys.executable, SCRIPT, *args], capture_output=True, text=True, check=False)
    return p.returncode, p.stdout, p.stderr


class VerifyRowsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.root = rows_fixture.built_rows()
        cls.good = os.path.join(cls.root, "seed0")
        cls.other = os.path.join(cls.root, "seed1")
        with open(os.path.join(cls.good, "rows.bin"), "rb") as f:
            cls.ids = np.frombuffer(f.read(), dtype="<i4").reshape(ROWS, ROW_LENGTH)

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="openrecipes-verify-")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def sha(self, n):
        """SPEC §1.8 computed here with hashlib over the export's bytes (independent of both tools)."""
        return hashlib.sha256(self.ids[:n].tobytes()).hexdigest()

    def both(self, build, *args):
        """(C++ on build/rows.parquet, Python on build/rows.bin), each (rc, the message line with the file name
        replaced by FILE). The C++ tool is skipped (None) when the binary is not there (the device)."""
        py = run_python(os.path.join(build, "rows.bin"), *args)
        py_line = (py[1] or py[2]).replace(os.path.join(build, "rows.bin"), "FILE")
        py_line = py_line.replace("verify_rows.py: error: ", "error: ")
        if not rows_fixture.binary():
            return None, (py[0], py_line)
        cc = rows_fixture.run_cli("rows", "verify", os.path.join(build, "rows.parquet"), *args)
        cc_line = (cc[1] or cc[2]).replace(os.path.join(build, "rows.parquet"), "FILE")
        cc_line = cc_line.replace("openrecipes: error: ", "error: ")
        return (cc[0], cc_line), (py[0], py_line)

    def assert_agree(self, build, *args, rc):
        cc, py = self.both(build, *args)
        self.assertEqual(py[0], rc, py[1])
        if cc is not None:
            self.assertEqual(cc, py)
        return py[1]

    def write_recipe(self, **fields):
        d = os.path.join(self.tmp, "registry", "recipes", "qwen3-0.6b", "H200", "r1")  # where openrecipes wants it
        os.makedirs(d, exist_ok=True)
        vals = dict(kind="standard", length=ROW_LENGTH, count=64, sha=self.sha(64), workload=WORKLOAD)
        vals.update(fields)
        with open(os.path.join(BUNDLED, "recipe.yaml")) as f:
            text = f.read().replace("id: ref\n", "id: r1\n")
        begin, end = text.index("workload:\n"), text.index("steps_per_run:")
        with open(os.path.join(d, "recipe.yaml"), "w") as f:
            f.write(text[:begin] + vals["workload"].format(**vals) + text[end:])
        shutil.copytree(os.path.join(BUNDLED, "evidence"), os.path.join(d, "evidence"), dirs_exist_ok=True)
        return os.path.join(d, "recipe.yaml")

    def test_a_good_build_matches_in_both(self):
        for n in (1, 64, ROWS):
            msg = self.assert_agree(self.good, "--rows", str(n), "--sha256", self.sha(n), rc=0)
            self.assertEqual(msg, f"FILE: the first {n} rows (L = {ROW_LENGTH}) match sha256 {self.sha(n)}\n")
        # The manifest's rows_sha256 is the hash of every row written.
        manifest = openrecipes_rows.read_manifest(os.path.join(self.good, "rows.parquet"))
        self.assertEqual(manifest["rows_sha256"], self.sha(ROWS))

    def test_upper_case_hex_is_accepted_in_both(self):
        self.assert_agree(self.good, "--rows", "64", "--sha256", self.sha(64).upper(), rc=0)

    def test_a_tampered_build_fails_in_both_with_the_same_hash(self):
        msg = self.assert_agree(self.other, "--rows", "64", "--sha256", self.sha(64), rc=1)
        with open(os.path.join(self.other, "rows.bin"), "rb") as f:
            theirs = hashlib.sha256(f.read(64 * ROW_LENGTH * 4)).hexdigest()
        self.assertNotEqual(theirs, self.sha(64))
        self.assertIn(f"hash to {theirs}, expected {self.sha(64)} (the rows differ from the recorded ones", msg)

    def test_a_tampered_export_fails_with_the_hash_of_its_bytes(self):
        shutil.copy(os.path.join(self.good, "rows.idx"), self.tmp)
        bad = self.ids.copy()
        bad[63, ROW_LENGTH - 1] ^= 1  # one id of the last row verified
        bad.tofile(os.path.join(self.tmp, "rows.bin"))
        rc, out, err = run_python(os.path.join(self.tmp, "rows.bin"), "--rows", "64", "--sha256", self.sha(64))
        self.assertEqual(rc, 1, err)
        self.assertIn(f"hash to {hashlib.sha256(bad[:64].tobytes()).hexdigest()}", out)
        # The first 63 rows are untouched and still verify.
        rc, out, err = run_python(os.path.join(self.tmp, "rows.bin"), "--rows", "63", "--sha256", self.sha(63))
        self.assertEqual(rc, 0, err)

    def test_a_recipe_is_checked_against_its_workload_rows(self):
        recipe = self.write_recipe()
        self.assert_agree(self.good, "--recipe", recipe, rc=0)
        self.assert_agree(self.other, "--recipe", recipe, rc=1)
        self.assert_agree(self.good, "--recipe", os.path.dirname(recipe), rc=0)  # the folder works too

    def test_a_recipe_of_another_row_length_is_refused_naming_the_row(self):
        # The fix differs by format (rebuild the parquet, re-export the .bin); the finding is the same.
        for rc, msg in filter(None, self.both(self.good, "--recipe", self.write_recipe(length=1024))):
            self.assertEqual(rc, 2)
            self.assertIn(": row 0: row has 512 ids, expected 1024 (every row has length L)", msg)

    def test_a_non_standard_recipe_is_checked_against_the_rows_it_records_and_refused_without_them(self):
        self.assert_agree(self.good, "--recipe", self.write_recipe(workload=NON_STANDARD + ROWS_FIELD), rc=0)
        self.assert_agree(self.other, "--recipe", self.write_recipe(workload=NON_STANDARD + ROWS_FIELD), rc=1)
        msg = self.assert_agree(self.good, "--recipe", self.write_recipe(workload=NON_STANDARD), rc=2)
        self.assertIn("the recipe ran a non-standard workload and records no rows to verify (workload.rows)", msg)

    def write_build(self, count=64, sha=None, manifest_sha=None):
        """registry/rows/b/ as openrecipes rows register writes it: rows.yaml and the build's manifest."""
        d = os.path.join(self.tmp, "registry", "rows", "b")
        os.makedirs(d, exist_ok=True)
        sha = sha or self.sha(count)
        m = {"chat_template_sha256": "c" * 64, "conversations": 10, "dataset_id": "", "dataset_revision": "",
             "eos_id": 2, "eos_token": "</s>", "format_version": 1, "row_length": ROW_LENGTH, "rows_requested": None,
             "rows_sha256": manifest_sha or sha, "rows_written": count, "seed": 0,
             "sources": [{"bytes": 1, "conversations": 10, "name": "s.jsonl", "sha256": "a" * 64}],
             "strftime_date": "2026-01-01", "tokenizer_config_sha256": "d" * 64, "tokenizer_json_sha256": "e" * 64,
             "tokens_dropped": 0, "tool_version": "openrecipes 0.1.0"}
        with open(os.path.join(d, "rows.manifest.json"), "w") as f:
            json.dump(m, f, indent=2, sort_keys=True)
            f.write("\n")
        lines = ["id: b", "manifest: rows.manifest.json"]
        m["rows_sha256"] = sha  # rows.yaml's own value (the manifest may record another)
        for k in sorted(m):
            if k == "format_version":
                continue
            v = m[k]
            lines.append(f"{k}: " + ("null" if v is None else json.dumps(v)))
        with open(os.path.join(d, "rows.yaml"), "w") as f:
            f.write("\n".join(lines) + "\n")
        return d

    def test_a_registered_build_is_checked_against_in_both(self):
        build = self.write_build()
        self.assert_agree(self.good, "--build", build, rc=0)
        self.assert_agree(self.other, "--build", build, rc=1)
        self.assert_agree(self.good, "--build", os.path.join(build, "rows.yaml"), rc=0)
        self.assert_agree(self.good, "--build", os.path.join(build, "rows.manifest.json"), rc=0)
        # rows.yaml edited by hand: its manifest says otherwise, and both tools refuse it naming the field.
        msg = self.assert_agree(self.good, "--build", self.write_build(manifest_sha=self.sha(63)), rc=2)
        self.assertIn("rows_sha256: rows.yaml records", msg)

    def test_more_rows_than_the_file_holds_is_an_error_in_both(self):
        msg = self.assert_agree(self.good, "--rows", "100", "--sha256", self.sha(64), rc=2)
        self.assertIn(f"the file has {ROWS} rows, fewer than the 100 to verify", msg)

    def test_recipe_numbers_are_read_as_openrecipes_reads_them(self):
        # YAML 1.1 would read 020 as octal 16, 0x40 as 64 and 1:04 as 64; openrecipes reads 020 as twenty and refuses
        # the others, and takes a quoted "64" as 64. Both tools give the same verdict on each.
        self.assert_agree(self.good, "--recipe", self.write_recipe(count="020", sha=self.sha(16)), rc=1)
        self.assert_agree(self.good, "--recipe", self.write_recipe(count="020", sha=self.sha(20)), rc=0)
        self.assert_agree(self.good, "--recipe", self.write_recipe(count='"64"'), rc=0)
        for bad in ("0x40", "1:04", "6_4", "true", "64.0"):
            cc, py = self.both(self.good, "--recipe", self.write_recipe(count=bad))
            self.assertEqual(py[0], 2, bad)
            self.assertIn("workload.rows.count", py[1])
            if cc is not None:
                self.assertEqual(cc[0], 2, bad)

    def test_a_hostile_recipe_exits_2_without_a_traceback(self):
        d = os.path.join(self.tmp, "hostile")
        os.makedirs(d)
        cases = {"deep.yaml": "a: " + "[" * 50000 + "]" * 50000 + "\n",
                 "dup.yaml": "workload: {kind: standard}\nworkload: {kind: standard}\n",
                 "digits.yaml": "workload: {kind: standard, row_length: 512, rows: {count: " + "9" * 5000 + "}}\n"}
        for name, text in cases.items():
            with open(os.path.join(d, name), "w") as f:
                f.write(text)
            rc, out, err = run_python(os.path.join(self.good, "rows.bin"), "--recipe", os.path.join(d, name))
            self.assertEqual(rc, 2, name + err)
            self.assertNotIn("Traceback", err, name)
            self.assertIn(name, err)

    def test_usage_errors_agree(self):
        self.assert_agree(self.good, "--rows", "0", "--sha256", self.sha(1), rc=2)
        self.assert_agree(self.good, "--rows", "abc", "--sha256", self.sha(1), rc=2)
        self.assert_agree(self.good, "--rows", "5", "--sha256", "XYZ", rc=2)
        self.assert_agree(self.good, "--rows", "5", rc=2)
        self.assert_agree(self.good, "--recipe", self.write_recipe(), "--rows", "5", rc=2)

    def test_a_truncated_bin_names_the_file_and_the_fix(self):
        shutil.copy(os.path.join(self.good, "rows.idx"), self.tmp)
        self.ids[:10].tofile(os.path.join(self.tmp, "rows.bin"))
        rc, out, err = run_python(os.path.join(self.tmp, "rows.bin"), "--rows", "5", "--sha256", self.sha(5))
        self.assertEqual(rc, 2)
        self.assertIn(os.path.join(self.tmp, "rows.bin"), err)
        self.assertIn("truncated", err)
        self.assertIn("openrecipes rows export", err)
        self.assertNotIn("Traceback", err)

    def test_a_parquet_needs_pyarrow_or_names_the_export(self):
        rc, out, err = run_python(os.path.join(self.good, "rows.parquet"), "--rows", "64", "--sha256", self.sha(64))
        if openrecipes_rows.have_pyarrow():
            self.assertEqual((rc, out.replace(self.good, "D")),
                             (0, f"D/rows.parquet: the first 64 rows (L = {ROW_LENGTH}) match sha256 {self.sha(64)}\n"))
        else:
            self.assertEqual(rc, 2)
            self.assertIn("needs pyarrow", err)
            self.assertIn("--format megatron", err)


# Runs the script (argv[1:]) in a Python that cannot import numpy, as on a cluster without it: a meta-path finder
# refuses numpy as a missing module is refused.
WITHOUT_NUMPY = """
import importlib.abc, runpy, sys
class NoNumpy(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name == "numpy" or name.startswith("numpy."):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
sys.meta_path.insert(0, NoNumpy())
sys.argv = sys.argv[1:]
runpy.run_path(sys.argv[0], run_name="__main__")
"""
NEEDS_NUMPY = ("verify_rows.py: error: needs numpy (Debian: apt install python3-numpy; pip: pip install numpy)\n")


class WithoutNumpyTest(unittest.TestCase):
    """Without numpy the script says how to install it, on one line, and exits 2 (bad setup), never 1 (which would
    say the rows differ) and never with a traceback. Needs no rows: numpy is checked before any file is read."""

    def run_without_numpy(self, *args, env=None):
        p = subprocess.run([sys.executable, "-c", WITHOUT_NUMPY, SCRIPT, *args], capture_output=True, text=True,
                           check=False, env=env)
        return p.returncode, p.stdout, p.stderr

    def test_no_numpy_is_one_line_saying_how_to_install_it_and_exit_2(self):
        for args in (["rows.bin", "--rows", "1", "--sha256", "0" * 64], ["rows.bin", "--recipe", "recipe.yaml"]):
            rc, out, err = self.run_without_numpy(*args)
            self.assertEqual((rc, out, err), (2, "", NEEDS_NUMPY), args)
            self.assertEqual(len(err.splitlines()), 1)

    def test_a_numpy_module_that_is_not_there_on_the_path_gives_the_same_line(self):
        # The other way a cluster lacks it: a numpy.py earlier on PYTHONPATH that raises as an absent module does.
        with tempfile.TemporaryDirectory(prefix="openrecipes-no-numpy-") as d:
            with open(os.path.join(d, "numpy.py"), "w") as f:
                f.write("raise ModuleNotFoundError(\"No module named 'numpy'\", name='numpy')\n")
            env = dict(os.environ, PYTHONPATH=d)
            p = subprocess.run([sys.executable, SCRIPT, "rows.bin", "--rows", "1", "--sha256", "0" * 64],
                               capture_output=True, text=True, check=False, env=env)
        self.assertEqual((p.returncode, p.stdout, p.stderr), (2, "", NEEDS_NUMPY))

    def test_usage_help_works_without_numpy(self):
        rc, out, err = self.run_without_numpy("--help")
        self.assertEqual(rc, 0, err)
        self.assertIn("--recipe", out)


class ParquetTest(unittest.TestCase):
    """rows.parquet through pyarrow (the device machine has it; CI's Debian Python does not): the same verdicts as
    the export, and every malformed parquet refused with openrecipes' words."""

    @classmethod
    def setUpClass(cls):
        if not openrecipes_rows.have_pyarrow():
            raise unittest.SkipTest("needs pyarrow")
        cls.root = rows_fixture.built_rows()
        cls.good = os.path.join(cls.root, "seed0")

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="openrecipes-parquet-")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def write(self, table):
        import pyarrow.parquet as pq

        path = os.path.join(self.tmp, "bad.parquet")
        pq.write_table(table, path)
        return path

    def refused(self, path, *needles):
        rc, out, err = run_python(path, "--rows", "1", "--sha256", "0" * 64)
        self.assertEqual(rc, 2, out)
        for n in needles:
            self.assertIn(n, err)
        self.assertNotIn("Traceback", err)

    def test_parquet_and_export_read_the_same_rows(self):
        p = openrecipes_rows.open_rows(os.path.join(self.good, "rows.parquet"))
        m = openrecipes_rows.open_rows(os.path.join(self.good, "rows.bin"))
        self.assertEqual((p.row_count, p.row_length), (ROWS, ROW_LENGTH))
        np.testing.assert_array_equal(p.read(0, ROWS), m.read(0, ROWS))
        np.testing.assert_array_equal(p.read(17, 50), m.read(17, 50))

    def test_a_second_column_is_refused(self):
        import pyarrow as pa

        t = pa.table({"input_ids": pa.array([[1, 2]], type=pa.list_(pa.int32())), "labels": pa.array([1])})
        self.refused(self.write(t), "expected one column input_ids: list<int32>, the file has: input_ids", "labels")

    def test_a_wrong_type_is_refused(self):
        import pyarrow as pa

        t = pa.table({"input_ids": pa.array([[1, 2]], type=pa.list_(pa.int64()))})
        self.refused(self.write(t), "column input_ids has type", "expected list<int32>")

    def test_rows_of_unequal_length_are_refused(self):
        import pyarrow as pa

        t = pa.table({"input_ids": pa.array([[1, 2], [3]], type=pa.list_(pa.int32()))})
        self.refused(self.write(t), "row 1", "row has 1 ids, expected 2")

    def test_a_null_row_is_refused(self):
        import pyarrow as pa

        t = pa.table({"input_ids": pa.array([[1, 2], None], type=pa.list_(pa.int32()))})
        rc, out, err = run_python(self.write(t), "--rows", "2", "--sha256", "0" * 64)
        self.assertEqual(rc, 2)
        self.assertIn("row 1: input_ids is null", err)

    def test_a_truncated_parquet_is_refused(self):
        src = os.path.join(self.good, "rows.parquet")
        path = os.path.join(self.tmp, "cut.parquet")
        with open(src, "rb") as f, open(path, "wb") as g:
            g.write(f.read(os.path.getsize(src) // 2))
        self.refused(path, "cannot read the parquet file", "build the rows again")


if __name__ == "__main__":
    unittest.main()
