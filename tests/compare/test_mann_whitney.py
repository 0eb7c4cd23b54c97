"""The Mann-Whitney U test against textbook values, hand-computed cases and brute force."""

import itertools
import math
import random
import unittest
from fractions import Fraction

import repository  # noqa: F401  (makes benchcompare importable)
from benchcompare.mann_whitney import (
    EXACT_MAX_PER_SIDE, exact_p_value, mann_whitney_u_test, normal_approximation_p_value,
    smallest_p_value)


def brute_force_p_value(x, y):
    """Two-sided exact p-value by listing every split of the pooled values (mid-ranks)."""
    pooled = sorted(x + y)
    # A value's tie group spans sorted positions first..last (from 1).
    first = {value: pooled.index(value) + 1 for value in pooled}
    last = {value: len(pooled) - pooled[::-1].index(value) for value in pooled}
    mid_rank = {value: Fraction(first[value] + last[value], 2) for value in pooled}
    ranks = [mid_rank[value] for value in pooled]
    mean = Fraction(len(x) * (len(pooled) + 1), 2)
    observed = abs(sum(mid_rank[value] for value in x) - mean)
    splits = list(itertools.combinations(range(len(pooled)), len(x)))
    extreme = sum(1 for split in splits if abs(sum(ranks[i] for i in split) - mean) >= observed)
    return extreme / len(splits)


class ExactTest(unittest.TestCase):
    def test_five_against_five_fully_separated_is_two_in_252(self):
        result = mann_whitney_u_test([1, 2, 3, 4, 5], [6, 7, 8, 9, 10])
        self.assertEqual(result.u, 0)
        self.assertTrue(result.exact)
        self.assertAlmostEqual(result.p_value, 2 / 252, places=15)  # C(10, 5) = 252

    def test_four_against_four_fully_separated_is_two_in_70(self):
        self.assertAlmostEqual(exact_p_value([5, 6, 7, 8], [1, 2, 3, 4]), 2 / 70, places=15)

    def test_scipy_documentation_example(self):
        # scipy.stats.mannwhitneyu(males, females, method="exact"): U = 17, p = 1/9. By hand:
        # 7 of the C(9, 4) = 126 splits have U <= 3, as many have U >= 17: p = 14/126.
        males, females = [19, 22, 16, 29, 24], [20, 11, 17, 12]
        result = mann_whitney_u_test(males, females)
        self.assertEqual(result.u, 17)
        self.assertAlmostEqual(result.p_value, 14 / 126, places=15)

    def test_one_overlap_five_against_five(self):
        # U = 1: the splits with U <= 1 or U >= 24 are 2 + 2 of 252.
        self.assertAlmostEqual(exact_p_value([1, 2, 3, 4, 6], [5, 7, 8, 9, 10]), 4 / 252,
                               places=15)

    def test_hand_computed_ties(self):
        # Pooled 1, 2, 2, 2, 3: mid-ranks 1, 3, 3, 3, 5. x = {1, 2, 2} has rank sum 7 (mean 9);
        # of the 10 splits, 3 have rank sum 7 and 3 have 11: p = 6/10, U = 7 - 6 = 1.
        result = mann_whitney_u_test([1, 2, 2], [2, 3])
        self.assertEqual(result.u, 1)
        self.assertAlmostEqual(result.p_value, 0.6, places=15)

    def test_identical_samples_give_one(self):
        self.assertEqual(mann_whitney_u_test([3.0, 1.0, 2.0], [1.0, 2.0, 3.0]).p_value, 1.0)
        self.assertEqual(mann_whitney_u_test([4.0] * 5, [4.0] * 5).p_value, 1.0)

    def test_symmetric_in_the_two_samples(self):
        x, y = [1.5, 2.5, 9.0, 4.0], [3.0, 5.0, 6.0, 7.0, 8.0]
        self.assertEqual(exact_p_value(x, y), exact_p_value(y, x))

    def test_matches_brute_force_with_and_without_ties(self):
        generator = random.Random(7)
        for _ in range(40):
            n, m = generator.randint(1, 6), generator.randint(1, 6)
            x = [generator.randint(0, 6) for _ in range(n)]
            y = [generator.randint(0, 6) for _ in range(m)]
            with self.subTest(x=x, y=y):
                self.assertAlmostEqual(exact_p_value(x, y), float(brute_force_p_value(x, y)),
                                       places=12)


class NormalApproximationTest(unittest.TestCase):
    def test_scipy_documentation_example(self):
        # scipy.stats.mannwhitneyu(males, females, method="asymptotic"): p = 0.11134688653314041
        # (z = (17 - 10 - 0.5) / sqrt(4 * 5 * 10 / 12)).
        self.assertAlmostEqual(
            normal_approximation_p_value([19, 22, 16, 29, 24], [20, 11, 17, 12]),
            0.11134688653314041, places=12)

    def test_tie_correction(self):
        # x = 1, 2, 2, 3; y = 2, 3, 3, 4. Pooled 1, 2, 2, 2, 3, 3, 3, 4: mid-ranks 1, 3, 3, 6 for
        # x, so U = 13 - 10 = 3 against a mean of 8. Tie groups of 3 and 3:
        # variance = 16/12 * (9 - 48/56) = 10.857; z = (5 - 0.5) / 3.2950 = 1.3657; p = 0.1720.
        p_value = normal_approximation_p_value([1, 2, 2, 3], [2, 3, 3, 4])
        self.assertAlmostEqual(p_value, 0.1720, places=4)
        without_tie_correction = math.erfc(4.5 / math.sqrt(16 / 12 * 9) / math.sqrt(2))
        self.assertNotAlmostEqual(p_value, without_tie_correction, places=3)

    def test_all_equal_gives_one(self):
        self.assertEqual(normal_approximation_p_value([2.0] * 40, [2.0] * 40), 1.0)

    def test_used_above_the_exact_limit_and_close_to_exact_at_it(self):
        generator = random.Random(3)
        size = EXACT_MAX_PER_SIDE
        x = [generator.gauss(0, 1) for _ in range(size)]
        y = [generator.gauss(0.5, 1) for _ in range(size)]
        self.assertTrue(mann_whitney_u_test(x, y).exact)
        self.assertAlmostEqual(exact_p_value(x, y), normal_approximation_p_value(x, y), delta=0.005)
        larger = mann_whitney_u_test(x + [0.0], y)
        self.assertFalse(larger.exact)
        self.assertEqual(larger.p_value, normal_approximation_p_value(x + [0.0], y))

    def test_thirty_one_against_thirty_one_fully_separated(self):
        # U = 0, mean 480.5, variance 31 * 31 * 63 / 12 = 5045.25: z = 480 / 71.03 = 6.758.
        result = mann_whitney_u_test(list(range(31)), list(range(100, 131)))
        self.assertAlmostEqual(result.p_value, 1.40e-11, delta=0.01e-11)


class SmallestPValueTest(unittest.TestCase):
    def test_values(self):
        self.assertAlmostEqual(smallest_p_value(5, 5), 2 / 252)
        self.assertAlmostEqual(smallest_p_value(3, 3), 0.1)
        self.assertEqual(smallest_p_value(1, 1), 1.0)


class InputTest(unittest.TestCase):
    def test_empty_sample_is_an_error(self):
        with self.assertRaises(ValueError):
            mann_whitney_u_test([], [1.0])


if __name__ == "__main__":
    unittest.main()
