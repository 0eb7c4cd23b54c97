"""Verdicts: significance and minimum effect both needed; direction for times and speedups."""

import unittest

import repository  # noqa: F401  (makes benchcompare importable)
from benchcompare.verdicts import Verdict, compare_paired_samples, compare_samples

BASELINE = [100.0, 101.0, 102.0, 103.0, 104.0]


def scaled(values, factor):
    return [value * factor for value in values]


class TimeVerdictTest(unittest.TestCase):
    def test_significantly_and_substantially_slower(self):
        comparison = compare_samples("x", BASELINE, scaled(BASELINE, 1.25), 0.05, 0.10)
        self.assertIs(comparison.verdict, Verdict.SLOWER)
        self.assertEqual(comparison.baseline_median, 102.0)
        self.assertEqual(comparison.current_median, 127.5)
        self.assertAlmostEqual(comparison.change, 0.25)
        self.assertAlmostEqual(comparison.p_value, 2 / 252)
        self.assertEqual(comparison.min_effect, 0.10)

    def test_significantly_and_substantially_faster(self):
        comparison = compare_samples("x", BASELINE, scaled(BASELINE, 0.8), 0.05, 0.10)
        self.assertIs(comparison.verdict, Verdict.FASTER)

    def test_significant_but_below_the_minimum_effect(self):
        comparison = compare_samples("x", BASELINE, scaled(BASELINE, 1.08), 0.05, 0.10)
        self.assertLess(comparison.p_value, 0.05)
        self.assertIs(comparison.verdict, Verdict.SAME)

    def test_large_but_not_significant(self):
        current = [80.0, 95.0, 130.0, 135.0, 140.0]  # median +27%, but overlapping
        comparison = compare_samples("x", BASELINE, current, 0.05, 0.10)
        self.assertGreater(comparison.change, 0.10)
        self.assertGreaterEqual(comparison.p_value, 0.05)
        self.assertIs(comparison.verdict, Verdict.SAME)

    def test_change_at_the_minimum_effect_is_not_enough(self):
        comparison = compare_samples("x", BASELINE, scaled(BASELINE, 1.10), 0.05, 0.10)
        self.assertAlmostEqual(comparison.change, 0.10)
        self.assertIs(comparison.verdict, Verdict.SAME)

    def test_alpha_decides(self):
        # Baseline above current in 2 of 25 pairs (103 and 104 > 102.5): p = 2 * 4 / 252.
        current = [102.5, 104.5, 105.0, 106.0, 107.0]
        self.assertAlmostEqual(compare_samples("x", BASELINE, current, 0.05, 0.0).p_value, 8 / 252)
        self.assertIs(compare_samples("x", BASELINE, current, 0.05, 0.0).verdict, Verdict.SLOWER)
        self.assertIs(compare_samples("x", BASELINE, current, 0.01, 0.0).verdict, Verdict.SAME)


class SpeedupVerdictTest(unittest.TestCase):
    def test_lower_speedup_is_slower(self):
        comparison = compare_samples("r", [3.0, 3.1, 3.2, 3.3, 3.4], [2.0, 2.1, 2.2, 2.3, 2.4],
                                     0.05, 0.10, higher_is_faster=True)
        self.assertIs(comparison.verdict, Verdict.SLOWER)

    def test_higher_speedup_is_faster(self):
        comparison = compare_samples("r", [2.0, 2.1, 2.2, 2.3, 2.4], [3.0, 3.1, 3.2, 3.3, 3.4],
                                     0.05, 0.10, higher_is_faster=True)
        self.assertIs(comparison.verdict, Verdict.FASTER)


class PairedVerdictTest(unittest.TestCase):
    # A machine whose speed swings by a factor of two between rounds: each pair ran in one round.
    DRIFTING = [100.0, 150.0, 90.0, 200.0, 120.0, 110.0, 130.0, 95.0]

    def test_drift_hides_a_shift_from_the_unpaired_test(self):
        self.assertIs(compare_samples("x", self.DRIFTING, scaled(self.DRIFTING, 1.12), 0.05, 0.10).verdict,
                      Verdict.SAME)

    def test_pairs_reveal_it(self):
        comparison = compare_paired_samples("x", self.DRIFTING, scaled(self.DRIFTING, 1.12), 0.05, 0.10)
        self.assertIs(comparison.verdict, Verdict.SLOWER)
        self.assertAlmostEqual(comparison.change, 0.12)
        self.assertAlmostEqual(comparison.p_value, 2 / 256)
        self.assertEqual(comparison.baseline_median, 115.0)

    def test_change_is_the_median_ratio(self):
        current = [v * f for v, f in zip(self.DRIFTING, [1.2, 1.3, 0.9, 1.25, 1.21, 1.22, 1.23, 1.24])]
        self.assertAlmostEqual(compare_paired_samples("x", self.DRIFTING, current, 0.05, 0.1).change, 0.225)

    def test_below_the_minimum_effect(self):
        comparison = compare_paired_samples("x", self.DRIFTING, scaled(self.DRIFTING, 1.05), 0.05, 0.10)
        self.assertLess(comparison.p_value, 0.05)
        self.assertIs(comparison.verdict, Verdict.SAME)

    def test_pairs_on_both_sides_are_the_same(self):
        factors = [1.2, 0.8, 1.3, 0.85, 1.25, 0.9, 1.15, 0.95]
        current = [v * f for v, f in zip(self.DRIFTING, factors)]
        self.assertIs(compare_paired_samples("x", self.DRIFTING, current, 0.05, 0.0).verdict, Verdict.SAME)

    def test_higher_speedup_is_faster(self):
        comparison = compare_paired_samples("r", self.DRIFTING, scaled(self.DRIFTING, 1.5), 0.05, 0.10,
                                            higher_is_faster=True)
        self.assertIs(comparison.verdict, Verdict.FASTER)

    def test_unequal_lengths_do_not_pair(self):
        with self.assertRaisesRegex(ValueError, "x: 8 baseline and 7 current values do not pair up"):
            compare_paired_samples("x", self.DRIFTING, self.DRIFTING[:7], 0.05, 0.10)


if __name__ == "__main__":
    unittest.main()
