"""`openrecipes run --launcher slurm` on a real Slurm cluster that this test starts itself (Debian's slurm-wlm 22.05 and
munge, tests/run/slurm/cluster; stopped by the PIDs it recorded), with the stand-in trainer (runkit.py): one node, then
submit and build; two nodes (two slurmd on this one host) showing the multi-node wiring (one run-node task per node,
the head's address and port reaching torchrun's rendezvous on the other node); a cancelled job; a failing job."""
import os
import re
import shutil
import signal
import subprocess
import tempfile
import time
import unittest

import runkit

CLUSTER = os.path.join(runkit.HERE, "slurm", "cluster")


def have_slurm():
    return all(shutil.which(p) for p in ("slurmctld", "slurmd", "munged", "sbatch", "scontrol"))


class Cluster:
    def __init__(self, nodes):
        self.dir = tempfile.mkdtemp(prefix="openrecipes-slurm-")
        p = subprocess.run([CLUSTER, "start", self.dir, str(nodes)], capture_output=True, text=True, timeout=120,
                           check=False)
        if p.returncode != 0:
            shutil.rmtree(self.dir, ignore_errors=True)
            raise RuntimeError("the test cluster did not start:\n" + p.stdout + p.stderr)
        self.vars = dict(re.findall(r"^(\w+)='?(.*?)'?$", p.stdout, re.M))

    def stop(self):
        subprocess.run([CLUSTER, "stop", self.dir], capture_output=True, timeout=120, check=False)
        shutil.rmtree(self.dir, ignore_errors=True)


