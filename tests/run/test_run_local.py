"""`openrecipes run --launcher local` with the stand-in trainer (runkit.py), then `submit` and `build` on a scratch copy
of the bundled registry; and the run's bad inputs: shell injection in a recipe's command, a missing model script, a
variable with no value, a patch whose sha256 does not match, a run that dies mid-way, a run directory edited after
capture."""
import hashlib
import json
import os
import re
import shutil
import subprocess
import unittest

import runkit

MBS2 = "mbs2"


class LocalRun(unittest.TestCase):
    """One stand-in run of the bundled recipe mbs2, shared by the tests that read it (each submits into its own copy)."""

    @classmethod
    def setUpClass(cls):
        cls.s = runkit.Scratch()
        cls.run_dir = os.path.join(cls.s.root, "run")
        cls.rc, cls.out, cls.err = cls.s.run("run", cls.s.recipe(MBS2), "--launcher", "local", "--var",
                                             "MEGATRON_LM=" + cls.s.megatron, "-o", cls.run_dir)

    @classmethod
    def tearDownClass(cls):
        cls.s.cleanup()

    def test_run_completes_and_tees_the_log(self):
        self.assertEqual(self.rc, 0, self.err)
        self.assertIn("run qwen3-0.6b/H200/mbs2: completed", self.out)
        log = os.path.join(self.run_dir, "nodes", "0", "train.log")
        got = runkit.iterations(log)
        replayed = runkit.iterations(self.s.recipe(MBS2, "evidence", "train.log"))
        self.assertEqual(sorted(got), list(range(1, 21)))
        # The real run's losses, at step times the stand-in measured (0.2 x the real ones, plus sleep overhead).
        for i in range(1, 21):
            self.assertEqual(got[i][1], replayed[i][1])
            self.assertGreaterEqual(got[i][0], 0.2 * replayed[i][0] - 1.0)
            self.assertLess(got[i][0], 0.2 * replayed[i][0] + 500.0)
        # The log was echoed to the terminal as it came.
        self.assertIn("iteration       20/      20", self.out)

    def test_run_json_lists_every_file_with_its_sha256(self):
        record = runkit.read_run(self.run_dir)
        self.assertEqual(record["status"], "completed")
        self.assertEqual(record["exit_code"], 0)
        listed = {f["path"]: f for f in record["files"]}
        on_disk = set()
        for root, _, files in os.walk(self.run_dir):
            for name in files:
                rel = os.path.relpath(os.path.join(root, name), self.run_dir)
                if rel != "run.json":
                    on_disk.add(rel)
        self.assertEqual(set(listed), on_disk)
        self.assertEqual(on_disk, {"plan.json", "times.txt", "nodes/0/train.log", "nodes/0/versions.txt",
                                   "nodes/0/exit.txt"})
        for rel, f in listed.items():
            self.assertEqual(f["sha256"], runkit.sha256_file(os.path.join(self.run_dir, rel)), rel)
            self.assertEqual(f["bytes"], os.path.getsize(os.path.join(self.run_dir, rel)), rel)
        self.assertEqual(record["evidence"]["times"], {"path": "times.txt", "format": "launcher", "key": "run"})
        line = runkit.read(os.path.join(self.run_dir, "times.txt"))
        m = re.fullmatch(r"run rc=0 start=(\d+\.\d+) end=(\d+\.\d+)\n", line)
        self.assertIsNotNone(m, line)
        self.assertGreater(float(m.group(2)) - float(m.group(1)), 0.2 * 2.5 * 15)  # at least the window's steps
        versions = runkit.read(os.path.join(self.run_dir, "nodes", "0", "versions.txt"))
        self.assertIn("megatron_lm_commit: " + self.s.commit, versions)  # the stand-in checkout's own commit
        self.assertIn("megatron_lm_tree: clean", versions)
        self.assertIn("0, NVIDIA H200, 580.159.04", versions)  # the stand-in nvidia-smi
        self.assertIn("--- nvidia-smi", versions)

    def test_submit_and_build_rank_it(self):
        reg = runkit.Scratch()  # a registry of its own: this test writes into it
        try:
            rc, out, err = reg.run("submit", self.run_dir, "--reference", reg.recipe("ref"), "--author", "alice",
                                   "--registry", reg.registry, "--name", "standin-local")
            self.assertEqual(rc, 0, out + err)
            self.assertIn("verified: it ranks in its pair", out)
            recipe = runkit.read(reg.recipe("standin-local", "recipe.yaml"))
            log = reg.recipe("standin-local", "evidence", "train.log")
            self.assertEqual(runkit.sha256_file(log),
                             runkit.sha256_file(os.path.join(self.run_dir, "nodes", "0", "train.log")))
            # The claim is the score by hand (SPEC §2) of the evidence, to the 2 decimals written.
            score = runkit.score_by_hand(log)
            claimed = float(re.search(r"tokens_per_s_per_gpu: ([0-9.]+)", recipe).group(1))
            self.assertAlmostEqual(claimed, round(score, 2), places=2)
            self.assertIn("reference: ref\n", recipe)
            self.assertIn("author:\n  github: alice\n", recipe)
            self.assertIn("layout: {tp: 1, pp: 1, cp: 1, ep: 1, etp: 1, dp: 1, micro_batch: 2}", recipe)
            self.assertIn("transformer_engine: none\n", recipe)  # --transformer-impl local in the dump
            self.assertIn("pytorch: unknown\n", recipe)  # the CI machine has no torch: not pinned
            # The command as the run started it, every variable expanded: the build checks the command against it.
            launch = json.loads(runkit.read(reg.recipe("standin-local", "evidence", "launch.json")))
            self.assertEqual(launch["env"], [])
            self.assertEqual(launch["argv"][:4], ["torchrun", "--nproc-per-node", "1",
                                                  os.path.join(self.s.megatron, "pretrain_gpt.py")])
            self.assertIn("times: {path: evidence/times.txt, format: launcher, run: run}", recipe)
            rc, out, err = reg.run("build", reg.registry)
            self.assertEqual(rc, 0, err)
            lines = out.splitlines()
            row = [i for i, l in enumerate(lines) if "standin-local" in l]
            self.assertEqual(len(row), 1, out)
            self.assertRegex(lines[row[0]], r"^\s+1\s+standin-local\s+" + re.escape(f"{score:,.1f}"))
            # who submitted it and its checks: the line under its numbers
            self.assertIn("config eligible, convergence pass", lines[row[0] + 1])
            # The bundled registry is untouched.
            self.assertFalse(os.path.exists(os.path.join(runkit.REPO, "registry", runkit.RECIPES, "standin-local")))
        finally:
            reg.cleanup()

    def test_edited_after_capture_is_refused(self):
        reg = runkit.Scratch()
        try:
            edited = os.path.join(reg.root, "edited")
            subprocess.run(["cp", "-r", self.run_dir, edited], check=True)
            log = os.path.join(edited, "nodes", "0", "train.log")
            with open(log, "a") as f:
                f.write(" [2026-12-02 00:00:00.000000] iteration       21/      20 |\n")
            rc, out, err = reg.run("submit", edited, "--reference", reg.recipe("ref"), "--author", "alice",
                                   "--registry", reg.registry)
            self.assertEqual(rc, 2, out)
            self.assertIn("nodes/0/train.log has sha256 " + runkit.sha256_file(log), err)
            self.assertIn("the file was edited after capture", err)
            self.assertEqual(sorted(os.listdir(os.path.join(reg.registry, runkit.RECIPES))),
                             sorted(os.listdir(os.path.join(runkit.REPO, "registry", runkit.RECIPES))))
            # An incomplete run (no run.json) is refused too.
            os.remove(os.path.join(edited, "run.json"))
            rc, out, err = reg.run("submit", edited, "--reference", reg.recipe("ref"), "--author", "alice",
                                   "--registry", reg.registry)
            self.assertEqual(rc, 2)
            self.assertIn("no run.json: the run is incomplete", err)
        finally:
            reg.cleanup()


