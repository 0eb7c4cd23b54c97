"""round_merging.py: the rounds of one side of scripts/bench --against become one run."""

import json
import subprocess
import sys
import tempfile
import unittest

from golden_files import write_document
from repository import SCRIPTS_DIR

MERGE = [sys.executable, "-m", "benchcompare.round_merging"]


def run_merge(*arguments):
    return subprocess.run([*MERGE, *arguments], capture_output=True, text=True, check=False,
                          cwd=SCRIPTS_DIR)


def row(name, time, run_type="iteration", repetitions=1):
    return {"name": name, "run_name": name, "run_type": run_type, "repetitions": repetitions,
            "repetition_index": 0, "cpu_time": time, "real_time": time, "time_unit": "ns"}


class RoundMergingTest(unittest.TestCase):
    def setUp(self):
        self.directory = tempfile.TemporaryDirectory()
        self.addCleanup(self.directory.cleanup)

    def round(self, name, rows, context=None):
        return write_document(self.directory.name, name, {"context": context or {}, "benchmarks": rows})

    def merge(self, *rounds):
        out = f"{self.directory.name}/merged.json"
        return run_merge(out, *rounds), out

    def test_round_i_becomes_repetition_i(self):
        first = self.round("r0.json", [row("a", 10.0), row("b", 20.0)], {"cpu_model": "first"})
        second = self.round("r1.json", [row("b", 21.0), row("a", 11.0), row("a_mean", 11.0, "aggregate")],
                            {"cpu_model": "second"})
        result, out = self.merge(first, second)
        self.assertEqual(result.returncode, 0, result.stderr)
        with open(out, encoding="utf-8") as file:
            merged = json.load(file)
        self.assertEqual(merged["context"], {"cpu_model": "first"})
        self.assertEqual([(r["name"], r["repetition_index"], r["repetitions"], r["cpu_time"])
                          for r in merged["benchmarks"]],
                         [("a", 0, 2, 10.0), ("b", 0, 2, 20.0), ("b", 1, 2, 21.0), ("a", 1, 2, 11.0)])

    def test_a_round_with_repetitions_is_refused(self):
        bad = self.round("r0.json", [row("a", 10.0, repetitions=3)])
        result, _ = self.merge(bad)
        self.assertEqual(result.returncode, 2)
        self.assertEqual(result.stderr, f"round_merging.py: error: {bad}: a has 3 repetitions; a round runs "
                                        "each benchmark once\n")

    def test_not_json(self):
        bad = f"{self.directory.name}/bad.json"
        with open(bad, "w", encoding="utf-8") as file:
            file.write("{")
        result, _ = self.merge(bad)
        self.assertEqual(result.returncode, 2)
        self.assertIn(f"{bad} is not valid JSON", result.stderr)

    def test_usage(self):
        result = run_merge()
        self.assertEqual(result.returncode, 2)
        self.assertIn("usage: round_merging.py OUT.json ROUND.json...", result.stderr)


if __name__ == "__main__":
    unittest.main()
