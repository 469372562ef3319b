"""`openrecipes tune --launcher local` with the stand-in trainer (runkit.py) modelling step time and peak memory by
micro-batch (OPENRECIPES_STANDIN_STEP_MS / _PEAK_MIB / _MEMORY_MIB, tests/run/standin/megatron/pretrain_gpt.py): the
search finds the known best, records an out-of-memory trial against the planner's verdict, cuts clearly slower trials,
stops on its budget, and its winner's run submits verified."""
import json
import os
import unittest

import runkit

# The stand-in's model: step time (ms, before the time scale) and peak (MiB) by micro-batch; 143,771 MiB is the H200's
# memory in the bundled gpus.yaml. Micro-batch 32 dies of OOM (175,000 MiB); the fastest that fits is 16 (1.5 s). The
# times are a real H200's order (mbs2's own log: 2.8 s a step), so that the scaled-down run's MFU stays plausible.
STEP_MS = {1: 4000, 2: 2800, 4: 2000, 8: 1800, 16: 1500, 32: 1400}
PEAK = {1: 20000, 2: 25000, 4: 35000, 8: 55000, 16: 95000, 32: 175000}
LIMIT = 143771


def model_env(s, swap_scale=1.3):
    s.env["OPENRECIPES_STANDIN_STEP_MS"] = ",".join(f"{k}:{v}" for k, v in STEP_MS.items())
    s.env["OPENRECIPES_STANDIN_PEAK_MIB"] = ",".join(f"{k}:{v}" for k, v in PEAK.items())
    s.env["OPENRECIPES_STANDIN_MEMORY_MIB"] = str(LIMIT)
    # The fused cross-entropy, the one same-math swap the bundled registry has a passed component test of
    # (tulu3-cefusion): slower by default, as on the H200 at L 512 (tulu3-cefusion against tulu3-ref).
    s.env["OPENRECIPES_STANDIN_SWAP_SCALE"] = f"cross_entropy_loss_fusion:{swap_scale}"