class DraftRun(unittest.TestCase):
    def test_a_draft_without_evidence_or_claims_runs_and_submits(self):
        # A recipe written before its first run: no evidence/, no claims, a stack that names only the framework.
        s = runkit.Scratch(scale="0.2")
        try:
            text = runkit.read(s.recipe(MBS2, "recipe.yaml"))
            evidence = text[text.index("evidence:\n"):text.index("# The launch script")]
            stack = text[text.index("stack:\n"):text.index("claims:\n")]
            draft = text.replace(evidence, "").replace(stack, "stack:\n  framework: {name: megatron-lm}\n")
            draft = draft[:draft.index("claims:\n")].replace("id: mbs2\n", "id: draft\n")
            draft = "".join(l for l in draft.splitlines(True) if not l.startswith("#"))
            os.makedirs(s.recipe("draft"))
            with open(s.recipe("draft", "recipe.yaml"), "w") as f:
                f.write(draft)
            self.assertNotIn("evidence", draft)
            self.assertNotIn("claims", draft)
            rc, out, err = s.run("build", s.registry)
            # The registry itself refuses the draft (it has no evidence, claims or framework commit: all three said in
            # one message); `run` reads it as a draft.
            self.assertIn("draft/recipe.yaml: 3 problems: (1) line 1: missing required field 'evidence'", out)
            self.assertIn("(2) line 1: missing required field 'claims'", out)
            run_dir = os.path.join(s.root, "run")
            rc, out, err = s.run("run", s.recipe("draft"), "--launcher", "local", "--var",
                                 "MEGATRON_LM=" + s.megatron, "-o", run_dir)
            self.assertEqual(rc, 0, out + err)
            rc, out, err = s.run("submit", run_dir, "--reference", s.recipe("ref"), "--author", "alice",
                                 "--registry", s.registry, "--name", "from-draft")
            self.assertEqual(rc, 0, out + err)
            recipe = runkit.read(s.recipe("from-draft", "recipe.yaml"))
            self.assertIn("evidence:\n  log: {path: evidence/train.log, format: megatron}", recipe)
            # The stand-in checkout's commit (YAML quotes it only when it could read as a number, e.g. 1234e567...).
            self.assertRegex(recipe, "stack:\n  framework: {name: megatron-lm, commit: (\"%s\"|%s)}" % (s.commit, s.commit))
        finally:
            s.cleanup()


    def test_relayouts_suggestion_becomes_a_draft_that_runs_and_submits(self):
        # run refuses a GPU count on which the layout breaks a rule and names relayout; relayout names a change that
        # fits, then the command that writes it as a draft; run takes the draft on its GPUs; submit makes it a recipe.
        # Every command here is the one the tool printed, run as printed (its "openrecipes" is the binary under test).
        s = runkit.Scratch(scale="0.2")
        try:
            def printed(command):
                words = command.split()
                self.assertEqual(words[0], "openrecipes", command)
                return s.run(*words[1:])

            recipe = s.recipe(MBS2)
            text = runkit.read(os.path.join(recipe, "recipe.yaml"))
            with open(os.path.join(recipe, "recipe.yaml"), "w") as f:  # a micro-batch that DP 8 cannot take
                f.write(text.replace("--micro-batch-size 2 ", "--micro-batch-size 32 ").replace("micro_batch: 2}",
                                                                                               "micro_batch: 32}"))
            rc, out, err = s.run("run", recipe, "--gpus", "8", "--launcher", "local", "--var",
                                 "MEGATRON_LM=" + s.megatron, "--dry-run")
            self.assertEqual(rc, 2, out + err)
            self.assertIn("does not divide by DP 8 x micro-batch 32", err)
            refused = re.search(r"another layout: (openrecipes relayout \S+ --gpus 8) names the changes that fit", err)
            self.assertIsNotNone(refused, err)
            rc, out, err = printed(refused.group(1))
            self.assertEqual(rc, 1, out + err)  # it does not fit as it is: the changes that would
            self.assertIn("    - micro-batch 32 -> 4: TP 1", out)
            suggestion = re.search(r"the first, as a command \((openrecipes relayout [^)]*)\):", out).group(1)
            rc, out, err = printed(suggestion)
            self.assertEqual(rc, 0, out + err)
            draft_line = re.search(r"\n  draft   (openrecipes relayout .*) writes it as a recipe draft", out)
            self.assertIsNotNone(draft_line, out)
            self.assertTrue(draft_line.group(1).endswith("--draft drafts/qwen3-0.6b/H200/mbs2-8gpu-mbs4"), out)
            rc, out, err = printed(draft_line.group(1))
            self.assertEqual(rc, 0, out + err)
            written = out
            draft = os.path.join(s.root, "drafts", "qwen3-0.6b", "H200", "mbs2-8gpu-mbs4")
            self.assertIn("  draft   wrote drafts/qwen3-0.6b/H200/mbs2-8gpu-mbs4, a recipe draft", out)
            yaml = runkit.read(os.path.join(draft, "recipe.yaml"))
            self.assertIn("gpus: 8\n", yaml)
            self.assertIn("reference: mbs2\n", yaml)
            self.assertIn("layout: {tp: 1, pp: 1, cp: 1, ep: 1, etp: 1, dp: 8, micro_batch: 4}", yaml)
            self.assertIn("torchrun --nproc-per-node 8 ", yaml)
            self.assertIn("--micro-batch-size 4 ", yaml)
            self.assertNotIn("claims:", yaml)
            self.assertIn('  network: "not yet known: openrecipes run records it"\n', yaml)  # not the 1-GPU run's
            # Written once: the same command again is refused and leaves the draft as it was.
            rc, out, err = printed(draft_line.group(1))
            self.assertEqual(rc, 2, out + err)
            self.assertIn("a folder of that name exists", err)
            self.assertEqual(runkit.read(os.path.join(draft, "recipe.yaml")), yaml)
            next_line = re.search(r"\n  next    (openrecipes run \S+ --list-vars) ", written)
            self.assertIsNotNone(next_line, written)
            rc, out, err = printed(next_line.group(1))
            self.assertEqual(rc, 0, out + err)
            self.assertIn("openrecipes run drafts/qwen3-0.6b/H200/mbs2-8gpu-mbs4 --launcher local --var MEGATRON_LM=",
                          out)
            # run takes the draft on its own 8 GPUs (no relayout left to do), and submit makes it a recipe.
            run_dir = os.path.join(s.root, "run")
            rc, out, err = s.run("run", draft, "--launcher", "local", "--var", "MEGATRON_LM=" + s.megatron,
                                 "-o", run_dir)
            self.assertEqual(rc, 0, out[-3000:] + err)
            self.assertIn("using world size: 8, data-parallel size: 8", out)
            self.assertIn("run qwen3-0.6b/H200/mbs2-8gpu-mbs4: completed", out)
            rc, out, err = s.run("submit", run_dir, "--reference", s.recipe("ref"), "--author", "alice",
                                 "--registry", s.registry, "--name", "mbs4-on-8")
            self.assertEqual(rc, 0, out + err)
            submitted = runkit.read(s.recipe("mbs4-on-8", "recipe.yaml"))
            self.assertIn("gpus: 8\n", submitted)
            self.assertIn("layout: {tp: 1, pp: 1, cp: 1, ep: 1, etp: 1, dp: 8, micro_batch: 4}", submitted)
            self.assertNotIn("not yet known", submitted)  # the run's own network
        finally:
            s.cleanup()