@unittest.skipUnless(os.geteuid() == 0, "the test cluster runs its daemons as root")
class SlurmRun(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if not have_slurm():
            raise unittest.SkipTest("slurm-wlm and munge are not installed (scripts/bootstrap installs them)")
        cls.one = Cluster(1)
        cls.two = Cluster(2)

    @classmethod
    def tearDownClass(cls):
        cls.one.stop()
        cls.two.stop()

    def setUp(self):
        self.s = runkit.Scratch()

    def tearDown(self):
        self.s.cleanup()

    def env_for(self, cluster, **more):
        return dict(self.s.env, SLURM_CONF=cluster.vars["SLURM_CONF"], **more)

    def run_slurm(self, cluster, run_dir, *more, env=None):
        return self.s.run("run", self.s.recipe("mbs2"), "--launcher", "slurm", "--no-gres", "--var",
                          "MEGATRON_LM=" + self.s.megatron, "-o", run_dir, *more, env=env or self.env_for(cluster))

    def test_one_node_run_submit_and_build(self):
        # A folder name with a space, a quote and a '%' (sbatch expands %-patterns in --output: it must get %%).
        run_dir = os.path.join(self.s.root, "run %x 'q'")
        rc, out, err = self.run_slurm(self.one, run_dir)
        self.assertEqual(rc, 0, out + err)
        job = re.search(r"submitted Slurm job (\d+)", out).group(1)
        self.assertIn("run qwen3-0.6b/H200/mbs2: completed", out)
        self.assertIn("iteration       20/      20", out)  # followed while it ran
        record = runkit.read_run(run_dir)
        self.assertEqual((record["status"], record["job_id"]), ("completed", job))
        self.assertEqual(record["evidence"]["times"], {"path": "scontrol.txt", "format": "scontrol", "key": job})
        line = runkit.read(os.path.join(run_dir, "scontrol.txt"))
        self.assertRegex(line, rf"^JobId={job} .*JobState=COMPLETED .*ExitCode=0:0 ")
        start = re.search(r" StartTime=(\S+)", line).group(1)
        end = re.search(r" EndTime=(\S+)", line).group(1)
        # The controller's clock, asked in UTC, covers the launcher's own clock of the trainer (whole seconds).
        stamps = [l for l in runkit.read(os.path.join(run_dir, "nodes", "0", "train.log")).splitlines()
                  if " iteration " in l]
        first_stamp = re.match(r" \[(\S+ \S+)\]", stamps[0]).group(1)
        self.assertLessEqual(start.replace("T", " "), first_stamp[:19])
        script = runkit.read(os.path.join(run_dir, "sbatch.sh"))
        self.assertIn("run-node '" + run_dir.replace("'", "'\\''") + "' --head \"$addr\"", script)
        self.assertNotIn("pretrain_gpt", script)  # the trainer's command is in plan.json, never in a shell script
        self.assertEqual(sorted(f["path"] for f in record["files"]),
                         ["nodes/0/exit.txt", "nodes/0/train.log", "nodes/0/versions.txt", "plan.json", "sbatch.sh",
                          "scontrol.txt", f"slurm-{job}.out"])
        rc, out, err = self.s.run("submit", run_dir, "--reference", self.s.recipe("ref"), "--author", "alice",
                                  "--registry", self.s.registry, "--name", "standin-slurm")
        self.assertEqual(rc, 0, out + err)
        recipe = runkit.read(self.s.recipe("standin-slurm", "recipe.yaml"))
        self.assertIn(f"times: {{path: evidence/scontrol.txt, format: scontrol, job: \"{job}\"}}", recipe)
        self.assertIn(f"Slurm job {job}", recipe)
        rc, out, err = self.s.run("build", self.s.registry)
        self.assertEqual(rc, 0, err)
        row = [l for l in out.splitlines() if "standin-slurm" in l]
        self.assertEqual(len(row), 1, out)
        score = runkit.score_by_hand(self.s.recipe("standin-slurm", "evidence", "train.log"))
        self.assertRegex(row[0], r"^\s+1\s+standin-slurm\s+" + re.escape(f"{score:,.1f}"))
        # GPU-hours are the scheduler's: 1 GPU x (EndTime - StartTime) / 3600.
        from datetime import datetime
        span = (datetime.fromisoformat(end) - datetime.fromisoformat(start)).total_seconds()
        self.assertIn(f"gpu_hours: {span / 3600:.6g}\n", recipe)

    def test_tune_runs_its_trials_as_jobs_and_its_winner_submits_with_its_search(self):
        # The stand-in models step time (ms) and peak (MiB) by micro-batch, and the fused cross-entropy 1.5x slower;
        # tune tries the start (2), the planner's fastest predicted (4, the new best), 4 with the swap (the
        # registry's passed component test allows it), then 8: micro-batch 8 is the fastest of them.
        step_ms = {2: 2800, 4: 1900, 8: 1500, 16: 1900, 32: 1900}
        env = self.env_for(self.one, OPENRECIPES_STANDIN_STEP_MS=",".join(f"{k}:{v}" for k, v in step_ms.items()),
                           OPENRECIPES_STANDIN_PEAK_MIB="2:25000,4:35000,8:55000,16:95000,32:100000",
                           OPENRECIPES_STANDIN_MEMORY_MIB="143771",
                           OPENRECIPES_STANDIN_SWAP_SCALE="cross_entropy_loss_fusion:1.5")
        tune_dir = os.path.join(self.s.root, "tune")
        rc, out, err = self.s.run("tune", self.s.recipe("mbs2"), "--gpus", "1", "--launcher", "slurm", "--no-gres",
                                  "--max-trials", "4", "--var", "MEGATRON_LM=" + self.s.megatron, "-o", tune_dir,
                                  env=env)
        self.assertEqual(rc, 0, out + err)
        import json
        with open(os.path.join(tune_dir, "tune.json"), encoding="utf-8") as f:
            j = json.load(f)
        mbs = {c["name"]: c["micro_batch"] for c in j["candidates"]}
        swap = {c["name"]: c["swap"] for c in j["candidates"]}
        self.assertEqual([mbs[t["candidate"]] for t in j["trials"]], [2, 4, 4, 8])
        self.assertEqual([swap[t["candidate"]] for t in j["trials"]], ["", "", "cross_entropy_loss_fusion", ""])
        self.assertEqual(j["stopped"], "--max-trials")
        best = [t for t in j["trials"] if t["best"]]
        self.assertEqual([mbs[t["candidate"]] for t in best], [8])
        # Every trial and the winner's run are Slurm jobs: the scheduler's own times are their evidence.
        for d in [t["run_dir"] for t in j["trials"] if t["outcome"] == "measured"] + ["winner"]:
            record = runkit.read_run(os.path.join(tune_dir, d))
            self.assertEqual(record["evidence"]["times"]["format"], "scontrol", d)
            self.assertRegex(record["job_id"], r"^\d+$")
        winner = os.path.join(tune_dir, "winner")
        rc, out, err = self.s.run("submit", winner, "--reference", self.s.recipe("mbs2"), "--search", tune_dir,
                                  "--author", "alice", "--registry", self.s.registry, "--name", "mbs2-tuned-slurm")
        self.assertEqual(rc, 0, out + err)
        self.assertIn("verified: it ranks in its pair", out)
        self.assertIn("search: {path: evidence/search.json, format: openrecipes-tune}",
                      runkit.read(self.s.recipe("mbs2-tuned-slurm", "recipe.yaml")))

    def test_two_nodes_one_task_each_with_the_head_address_passed(self):
        run_dir = os.path.join(self.s.root, "run2")
        rc, out, err = self.run_slurm(self.two, run_dir, "--gpus", "2", "--nodes", "2")
        self.assertEqual(rc, 0, out + err)
        plan = runkit.read(os.path.join(run_dir, "plan.json"))
        port = re.search(r'"master": (\d+)', plan).group(1)
        node0 = runkit.read(os.path.join(run_dir, "nodes", "0", "train.log"))
        node1 = runkit.read(os.path.join(run_dir, "nodes", "1", "train.log"))
        # One run-node task per node; torchrun on each got the node rank, the head's address (Slurm's NodeAddr of the
        # first node) and the plan's port, and the rendezvous between them happened.
        self.assertIn(f"[standin torchrun] nnodes=2 node_rank=0 nproc_per_node=1 master=127.0.0.1:{port}", node0)
        self.assertIn(f"[standin torchrun] nnodes=2 node_rank=1 nproc_per_node=1 master=127.0.0.1:{port}", node1)
        self.assertIn("[standin torchrun] node 1 joined the rendezvous", node0)
        # Megatron prints its argument dump on rank 0 and its step lines on the last rank.
        self.assertIn("------------------------ arguments ------------------------", node0)
        self.assertNotIn(" iteration ", node0)
        self.assertEqual(sorted(runkit.iterations(os.path.join(run_dir, "nodes", "1", "train.log"))), list(range(1, 21)))
        self.assertRegex(node0, r"  world_size \.+ 2\n")
        record = runkit.read_run(run_dir)
        self.assertEqual(record["evidence"]["log"]["path"], "nodes/1/train.log")
        self.assertEqual(record["evidence"]["arguments"]["path"], "nodes/0/train.log")
        line = runkit.read(os.path.join(run_dir, "scontrol.txt"))
        self.assertIn(" NodeList=n[1-2] ", line)
        self.assertIn(" NumNodes=2 ", line)
        rc, out, err = self.s.run("submit", run_dir, "--reference", self.s.recipe("ref"), "--author", "alice",
                                  "--registry", self.s.registry, "--name", "standin-2nodes")
        self.assertEqual(rc, 0, out + err)
        recipe = runkit.read(self.s.recipe("standin-2nodes", "recipe.yaml"))
        self.assertIn("gpus: 2\n", recipe)
        self.assertIn("layout: {tp: 1, pp: 1, cp: 1, ep: 1, etp: 1, dp: 2, micro_batch: 2}", recipe)
        self.assertIn("network: \"not pinned (no InfiniBand device seen)\"", recipe)
        self.assertEqual(runkit.sha256_file(self.s.recipe("standin-2nodes", "evidence", "arguments.log")),
                         runkit.sha256_file(os.path.join(run_dir, "nodes", "0", "train.log")))
        score = runkit.score_by_hand(self.s.recipe("standin-2nodes", "evidence", "train.log"), gpus=2)
        claimed = float(re.search(r"tokens_per_s_per_gpu: ([0-9.]+)", recipe).group(1))
        self.assertAlmostEqual(claimed, round(score, 2), places=2)

    def test_a_cancelled_job_keeps_its_evidence_and_is_marked_cancelled(self):
        run_dir = os.path.join(self.s.root, "run3")
        env = self.env_for(self.one, OPENRECIPES_STANDIN_TIME_SCALE="1.0")
        p = subprocess.Popen([runkit.binary(), "run", self.s.recipe("mbs2"), "--launcher", "slurm", "--no-gres",
                              "--var", "MEGATRON_LM=" + self.s.megatron, "-o", run_dir], cwd=self.s.root, env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        log = os.path.join(run_dir, "nodes", "0", "train.log")
        deadline = time.time() + 120
        while time.time() < deadline and len(runkit.iterations(log) if os.path.exists(log) else {}) < 2:
            time.sleep(0.2)
        self.assertGreaterEqual(len(runkit.iterations(log)), 2)
        p.send_signal(signal.SIGINT)  # Ctrl-C: the launcher cancels the job with scancel
        out, err = p.communicate(timeout=180)
        self.assertEqual(p.returncode, 1, out + err)
        job = re.search(r"submitted Slurm job (\d+)", out).group(1)
        self.assertIn(f"openrecipes: cancelling Slurm job {job} (scancel)", out)
        self.assertIn(f"run qwen3-0.6b/H200/mbs2: cancelled (Slurm job {job} was cancelled", out)
        record = runkit.read_run(run_dir)
        self.assertEqual(record["status"], "cancelled")
        self.assertIn(f"Slurm job {job} was cancelled (JobState CANCELLED)", record["reason"])
        self.assertRegex(runkit.read(os.path.join(run_dir, "scontrol.txt")), r"JobState=CANCELLED ")
        kept = runkit.iterations(log)
        self.assertTrue(2 <= len(kept) < 20, kept)
        self.assertIn("nodes/0/train.log", [f["path"] for f in record["files"]])
        rc, out, err = self.s.run("submit", run_dir, "--reference", self.s.recipe("ref"), "--author", "alice",
                                  "--registry", self.s.registry)
        self.assertEqual(rc, 2)
        self.assertIn("the run cancelled: Slurm job", err)

    def test_a_failing_job_is_marked_failed(self):
        run_dir = os.path.join(self.s.root, "run4")
        rc, out, err = self.run_slurm(self.one, run_dir,
                                      env=self.env_for(self.one, OPENRECIPES_STANDIN_DIE_AT="3",
                                                       OPENRECIPES_STANDIN_TIME_SCALE="0.02"))
        self.assertEqual(rc, 1, out + err)
        record = runkit.read_run(run_dir)
        self.assertEqual(record["status"], "failed")
        self.assertRegex(record["reason"], r"Slurm job \d+ ended FAILED with ExitCode 1:0")
        self.assertEqual(sorted(runkit.iterations(os.path.join(run_dir, "nodes", "0", "train.log"))), [1, 2, 3])


if __name__ == "__main__":
    unittest.main()
