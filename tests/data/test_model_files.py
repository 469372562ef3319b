"""The registry's model files (issue 43): each N equals tools/active_params.py's independent count on the fixture's
config.json (and on the config the file itself carries), each file is tools/model_files.py's output byte for byte, and
`openrecipes plan --model <id>` reads every one. Needs ../shared/fixtures (skipped without it, failed under CI=true: rows_fixture.skip_or_fail)."""

import json
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
sys.path.insert(0, str(Path(__file__).resolve().parent))
import model_files  # noqa: E402  (the script's table: which fixture each model file is written from)
from rows_fixture import binary, fixtures_dir, skip_or_fail  # noqa: E402


def active_params(config_path):
    out = subprocess.run(["/usr/bin/python3", str(ROOT / "tools/active_params.py"), "--config", str(config_path),
                          "--json"], check=True, capture_output=True, text=True).stdout
    return json.loads(out)


class ModelFiles(unittest.TestCase):
    def setUp(self):
        if fixtures_dir() is None:
            skip_or_fail("needs ../shared/fixtures (set OPENRECIPES_FIXTURES to point elsewhere)")
        if binary() is None:
            skip_or_fail("needs the openrecipes binary (set OPENRECIPES_BIN)")
        self.configs = Path(fixtures_dir()) / "configs"

    def model(self, model_id):
        return yaml.safe_load((ROOT / "registry/models" / f"{model_id}.yaml").read_text(encoding="utf-8"))

    def test_every_model_the_issue_names_has_a_file(self):
        named = {"qwen3-0.6b", "qwen3-8b", "qwen3-32b", "qwen3-30b-a3b", "qwen3-235b-a22b", "qwen3-next-80b-a3b",
                 "qwen3.5-27b", "qwen3.5-35b-a3b", "qwen3.5-122b-a10b", "qwen3.5-397b-a17b", "qwen3.6-27b",
                 "qwen3.6-35b-a3b", "deepseek-v3", "deepseek-v3.2", "deepseek-r1", "kimi-k2-instruct", "glm-4.5-air",
                 "glm-5", "gpt-oss-20b", "gpt-oss-120b", "llama-3.1-8b", "llama-3.1-70b", "llama-3.1-405b"}
        self.assertEqual({p.stem for p in (ROOT / "registry/models").glob("*.yaml")}, named)

    def test_n_and_its_breakdown_are_active_params_py_count_of_the_same_config(self):
        for model_id, entry in model_files.MODELS.items():
            with self.subTest(model=model_id):
                m = self.model(model_id)
                ref = active_params(self.configs / entry[3] / "config.json")
                self.assertEqual(m["active_params"]["n"], ref["N"])
                self.assertEqual(m["active_params"]["counted_from"], "config")
                expected = {k: c["active"] for k, c in ref["classes"].items() if c["counted"] and c["active"] > 0}
                self.assertEqual(m["active_params"]["breakdown"], expected)
                # The fields the file carries are enough: counted from them alone, N is the same.
                with tempfile.TemporaryDirectory() as d:
                    carried = Path(d) / "config.json"
                    carried.write_text(json.dumps(m["config"]))
                    self.assertEqual(active_params(carried)["N"], ref["N"])

    def test_the_files_are_the_scripts_output(self):
        with tempfile.TemporaryDirectory() as d:
            subprocess.run(["/usr/bin/python3", str(ROOT / "tools/model_files.py"), binary(), str(self.configs), d],
                           check=True, cwd=ROOT)
            for model_id in model_files.MODELS:
                with self.subTest(model=model_id):
                    self.assertEqual((Path(d) / f"{model_id}.yaml").read_text(encoding="utf-8"),
                                     (ROOT / "registry/models" / f"{model_id}.yaml").read_text(encoding="utf-8"))

    def test_plan_reads_every_model_by_its_id(self):
        for model_id in model_files.MODELS:
            with self.subTest(model=model_id):
                r = subprocess.run([binary(), "plan", "--model", model_id, "--gpu", "H100", "--gpus", "8", "--top", "1",
                                    "--json"], capture_output=True, text=True)
                plan = json.loads(r.stdout)
                self.assertEqual(r.returncode, 0 if plan["fitting"] > 0 else 1, r.stderr)  # 1: none fits 8 H100s
                layouts = plan["layouts"]
                self.assertGreater(len(layouts), 0)
                self.assertGreater(layouts[0]["step_time_s"], 0)


if __name__ == "__main__":
    unittest.main()