class TamperedRun(unittest.TestCase):
    """A review fed these to submit: each is refused with exit 2, and nothing is written anywhere."""

    @classmethod
    def setUpClass(cls):
        cls.s = runkit.Scratch(scale="0.02")
        cls.run_dir = os.path.join(cls.s.root, "run")
        rc, out, err = cls.s.run("run", cls.s.recipe(MBS2), "--launcher", "local", "--var",
                                 "MEGATRON_LM=" + cls.s.megatron, "-o", cls.run_dir)
        assert rc == 0, out + err

    @classmethod
    def tearDownClass(cls):
        cls.s.cleanup()

    def submit_copy(self, change, name="t"):
        copy = os.path.join(self.s.root, "copy-" + name)
        shutil.rmtree(copy, ignore_errors=True)
        shutil.copytree(self.run_dir, copy)
        change(copy)
        runkit.rehash(copy)
        before = sorted(os.listdir(os.path.join(self.s.registry, runkit.RECIPES)))
        rc, out, err = self.s.run("submit", copy, "--reference", self.s.recipe("ref"), "--author", "alice",
                                  "--registry", self.s.registry, "--name", "tampered-" + name)
        self.assertEqual(rc, 2, out + err)
        self.assertEqual(sorted(os.listdir(os.path.join(self.s.registry, runkit.RECIPES))), before)
        return err

    def test_plan_patches_cannot_write_outside_the_registry(self):
        outside = os.path.join(self.s.root, "etc", "hostname")

        def change(d):
            runkit.edit_json(os.path.join(d, "plan.json"),
                             lambda j: j.update(patches=[{"path": "/etc/hostname", "sha256": "0" * 64}]))
        err = self.submit_copy(change, "patches")
        self.assertIn("plan.json's patches are not the recipe's", err)
        self.assertFalse(os.path.exists(outside))

    def test_plan_recipe_id_cannot_inject_yaml(self):
        def change(d):
            runkit.edit_json(os.path.join(d, "plan.json"), lambda j: j["recipe"].update(
                id="qwen3-0.6b/H200/mbs2\nwindow: {first: 12, last: 19}\n#"))
        self.assertIn("plan.json does not name the recipe it ran", self.submit_copy(change, "id"))

    def test_plan_command_cannot_replace_the_recipes(self):
        """Regression: a plan.json edited to another command (and run.json re-hashed) was written into the new
        recipe, and relayout then printed it as the command to run. submit derives the command from the recipe."""
        def change(command, argv):
            return lambda d: runkit.edit_json(os.path.join(d, "plan.json"), lambda j: j.update(command=command,
                                                                                                 argv=argv))
        err = self.submit_copy(change("bash -c 'id > /tmp/pwned'", ["bash", "-c", "id > /tmp/pwned"]), "bash")
        self.assertIn("plan.json's command is not the one qwen3-0.6b/H200/mbs2 gives on 1 GPU: the plan was edited",
                      err)
        plan = json.loads(runkit.read(os.path.join(self.run_dir, "plan.json")))
        lr = plan["command"].replace("--lr 1e-5", "--lr 1e-3")
        self.assertNotEqual(lr, plan["command"])
        err = self.submit_copy(change(lr, [w if w != "1e-5" else "1e-3" for w in plan["argv"]]), "lr")
        self.assertIn("plan.json's command is not the one qwen3-0.6b/H200/mbs2 gives", err)

    def test_plan_argv_must_be_its_command_rendered(self):
        """Regression: plan.json's argv and env (which become evidence/launch.json) were taken as
        they were; edited, with the command left alone, they are refused."""
        def argv(d):
            runkit.edit_json(os.path.join(d, "plan.json"),
                             lambda j: j.update(argv=[w if w != "1e-5" else "1e-3" for w in j["argv"]]))
        self.assertIn("plan.json's argv is not its command rendered (the command's 1e-5 is 1e-3 in the run): the plan "
                      "was edited", self.submit_copy(argv, "argv"))

        def env(d):
            runkit.edit_json(os.path.join(d, "plan.json"), lambda j: j.update(env=[["NCCL_ALGO", "Tree"]]))
        self.assertIn("plan.json's argv is not its command rendered (the command sets 0 environment variables, the "
                      "run 1)", self.submit_copy(env, "env"))

        def variable(d):
            runkit.edit_json(os.path.join(d, "plan.json"), lambda j: j["variables"].update(MEGATRON_LM="/elsewhere"))
        self.assertIn("plan.json's argv has $MEGATRON_LM = ", self.submit_copy(variable, "variable"))

    def test_evidence_format_cannot_inject_yaml(self):
        def change(d):
            runkit.edit_json(os.path.join(d, "run.json"),
                             lambda j: j["evidence"]["log"].update(format="megatron}\nwindow: {first: 1, last: 2}"))
        self.assertIn("the evidence formats or the job id are not ones openrecipes run writes",
                      self.submit_copy(change, "format"))

    def test_completed_with_a_non_zero_exit_is_refused(self):
        def change(d):
            runkit.edit_json(os.path.join(d, "run.json"), lambda j: j.update(exit_code=137))
        self.assertIn("the run is marked completed but its exit status is 137", self.submit_copy(change, "exit"))

        def times(d):
            with open(os.path.join(d, "times.txt")) as f:
                t = f.read()
            with open(os.path.join(d, "times.txt"), "w") as f:
                f.write(t.replace("rc=0", "rc=137"))
        self.assertIn("the scheduler says the run exited 137", self.submit_copy(times, "times"))

        def node_exit(d):
            with open(os.path.join(d, "nodes", "0", "exit.txt"), "w") as f:
                f.write("137\n")
        self.assertIn("a node's exit status is not 0", self.submit_copy(node_exit, "node"))

    def test_the_same_run_is_submitted_once(self):
        rc, out, err = self.s.run("submit", self.run_dir, "--reference", self.s.recipe("ref"), "--author", "alice",
                                  "--registry", self.s.registry, "--name", "first")
        self.assertIn(rc, (0, 1), out + err)
        rc, out, err = self.s.run("submit", self.run_dir, "--reference", self.s.recipe("ref"), "--author", "bob",
                                  "--registry", self.s.registry, "--name", "second")
        self.assertEqual(rc, 2)
        self.assertIn("this log is already the evidence of qwen3-0.6b/H200/first", err)
        shutil.rmtree(self.s.recipe("first"))


