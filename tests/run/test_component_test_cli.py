"""`openrecipes component-test` end to end without a GPU (SPEC §4.2): the bundled tulu3-cefusion against tulu3-ref, with
a stand-in Megatron-LM checkout (tests/run/standin/megatron, a git checkout of its own commit, which the scratch copies
pin) and a stand-in interpreter (tests/run/standin/bin/python-component-standin) that writes the bundled raw output
where the real runner would. Checks the plan (the one swap the two commands set differently, its rule's bound and
layers), the runner openrecipes writes out (its compiled-in copy of data/component_test.py), the summary read back
from the raw output, `no effect` as a failure, and what submit refuses."""

import hashlib
import json
import os
import unittest

import runkit

CEFUSION = "tulu3-cefusion"
RAW = os.path.join("evidence", "component-tests", "cross_entropy_loss_fusion.json")


class ComponentTestCli(unittest.TestCase):
    def setUp(self):
        self.s = runkit.Scratch()
        self.addCleanup(self.s.cleanup)
        for name in (CEFUSION, "tulu3-ref"):
            self.s.pin(name)
        self.python = os.path.join(runkit.HERE, "standin", "bin", "python-component-standin")
        self.s.env["OPENRECIPES_STANDIN_RAW"] = self.s.recipe(CEFUSION, RAW)
        self.out = os.path.join(self.s.root, "ct")

    def component_test(self, *more):
        return self.s.run("component-test", self.s.recipe(CEFUSION), "--var", "MEGATRON_LM=" + self.s.megatron,
                          "--var", "SFT_DATA=/data/rows", "--var", "PYTHON=" + self.python, "-o", self.out, *more)

    def test_dry_run_names_the_swap_its_bound_and_the_runner(self):
        rc, out, err = self.component_test("--dry-run")
        self.assertEqual(rc, 0, err)
        self.assertIn("component tests of qwen3-0.6b/H200/tulu3-cefusion against its reference "
                      "qwen3-0.6b/H200/tulu3-ref", out)
        self.assertIn("test cross_entropy_loss_fusion: swaps cross_entropy_loss_fusion; 2 layers; bound 0.016", out)
        self.assertIn("runner  " + self.python + " " + os.path.join(self.out, "runner", "component_test.py") + " run",
                      out)
        self.assertFalse(os.path.exists(self.out))  # nothing written

    def test_a_run_writes_the_plan_and_the_built_in_runner_and_reads_the_raw_output_back(self):
        rc, out, err = self.component_test()
        self.assertEqual(rc, 0, out + err)
        with open(os.path.join(self.out, "plan.json"), encoding="utf-8") as f:
            plan = json.load(f)
        self.assertEqual(plan["recipe"], "qwen3-0.6b/H200/tulu3-cefusion")
        self.assertEqual(plan["reference"], "qwen3-0.6b/H200/tulu3-ref")
        self.assertEqual([t["id"] for t in plan["tests"]], ["cross_entropy_loss_fusion"])
        self.assertEqual(plan["tests"][0]["changed"], ["cross_entropy_loss_fusion"])
        self.assertEqual(plan["tests"][0]["bound"], 0.016)
        self.assertEqual(plan["tests"][0]["layers"], 2)
        # The words after the entry script, rendered: the recipe's have the swap, the reference's not.
        self.assertIn("--cross-entropy-loss-fusion", plan["recipe_argv"])
        self.assertNotIn("--cross-entropy-loss-fusion", plan["reference_argv"])
        self.assertIn("/data/rows", plan["recipe_argv"])
        # The runner it started is its compiled-in copy of data/component_test.py, with Megatron-LM on PYTHONPATH.
        self.assertEqual(runkit.sha256_file(os.path.join(self.out, "runner", "component_test.py")),
                         runkit.sha256_file(os.path.join(runkit.REPO, "data", "component_test.py")))
        self.assertIn("stand-in runner: PYTHONPATH=" + self.s.megatron, out)
        self.assertIn("cross_entropy_loss_fusion    passed    worst error 0.006667", out)
        self.assertIn("next: openrecipes submit <run dir> --component-tests " + self.out, out)
        # The records submit will write, for the reader: the rule's bound, the worst error to 6 digits, the shape's
        # model fields only.
        with open(os.path.join(self.out, "component-tests.yaml"), encoding="utf-8") as f:
            records = f.read()
        self.assertIn("  - swap: cross_entropy_loss_fusion\n", records)
        self.assertIn("    shape: {ffn_hidden_size: 3072, hidden_size: 1024, kv_channels: 128, num_attention_heads: 16, "
                      "num_query_groups: 8}\n    bound: 0.016\n    worst_error: 0.00666667\n    passed: true\n"
                      "    output: evidence/component-tests/cross_entropy_loss_fusion.json\n", records)

    def test_no_effect_fails(self):
        self.s.env["OPENRECIPES_STANDIN_NO_EFFECT"] = "1"
        rc, out, err = self.component_test()
        self.assertEqual(rc, 1, out + err)
        self.assertIn("cross_entropy_loss_fusion    no effect", out)

    def test_an_unknown_swap_or_a_missing_checkout_is_bad_input(self):
        rc, _, err = self.component_test("--swap", "lr")
        self.assertEqual(rc, 2)
        self.assertIn("--swap 'lr': not a same-math swap", err)
        rc, _, err = self.s.run("component-test", self.s.recipe(CEFUSION), "--var", "SFT_DATA=/x", "-o", self.out)
        self.assertEqual(rc, 2)
        self.assertIn("$MEGATRON_LM has no value", err)
        self.assertFalse(os.path.exists(self.out))

    def test_a_recipe_without_a_swap_has_nothing_to_test(self):
        self.s.pin("tulu3-mbs16")
        rc, out, err = self.s.run("component-test", self.s.recipe("tulu3-mbs16"), "--var",
                                  "MEGATRON_LM=" + self.s.megatron, "--var", "SFT_DATA=/x", "-o", self.out)
        self.assertEqual(rc, 0, err)
        self.assertIn("sets no same-math swap differently from qwen3-0.6b/H200/tulu3-ref: nothing to test", out)


