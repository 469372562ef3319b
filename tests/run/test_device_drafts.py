"""The multi-GPU drafts (tests/run/device/multi/drafts/, issue 45) against `openrecipes relayout`, on the CPU machine.

On the device, tests/run/device/multi/run.sh runs a draft only when `relayout <its reference> --gpus G [--tp --pp
--ep]` prints the draft's command word for word (but for --sequence-parallel, which a dense draft adds and relayout
adds to MoE at TP > 1): a draft that drifted from relayout would be skipped there, after the machine is held. This
test makes that check before any GPU is: every draft with a reference, in a scratch registry laid out as
tests/run/device/multi/prepare.sh lays it out.

The MoE drafts' reference, moe-ep2, is on the device the recipe its own run submitted. Here it is the draft, given the
fields submit writes (an evidence log, claims, the stack's versions) as placeholders: relayout reads a reference's
command, layout and workload, never its evidence or claims.
"""
import os
import re
import shutil
import subprocess
import tempfile
import unittest

import yaml

import runkit

MULTI = os.path.join(runkit.REPO, "tests", "run", "device", "multi")


def words(command):
    """A command's words, its line continuations dropped (run.sh's `words`)."""
    return command.replace("\\\n", " ").split()


def layout_args(recipe):
    """run.sh's relayout arguments: --gpus and each of TP, PP and EP that is not 1."""
    args = ["--gpus", str(recipe["gpus"])]
    for knob in ("tp", "pp", "ep"):
        if recipe["layout"][knob] != 1:
            args += [f"--{knob}", str(recipe["layout"][knob])]
    return args


class DeviceDraftsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.bin = runkit.binary()
        cls.tmp = tempfile.mkdtemp(prefix="or-drafts-")
        cls.reg = os.path.join(cls.tmp, "registry")
        for part in ("models", "rules"):
            shutil.copytree(os.path.join(runkit.REPO, "registry", part), os.path.join(cls.reg, part))
        shutil.copy(os.path.join(runkit.REPO, "registry", "gpus.yaml"), cls.reg)
        for name in os.listdir(os.path.join(MULTI, "models")):
            shutil.copy(os.path.join(MULTI, "models", name), os.path.join(cls.reg, "models"))
        shutil.copytree(os.path.join(runkit.REPO, "registry", runkit.RECIPES, "tulu3-ref"),
                        os.path.join(cls.reg, runkit.RECIPES, "tulu3-ref"))
        cls.drafts = {}
        for name in sorted(os.listdir(os.path.join(MULTI, "drafts"))):
            path = os.path.join(MULTI, "drafts", name)
            with open(path, encoding="utf-8") as f:
                text = f.read()
            recipe = yaml.safe_load(text)
            folder = os.path.join(cls.reg, "recipes", recipe["model"], "H200", recipe["id"])
            os.makedirs(folder)
            if recipe["reference"] is None:  # a reference: the fields submit writes, as placeholders
                text = text.replace("\nstack:\n", "\nevidence:\n  log: {path: evidence/train.log, format: megatron}\n"
                                    "stack:\n", 1)
                versions = ("  transformer_engine: none\n  pytorch: 2.11.0\n  cuda: '13.0'\n  nccl: 2.28.9\n"
                            f"  gpus_per_node: {recipe['gpus']}\n  network: none (one node)\n")
                text = re.sub(r"(\n  framework: [^\n]*\n)", lambda m: m.group(1) + versions, text, count=1)
                text += ("claims:\n  tokens_per_s_per_gpu: 1\n  cv: 0.01\n  gpu_hours: 0.01\n"
                         "  configuration: eligible\n  convergence: {verdict: pass}\n")
                os.makedirs(os.path.join(folder, "evidence"))
                with open(os.path.join(folder, "evidence", "train.log"), "w", encoding="utf-8") as f:
                    f.write("placeholder: relayout does not read it\n")
            with open(os.path.join(folder, "recipe.yaml"), "w", encoding="utf-8") as f:
                f.write(text)
            cls.drafts[recipe["id"]] = recipe

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_every_drafts_command_is_what_relayout_prints_from_its_reference(self):
        checked = []
        for name, recipe in self.drafts.items():
            if recipe["reference"] is None:
                continue
            with self.subTest(draft=name):
                reference = os.path.join(self.reg, "recipes", recipe["model"], "H200", recipe["reference"])
                r = subprocess.run([self.bin, "relayout", reference, *layout_args(recipe)], capture_output=True,
                                   text=True)
                self.assertEqual(r.returncode, 0, r.stderr)
                printed = r.stdout.split("\n\n", 1)[1]  # the command, after the summary's blank line
                drop = "--sequence-parallel"
                self.assertEqual([w for w in words(printed) if w != drop],
                                 [w for w in words(recipe["command"]) if w != drop])
                checked.append(name)
        # Every draft of the issue but the two references (tulu3-ref is the bundled one).
        self.assertEqual(sorted(checked), ["moe-ep4", "moe-ep8", "moe-tp2-ep4", "tulu3-dp2", "tulu3-dp4", "tulu3-dp8",
                                           "tulu3-pp2", "tulu3-tp2-sp"])

    def test_run_sh_reads_each_drafts_layout_and_tp_above_1_runs_sequence_parallel(self):
        """run.sh reads a draft's layout from its one-line `layout: {...}` with sed (its `layout` function): a block
        layout would give relayout empty sizes. A draft above TP 1 exists to run sequence parallelism (the comparison
        leaves --sequence-parallel out, so it is checked here)."""
        for name in sorted(os.listdir(os.path.join(MULTI, "drafts"))):
            with self.subTest(draft=name):
                with open(os.path.join(MULTI, "drafts", name), encoding="utf-8") as f:
                    text = f.read()
                recipe = yaml.safe_load(text)
                line = re.search(r"^layout: \{(.*)\}$", text, re.M)
                self.assertIsNotNone(line, "run.sh needs the layout on one line: layout: {tp: ..., ...}")
                read = dict(item.split(":") for item in line.group(1).replace(" ", "").split(","))
                for knob in ("tp", "pp", "ep"):
                    self.assertEqual(read[knob], str(recipe["layout"][knob]))
                if recipe["layout"]["tp"] > 1:
                    self.assertIn("--sequence-parallel", words(recipe["command"]))

    def test_a_moe_draft_at_tp_2_has_the_sequence_parallelism_relayout_adds(self):
        recipe = self.drafts["moe-tp2-ep4"]
        reference = os.path.join(self.reg, "recipes", recipe["model"], "H200", recipe["reference"])
        r = subprocess.run([self.bin, "relayout", reference, *layout_args(recipe)], capture_output=True, text=True)
        self.assertIn("--sequence-parallel added", r.stdout)
        self.assertEqual(words(r.stdout.split("\n\n", 1)[1]), words(recipe["command"]))


if __name__ == "__main__":
    unittest.main()