class ProgramPolicy(unittest.TestCase):
    """A recipe runs the framework's launcher on a script of the user's checkout, nothing else."""

    def setUp(self):
        self.s = runkit.Scratch()

    def tearDown(self):
        self.s.cleanup()

    def dry(self):
        return self.s.run("run", self.s.recipe(MBS2), "--launcher", "local", "--dry-run", "--var",
                          "MEGATRON_LM=" + self.s.megatron)

    def test_other_programs_and_scripts_are_refused(self):
        cases = {
            "bash -c 'id > /tmp/pwned'": "the command runs 'bash', not the framework's launcher",
            "python3 -c 'import os'": "python3 '-c' is not one of the flags a recipe may give it",
            "torchrun --nproc-per-node 1 -m evil": "torchrun '-m' is not one of the flags a recipe may give it",
            # argparse reads an abbreviation: --no-pyth is --no-python, which runs any program (found by a review)
            "torchrun --no-pyth sh -c 'touch x' $MEGATRON_LM/pretrain_gpt.py": "torchrun '--no-pyth' is not one of",
            "torchrun --run-path x $MEGATRON_LM/pretrain_gpt.py": "torchrun '--run-path' is not one of",
            "/tmp/bin/torchrun --nproc-per-node 1 $MEGATRON_LM/pretrain_gpt.py":
                "the command runs '/tmp/bin/torchrun', not the framework's launcher",
            "torchrun --nproc-per-node 1 /tmp/evil.py --train-iters 20":
                "the entry script '/tmp/evil.py' is not one of megatron-lm's",
            "torchrun --nproc-per-node 1 $MEGATRON_LM/../evil.py":
                "the entry script '$MEGATRON_LM/../evil.py' is not one of megatron-lm's",
            "torchrun --nproc-per-node 1 $MEGATRON_LM/tools/preprocess_data.py":
                "the entry script '$MEGATRON_LM/tools/preprocess_data.py' is not one of megatron-lm's",
            # Regression: an environment prefix that makes Python or the loader run code from a path.
            "PYTHONPATH=evidence torchrun --nproc-per-node 1 $MEGATRON_LM/pretrain_gpt.py":
                "the command sets PYTHONPATH, which a recipe may not set",
            "LD_PRELOAD=/tmp/evil.so torchrun --nproc-per-node 1 $MEGATRON_LM/pretrain_gpt.py":
                "the command sets LD_PRELOAD, which a recipe may not set",
            "PATH=/tmp/bin torchrun --nproc-per-node 1 $MEGATRON_LM/pretrain_gpt.py":
                "the command sets PATH, which a recipe may not set",
            "BASH_ENV=/tmp/x NCCL_DEBUG=INFO torchrun --nproc-per-node 1 $MEGATRON_LM/pretrain_gpt.py":
                "the command sets BASH_ENV, which a recipe may not set",
        }
        for command, message in cases.items():
            with self.subTest(command=command):
                write_recipe_command(self.s, command)
                rc, out, err = self.dry()
                self.assertEqual(rc, 2, out + err)
                self.assertIn(message, err)

    def test_an_environment_prefix_that_loads_code_never_runs_it(self):
        """Regression: a sitecustomize.py in a folder the recipe names on PYTHONPATH ran under a real run. The
        run is refused before anything starts: no RUN_DIR, and the module never ran."""
        marker = os.path.join(self.s.root, "pwned")
        folder = self.s.recipe(MBS2, "evidence")
        with open(os.path.join(folder, "sitecustomize.py"), "w") as f:
            f.write(f"open({marker!r}, 'w').write('ran')\n")
        rel = os.path.relpath(folder, self.s.root)
        write_recipe_command(self.s, f"PYTHONPATH={rel} torchrun --nproc-per-node 1 $MEGATRON_LM/pretrain_gpt.py "
                                     "--train-iters 20")
        run_dir = os.path.join(self.s.root, "run")
        rc, out, err = self.s.run("run", self.s.recipe(MBS2), "--launcher", "local", "--var",
                                  "MEGATRON_LM=" + self.s.megatron, "-o", run_dir)
        self.assertEqual(rc, 2, out + err)
        self.assertIn("the command sets PYTHONPATH, which a recipe may not set", err)
        self.assertIn("fix: list the recipe's own Python files under patches:", err)
        self.assertFalse(os.path.exists(run_dir))
        self.assertFalse(os.path.exists(marker))

    def test_a_script_that_links_out_of_the_checkout_is_refused(self):
        evil = os.path.join(self.s.root, "evil.py")
        with open(evil, "w") as f:
            f.write("print('evil')\n")
        os.remove(os.path.join(self.s.megatron, "pretrain_gpt.py"))
        os.symlink(evil, os.path.join(self.s.megatron, "pretrain_gpt.py"))
        rc, out, err = self.dry()
        self.assertEqual(rc, 2, out + err)
        self.assertIn("pretrain_gpt.py' is not inside the framework checkout", err)

    def test_every_file_in_patches_is_pinned(self):
        os.makedirs(self.s.recipe(MBS2, "patches"))
        with open(self.s.recipe(MBS2, "patches", "openrecipes_evil.py"), "w") as f:
            f.write("import os\n")
        rc, out, err = self.dry()
        self.assertEqual(rc, 2)
        self.assertIn("patches/openrecipes_evil.py is in patches/ (which goes on PYTHONPATH) but not among the "
                      "recipe's patches", err)
        os.remove(self.s.recipe(MBS2, "patches", "openrecipes_evil.py"))
        # A module Python imports by itself at start-up never runs, even pinned (SPEC §6 "Patches").
        with open(self.s.recipe(MBS2, "patches", "sitecustomize.py"), "w") as f:
            f.write("import os\n")
        text = runkit.read(self.s.recipe(MBS2, "recipe.yaml"))
        with open(self.s.recipe(MBS2, "recipe.yaml"), "w") as f:
            f.write(text + "patches: [{path: patches/sitecustomize.py, sha256: " +
                    runkit.sha256_file(self.s.recipe(MBS2, "patches", "sitecustomize.py")) + "}]\n")
        rc, out, err = self.dry()
        self.assertEqual(rc, 2)
        self.assertIn("patches/sitecustomize.py in patches/ is importable as 'sitecustomize', a name Python, the "
                      "launcher, the framework or a library could import by itself", err)
        with open(self.s.recipe(MBS2, "recipe.yaml"), "w") as f:
            f.write(text)
        # A link to a listed patch is refused too (it would be importable under another name).
        os.remove(self.s.recipe(MBS2, "patches", "sitecustomize.py"))
        with open(self.s.recipe(MBS2, "patches", "fix.patch"), "w") as f:
            f.write("--- a/x\n+++ b/x\n")
        os.symlink("fix.patch", self.s.recipe(MBS2, "patches", "openrecipes_plugin.py"))
        rc, out, err = self.dry()
        self.assertEqual(rc, 2)
        self.assertIn("patches/openrecipes_plugin.py in patches/ is a symbolic link", err)

    def pin_patch(self, rel, text="import os\n"):
        """Writes patches/<rel> into mbs2's folder and lists it with its sha256 in recipe.yaml."""
        path = self.s.recipe(MBS2, "patches", rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)
        with open(self.s.recipe(MBS2, "recipe.yaml"), "a") as f:
            f.write(f"patches: [{{path: patches/{rel}, sha256: {runkit.sha256_file(path)}}}]\n")

    def test_a_patch_importable_under_a_name_anything_imports_by_itself_is_refused(self):
        """Regression (SPEC §6 "Patches"): patches/encodings/__init__.py, pinned, ran at the interpreter's start-up
        (patches/ is on PYTHONPATH, ahead of the standard library). Whatever the name (the standard library's, the
        framework's, a dependency's, a namespace folder, an extension module), only names with the recipe's own prefix
        are importable from patches/, and the run is refused before anything starts."""
        marker = os.path.join(self.s.root, "pwned")
        original = runkit.read(self.s.recipe(MBS2, "recipe.yaml"))
        for rel, name in [("encodings/__init__.py", "encodings"), ("torch.py", "torch"), ("megatron/core.py", "megatron"),
                          ("apex/optimizers.py", "apex"), ("json.cpython-311-x86_64-linux-gnu.so", "json"),
                          ("site.pyc", "site"), ("__init__.py", "__init__")]:
            with self.subTest(rel=rel):
                with open(self.s.recipe(MBS2, "recipe.yaml"), "w") as f:
                    f.write(original)
                shutil.rmtree(self.s.recipe(MBS2, "patches"), ignore_errors=True)
                self.pin_patch(rel, f"open({marker!r}, 'w').write('ran')\n")
                run_dir = os.path.join(self.s.root, "run")
                rc, out, err = self.s.run("run", self.s.recipe(MBS2), "--launcher", "local", "--var",
                                          "MEGATRON_LM=" + self.s.megatron, "-o", run_dir)
                self.assertEqual(rc, 2, out + err)
                self.assertIn(f"is importable as '{name}', a name Python, the launcher, the framework or a library "
                              "could import by itself", err)
                self.assertFalse(os.path.exists(run_dir))
                self.assertFalse(os.path.exists(marker))
        # The recipe's own prefix is fine, and so is a diff (no import reads it).
        with open(self.s.recipe(MBS2, "recipe.yaml"), "w") as f:
            f.write(original)
        shutil.rmtree(self.s.recipe(MBS2, "patches"))
        self.pin_patch("openrecipes_loss/__init__.py")
        rc, out, err = self.dry()
        self.assertEqual(rc, 0, err)

    def test_files_the_trainer_writes_stay_inside_the_run_folder(self):
        """SPEC §6 "Files the trainer touches": --save, --memory-snapshot-path and the like once wrote wherever the
        recipe said. A write names $RUN_DIR, which run sets to the folder it creates; the trainer runs in its node's
        folder."""
        base = "torchrun --nproc-per-node 1 $MEGATRON_LM/pretrain_gpt.py --train-iters 20 --mock-data "
        write_recipe_command(self.s, base + "--record-memory-history --memory-snapshot-path " +
                             os.path.join(self.s.root, "pwned"))
        rc, out, err = self.dry()
        self.assertEqual(rc, 2, out + err)
        self.assertIn("--memory-snapshot-path '" + os.path.join(self.s.root, "pwned") +
                      "': a file the run writes, named outside the run folder", err)
        self.assertIn("fix: write it inside the run folder: $RUN_DIR or $RUN_DIR/<path>", err)
        write_recipe_command(self.s, base + "--save $RUN_DIR/checkpoints --save-interval 10")
        run_dir = os.path.join(self.s.root, "run")
        rc, out, err = self.s.run("run", self.s.recipe(MBS2), "--launcher", "local", "--var",
                                  "MEGATRON_LM=" + self.s.megatron, "-o", "run",
                                  env=dict(self.s.env, OPENRECIPES_STANDIN_TIME_SCALE="0.01"))
        self.assertEqual(rc, 0, err)
        with open(os.path.join(run_dir, "plan.json")) as f:
            plan = json.load(f)
        self.assertIn(os.path.join(run_dir, "checkpoints"), plan["argv"])
        self.assertEqual(plan["variables"]["RUN_DIR"], run_dir)
        # The stand-in trainer records the folder it ran in.
        self.assertIn("stand-in cwd: " + os.path.join(run_dir, "nodes", "0"),
                      runkit.read(os.path.join(run_dir, "nodes", "0", "train.log")))
        rc, out, err = self.dry_with("--var", "RUN_DIR=/tmp")
        self.assertEqual(rc, 2, out + err)
        self.assertIn("run sets $RUN_DIR itself", err)

    def dry_with(self, *more):
        return self.s.run("run", self.s.recipe(MBS2), "--launcher", "local", "--dry-run", "--var",
                          "MEGATRON_LM=" + self.s.megatron, *more)

    def test_the_data_the_command_reads_is_checked_before_anything_runs(self):
        """Regression: a missing $SFT_DATA prefix, or a rows.parquet where Megatron-LM needs the PREFIX of .bin/.idx,
        was launched; a relative path stayed relative to the submitting folder on Slurm."""
        write_recipe_command(self.s, "torchrun --nproc-per-node 1 $MEGATRON_LM/pretrain_gpt.py --train-iters 20 "
                                     "--data-path $SFT_DATA --split 100,0,0")
        rc, out, err = self.dry_with("--var", "SFT_DATA=rows/megatron")
        self.assertEqual(rc, 2, out + err)
        self.assertIn("--data-path $SFT_DATA is '" + os.path.join(self.s.root, "rows", "megatron") +
                      "': megatron.bin and megatron.idx are not both there", err)
        os.makedirs(os.path.join(self.s.root, "rows"))
        with open(os.path.join(self.s.root, "rows", "rows.parquet"), "wb") as f:
            f.write(b"PAR1")
        rc, out, err = self.dry_with("--var", "SFT_DATA=rows/rows.parquet")
        self.assertEqual(rc, 2, out + err)
        self.assertIn("a rows.parquet, where Megatron-LM reads a dataset PREFIX (PREFIX.bin and PREFIX.idx)", err)
        self.assertIn("fix: export it: openrecipes rows export " + os.path.join(self.s.root, "rows", "rows.parquet") +
                      " --format megatron -o PREFIX", err)
        for ext in (".bin", ".idx"):
            with open(os.path.join(self.s.root, "rows", "megatron" + ext), "wb") as f:
                f.write(b"x")
        rc, out, err = self.s.run("run", self.s.recipe(MBS2), "--launcher", "slurm", "--dry-run", "--var",
                                  "MEGATRON_LM=" + os.path.relpath(self.s.megatron, self.s.root), "--var",
                                  "SFT_DATA=rows/megatron", "-o", "r1")
        self.assertEqual(rc, 0, out + err)
        self.assertIn("--data-path " + os.path.join(self.s.root, "rows", "megatron") + " ", out)
        self.assertIn(os.path.join(self.s.megatron, "pretrain_gpt.py"), out)
        # A checkpoint the command loads must be there too (Megatron-LM would start from random weights).
        write_recipe_command(self.s, "torchrun --nproc-per-node 1 $MEGATRON_LM/pretrain_gpt.py --train-iters 20 "
                                     "--mock-data --load $TORCH_DIST")
        rc, out, err = self.dry_with("--var", "TORCH_DIST=ckpt")
        self.assertEqual(rc, 2, out + err)
        self.assertIn("--load $TORCH_DIST is '" + os.path.join(self.s.root, "ckpt") + "', which does not exist", err)