class SubmitComponentTests(unittest.TestCase):
    """submit --component-tests refuses raw outputs that are not the run's recipe's, with the file."""

    @classmethod
    def setUpClass(cls):
        cls.s = runkit.Scratch()
        cls.run_dir = os.path.join(cls.s.root, "run")
        cls.rc, cls.out, cls.err = cls.s.run("run", cls.s.recipe("mbs2"), "--launcher", "local", "--var",
                                             "MEGATRON_LM=" + cls.s.megatron, "-o", cls.run_dir)

    @classmethod
    def tearDownClass(cls):
        cls.s.cleanup()

    def submit(self, ct_dir):
        return self.s.run("submit", self.run_dir, "--reference", self.s.recipe("ref"), "--author", "alice",
                          "--registry", self.s.registry, "--name", "with-ct", "--component-tests", ct_dir)

    def test_a_raw_output_of_another_recipe_is_refused(self):
        self.assertEqual(self.rc, 0, self.err)
        ct = os.path.join(self.s.root, "ct-other")
        os.makedirs(ct)
        with open(self.s.recipe(CEFUSION, RAW), "rb") as f, \
                open(os.path.join(ct, "cross_entropy_loss_fusion.json"), "wb") as g:
            g.write(f.read())
        rc, _, err = self.submit(ct)
        self.assertEqual(rc, 2, err)
        self.assertIn("this component test was run for qwen3-0.6b/H200/tulu3-cefusion, not qwen3-0.6b/H200/mbs2", err)
        self.assertFalse(os.path.exists(self.s.recipe("with-ct")))  # nothing written

    def test_an_empty_folder_is_refused(self):
        ct = os.path.join(self.s.root, "ct-empty")
        os.makedirs(ct, exist_ok=True)
        rc, _, err = self.submit(ct)
        self.assertEqual(rc, 2, err)
        self.assertIn("no raw output of a component test (<swap>.json) in the folder", err)


if __name__ == "__main__":
    unittest.main()
