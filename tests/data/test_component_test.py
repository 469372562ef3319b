"""data/component_test.py, the component-test runner: its logic without torch (needs, plan checks, the effect proof,
the verdict, the error rule for zeros), and with torch where it is installed (per-tensor errors against a hand
calculation, the comparison of two settings, the code-path tracer telling two code paths apart and one path from
itself) on tiny CPU tensors and modules. CI has no torch: those tests skip there and say so; the component-test device
run runs them with torch (tests/run/device/component/run.sh)."""

import io
import json
import math
import os
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "data"))

import component_test as ct  # noqa: E402

try:
    import torch
except ImportError:  # CI and this project's CPU machines have no torch
    torch = None

NEEDS_TORCH = "torch is not installed here (CI has none); the device run (tests/run/device/) runs these tests"


class Needs(unittest.TestCase):
    def test_a_module_that_exists_satisfies_and_alternatives_need_one(self):
        present = {"json", "math"}

        def find(name):
            return object() if name in present else None

        self.assertEqual(ct.missing_needs([], find), [])
        self.assertEqual(ct.missing_needs(["json"], find), [])
        self.assertEqual(ct.missing_needs(["transformer_engine"], find), ["transformer_engine"])
        self.assertEqual(ct.missing_needs(["transformer_engine|json"], find), [])
        self.assertEqual(ct.missing_needs(["transformer_engine|apex", "math", "deep_ep"], find),
                         ["transformer_engine|apex", "deep_ep"])

    def test_the_real_import_system(self):
        self.assertEqual(ct.missing_needs(["json", "no_such_module_xyz|os"]), [])
        self.assertEqual(ct.missing_needs(["several GPUs"]), ["several GPUs"])


class Verdict(unittest.TestCase):
    def test_no_effect_never_passes(self):
        self.assertEqual(ct.verdict(False, 0.0, 0.016), "no effect")
        self.assertEqual(ct.verdict(True, 0.016, 0.016), "passed")  # the bound itself passes
        self.assertEqual(ct.verdict(True, 0.0161, 0.016), "failed")
        self.assertEqual(ct.verdict(True, math.inf, 0.016), "failed")

    def test_relative_error_at_zero(self):
        self.assertEqual(ct.relative(0.0, 0.0), 0.0)
        self.assertEqual(ct.relative(1e-9, 0.0), math.inf)
        self.assertAlmostEqual(ct.relative(0.5, 4.0), 0.125)

    def test_effect_compares_module_types_and_code(self):
        a = {"modules": ["mlp: MLP"], "code": ["mlp.py:MLP.forward", "builtin:silu"]}
        same = ct.effect(a, {"modules": ["mlp: MLP"], "code": ["builtin:silu", "mlp.py:MLP.forward"]})
        self.assertFalse(same["changed"])
        self.assertEqual(same["code"]["differ"], 0)
        fused = ct.effect(a, {"modules": ["mlp: MLP"], "code": ["mlp.py:MLP.forward", "fused.py:bias_swiglu_impl"]})
        self.assertTrue(fused["changed"])
        self.assertEqual(fused["code"]["reference_only"], ["builtin:silu"])
        self.assertEqual(fused["code"]["recipe_only"], ["fused.py:bias_swiglu_impl"])
        self.assertEqual(fused["code"]["differ"], 2)
        other_module = ct.effect(a, {"modules": ["mlp: GroupedMLP"], "code": a["code"]})
        self.assertTrue(other_module["changed"])
        self.assertEqual(other_module["modules"]["differ"], 2)


class Plan(unittest.TestCase):
    def write(self, value):
        f = tempfile.NamedTemporaryFile("w", suffix=".json", delete=False)
        json.dump(value, f)
        f.close()
        self.addCleanup(os.remove, f.name)
        return f.name

    def test_a_plan_of_another_version_or_without_a_field_is_refused(self):
        with self.assertRaises(ct.RunnerError) as e:
            ct.load_plan(self.write({"format_version": 2}))
        self.assertEqual(e.exception.status, 2)
        with self.assertRaises(ct.RunnerError) as e:
            ct.load_plan(self.write({"format_version": 1, "megatron_dir": "/x"}))
        self.assertIn("no 'framework'", str(e.exception))

    def test_a_test_needing_what_is_missing_is_reported_not_run(self):
        out = tempfile.mkdtemp()
        plan = {"format_version": 1, "megatron_dir": "/nonexistent", "framework": "megatron-lm", "recipe": "m/g/r",
                "reference": "m/g/ref", "recipe_argv": [], "reference_argv": [], "output_dir": out,
                "tests": [{"id": "apply_rope_fusion", "arguments": ["apply_rope_fusion"], "layers": 2,
                           "needs": ["no_such_module_xyz"], "compares": "x", "bound": 0.016}]}
        stdout = io.StringIO()
        old, sys.stdout = sys.stdout, stdout
        try:
            status = ct.run(self.write(plan))
        finally:
            sys.stdout = old
        self.assertEqual(status, 3)
        self.assertIn("apply_rope_fusion: cannot run here: needs no_such_module_xyz", stdout.getvalue())
        self.assertEqual(os.listdir(out), [])  # nothing written, nothing started

    def test_non_finite_numbers_are_written_as_strings(self):
        path = os.path.join(tempfile.mkdtemp(), "x.json")
        ct.write_json(path, {"worst_error": math.inf, "rows": [{"error": math.inf}, {"error": 0.5}]})
        with open(path) as f:
            self.assertEqual(json.load(f), {"worst_error": "inf", "rows": [{"error": "inf"}, {"error": 0.5}]})


