"""scripts/compare on two real runs of the quick subset, as scripts/bench --quick compares them
(net of the machine's drift, with the noise floors measured on the machine they ran on):
unchanged code passes, and a 10% slowdown of any one benchmark is flagged (the figures of
data/baselines/*.minimum_effects, pinned on one real pair)."""

import tempfile
import unittest

from repository import REPO_ROOT  # first: it makes benchcompare importable
from benchcompare.baseline_store import find_minimum_effects
from golden_files import golden_path, read_golden, slowed_down, write_document
from test_compare_script import run_compare

BASELINES_DIR = REPO_ROOT / "data" / "baselines"


class RealRunsTest(unittest.TestCase):
    BASELINE = "xeon_quick_1.json"
    CURRENT = "xeon_quick_2.json"

    def setUp(self):
        self.directory = tempfile.TemporaryDirectory()
        self.addCleanup(self.directory.cleanup)
        floors, own_machine = find_minimum_effects(BASELINES_DIR, read_golden(self.BASELINE)["context"])
        self.assertTrue(own_machine, f"no floors measured for the machine of {self.BASELINE}: {floors}")
        self.options = ["--min-effects-file", str(floors), "--drift"]

    def compare(self, current_path):
        return run_compare(golden_path(self.BASELINE), current_path, *self.options)

    def test_unchanged_code_passes(self):
        result = self.compare(golden_path(self.CURRENT))
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        self.assertIn("Times gate (same machine fingerprint)", result.stdout)
        self.assertIn("Summary: no regression; 22 benchmarks: 0 slower,", result.stdout)

    def test_ten_percent_slower_is_flagged_for_every_benchmark(self):
        names = list(dict.fromkeys(row["run_name"] for row in read_golden(self.CURRENT)["benchmarks"]))
        self.assertEqual(len(names), 22)
        for name in names:
            with self.subTest(name):
                path = write_document(self.directory.name, "slower.json",
                                      slowed_down(read_golden(self.CURRENT), {name: 1.10}))
                result = self.compare(path)
                self.assertEqual(result.returncode, 1, result.stdout + result.stderr)
                regressions = result.stdout.split("Regressions:\n", 1)[1].splitlines()
                self.assertEqual([line.split(": ")[0].strip() for line in regressions], [name])


if __name__ == "__main__":
    unittest.main()