class FailedRun(unittest.TestCase):
    def setUp(self):
        self.s = runkit.Scratch(scale="0.02")

    def tearDown(self):
        self.s.cleanup()

    def test_a_run_that_dies_mid_way_keeps_its_evidence_and_is_marked_failed(self):
        env = dict(self.s.env, OPENRECIPES_STANDIN_DIE_AT="7")
        run_dir = os.path.join(self.s.root, "run")
        rc, out, err = self.s.run("run", self.s.recipe(MBS2), "--launcher", "local", "--var",
                                  "MEGATRON_LM=" + self.s.megatron, "-o", run_dir, env=env)
        self.assertEqual(rc, 1, err)
        self.assertIn("run qwen3-0.6b/H200/mbs2: failed (the trainer exited with status 1)", out)
        record = runkit.read_run(run_dir)
        self.assertEqual((record["status"], record["exit_code"]), ("failed", 1))
        log = os.path.join(run_dir, "nodes", "0", "train.log")
        self.assertEqual(sorted(runkit.iterations(log)), list(range(1, 8)))
        self.assertIn("RuntimeError: stand-in failure injected after iteration 7", runkit.read(log))
        self.assertEqual(runkit.read(os.path.join(run_dir, "times.txt"))[:11], "run rc=1 st")
        self.assertIn("nodes/0/train.log", [f["path"] for f in record["files"]])
        rc, out, err = self.s.run("submit", run_dir, "--reference", self.s.recipe("ref"), "--author", "alice",
                                  "--registry", self.s.registry)
        self.assertEqual(rc, 2)
        self.assertIn("the run failed: the trainer exited with status 1", err)
        self.assertIn("only a completed run can be submitted", err)