@unittest.skipIf(torch is None, NEEDS_TORCH)
class WithTorch(unittest.TestCase):
    def test_tensor_error_by_hand(self):
        ref = torch.tensor([[1.0, -4.0], [2.0, 0.0]])
        rec = torch.tensor([[1.5, -4.0], [2.0, 0.25]])
        e = ct.tensor_error(ref, rec)
        self.assertEqual(e["max_abs_error"], 0.5)  # |1.5 - 1.0|
        self.assertEqual(e["reference_max_abs"], 4.0)  # |-4|
        self.assertEqual(e["error"], 0.125)
        with self.assertRaises(ct.RunnerError):
            ct.tensor_error(ref, torch.zeros(4))

    def test_a_nan_or_inf_in_either_setting_is_an_infinite_error(self):
        ref = torch.tensor([1.0, 2.0])
        e = ct.tensor_error(ref, torch.tensor([float("nan"), 2.0]))
        self.assertEqual((e["max_abs_error"], e["error"]), (math.inf, math.inf))
        e = ct.tensor_error(torch.tensor([float("inf"), 2.0]), ref)
        self.assertEqual(e["error"], math.inf)
        rows = ct.compare({"loss": ("output", ref), "grad:w": ("gradient", ref)},
                          {"loss": ("output", ref), "grad:w": ("gradient", torch.tensor([float("nan"), 2.0]))})
        self.assertEqual(max(rows, key=lambda r: r["error"])["name"], "grad:w")  # the worst, not skipped

    def test_bf16_tensors_are_compared_in_float64(self):
        ref = torch.tensor([1.0, 256.0], dtype=torch.bfloat16)
        rec = torch.tensor([1.0078125, 256.0], dtype=torch.bfloat16)  # one BF16 step above 1.0
        e = ct.tensor_error(ref, rec)
        self.assertEqual(e["max_abs_error"], 0.0078125)
        self.assertEqual(e["error"], 0.0078125 / 256.0)

    def test_compare_orders_outputs_first_and_needs_the_same_tensors(self):
        ref = {"grad:w": ("gradient", torch.ones(3)), "loss": ("output", torch.ones(2))}
        rec = {"grad:w": ("gradient", torch.ones(3) * 1.25), "loss": ("output", torch.ones(2))}
        rows = ct.compare(ref, rec)
        self.assertEqual([r["name"] for r in rows], ["loss", "grad:w"])
        self.assertEqual(rows[1]["error"], 0.25)
        self.assertEqual(rows[1]["shape"], [3])
        with self.assertRaises(ct.RunnerError):
            ct.compare(ref, {"loss": ("output", torch.ones(2))})

    def test_the_tracer_tells_two_code_paths_apart_and_one_from_itself(self):
        def fused(x):
            return torch.nn.functional.silu(x) * 2

        def unfused(x):
            return x * torch.sigmoid(x) * 2

        x = torch.randn(4, requires_grad=True)

        def path(fn):
            fn(x).sum().backward()  # warm: first calls import and initialise lazily (the runner traces its 3rd pass)
            with ct.CodeTracer([HERE]) as t:
                fn(x).sum().backward()
            return {"modules": [], "code": sorted(t.seen)}

        self.assertFalse(ct.effect(path(fused), path(fused))["changed"])
        e = ct.effect(path(unfused), path(fused))
        self.assertTrue(e["changed"])
        self.assertTrue(any("fused" in c for c in e["code"]["recipe_only"]), e)
        # The fused and unfused results agree to float32 rounding, which the comparison measures.
        torch.manual_seed(0)
        y = torch.randn(1000)
        err = ct.tensor_error(unfused(y), fused(y))
        self.assertLess(err["error"], 1e-6)


if __name__ == "__main__":
    unittest.main()
