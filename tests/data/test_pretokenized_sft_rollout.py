"""data/pretokenized_sft_rollout.py against a stand-in of slime's data source and Sample (tests/data/slime_standin.py),
on a real `rows build` + Megatron export of ../shared/fixtures/tulu3 (tests/data/rows_fixture.py): step i's samples
are rows [i·B, (i+1)·B) of the build byte for byte, and every refusal names its fix."""

import hashlib
import importlib
import os
import shutil
import tempfile
import types
import unittest

import numpy as np

import rows_fixture
import slime_standin as slime
from rows_fixture import ROW_LENGTH, ROWS

import openrecipes_rows  # noqa: E402  (data/ is on sys.path through rows_fixture)

B = 32  # 81 rows: rollouts 0 and 1 are full batches, rollout 2 would need rows [64, 96)


def tearDownModule():
    rows_fixture.cleanup()


def make_args(prompt_data, **over):
    """The slime arguments the plugin reads, as slime's argparse would set them for the flags of data/README.md."""
    a = dict(prompt_data=prompt_data, rollout_global_dataset=False, rollout_batch_size=B, global_batch_size=B,
             n_samples_per_prompt=1)
    a.update(over)
    return types.SimpleNamespace(**a)


def bin_rows(path):
    """The rows of a Megatron export read with numpy alone, for comparison: (N, L) int32."""
    return np.fromfile(path, dtype="<i4").reshape(-1, ROW_LENGTH)


class PluginTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.root = rows_fixture.built_rows()
        cls.dir = os.path.join(cls.root, "seed0")
        cls.bin = os.path.join(cls.dir, "rows.bin")
        cls.parquet = os.path.join(cls.dir, "rows.parquet")

    def setUp(self):
        # A fresh module per test: the plugin keeps its open rows in module globals, as in slime's long-lived actor.
        import pretokenized_sft_rollout

        self.plugin = importlib.reload(pretokenized_sft_rollout)
        self.tmp = tempfile.mkdtemp(prefix="openrecipes-plugin-")
        os.environ.pop("OPENRECIPES_ROWS_SHA256", None)
        os.environ.pop("OPENRECIPES_ROWS_COUNT", None)

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)
        os.environ.pop("OPENRECIPES_ROWS_SHA256", None)
        os.environ.pop("OPENRECIPES_ROWS_COUNT", None)

    def serve(self, args, rollout_id, data_source=None, evaluation=False):
        ds = data_source or slime.RolloutDataSource(args)
        return slime.call_rollout_fn(self.plugin.generate_rollout, args, rollout_id, ds, evaluation=evaluation)

    def copy_set(self, names=("rows.bin", "rows.idx", "rows.manifest.json")):
        for n in names:
            shutil.copy(os.path.join(self.dir, n), os.path.join(self.tmp, n))
        return os.path.join(self.tmp, "rows.bin")

    def assert_refused(self, args, rollout_id, *needles, evaluation=False):
        with self.assertRaises(openrecipes_rows.RowsError) as cm:
            self.serve(args, rollout_id, evaluation=evaluation)
        for n in needles:
            self.assertIn(n, str(cm.exception))
        return str(cm.exception)

    # ---- the contract -------------------------------------------------------------------------------------------
    def test_signature_is_slimes_contract(self):
        import inspect

        sig = inspect.signature(self.plugin.generate_rollout)
        self.assertEqual(tuple(sig.parameters), ("args", "rollout_id", "data_source", "evaluation"))
        self.assertIs(sig.parameters["evaluation"].default, False)

    def test_step_i_serves_rows_i_times_b_to_i_plus_1_times_b_byte_for_byte(self):
        args = make_args(self.bin)
        ds = slime.RolloutDataSource(args)
        want = bin_rows(self.bin)
        self.assertEqual(want.shape, (ROWS, ROW_LENGTH))
        served = []
        for step in (0, 1):
            groups = self.serve(args, step, ds)
            self.assertEqual(len(groups), B)
            flat = slime.flatten(groups)
            self.assertEqual(len(flat), B)
            got = np.array([s.tokens for s in flat], dtype=np.int32)
            np.testing.assert_array_equal(got, want[step * B:(step + 1) * B])
            self.assertEqual(got.astype("<i4").tobytes(), want[step * B:(step + 1) * B].astype("<i4").tobytes())
            served.append(got)
        # The 64 rows served hash, as SPEC §1.8 says, to what `openrecipes rows verify` accepts for the parquet build.
        digest = hashlib.sha256(np.concatenate(served).astype("<i4").tobytes()).hexdigest()
        if rows_fixture.binary():
            rc, out, err = rows_fixture.run_cli("rows", "verify", self.parquet, "--rows", "64", "--sha256", digest)
            self.assertEqual((rc, err), (0, ""), out)
            self.assertIn("match sha256 " + digest, out)

    def test_each_sample_is_one_row_trained_on_its_last_l_minus_1_tokens(self):
        args = make_args(self.bin)
        flat = slime.flatten(self.serve(args, 1))
        for s in flat:
            self.assertIsInstance(s.tokens, list)
            self.assertTrue(all(type(t) is int for t in s.tokens))
            self.assertEqual(len(s.tokens), ROW_LENGTH)
            self.assertEqual(s.response_length, ROW_LENGTH - 1)
            self.assertEqual(s.loss_mask, [1] * (ROW_LENGTH - 1))
            self.assertEqual(s.reward, 0)
            self.assertIs(s.status, slime.Sample.Status.COMPLETED)
            self.assertEqual(s.response, "")
            self.assertIsNone(s.rollout_id)  # miles treats a set rollout_id as a "compact" output
        # The data source's own indices are kept (slime's debug dumps read them).
        self.assertEqual([s.index for s in flat], list(range(B)))
        train = slime.convert_samples_to_train_data(flat)
        self.assertEqual(train["response_lengths"], [ROW_LENGTH - 1] * B)
        self.assertEqual(train["rollout_ids"], list(range(B)))
        # The loss covers the last response_length tokens: every token but the first, which nothing predicts.
        for tokens, n in zip(train["tokens"], train["response_lengths"]):
            self.assertEqual(len(tokens) - n, 1)

    def test_the_last_partial_batch_is_refused(self):
        args = make_args(self.bin)
        msg = self.assert_refused(args, 2, "rollout 2 needs rows [64, 96)", "81 rows", "rollouts 0..1",
                                  "--num-rollout")
        self.assertIn("openrecipes rows build --rows R", msg)

    def test_the_parquet_serves_the_same_rows_as_the_export(self):
        if not openrecipes_rows.have_pyarrow():
            self.skipTest("needs pyarrow (the device machine has it)")
        want = bin_rows(self.bin)
        args = make_args(self.parquet)
        ds = slime.RolloutDataSource(args)
        for step in (0, 1):
            got = np.array([s.tokens for s in slime.flatten(self.serve(args, step, ds))], dtype=np.int32)
            np.testing.assert_array_equal(got, want[step * B:(step + 1) * B])
        self.assert_refused(args, 2, "rollout 2 needs rows [64, 96)")

    def test_without_pyarrow_a_parquet_is_refused_naming_the_export(self):
        if openrecipes_rows.have_pyarrow():
            self.skipTest("pyarrow is installed here")
        self.assert_refused(make_args(self.parquet), 0, "needs pyarrow", "--format megatron", "rows.bin")

    def test_the_recorded_rows_sha256_is_checked_on_the_first_call(self):
        want = bin_rows(self.bin)
        good = hashlib.sha256(want[:64].astype("<i4").tobytes()).hexdigest()
        os.environ["OPENRECIPES_ROWS_SHA256"] = good
        os.environ["OPENRECIPES_ROWS_COUNT"] = "64"
        self.assertEqual(len(self.serve(make_args(self.bin), 0)), B)
        self.plugin = importlib.reload(self.plugin)
        bad = hashlib.sha256(want[:63].astype("<i4").tobytes()).hexdigest()
        os.environ["OPENRECIPES_ROWS_SHA256"] = bad
        self.assert_refused(make_args(self.bin), 0, f"hash to {good}, expected {bad}", "data/verify_rows.py")
        self.plugin = importlib.reload(self.plugin)
        os.environ.pop("OPENRECIPES_ROWS_COUNT")
        self.assert_refused(make_args(self.bin), 0, "OPENRECIPES_ROWS_COUNT", "rows.count")
        self.plugin = importlib.reload(self.plugin)
        os.environ["OPENRECIPES_ROWS_COUNT"] = "100"
        self.assert_refused(make_args(self.bin), 0, "81 rows, fewer than the 100")

    # ---- refusals of the run's settings ---------------------------------------------------------------------------
    def test_evaluation_is_refused(self):
        self.assert_refused(make_args(self.bin), 0, "evaluation=True", "--debug-train-only", evaluation=True)

    def test_rollout_batch_differing_from_global_batch_is_refused(self):
        self.assert_refused(make_args(self.bin, global_batch_size=2 * B), 0,
                            f"rollout batch size {B} differs from global batch size {2 * B}",
                            "--rollout-batch-size 128 --global-batch-size 128")

    def test_more_than_one_sample_per_prompt_is_refused(self):
        self.assert_refused(make_args(self.bin, n_samples_per_prompt=2), 0, "--n-samples-per-prompt")

    def test_the_global_dataset_must_be_off(self):
        self.assert_refused(make_args(self.bin, rollout_global_dataset=True), 0, "--disable-rollout-global-dataset")

    def test_no_prompt_data_is_refused(self):
        self.assert_refused(make_args(None), 0, "--prompt-data", "--disable-rollout-global-dataset")

    def test_a_negative_rollout_id_is_refused(self):
        self.assert_refused(make_args(self.bin), -1, "not a step number", "--start-rollout-id 0")

    # ---- refusals of the rows ------------------------------------------------------------------------------------
    def test_a_missing_manifest_is_refused(self):
        path = self.copy_set(("rows.bin", "rows.idx"))
        self.assert_refused(make_args(path), 0, "rows.manifest.json", "no manifest beside")

    def test_a_manifest_that_disagrees_with_the_file_is_refused(self):
        import json

        path = self.copy_set()
        mpath = os.path.join(self.tmp, "rows.manifest.json")
        with open(mpath) as f:
            m = json.load(f)
        m["rows_written"] = 80
        with open(mpath, "w") as f:
            json.dump(m, f)
        self.assert_refused(make_args(path), 0, "81 rows, the manifest", "says 80 were written")
        self.plugin = importlib.reload(self.plugin)
        m["rows_written"], m["row_length"] = 81, 256
        with open(mpath, "w") as f:
            json.dump(m, f)
        # The rows are then the wrong length for the manifest's L: the manifest is named, not the export.
        self.assert_refused(make_args(path), 0, "rows of 512 ids, but the manifest", "says L = 256")

    def test_a_hostile_manifest_is_a_rows_error_not_a_traceback(self):
        path = self.copy_set()
        mpath = os.path.join(self.tmp, "rows.manifest.json")
        for text, needle in (("[" * 100000, "nests too deeply"), ('{"seed": ' + "9" * 5000 + "}", "not a JSON manifest"),
                             ('{"format_version": 2}', "format_version 2")):
            with open(mpath, "w") as f:
                f.write(text)
            self.plugin = importlib.reload(self.plugin)
            self.assert_refused(make_args(path), 0, "rows.manifest.json", needle)

    def test_an_export_whose_ids_are_not_int32_or_uint16_is_refused(self):
        # Code 5 (int64) or 2 (int8) would be cast to int32, changing ids silently.
        path = self.copy_set()
        idx = os.path.join(self.tmp, "rows.idx")
        for code in (5, 2, 1):
            with open(idx, "r+b") as f:
                f.seek(17)
                f.write(bytes([code]))
            self.plugin = importlib.reload(self.plugin)
            self.assert_refused(make_args(path), 0, f"dtype code {code}", "int32 (code 4) or uint16 (code 8)")

    def test_a_uint16_export_serves_the_same_rows(self):
        # Megatron's own choice for a vocabulary under 65,500: the ids are the same, stored in 2 bytes each.
        want = bin_rows(self.bin)
        small = want % 60000
        for n in ("rows.idx", "rows.manifest.json"):
            shutil.copy(os.path.join(self.dir, n), self.tmp)
        small.astype("<u2").tofile(os.path.join(self.tmp, "rows.bin"))
        idx = os.path.join(self.tmp, "rows.idx")
        with open(idx, "r+b") as f:
            f.seek(17)
            f.write(bytes([8]))
            f.seek(34 + 4 * ROWS)
            f.write((np.arange(ROWS, dtype="<i8") * ROW_LENGTH * 2).tobytes())
        got = np.array([s.tokens for s in slime.flatten(self.serve(make_args(os.path.join(self.tmp, "rows.bin")), 1))])
        np.testing.assert_array_equal(got, small[B:2 * B])

    def test_a_rows_count_without_a_sha256_is_refused(self):
        os.environ["OPENRECIPES_ROWS_COUNT"] = "64"
        self.assert_refused(make_args(self.bin), 0, "OPENRECIPES_ROWS_COUNT", "OPENRECIPES_ROWS_SHA256 is not")
        self.plugin = importlib.reload(self.plugin)
        os.environ["OPENRECIPES_ROWS_SHA256"] = "0" * 64
        for bad in ("\u00b2", "\u0668\u0661", "9" * 5000):
            os.environ["OPENRECIPES_ROWS_COUNT"] = bad.encode().decode("unicode_escape")
            self.assert_refused(make_args(self.bin), 0, "is not a positive row count")

    def test_settings_of_the_wrong_type_are_named_not_misread(self):
        self.assert_refused(make_args(self.bin, rollout_batch_size=True), 0, "True is not a positive row count")
        self.assert_refused(make_args(self.bin, global_batch_size="32"), 0, "differs from global batch size")
        self.assert_refused(make_args(self.bin, n_samples_per_prompt=1.0), 0, "--n-samples-per-prompt")
        self.assert_refused(make_args(self.bin), True, "rollout id True is not a step number")
        self.assert_refused(make_args(self.bin, rollout_batch_size=100, global_batch_size=100), 0,
                            "not one full batch")
        # numpy integers are whole numbers (slime's args may carry them).
        self.assertEqual(len(self.serve(make_args(self.bin, rollout_batch_size=np.int64(B),
                                                  global_batch_size=np.int64(B)), np.int64(1))), B)

    def test_a_truncated_bin_is_refused(self):
        path = self.copy_set()
        with open(path, "r+b") as f:
            f.truncate(ROWS * ROW_LENGTH * 4 - 4)
        self.assert_refused(make_args(path), 0, "rows.bin", f"has {ROWS * ROW_LENGTH * 4 - 4} bytes",
                            f"need {ROWS * ROW_LENGTH * 4}", "rows export")

    def test_an_index_of_unequal_rows_is_refused(self):
        path = self.copy_set()
        idx = os.path.join(self.tmp, "rows.idx")
        with open(idx, "r+b") as f:
            f.seek(34 + 4 * 5)  # the sixth sequence length
            f.write((ROW_LENGTH - 1).to_bytes(4, "little"))
        self.assert_refused(make_args(path), 0, "rows.idx: row 5", f"row has {ROW_LENGTH - 1} ids, expected 512")

    def test_a_file_that_is_not_a_megatron_index_is_refused(self):
        path = self.copy_set()
        with open(os.path.join(self.tmp, "rows.idx"), "r+b") as f:
            f.write(b"NOTANIDX!")
        self.assert_refused(make_args(path), 0, "not a Megatron-LM index")

    def test_rows_are_read_lazily(self):
        # Serving a step reads that step's rows only (the manifest and index checks need no row data).
        path = self.copy_set()
        want = bin_rows(self.bin)
        served = []
        orig = openrecipes_rows.MegatronRows.read

        def spy(rows, start, stop):
            served.append((start, stop))
            return orig(rows, start, stop)

        openrecipes_rows.MegatronRows.read = spy
        try:
            got = np.array([s.tokens for s in slime.flatten(self.serve(make_args(path), 1))], dtype=np.int32)
        finally:
            openrecipes_rows.MegatronRows.read = orig
        self.assertEqual(served, [(B, 2 * B)])
        np.testing.assert_array_equal(got, want[B:2 * B])


if __name__ == "__main__":
    unittest.main()
