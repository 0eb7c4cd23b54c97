"""Benchmark names (clock, family, member) and the speedup samples of one run."""

import unittest

import repository  # noqa: F401  (makes benchcompare importable)
from benchcompare.benchmark_names import family_and_member, time_field
from benchcompare.speedup_ratios import ratio_samples
from run_builder import make_run


class BenchmarkNamesTest(unittest.TestCase):
    def test_family_and_member(self):
        self.assertEqual(family_and_member("long_encoding/simd"), ("long_encoding", "simd"))
        self.assertEqual(family_and_member("adversarial_encoding/digits/parallel/real_time"),
                         ("adversarial_encoding/digits", "parallel"))
        self.assertEqual(family_and_member("encode_batch/serial/real_time"),
                         ("encode_batch", "serial"))
        self.assertEqual(family_and_member("lonely"), ("", "lonely"))

    def test_time_field(self):
        self.assertEqual(time_field("long_encoding/parallel/real_time"), "real_time")
        self.assertEqual(time_field("kernel/manual_time"), "real_time")
        self.assertEqual(time_field("long_encoding/simd"), "cpu_time")
        self.assertEqual(time_field("real_time_family/simd"), "cpu_time")


class RatioSamplesTest(unittest.TestCase):
    def test_encoder_ratios_per_family(self):
        run = make_run("a.json", {
            "long_encoding/serial": [8.0, 9.0, 10.0],
            "long_encoding/parallel/real_time": [2.0, 3.0, 5.0],
            "long_encoding/simd": [4.0, 3.0, 2.0],
            "long_encoding/simd_parallel/real_time": [1.0, 1.0, 1.0],
            "pretokenization/scalar": [6.0, 6.0, 6.0],
            "pretokenization/simd": [2.0, 3.0, 6.0],
            "pretokenization/regex": [60.0, 60.0, 60.0],
        })
        ratios = {ratio.name: ratio for ratio in ratio_samples(run)}
        self.assertEqual(list(ratios), [
            "long_encoding simd/serial", "long_encoding parallel/serial",
            "long_encoding simd_parallel/simd", "pretokenization simd/scalar"])
        self.assertEqual(ratios["long_encoding simd/serial"].speedups, (2.0, 3.0, 5.0))
        self.assertEqual(ratios["long_encoding parallel/serial"].speedups, (4.0, 3.0, 2.0))
        self.assertEqual(ratios["long_encoding simd_parallel/simd"].speedups, (4.0, 3.0, 2.0))
        self.assertEqual(ratios["pretokenization simd/scalar"].speedups, (3.0, 2.0, 1.0))
        self.assertEqual(ratios["long_encoding parallel/serial"].candidate,
                         "long_encoding/parallel/real_time")
        self.assertEqual(ratios["long_encoding parallel/serial"].reference, "long_encoding/serial")

    def test_repetitions_pair_by_index(self):
        run = make_run("a.json", {"f/serial": [10.0, 20.0, 30.0], "f/simd": [5.0, 5.0, 5.0]})
        del run.benchmarks["f/simd"].times_ns[1]
        (ratio,) = ratio_samples(run)
        self.assertEqual(ratio.speedups, (2.0, 6.0))

    def test_family_without_a_pair_has_no_ratio(self):
        run = make_run("a.json", {"f/serial": [1.0], "g/simd": [1.0], "f/regex": [1.0]})
        self.assertEqual(ratio_samples(run), [])


if __name__ == "__main__":
    unittest.main()
