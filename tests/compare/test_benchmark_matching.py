"""Which benchmarks two runs share, and the messages when they cannot be compared."""

import unittest

import repository  # noqa: F401  (makes benchcompare importable)
from benchcompare.benchmark_matching import common_benchmarks
from benchcompare.unusable_input import UnusableInput
from run_builder import make_run

FIVE = [1.0, 1.1, 1.2, 1.3, 1.4]


class CommonBenchmarksTest(unittest.TestCase):
    def assert_unusable(self, baseline, current, *messages):
        with self.assertRaises(UnusableInput) as raised:
            common_benchmarks(baseline, current, 5)
        self.assertEqual(raised.exception.messages, list(messages))

    def test_same_benchmarks_in_baseline_order(self):
        baseline = make_run("a.json", {"x/serial": FIVE, "x/simd": FIVE})
        current = make_run("b.json", {"x/simd": FIVE, "x/serial": FIVE})
        self.assertEqual(common_benchmarks(baseline, current, 5), ["x/serial", "x/simd"])

    def test_renamed_benchmark_names_the_candidates(self):
        baseline = make_run("a.json", {"long_encoding/serial": FIVE, "long_encoding/simd": FIVE})
        current = make_run("b.json", {"long_encoding/serial": FIVE,
                                      "long_encoding/simd_avx2": FIVE})
        self.assert_unusable(
            baseline, current,
            "long_encoding/simd is only in a.json (renamed? b.json has long_encoding/simd_avx2)",
            "long_encoding/simd_avx2 is only in b.json (renamed? a.json has long_encoding/simd)")

    def test_removed_benchmark_without_a_similar_name(self):
        baseline = make_run("a.json", {"long_encoding/serial": FIVE, "pretokenization/regex": FIVE})
        current = make_run("b.json", {"long_encoding/serial": FIVE})
        self.assert_unusable(baseline, current, "pretokenization/regex is only in a.json")

    def test_nothing_in_common(self):
        self.assert_unusable(make_run("a.json", {}), make_run("b.json", {}),
                             "no benchmark is in both a.json (0 benchmarks) and b.json (0): "
                             "nothing to compare")

    def test_too_few_repetitions(self):
        baseline = make_run("a.json", {"x/serial": FIVE, "x/simd": FIVE})
        current = make_run("b.json", {"x/serial": FIVE, "x/simd": FIVE[:3]})
        self.assert_unusable(
            baseline, current,
            "b.json: x/simd has 3 repetitions, fewer than --min-repetitions 5; run "
            "build/benches with --benchmark_repetitions=5 (or more) and without "
            "--benchmark_report_aggregates_only")

    def test_file_of_aggregates_only(self):
        baseline = make_run("a.json", {"x/serial": [], "x/simd": []},
                            aggregates_only={"x/serial", "x/simd"})
        current = make_run("b.json", {"x/serial": FIVE, "x/simd": FIVE})
        self.assert_unusable(
            baseline, current,
            "a.json holds only aggregate rows (_mean, _median, ...), as "
            "--benchmark_report_aggregates_only writes them: the test needs one row per "
            "repetition; run build/benches with --benchmark_repetitions=5 (or more) and without "
            "--benchmark_report_aggregates_only")

    def test_one_benchmark_of_aggregates_only(self):
        baseline = make_run("a.json", {"x/serial": FIVE, "x/simd": []}, aggregates_only={"x/simd"})
        current = make_run("b.json", {"x/serial": FIVE, "x/simd": FIVE})
        self.assert_unusable(
            baseline, current,
            "a.json: x/simd has only aggregate rows, no row per repetition; run build/benches "
            "with --benchmark_repetitions=5 (or more) and without "
            "--benchmark_report_aggregates_only")


if __name__ == "__main__":
    unittest.main()
