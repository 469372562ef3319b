"""`openrecipes run`'s Ray launch mode (slime and miles recipes) with stand-ins for Ray and slime's train.py
(tests/run/standin/bin/ray, tests/run/standin/slime/: see their docstrings): on this machine, and on two nodes of a
real Slurm cluster the test starts (the worker's `ray start --address` joins the head's, the head waits for every
node's GPUs, then one `ray job submit` with data/ on PYTHONPATH and RAY_DEDUP_LOGS=0)."""
import os
import re
import shutil
import unittest

import runkit
from test_run_slurm import Cluster, have_slurm

COMMAND = ("python3 <slime entry module> --actor-num-nodes 1 --actor-num-gpus-per-node 1 ${MODEL_ARGS[@]} "
           "--rollout-function-path pretokenized_sft_rollout.generate_rollout --prompt-data $SFT_DATA "
           "--num-rollout 20 --global-batch-size 32 --micro-batch-size 2")


def slime_recipe(s):
    """A slime recipe in the scratch registry: mbs2's folder with a slime command and stack."""
    s_dir = s.recipe("slime-standin")
    shutil.copytree(s.recipe("mbs2"), s_dir)
    path = os.path.join(s_dir, "recipe.yaml")
    text = runkit.read(path).replace("id: mbs2\n", "id: slime-standin\n")
    head, rest = text.split("command: |\n", 1)
    text = head + "command: |\n  " + COMMAND + "\n" + rest[rest.index("layout:"):]
    slime = os.path.join(s.root, "slime")
    shutil.copytree(os.path.join(runkit.HERE, "standin", "slime"), slime)
    # The checkouts are git checkouts of their own commits, which the recipe pins (run checks them before launch).
    slime_commit = runkit.git_checkout(slime)
    text = text.replace(f"framework: {{name: megatron-lm, commit: {s.commit}}}",
                        f"framework: {{name: slime, commit: {slime_commit}}}\n  megatron_lm: {s.commit}")
    with open(path, "w") as f:
        f.write(text)
    s.env["STANDIN_RAY_STATE"] = os.path.join(s.root, "ray-state")
    # The plugin needs numpy: the command's python3 is Debian's (python3-numpy, from scripts/bootstrap).
    os.makedirs(os.path.join(s.root, "bin"))
    os.symlink("/usr/bin/python3", os.path.join(s.root, "bin", "python3"))
    s.env["PATH"] = os.path.join(s.root, "bin") + os.pathsep + s.env["PATH"]
    return s_dir, slime


class RayLaunch(unittest.TestCase):
    def setUp(self):
        self.s = runkit.Scratch()
        self.recipe, self.slime = slime_recipe(self.s)
        # The rows the command reads must be there (run's pre-flight); the stand-in never opens them.
        self.rows = os.path.join(self.s.root, "rows.parquet")
        with open(self.rows, "wb") as f:
            f.write(b"PAR1")

    def tearDown(self):
        self.s.cleanup()

    def args(self, run_dir, *more):
        return ("run", self.recipe, "--var", "SLIME=" + self.slime, "--var", "MEGATRON_LM=" + self.s.megatron,
                "--var", "SFT_DATA=" + self.rows, "-o", run_dir, *more)

    def check_driver_log(self, log, nodes):
        text = runkit.read(log)
        data = os.path.join(runkit.REPO, "data")
        self.assertIn(f"[standin slime] PYTHONPATH={data}:{self.s.megatron}", text)
        self.assertIn("[standin slime] RAY_DEDUP_LOGS=0", text)
        self.assertIn("[standin slime] import pretokenized_sft_rollout.generate_rollout as generate_rollout function: "
                      "pretokenized_sft_rollout.generate_rollout", text)
        # MODEL_ARGS from the model script, its words as bash holds them; the GPU flags relaid out to the nodes.
        self.assertIn(f"--actor-num-nodes {nodes} --actor-num-gpus-per-node 1 --num-layers 28 --hidden-size 1024 "
                      "--rotary-base 1000000 --moe-layer-freq [0,1] --rollout-function-path", text)
        self.assertRegex(text, r"Job 'openrecipes-\d+-\d+' succeeded")

    def test_local_ray_head_and_one_job_submit(self):
        rc, out, err = self.s.run(*self.args("unused", "--launcher", "local", "--dry-run"))
        self.assertEqual(rc, 0, err)
        self.assertRegex(out, r"node 0 runs   ray start --head --block --node-ip-address <head> --port \d+ "
                              r"--dashboard-port \d+ --num-gpus 1 --disable-usage-stats")
        self.assertIn("node 0 waits  until ray status shows 1.0 GPU, then runs", out)
        self.assertIn("RAY_DEDUP_LOGS=0 PYTHONUNBUFFERED=1> -- python3 " + os.path.join(self.slime, "train.py"), out)
        run_dir = os.path.join(self.s.root, "run")
        rc, out, err = self.s.run(*self.args(run_dir, "--launcher", "local"))
        self.assertEqual(rc, 0, out + err)
        self.check_driver_log(os.path.join(run_dir, "nodes", "0", "train.log"), 1)
        self.assertIn("[standin ray] head started at 127.0.0.1:", runkit.read(os.path.join(run_dir, "nodes", "0",
                                                                                             "ray.log")))
        self.assertEqual(runkit.read_run(run_dir)["evidence"]["log"], {"path": "nodes/0/train.log", "format": "slime",
                                                                        "key": ""})
        # The head ran as the node task's child (ray start --head --block) and was stopped with it: no `ray stop`.
        self.assertEqual(os.listdir(self.s.env["STANDIN_RAY_STATE"]), [])

    @unittest.skipUnless(os.geteuid() == 0 and have_slurm(), "needs root and slurm-wlm (scripts/bootstrap)")
    def test_two_slurm_nodes_the_worker_joins_the_head(self):
        cluster = Cluster(2)
        try:
            env = dict(self.s.env, SLURM_CONF=cluster.vars["SLURM_CONF"])
            run_dir = os.path.join(self.s.root, "run2")
            rc, out, err = self.s.run(*self.args(run_dir, "--launcher", "slurm", "--no-gres", "--gpus", "2",
                                                 "--nodes", "2"), env=env)
            self.assertEqual(rc, 0, out + err)
            self.check_driver_log(os.path.join(run_dir, "nodes", "0", "train.log"), 2)
            worker = runkit.read(os.path.join(run_dir, "nodes", "1", "ray.log"))
            port = re.search(r'"ray": (\d+)', runkit.read(os.path.join(run_dir, "plan.json"))).group(1)
            self.assertIn(f"[standin ray] joined 127.0.0.1:{port} with 1 GPU(s)", worker)
            self.assertEqual(runkit.read(os.path.join(run_dir, "nodes", "1", "exit.txt")), "0\n")
            self.assertEqual(runkit.read_run(run_dir)["status"], "completed")
        finally:
            cluster.stop()


if __name__ == "__main__":
    unittest.main()
