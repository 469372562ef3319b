"""tools/active_params.py --config: N from config.json arithmetic alone (SPEC §3), against `openrecipes params
--config` on every config.json under ../shared/fixtures, the configs kept with the C++ tests (tests/params/configs) and
the registry's model files: the same exit code, the same N and the same breakdown class by class (and the whole --json
and text report, byte for byte); plus N worked out by hand here, the refusals (one line naming the file and the field,
exit 2), and the checkpoint count unchanged beside it. tests/params/active_params_test.cpp compares checkpoint counts.

Tests that need ../shared/fixtures or the binary ($OPENRECIPES_BIN, else build/openrecipes) skip without them; under
CI=true they fail instead (rows_fixture.skip_or_fail).
"""

import glob
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import unittest

import yaml

from rows_fixture import REPO, binary, fixtures_dir, skip_or_fail

TOOL = os.path.join(REPO, "tools", "active_params.py")
JSON_KEYS = ["source", "where", "model_type", "N", "counted_total", "total_params", "quantization_scales", "shards",
             "tensors", "top_k", "num_experts", "output_tied", "classes", "notes"]
COUNTED = ["attention", "dense_mlp", "shared_expert", "routed_expert", "router", "output_projection"]


def run_tool(*args):
    p = subprocess.run([sys.executable, TOOL, *args], capture_output=True, text=True, check=False)
    return p.returncode, p.stdout, p.stderr


def run_cli(*args):
    p = subprocess.run([binary(), *args], capture_output=True, text=True, check=False)
    return p.returncode, p.stdout, p.stderr


def registry_config(model):
    """The `config:` block of registry/models/<model>.yaml (the config.json fields N is counted from)."""
    with open(os.path.join(REPO, "registry", "models", model + ".yaml")) as f:
        return yaml.safe_load(f)["config"]


class Scratch(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="openrecipes-active-params-")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def write_config(self, config, name="config.json"):
        path = os.path.join(self.tmp, name)
        with open(path, "w") as f:
            json.dump(config, f)
        return path

    def count(self, config):
        """The tool's --json report for `config` (a dict), which it must accept."""
        rc, out, err = run_tool("--config", self.write_config(config), "--json")
        self.assertEqual(rc, 0, err)
        return json.loads(out)

    def refused(self, config, *needles):
        """Runs the tool on `config` (a dict, or text written as is): exit 2, nothing on stdout, exactly one stderr
        line starting with the tool's name and holding the config's path and each needle. Returns the line."""
        if isinstance(config, str):
            path = os.path.join(self.tmp, "config.json")
            with open(path, "w") as f:
                f.write(config)
        else:
            path = self.write_config(config)
        rc, out, err = run_tool("--config", path, "--json")
        self.assertEqual((rc, out), (2, ""), err)
        self.assertEqual(len(err.splitlines()), 1, err)
        self.assertTrue(err.startswith("active_params.py: error: " + path), err)
        for needle in needles:
            self.assertIn(needle, err)
        return err


class AgainstOpenrecipes(unittest.TestCase):
    """Every config both tools can be given: the Python count equals `openrecipes params --config`'s."""

    @classmethod
    def setUpClass(cls):
        if fixtures_dir() is None:
            skip_or_fail("needs ../shared/fixtures (set OPENRECIPES_FIXTURES to point elsewhere)")
        if binary() is None:
            skip_or_fail("needs the openrecipes binary (set OPENRECIPES_BIN)")
        cls.tmp = tempfile.mkdtemp(prefix="openrecipes-active-params-")
        found = subprocess.run(["find", fixtures_dir(), "-name", "config.json"], capture_output=True, text=True,
                               check=True).stdout.split()
        cls.configs = sorted(found) + sorted(glob.glob(os.path.join(REPO, "tests", "params", "configs", "*",
                                                                    "config.json")))
        for model in sorted(glob.glob(os.path.join(REPO, "registry", "models", "*.yaml"))):
            name = os.path.splitext(os.path.basename(model))[0]
            path = os.path.join(cls.tmp, name + ".config.json")
            with open(path, "w") as f:
                json.dump(registry_config(name), f)
            cls.configs.append(path)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_the_fixtures_hold_every_architecture(self):
        # A lost fixture folder must not shrink the comparison unnoticed: 27 fixture configs, and every model_type
        # family the tool knows among them or the test configs.
        self.assertGreaterEqual(len([c for c in self.configs if c.startswith(fixtures_dir())]), 27)
        families = set()
        for path in self.configs:
            with open(path) as f:
                families.add(json.load(f).get("model_type"))
        for model_type in ("llama", "qwen3", "qwen3_moe", "qwen3_next", "qwen3_5", "qwen3_5_moe", "deepseek_v3",
                           "kimi_k2", "deepseek_v32", "glm_moe_dsa", "glm4_moe", "gpt_oss", "mixtral"):
            self.assertIn(model_type, families)

    def test_n_and_every_class_equal_openrecipes_params_on_every_config(self):
        counted = 0
        for path in self.configs:
            with self.subTest(config=path):
                cc_rc, cc_out, cc_err = run_cli("params", "--config", path, "--json")
                py_rc, py_out, py_err = run_tool("--config", path, "--json")
                self.assertEqual(py_rc, cc_rc, py_err + cc_err)
                if cc_rc != 0:  # refused by both, with the same words
                    self.assertEqual(py_err.replace("active_params.py: ", ""), cc_err.replace("openrecipes: ", ""))
                    continue
                counted += 1
                cc, py = json.loads(cc_out), json.loads(py_out)
                self.assertEqual(py["N"], cc["N"])
                for name, c in cc["classes"].items():
                    self.assertEqual((name, py["classes"][name]["params"], py["classes"][name]["active"]),
                                     (name, c["params"], c["active"]))
                self.assertEqual(py, cc)  # and every other key: source, top_k, tying, notes, reasons
                self.assertEqual(list(py), JSON_KEYS)
        self.assertGreaterEqual(counted, 27)

    def test_the_text_report_equals_openrecipes_params_byte_for_byte(self):
        for path in self.configs:
            with self.subTest(config=path):
                self.assertEqual(run_tool("--config", path)[:2], run_cli("params", "--config", path)[:2])


