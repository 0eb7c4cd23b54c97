"""What gates: times on one machine, speedups across machines or with --ratios-only."""

import unittest

import repository  # noqa: F401  (makes benchcompare importable)
from benchcompare.comparison_report import compare_runs
from benchcompare.minimum_effects import DEFAULT_MINIMUM_EFFECTS
from benchcompare.unusable_input import UnusableInput
from benchcompare.verdicts import Verdict
from run_builder import make_run

SERIAL = [100.0, 101.0, 102.0, 103.0, 104.0]
SIMD = [50.0, 50.5, 51.0, 51.5, 52.0]
MACHINE = {"num_cpus": 2, "simd_isa": "avx2"}


def scaled(values, factor):
    return [value * factor for value in values]


def compare(current_times, current_context=MACHINE, ratios_only=False):
    baseline = make_run("a.json", {"f/serial": SERIAL, "f/simd": SIMD}, MACHINE)
    current = make_run("b.json", current_times, current_context)
    return compare_runs(baseline, current, 0.05, DEFAULT_MINIMUM_EFFECTS, 5, ratios_only)


class GatingTest(unittest.TestCase):
    def test_same_machine_times_gate(self):
        report = compare({"f/serial": SERIAL, "f/simd": scaled(SIMD, 1.5)})
        self.assertTrue(report.times_gate)
        self.assertEqual([c.name for c in report.regressions()], ["f/simd"])
        self.assertIs(report.ratios[0].verdict, Verdict.SLOWER)  # information only

    def test_faster_reference_is_no_regression_on_one_machine(self):
        report = compare({"f/serial": scaled(SERIAL, 0.5), "f/simd": SIMD})
        self.assertIs(report.ratios[0].verdict, Verdict.SLOWER)
        self.assertEqual(report.regressions(), [])

    def test_other_machine_ratios_gate(self):
        report = compare({"f/serial": scaled(SERIAL, 2), "f/simd": scaled(SIMD, 3)},
                         dict(MACHINE, simd_isa="sse4.2"))
        self.assertFalse(report.times_gate)
        self.assertEqual([d.field for d in report.machine_differences], ["simd_isa"])
        self.assertEqual([c.name for c in report.regressions()], ["f simd/serial"])

    def test_slower_machine_is_no_regression(self):
        report = compare({"f/serial": scaled(SERIAL, 2), "f/simd": scaled(SIMD, 2)},
                         dict(MACHINE, num_cpus=64))
        self.assertEqual([c.verdict for c in report.benchmarks], [Verdict.SLOWER] * 2)
        self.assertEqual(report.regressions(), [])

    def test_ratios_only_on_one_machine(self):
        report = compare({"f/serial": scaled(SERIAL, 2), "f/simd": scaled(SIMD, 2)},
                         ratios_only=True)
        self.assertFalse(report.times_gate)
        self.assertEqual(report.regressions(), [])


class RatioTest(unittest.TestCase):
    def test_speedup_medians_and_limit(self):
        report = compare({"f/serial": SERIAL, "f/simd": SIMD})
        (ratio,) = report.ratios
        self.assertEqual(ratio.name, "f simd/serial")
        self.assertAlmostEqual(ratio.baseline_median, 2.0)
        self.assertAlmostEqual(ratio.min_effect, 0.10)

    def test_ratio_limit_is_the_larger_of_its_benchmarks(self):
        baseline = make_run("a.json", {"f/serial": SERIAL, "f/parallel/real_time": SIMD})
        report = compare_runs(baseline, baseline, 0.05, DEFAULT_MINIMUM_EFFECTS, 5)
        self.assertAlmostEqual(report.ratios[0].min_effect, 0.30)

    def test_repetitions_that_do_not_pair(self):
        baseline = make_run("a.json", {"f/serial": SERIAL, "f/simd": SIMD})
        shifted = make_run("b.json", {"f/serial": SERIAL, "f/simd": SIMD})
        samples = shifted.benchmarks["f/simd"]
        samples.times_ns = {index + 3: time for index, time in samples.times_ns.items()}
        with self.assertRaises(UnusableInput) as raised:
            compare_runs(baseline, shifted, 0.05, DEFAULT_MINIMUM_EFFECTS, 5)
        self.assertEqual(raised.exception.messages, [
            "b.json: f/simd and f/serial share only 2 repetition indices, fewer than "
            "--min-repetitions 5"])


class PairedTest(unittest.TestCase):
    # Rounds on a machine whose speed swings: pair i of both runs shares speed i.
    SPEEDS = [1.0, 1.6, 0.9, 2.0, 1.2, 1.1, 1.4, 0.95]

    def runs(self, simd_slowdown):
        serial = scaled(self.SPEEDS, 100.0)
        baseline = make_run("a.json", {"f/serial": serial, "f/simd": scaled(self.SPEEDS, 50.0)}, MACHINE)
        current = make_run("b.json", {"f/serial": serial, "f/simd": scaled(self.SPEEDS, 50.0 * simd_slowdown)},
                           MACHINE)
        return baseline, current

    def test_times_and_speedups_pair_by_round(self):
        report = compare_runs(*self.runs(1.15), 0.05, DEFAULT_MINIMUM_EFFECTS, 6, paired=True)
        self.assertTrue(report.paired)
        self.assertEqual([c.name for c in report.regressions()], ["f/simd"])
        self.assertAlmostEqual(report.benchmarks[1].change, 0.15)
        self.assertAlmostEqual(report.ratios[0].change, 1 / 1.15 - 1)
        self.assertIs(report.ratios[0].verdict, Verdict.SLOWER)

    def test_unpaired_the_swing_hides_it(self):
        report = compare_runs(*self.runs(1.15), 0.05, DEFAULT_MINIMUM_EFFECTS, 6)
        self.assertEqual(report.regressions(), [])

    def test_missing_partner_is_unusable(self):
        baseline, current = self.runs(1.0)
        del current.benchmarks["f/serial"].times_ns[2]
        with self.assertRaises(UnusableInput) as raised:
            compare_runs(baseline, current, 0.05, DEFAULT_MINIMUM_EFFECTS, 6, paired=True)
        self.assertEqual(raised.exception.messages, [
            "f/serial: repetitions 2 of a.json and none of b.json have no partner; paired runs repeat "
            "every benchmark in the same rounds"])


if __name__ == "__main__":
    unittest.main()
