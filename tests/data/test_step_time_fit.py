"""The step-time model's fit can be reproduced from the project (issue 42): tools/step_time_rows.py writes the committed
tests/data/step_time/fit_rows.jsonl byte for byte, and tools/fit_step_time.py on it writes the committed
src/layout/step_time_fit.h (its --check). A constant edited by hand, or a row added without a refit, fails here."""

import os
import subprocess
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BIN = os.environ.get("OPENRECIPES_BIN", str(ROOT / "build/openrecipes"))


class StepTimeFit(unittest.TestCase):
    def test_the_rows_table_is_the_scripts_output(self):
        out = subprocess.run(["/usr/bin/python3", str(ROOT / "tools/step_time_rows.py"), BIN], check=True,
                             capture_output=True, text=True, cwd=ROOT).stdout
        self.assertEqual(out, (ROOT / "tests/data/step_time/fit_rows.jsonl").read_text())

    def test_the_committed_constants_are_the_fit_of_the_rows(self):
        r = subprocess.run(["/usr/bin/python3", str(ROOT / "tools/fit_step_time.py"), str(Path(BIN).parent),
                            "--check"], capture_output=True, text=True, cwd=ROOT)
        self.assertEqual(r.returncode, 0, r.stderr)


if __name__ == "__main__":
    unittest.main()