def write_recipe_command(scratch, command, extra=""):
    """mbs2's recipe.yaml with another command (and extra top-level fields), in the scratch registry."""
    path = scratch.recipe(MBS2, "recipe.yaml")
    text = runkit.read(path)
    head, rest = text.split("command: |\n", 1)
    tail = rest[rest.index("layout:"):]
    body = "".join("  " + l + "\n" for l in command.split("\n"))
    with open(path, "w") as f:
        f.write(head + "command: |\n" + body + tail + extra)


class BadInput(unittest.TestCase):
    def setUp(self):
        self.s = runkit.Scratch()
        self.marker = os.path.join(self.s.root, "pwned")

    def tearDown(self):
        self.s.cleanup()

    def dry(self, *more):
        return self.s.run("run", self.s.recipe(MBS2), "--launcher", "local", "--dry-run", "--var",
                          "MEGATRON_LM=" + self.s.megatron, *more)

    def test_shell_injection_in_the_command_never_reaches_a_shell(self):
        cases = {
            "torchrun $MEGATRON_LM/pretrain_gpt.py --lr 1e-5; touch " + self.marker: "';'",
            "torchrun $MEGATRON_LM/pretrain_gpt.py --lr $(touch " + self.marker + ")": "$(",
            "torchrun $MEGATRON_LM/pretrain_gpt.py --lr `touch " + self.marker + "`": "backtick",
            "torchrun $MEGATRON_LM/pretrain_gpt.py --lr 1e-5 && rm -rf /": "'&'",
            "torchrun $MEGATRON_LM/pretrain_gpt.py --lr 1e-5 | sh": "'|'",
            "torchrun $MEGATRON_LM/pretrain_gpt.py --lr \"1e-5\ntouch " + self.marker + "\"": "line break",
        }
        for command, what in cases.items():
            with self.subTest(command=command):
                write_recipe_command(self.s, command)
                for extra in ([], ["--dry-run"]):
                    rc, out, err = self.s.run("run", self.s.recipe(MBS2), "--launcher", "local", "--var",
                                              "MEGATRON_LM=" + self.s.megatron, "-o",
                                              os.path.join(self.s.root, "r"), *extra)
                    self.assertEqual(rc, 2, out + err)
                    self.assertIn("recipe.yaml: command: line ", err)
                    self.assertIn(what, err)
                    self.assertFalse(os.path.exists(self.marker))
                    self.assertFalse(os.path.exists(os.path.join(self.s.root, "r")))

    def test_a_quoted_value_with_shell_characters_stays_one_argument(self):
        # Quotes are the recipe's own words: the value reaches the trainer as one argument and is never run.
        write_recipe_command(self.s, "torchrun --nproc-per-node 1 $MEGATRON_LM/pretrain_gpt.py --train-iters 20 "
                                     "--wandb-exp-name '; touch " + self.marker + " $(id)'")
        rc, out, err = self.dry()
        self.assertEqual(rc, 0, err)
        self.assertIn("--wandb-exp-name '; touch " + self.marker + " $(id)'", out)
        self.assertFalse(os.path.exists(self.marker))

    def test_a_variable_with_no_value(self):
        write_recipe_command(self.s, "torchrun --nproc-per-node 1 $MEGATRON_LM/pretrain_gpt.py --load $TORCH_DIST")
        rc, out, err = self.dry()
        self.assertEqual(rc, 2)
        self.assertIn("$TORCH_DIST has no value (fix: give it: --var TORCH_DIST=VALUE)", err)
        rc, out, err = self.dry("--var", "TORCH_DIST=")
        self.assertEqual(rc, 2)
        self.assertIn("--var 'TORCH_DIST=': $TORCH_DIST has no value", err)
        ckpt = os.path.join(self.s.root, "ckpt")
        os.makedirs(ckpt)  # the checkpoint a read argument names must be there (run's pre-flight)
        rc, out, err = self.dry("--var", "TORCH_DIST=" + ckpt, "--var", "HF_CKPT=/hf")
        self.assertEqual(rc, 2)
        self.assertIn("unknown variable: the command of qwen3-0.6b/H200/mbs2 does not use $HF_CKPT", err)
        self.assertIn("the command uses $MEGATRON_LM, $TORCH_DIST", err)
        rc, out, err = self.dry("--var", "TORCH_DIST=" + ckpt)
        self.assertEqual(rc, 0, err)
        self.assertIn("--load " + ckpt, out)

    def test_every_missing_variable_is_named_at_once(self):
        write_recipe_command(self.s, "torchrun --nproc-per-node 1 $MEGATRON_LM/pretrain_gpt.py --load $TORCH_DIST "
                                     "--data-path $SFT_DATA --pretrained-checkpoint $HF_CKPT")
        rc, out, err = self.dry()
        self.assertEqual(rc, 2)
        self.assertIn("$TORCH_DIST, $SFT_DATA, $HF_CKPT have no value (fix: give them: --var TORCH_DIST=VALUE "
                      "--var SFT_DATA=VALUE --var HF_CKPT=VALUE)", err)

    def test_the_checkout_is_checked_before_anything_runs(self):
        """Regression: a missing checkout started the trainer, and one at another commit ran to completion."""
        missing = os.path.join(self.s.root, "no-such-checkout")
        rc, out, err = self.s.run("run", self.s.recipe(MBS2), "--launcher", "local", "--var", "MEGATRON_LM=" + missing,
                                  "-o", os.path.join(self.s.root, "run-missing"))
        self.assertEqual(rc, 2, out + err)
        self.assertIn("the checkout does not exist (or is not a folder)", err)
        self.assertFalse(os.path.exists(os.path.join(self.s.root, "run-missing")))
        # Another commit: refused before launch, naming both commits and the fix.
        subprocess.run(["git", "-C", self.s.megatron, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit",
                        "-q", "--allow-empty", "-m", "another"], check=True)
        head = subprocess.run(["git", "-C", self.s.megatron, "rev-parse", "HEAD"], check=True, capture_output=True,
                              text=True).stdout.strip()
        run_dir = os.path.join(self.s.root, "run-other")
        rc, out, err = self.s.run("run", self.s.recipe(MBS2), "--launcher", "local", "--var",
                                  "MEGATRON_LM=" + self.s.megatron, "-o", run_dir)
        self.assertEqual(rc, 2, out + err)
        self.assertIn(f"the checkout is at {head}, and the recipe pins {self.s.commit}", err)
        self.assertIn(f"fix: check out the recipe's commit: git -C {self.s.megatron} checkout {self.s.commit}", err)
        self.assertFalse(os.path.exists(run_dir))
        # Back at the pinned commit, with a local change: the run goes ahead and says so.
        subprocess.run(["git", "-C", self.s.megatron, "checkout", "-q", self.s.commit], check=True)
        with open(os.path.join(self.s.megatron, "pretrain_gpt.py"), "a") as f:
            f.write("# a local change\n")
        rc, out, err = self.dry()
        self.assertEqual(rc, 0, err)
        self.assertIn("warning: MEGATRON_LM has uncommitted changes to 1 file (M pretrain_gpt.py)", out)
        # A file git does not know (a torch.py left there would run in every later run) is refused.
        stray = os.path.join(self.s.megatron, "torch.py")
        with open(stray, "w") as f:
            f.write("raise SystemExit('not torch')\n")
        rc, out, err = self.dry()
        self.assertEqual(rc, 2, out + err)
        self.assertIn("the checkout holds 1 module git does not know (torch.py), which Python may import", err)
        os.remove(stray)
        # A checkout that is no git checkout cannot show its commit: refused while the recipe pins one.
        shutil.rmtree(os.path.join(self.s.megatron, ".git"))
        rc, out, err = self.dry()
        self.assertEqual(rc, 2)
        self.assertIn("not a git checkout, so its commit cannot be checked against the recipe's " + self.s.commit, err)

    def test_a_missing_model_script(self):
        write_recipe_command(self.s, "torchrun --nproc-per-node 1 $MEGATRON_LM/pretrain_gpt.py ${MODEL_ARGS[@]}")
        rc, out, err = self.dry()
        self.assertEqual(rc, 2)
        self.assertIn(os.path.join(self.s.megatron, "scripts", "models"), err)
        self.assertIn("qwen3-0.6b", err)
        # With the script in place its array is spliced in as words.
        os.makedirs(os.path.join(self.s.megatron, "scripts", "models"))
        with open(os.path.join(self.s.megatron, "scripts", "models", "qwen3-0.6B.sh"), "w") as f:
            f.write("MODEL_ARGS=(--num-layers 28 --hidden-size 1024 '--two words')\n")
        rc, out, err = self.dry()
        self.assertEqual(rc, 0, err)
        self.assertIn("pretrain_gpt.py --num-layers 28 --hidden-size 1024 '--two words'", out)

    def test_a_patch_whose_sha256_does_not_match(self):
        patches = self.s.recipe(MBS2, "patches")
        os.makedirs(patches)
        first, second = runkit.read(os.path.join(self.s.megatron, "pretrain_gpt.py")).split("\n")[:2]
        patch = (f"--- a/pretrain_gpt.py\n+++ b/pretrain_gpt.py\n@@ -1,2 +1,3 @@\n {first}\n"
                 f"+print('# patched by the recipe', flush=True)\n {second}\n")
        with open(os.path.join(patches, "fix.patch"), "w") as f:
            f.write(patch)
        good = hashlib.sha256(patch.encode()).hexdigest()
        text = runkit.read(self.s.recipe(MBS2, "recipe.yaml"))
        with open(self.s.recipe(MBS2, "recipe.yaml"), "w") as f:
            f.write(text + "patches: [{path: patches/fix.patch, sha256: " + "0" * 64 + "}]\n")
        rc, out, err = self.dry()
        self.assertEqual(rc, 2)
        self.assertIn("patches: patches/fix.patch: the file's sha256 is " + good + ", the recipe records " + "0" * 64, err)
        # The right sha256: applied with git in the framework checkout, recorded, and patches/ put on PYTHONPATH.
        with open(self.s.recipe(MBS2, "recipe.yaml"), "w") as f:
            f.write(text + "patches: [{path: patches/fix.patch, sha256: " + good + "}]\n")
        rc, out, err = self.dry()
        self.assertEqual(rc, 0, err)
        self.assertIn(f"would run: git -C {self.s.megatron} apply {os.path.join(patches, 'fix.patch')}", out)
        self.assertIn("PYTHONPATH=" + os.path.join(runkit.REPO, "data") + ":" + patches, out)
        subprocess.run(["git", "init", "-q", self.s.megatron], check=True)
        run_dir = os.path.join(self.s.root, "run")
        env = dict(self.s.env, OPENRECIPES_STANDIN_TIME_SCALE="0.01")
        rc, out, err = self.s.run("run", self.s.recipe(MBS2), "--launcher", "local", "--var",
                                  "MEGATRON_LM=" + self.s.megatron, "-o", run_dir, env=env)
        self.assertEqual(rc, 0, err)
        # The trainer ran patched (its log shows the patch's line), and the checkout is back as it was (a
        # patch once stayed in the user's checkout for every later run of another recipe).
        self.assertIn("# patched by the recipe", runkit.read(os.path.join(run_dir, "nodes", "0", "train.log")))
        self.assertNotIn("# patched by the recipe", runkit.read(os.path.join(self.s.megatron, "pretrain_gpt.py")))
        applied = runkit.read(os.path.join(run_dir, "patches.txt"))
        self.assertIn(f"applied {os.path.join(patches, 'fix.patch')} (sha256 {good})", applied)
        self.assertIn(f"reverted {os.path.join(patches, 'fix.patch')}", applied)
        # Changed after the plan was checked, before a second run: refused before git touches the checkout.
        with open(os.path.join(patches, "fix.patch"), "a") as f:
            f.write("+# and something else\n")
        rc, out, err = self.s.run("run", self.s.recipe(MBS2), "--launcher", "local", "--var",
                                  "MEGATRON_LM=" + self.s.megatron, "-o", os.path.join(self.s.root, "run2"), env=env)
        self.assertEqual(rc, 2)
        self.assertIn("the file's sha256 is", err)

    def test_the_layout_must_fit(self):
        rc, out, err = self.dry("--gpus", "3")
        self.assertEqual(rc, 2)
        self.assertIn("the layout does not fit", err)
        self.assertIn("nearest that fit: 2 below, 4 above", err)
        rc, out, err = self.dry("--gpus", "2")
        self.assertEqual(rc, 0, err)
        self.assertIn("relayout: --nproc-per-node 1 -> 2", out)
        self.assertIn("torchrun --nproc-per-node 2 ", out)
        rc, out, err = self.s.run("run", self.s.recipe(MBS2), "--launcher", "local", "--nodes", "2", "--gpus", "2")
        self.assertEqual(rc, 2)
        self.assertIn("the local launcher runs on this one machine", err)

    def test_dry_run_prints_the_batch_script_it_would_submit(self):
        rc, out, err = self.s.run("run", self.s.recipe(MBS2), "--launcher", "slurm", "--dry-run", "--var",
                                  "MEGATRON_LM=" + self.s.megatron, "-o", os.path.join(self.s.root, "r%j"))
        self.assertEqual(rc, 0, err)
        self.assertIn("  sbatch.sh:\n    #!/bin/bash\n    # openrecipes run: qwen3-0.6b/H200/mbs2 on 1 node x 1 GPU", out)
        self.assertIn("--output=" + os.path.join(self.s.root, "r%%j") + "/slurm-%j.out", out)
        self.assertIn("    exec srun --kill-on-bad-exit=1 ", out)

    def test_profile_runs_to_step_24_and_is_not_an_arm(self):
        rc, out, err = self.dry("--profile")
        self.assertEqual(rc, 0, err)
        self.assertIn("profiler run (not a convergence arm)", out)
        self.assertIn("--profile: --train-iters 20 -> 24", out)
        self.assertIn("--train-iters 24 ", out)


if __name__ == "__main__":
    unittest.main()