class Tune(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.s = runkit.Scratch(scale="0.3")
        model_env(cls.s)
        cls.dir = os.path.join(cls.s.root, "tune")
        cls.rc, cls.out, cls.err = cls.s.run("tune", cls.s.recipe("mbs2"), "--gpus", "1", "--launcher", "local",
                                             "--var", "MEGATRON_LM=" + cls.s.megatron, "-o", cls.dir)
        with open(os.path.join(cls.dir, "tune.json"), encoding="utf-8") as f:
            cls.j = json.load(f)
        cls.cands = {c["name"]: c for c in cls.j["candidates"]}

    @classmethod
    def tearDownClass(cls):
        cls.s.cleanup()

    def mbs(self, trial):
        return self.cands[trial["candidate"]]["micro_batch"]

    def step_ms(self, trial):
        """The stand-in's step time for the trial's candidate: by micro-batch, 1.3x with the fused cross-entropy."""
        return STEP_MS[self.mbs(trial)] * (1.3 if self.cands[trial["candidate"]]["swap"] else 1)

    def test_finds_the_known_best(self):
        self.assertEqual(self.rc, 0, self.err)
        self.assertEqual(self.j["trials"][0]["knobs"], "the start")
        best = [t for t in self.j["trials"] if t["best"]]
        self.assertEqual(len(best), 1)
        # The fastest micro-batch under the memory limit (the stand-in ignores recompute: any recompute is within noise).
        fits = [m for m in STEP_MS if PEAK[m] <= LIMIT]
        self.assertEqual(self.mbs(best[0]), min(fits, key=lambda m: STEP_MS[m]))
        self.assertEqual(self.j["stopped"], "every candidate tried")

    def test_scores_are_the_window_of_each_trial_log(self):
        for t in self.j["trials"]:
            if t["outcome"] != "measured":
                continue
            log = os.path.join(self.dir, t["run_dir"], "nodes", "0", "train.log")
            # SPEC §2's score by hand over the trial's window: steps 3..12 (iterations 4..13).
            want = runkit.score_by_hand(log, first=3, last=12, tokens_per_step=32 * 2048)
            self.assertAlmostEqual(t["tokens_per_s_per_gpu"], want, delta=want * 1e-9)
            lo, hi = t["tokens_per_s_per_gpu_interval"]
            # The interval holds the score (a trial of equal step times has a zero-width interval: equal to the last
            # bits of the division).
            self.assertLessEqual(lo, want * (1 + 1e-12))
            self.assertGreaterEqual(hi, want * (1 - 1e-12))

    def test_each_trial_records_the_predicted_step_beside_the_measured(self):
        # The step-time model's prediction (docs/step-time-model.md) beside the trial's measured mean, in tune.json and
        # in the table tune prints; the start's is `plan --from`'s for the same recipe on the same GPUs.
        for t in self.j["trials"]:
            if self.cands[t["candidate"]]["swap"]:  # a same-math swap is not a term of the model: no prediction
                self.assertNotIn("predicted_step_time_s", t)
                continue
            self.assertGreater(t["predicted_step_time_s"], 0)
            self.assertEqual(t["predicted_step_time_s"], self.cands[t["candidate"]]["predicted_step_time_s"])
            if t["outcome"] == "measured":
                self.assertGreater(t["mean_step_time_s"], 0)
        rc, out, err = self.s.run("plan", "--from", self.s.recipe("mbs2"), "--json")
        self.assertEqual(rc, 0, err)
        planned = json.loads(out)["layouts"][0]["step_time_s"]
        self.assertAlmostEqual(self.j["trials"][0]["predicted_step_time_s"], planned, delta=1e-4)
        self.assertIn("pred. s", self.out)
        lines = [ln for ln in self.out.splitlines() if ln.strip().startswith("1 ") and "the start" in ln]
        self.assertTrue(lines, self.out[-3000:])
        self.assertIn(f"{self.j['trials'][0]['predicted_step_time_s']:.3g}", lines[-1])

    def test_oom_is_recorded_against_the_planner(self):
        oom = [t for t in self.j["trials"] if t["outcome"] == "oom"]
        self.assertTrue(oom)
        for t in oom:
            self.assertEqual(self.mbs(t), 32)
            self.assertIn("out of memory", t["reason"])
            # tune tries only layouts the planner predicts to fit, so an OOM proves the planner wrong (the stand-in's
            # peak, PEAK[32], is above LIMIT).
            self.assertTrue(t["planner_fits"])
            self.assertLess(t["predicted_peak_mib"], LIMIT)
            self.assertTrue(t["planner"].startswith("wrong: it predicted"), t["planner"])

    def test_clearly_slower_trials_are_cut(self):
        cut = [t for t in self.j["trials"] if t["outcome"] == "cut: slower"]
        self.assertTrue(cut)
        for t in cut:
            best = [b for b in self.j["trials"] if b["best"]][0]
            self.assertGreater(self.step_ms(t), self.step_ms(best))
            self.assertLess(t["steps_measured"], self.j["trial_steps"])

    def test_a_swap_with_a_passed_component_test_is_tried_on_each_new_best(self):
        # The registry's one passed component test at Qwen3-0.6B's shape (tulu3-cefusion's) allows the fused
        # cross-entropy; mbs2 does not make it.
        self.assertEqual([(s["test"], s["tested_in"]) for s in self.j["swaps"]],
                         [("cross_entropy_loss_fusion", "qwen3-0.6b/H200/tulu3-cefusion")])
        trials = self.j["trials"]
        swapped = [i for i, t in enumerate(trials) if self.cands[t["candidate"]]["swap"]]
        self.assertTrue(swapped)
        # Each swap trial comes right after the trial that became the best (never the start), on its command.
        bests, best = set(), None
        for i, t in enumerate(trials):
            if t["outcome"] == "measured" and (best is None or t["tokens_per_s_per_gpu_interval"][0] >
                                                (best["tokens_per_s_per_gpu_interval"][1] or float("inf"))):
                best = t
                bests.add(i)
        for i in swapped:
            base = self.cands[trials[i - 1]["candidate"]]
            swap = self.cands[trials[i]["candidate"]]
            self.assertIn(i - 1, bests)
            self.assertFalse(base["start"])
            self.assertEqual(swap["command"].replace(" --cross-entropy-loss-fusion", ""), base["command"])
            self.assertIn("--cross-entropy-loss-fusion off -> on", swap["changes"])
            self.assertIn("same-math swap cross_entropy_loss_fusion False -> True (component test passed in "
                          "qwen3-0.6b/H200/tulu3-cefusion)", swap["knobs"])
            self.assertFalse(trials[i]["best"])  # 1.3x slower in the stand-in
        self.assertEqual(self.cands[self.j["winner"]["candidate"]]["swap"], "")

    def test_measured_peak_is_read_from_the_log(self):
        for t in self.j["trials"]:
            if t["outcome"] == "measured":
                self.assertEqual(t["measured_peak_mib"], PEAK[self.mbs(t)])

    def test_winner_submits_verified(self):
        w = self.j["winner"]
        self.assertEqual(w["status"], "completed")
        run_dir = os.path.join(self.dir, w["run_dir"])
        # tune's own next line, with the search kept.
        self.assertIn(f"next: openrecipes submit {run_dir} --reference {self.s.recipe('mbs2')} --search {self.dir} "
                      "--author <handle>", self.out)
        # --search is held to the run: another reference than the search's start, or a run that is not its winner,
        # is refused with nothing written.
        rc, out, err = self.s.run("submit", run_dir, "--reference", self.s.recipe("ref"), "--search", self.dir,
                                  "--author", "tuner", "--registry", self.s.registry, "--name", "mbs2-tuned")
        self.assertEqual(rc, 2, out + err)
        self.assertIn("the search started from 'qwen3-0.6b/H200/mbs2', not from the reference qwen3-0.6b/H200/ref",
                      err)
        other = os.path.join(self.s.root, "other-tune")
        os.makedirs(other)
        j = dict(self.j, winner=dict(self.j["winner"], run_dir="trials/01-x"))
        with open(os.path.join(other, "tune.json"), "w", encoding="utf-8") as f:
            json.dump(j, f)
        rc, out, err = self.s.run("submit", run_dir, "--reference", self.s.recipe("mbs2"), "--search", other,
                                  "--author", "tuner", "--registry", self.s.registry, "--name", "mbs2-tuned")
        self.assertEqual(rc, 2, out + err)
        self.assertIn("the run is not the search's winner", err)
        self.assertFalse(os.path.exists(os.path.join(os.path.dirname(self.s.recipe("mbs2")), "mbs2-tuned")))

        rc, out, err = self.s.run("submit", run_dir, "--reference", self.s.recipe("mbs2"), "--search", self.dir,
                                  "--author", "tuner", "--registry", self.s.registry, "--name", "mbs2-tuned")
        self.assertEqual(rc, 0, out + err)
        tuned = os.path.join(os.path.dirname(self.s.recipe("mbs2")), "mbs2-tuned")
        with open(os.path.join(tuned, "evidence", "search.json"), "rb") as f, \
                open(os.path.join(self.dir, "tune.json"), "rb") as g:
            self.assertEqual(f.read(), g.read())  # the search kept as tune wrote it
        rc, out, err = self.s.run("build", self.s.registry, "--json")
        self.assertEqual(rc, 0, err)
        rec = [r for b in json.loads(out)["pairs"] for r in b["ranked"] if r["id"].endswith("/mbs2-tuned")]
        self.assertEqual(len(rec), 1, out[:2000])  # ranked: verified
        self.assertTrue(rec[0]["verified"])
        self.assertEqual(rec[0]["checks"]["configuration"]["verdict"], "eligible")
        self.assertEqual(rec[0]["checks"]["convergence"]["verdict"], "pass")
        # The board carries the search for the recipe's page: every trial, the winner, the start.
        search = rec[0]["search"]
        self.assertEqual(search["started_from"], "qwen3-0.6b/H200/mbs2")
        self.assertEqual([t["outcome"] for t in search["trials"]], [t["outcome"] for t in self.j["trials"]])
        self.assertEqual(search["winner"]["candidate"], w["candidate"])
        self.assertAlmostEqual(w["tokens_per_s_per_gpu"], rec[0]["tokens_per_s_per_gpu"],
                               delta=rec[0]["tokens_per_s_per_gpu"] * 1e-9)


class SwapWins(unittest.TestCase):
    def test_a_winner_with_a_swap_is_sent_to_its_own_component_test(self):
        s = runkit.Scratch(scale="0.3")
        try:
            model_env(s, swap_scale=0.6)
            d = os.path.join(s.root, "tune")
            rc, out, err = s.run("tune", s.recipe("mbs2"), "--gpus", "1", "--launcher", "local", "--max-trials", "3",
                                 "--var", "MEGATRON_LM=" + s.megatron, "-o", d)
            self.assertEqual(rc, 0, out + err)
            with open(os.path.join(d, "tune.json"), encoding="utf-8") as f:
                j = json.load(f)
            cands = {c["name"]: c for c in j["candidates"]}
            # The start, the planner's fastest predicted layout, micro-batch 4 (the new best), then micro-batch 4 with
            # the fused cross-entropy, 0.6x its time.
            self.assertEqual([cands[t["candidate"]]["micro_batch"] for t in j["trials"]], [2, 4, 4])
            winner = cands[j["winner"]["candidate"]]
            self.assertEqual(winner["swap"], "cross_entropy_loss_fusion")
            draft = os.path.join(d, "recipes", "qwen3-0.6b", "H200", winner["name"])
            ct = os.path.join(d, "component-tests")
            self.assertIn(f"next: openrecipes component-test {draft} --reference {s.recipe('mbs2')} --var "
                          f"MEGATRON_LM={s.megatron} -o {ct}", out)
            self.assertIn(f"--search {d} --component-tests {ct} --author <handle>", out)
            # Without its own component test the swap does not make it eligible: submit writes it, not verified.
            rc, out, err = s.run("submit", os.path.join(d, "winner"), "--reference", s.recipe("mbs2"), "--search", d,
                                 "--author", "tuner", "--registry", s.registry, "--name", "mbs2-swap")
            self.assertEqual(rc, 1, out + err)
            self.assertIn("cross_entropy_loss_fusion changed from False to True", out)
            self.assertIn("not verified", out)
        finally:
            s.cleanup()


class Budget(unittest.TestCase):
    def test_stops_on_its_budget(self):
        s = runkit.Scratch(scale="1.0")
        try:
            model_env(s)
            d = os.path.join(s.root, "tune")
            # 13 steps of 1.4-4 s a trial: a budget of 0.1 min (6 s) ends within the first trial.
            rc, out, err = s.run("tune", s.recipe("mbs2"), "--gpus", "1", "--launcher", "local", "--budget", "0.1",
                                 "--var", "MEGATRON_LM=" + s.megatron, "-o", d)
            with open(os.path.join(d, "tune.json"), encoding="utf-8") as f:
                j = json.load(f)
            self.assertEqual(j["stopped"], "budget", out + err)
            self.assertLess(len(j["trials"]), len(j["candidates"]))
            self.assertLess(j["elapsed_s"], 6 + 10)  # the budget, and at most the trial in flight's end
        finally:
            s.cleanup()


if __name__ == "__main__":
    unittest.main()