class ByHand(Scratch):
    """N worked out here from the dimensions, not from either tool."""

    def test_qwen3_0_6b_is_28_layers_of_15_728_640_plus_the_output_projection(self):
        # registry/models/qwen3-0.6b.yaml: H 1024, 16 heads and 8 KV heads of 128, MLP 3072, vocabulary 151,936, tied.
        attention = 1024 * 2048 + 1024 * 1024 + 1024 * 1024 + 2048 * 1024  # q, k, v, o
        mlp = 3 * 1024 * 3072  # gate, up, down
        self.assertEqual((attention, mlp, attention + mlp), (6_291_456, 9_437_184, 15_728_640))
        r = self.count(registry_config("qwen3-0.6b"))
        self.assertEqual(r["N"], 28 * 15_728_640 + 151_936 * 1024)
        self.assertEqual(r["N"], 595_984_384)
        self.assertEqual({name: r["classes"][name]["active"] for name in COUNTED},
                         {"attention": 28 * 6_291_456, "dense_mlp": 28 * 9_437_184, "shared_expert": 0,
                          "routed_expert": 0, "router": 0, "output_projection": 155_582_464})
        # The tied input embedding is predicted beside N, not in it.
        self.assertEqual((r["classes"]["embedding"]["params"], r["classes"]["embedding"]["active"]), (155_582_464, 0))
        self.assertEqual((r["source"], r["output_tied"], r["top_k"], r["total_params"]), ("config", True, None, None))

    def test_mixtral_8x22b_counts_two_of_eight_experts(self):
        # tests/params/configs/Mixtral-8x22B: 56 layers, H 6144, 48 heads and 8 KV heads of 128, experts of 16,384.
        attention = 6144 * 6144 + 2 * 6144 * 1024 + 6144 * 6144  # q, k and v, o
        experts = 8 * 3 * 6144 * 16384  # w1, w3, w2 of each of 8 experts
        router = 8 * 6144
        per_layer = attention + experts * 2 // 8 + router
        self.assertEqual(per_layer, 692_109_312)
        with open(os.path.join(REPO, "tests", "params", "configs", "Mixtral-8x22B", "config.json")) as f:
            r = self.count(json.load(f))
        self.assertEqual(r["N"], 56 * 692_109_312 + 32_768 * 6_144)
        self.assertEqual(r["N"], 38_959_448_064)
        self.assertEqual((r["classes"]["routed_expert"]["params"], r["classes"]["routed_expert"]["active"]),
                         (56 * experts, 56 * experts // 4))
        self.assertEqual((r["top_k"], r["num_experts"], r["output_tied"]), (2, 8, False))

    def test_the_text_report_shows_no_tensor_counts(self):
        rc, out, err = run_tool("--config", self.write_config(registry_config("qwen3-0.6b")))
        self.assertEqual(rc, 0, err)
        lines = out.splitlines()
        self.assertEqual(lines[0], f"N for qwen3 from config arithmetic ({os.path.join(self.tmp, 'config.json')})")
        self.assertIn("attention                   -         176,160,768         176,160,768", lines)
        self.assertIn("N (active parameters per token)                           595,984,384   (0.60 B)", lines)
        self.assertNotIn("stored parameters", out)


class Refusals(Scratch):
    def test_a_missing_or_unknown_model_type_names_the_field(self):
        config = registry_config("qwen3-0.6b")
        del config["model_type"]
        self.refused(config, ": model_type: missing (it selects the counting rules)")
        config["model_type"] = "bert"
        self.refused(config, ": model_type: 'bert' has no counting rules (known: llama, qwen3,")

    def test_a_missing_field_names_it(self):
        for field in ("hidden_size", "vocab_size", "num_hidden_layers", "intermediate_size", "num_attention_heads"):
            config = registry_config("qwen3-0.6b")
            del config[field]
            self.refused(config, f": {field}: missing; model_type qwen3 needs it to count N")

    def test_a_moe_config_without_its_expert_count_names_the_field(self):
        with open(os.path.join(REPO, "tests", "params", "configs", "Mixtral-8x22B", "config.json")) as f:
            config = json.load(f)
        del config["num_local_experts"]
        self.refused(config, ": num_local_experts: missing; a mixtral checkpoint has routed experts")

    def test_malformed_values_and_json_are_refused_in_one_line(self):
        config = registry_config("qwen3-0.6b")
        self.refused(dict(config, hidden_size="1024"), ': hidden_size: is "1024", not an integer')
        self.refused(dict(config, num_key_value_heads=6), "does not divide num_attention_heads (16)")
        self.refused(dict(config, num_hidden_layers=5000), ": num_hidden_layers: is 5000, over the limit of 4096")
        self.refused(dict(config, hidden_size=1 << 40, intermediate_size=1 << 40),
                     "parameter arithmetic overflows 64 bits")
        self.refused("{\"model_type\": \"qwen3\",", "not valid JSON")
        self.refused("[1, 2]", "is not a JSON object")

    def test_no_checkpoint_and_no_config_is_nothing_to_count(self):
        rc, out, err = run_tool()
        self.assertEqual((rc, out), (2, ""))
        self.assertEqual(err, "active_params.py: error: nothing to count (fix: give a checkpoint (folder, index.json "
                              "or .safetensors), --config config.json, or both)\n")

    def test_tensors_needs_a_checkpoint(self):
        rc, out, err = run_tool("--config", self.write_config(registry_config("qwen3-0.6b")), "--tensors")
        self.assertEqual((rc, out, len(err.splitlines())), (2, "", 1))
        self.assertIn("--tensors: lists a checkpoint's tensors", err)


def write_safetensors(path, tensors):
    """A .safetensors file of BF16 tensors {name: shape}, zeros (only the header is read)."""
    header, offset = {}, 0
    for name, shape in sorted(tensors.items()):
        size = 2
        for dim in shape:
            size *= dim
        header[name] = {"dtype": "BF16", "shape": shape, "data_offsets": [offset, offset + size]}
        offset += size
    text = json.dumps(header).encode()
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + bytes(offset))


class CheckpointBeside(Scratch):
    """The checkpoint count is unchanged by --config alone, and agrees with it on a checkpoint of the config's own
    layout."""

    CONFIG = {"model_type": "qwen3", "hidden_size": 64, "intermediate_size": 96, "num_hidden_layers": 2,
              "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 16, "vocab_size": 320,
              "tie_word_embeddings": True}

    def write_checkpoint(self):
        tensors = {"model.embed_tokens.weight": [320, 64], "model.norm.weight": [64]}
        for i in range(2):
            p = f"model.layers.{i}."
            tensors.update({p + "self_attn.q_proj.weight": [64, 64], p + "self_attn.k_proj.weight": [32, 64],
                            p + "self_attn.v_proj.weight": [32, 64], p + "self_attn.o_proj.weight": [64, 64],
                            p + "self_attn.q_norm.weight": [16], p + "self_attn.k_norm.weight": [16],
                            p + "mlp.gate_proj.weight": [96, 64], p + "mlp.up_proj.weight": [96, 64],
                            p + "mlp.down_proj.weight": [64, 96], p + "input_layernorm.weight": [64],
                            p + "post_attention_layernorm.weight": [64]})
        folder = os.path.join(self.tmp, "ckpt")
        os.makedirs(folder)
        write_safetensors(os.path.join(folder, "model.safetensors"), tensors)
        self.write_config(self.CONFIG, os.path.join("ckpt", "config.json"))
        return folder

    def test_a_checkpoint_counts_from_its_headers_and_agrees_with_its_config(self):
        folder = self.write_checkpoint()
        rc, out, err = run_tool(folder, "--json")
        self.assertEqual(rc, 0, err)
        headers = json.loads(out)
        from_config = self.count(self.CONFIG)
        per_layer = 64 * 64 + 2 * 32 * 64 + 64 * 64 + 3 * 64 * 96
        self.assertEqual(headers["N"], 2 * per_layer + 320 * 64)
        self.assertEqual((headers["source"], headers["tensors"], headers["shards"]), ("checkpoint", 24, 1))
        self.assertEqual(headers["total_params"], headers["N"] + 64 + 2 * (2 * 16 + 2 * 64))  # + norms
        for name in COUNTED + ["embedding"]:
            self.assertEqual(headers["classes"][name]["params"], from_config["classes"][name]["params"], name)
        self.assertEqual(from_config["N"], headers["N"])
        if binary() is not None:  # and as openrecipes counts it, less its config.json cross-check
            rc, out, err = run_cli("params", folder, "--json")
            self.assertEqual(rc, 0, err)
            cc = json.loads(out)
            self.assertTrue(cc.pop("config_check")["agrees"])
            self.assertEqual(headers, cc)


if __name__ == "__main__":
    unittest.main()
