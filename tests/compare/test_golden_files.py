"""The golden files are what data/README.md says they are, so the verdicts expected of them
follow from how they were made."""

import statistics
import unittest

import repository  # noqa: F401  (makes benchcompare importable)
from benchcompare.machine_fingerprint import fingerprint_differences
from golden_files import iteration_rows, read_golden, timed_value

SCALED_FIELDS = ("real_time", "cpu_time")
RATE_FIELDS = ("bytes_per_second", "items_per_second")


class GoldenFilesTest(unittest.TestCase):
    def setUp(self):
        self.baseline = read_golden("baseline.json")
        self.names = list(dict.fromkeys(row["run_name"] for row in self.baseline["benchmarks"]))

    def factors(self, document, name):
        """Per repetition: (time factors for real_time and cpu_time, rate factors)."""
        pairs = zip(iteration_rows(self.baseline, name), iteration_rows(document, name))
        return [([new[key] / old[key] for key in SCALED_FIELDS],
                 [old[key] / new[key] for key in RATE_FIELDS]) for old, new in pairs]

    def assert_scaled(self, document, factors_by_name, default=1.0):
        for name in self.names:
            expected = factors_by_name.get(name, default)
            for index, (times, rates) in enumerate(self.factors(document, name)):
                factor = expected[index] if isinstance(expected, list) else expected
                for actual in times + rates:
                    self.assertAlmostEqual(actual, factor, places=9, msg=f"{name} #{index}")

    def test_baseline_spreads_two_percent_around_the_median(self):
        self.assertEqual(len(self.names), 6)
        for name in self.names:
            times = [timed_value(row) for row in iteration_rows(self.baseline, name)]
            median = statistics.median(times)
            self.assertEqual(sorted(round(time / median - 1, 9) for time in times),
                             [-0.02, -0.01, 0.0, 0.01, 0.02], name)

    def test_slower_and_faster_scale_one_benchmark(self):
        self.assert_scaled(read_golden("slower.json"), {"short_encoding/serial": 1.10})
        self.assert_scaled(read_golden("faster.json"), {"short_encoding/serial": 0.90})

    def test_noise_stays_within_a_quarter(self):
        noise = read_golden("noise.json")
        self.assertEqual(noise["context"], self.baseline["context"])
        for name in self.names:
            for times, _ in self.factors(noise, name):
                self.assertTrue(0.75 <= times[0] <= 1.25, name)

    def test_other_machine(self):
        other = read_golden("other_machine.json")
        changed = {key for key in self.baseline["context"]
                   if other["context"][key] != self.baseline["context"][key]}
        self.assertEqual(changed, {"host_name", "num_cpus", "mhz_per_cpu", "caches", "simd_isa"})
        self.assert_scaled(other, {"short_encoding/simd_parallel/real_time": 0.8}, default=0.5)

    def test_real_runs_are_two_runs_of_one_build_on_one_machine(self):
        first, second = read_golden("xeon_quick_1.json"), read_golden("xeon_quick_2.json")
        self.assertEqual(first["context"]["git_commit"], second["context"]["git_commit"])
        self.assertEqual(fingerprint_differences(first["context"], second["context"]), [])
        self.assertLess(first["context"]["date"], second["context"]["date"])
        for document in (first, second):
            rows = document["benchmarks"]
            self.assertEqual({row["run_type"] for row in rows}, {"iteration"})
            self.assertEqual(len({row["run_name"] for row in rows}), 22)
            self.assertEqual({row["repetitions"] for row in rows}, {10})
            self.assertEqual(len(rows), 220)


if __name__ == "__main__":
    unittest.main()
