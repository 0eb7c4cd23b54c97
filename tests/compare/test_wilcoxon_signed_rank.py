"""The Wilcoxon signed-rank test against a textbook value and brute force over sign flips."""

import itertools
import math
import random
import unittest
from fractions import Fraction

import repository  # noqa: F401  (makes benchcompare importable)
from benchcompare import wilcoxon_signed_rank
from benchcompare.wilcoxon_signed_rank import EXACT_MAX_PAIRS, signed_rank_test, smallest_p_value


def brute_force_p_value(differences):
    """Two-sided exact p-value by listing all 2^n sign assignments of the mid-ranks."""
    nonzero = [d for d in differences if d != 0]
    sizes = sorted(abs(d) for d in nonzero)
    first = {size: sizes.index(size) + 1 for size in sizes}
    last = {size: len(sizes) - sizes[::-1].index(size) for size in sizes}
    ranks = [Fraction(first[abs(d)] + last[abs(d)], 2) for d in nonzero]
    mean = sum(ranks) / 2
    observed = abs(sum(rank for rank, d in zip(ranks, nonzero) if d > 0) - mean)
    signs = list(itertools.product((False, True), repeat=len(ranks)))
    extreme = sum(1 for positive in signs
                  if abs(sum(rank for rank, p in zip(ranks, positive) if p) - mean) >= observed)
    return extreme / len(signs)


class ExactTest(unittest.TestCase):
    def test_textbook_ten_pairs(self):
        # Negative ranks 2 and 8: W- = 10, and P(W <= 10) = 43/1024 for n = 10, so p = 86/1024
        # (scipy.stats.wilcoxon gives 0.083984375 for these differences).
        result = signed_rank_test([1, -2, 3, 4, 5, 6, 7, -8, 9, 10])
        self.assertEqual(result.w_plus, 45)
        self.assertTrue(result.exact)
        self.assertAlmostEqual(result.p_value, 86 / 1024, places=15)

    def test_all_on_one_side_is_the_smallest_p(self):
        for n in (1, 5, 6, 10):
            self.assertAlmostEqual(signed_rank_test([0.01 * (i + 1) for i in range(n)]).p_value,
                                   smallest_p_value(n), places=15)
        self.assertAlmostEqual(smallest_p_value(5), 0.0625)
        self.assertAlmostEqual(smallest_p_value(6), 0.03125)

    def test_sign_does_not_matter(self):
        differences = [0.3, -0.1, 0.25, 0.05, 0.4, -0.2, 0.15]
        self.assertEqual(signed_rank_test(differences).p_value,
                         signed_rank_test([-d for d in differences]).p_value)

    def test_zeros_are_dropped(self):
        self.assertEqual(signed_rank_test([0, 0, 1, 2, 3, 4, 5, 6]).p_value,
                         signed_rank_test([1, 2, 3, 4, 5, 6]).p_value)

    def test_all_zero_gives_one(self):
        self.assertEqual(signed_rank_test([0.0] * 8).p_value, 1.0)

    def test_matches_brute_force_with_and_without_ties(self):
        generator = random.Random(20261121)
        for _ in range(200):
            n = generator.randint(1, 11)
            differences = [generator.choice([-3, -2, -1, 1, 2, 3, 4]) * generator.choice([1, 1, 2])
                           for _ in range(n)]
            self.assertAlmostEqual(signed_rank_test(differences).p_value,
                                   brute_force_p_value(differences), places=12,
                                   msg=f"differences {differences}")


class NormalApproximationTest(unittest.TestCase):
    def test_used_above_the_exact_limit(self):
        differences = [(-1) ** i * (i + 1) + 5 for i in range(EXACT_MAX_PAIRS + 1)]
        self.assertFalse(signed_rank_test(differences).exact)

    def test_close_to_the_exact_value_at_the_limit(self):
        generator = random.Random(7)
        for shift in (0.0, 0.2, 0.5):
            differences = [generator.gauss(shift, 1) for _ in range(EXACT_MAX_PAIRS)]
            exact = signed_rank_test(differences).p_value
            ranks = wilcoxon_signed_rank._doubled_ranks([abs(d) for d in differences])
            w_plus = sum(rank for rank, d in zip(ranks, differences) if d > 0)
            approximate = wilcoxon_signed_rank._normal_approximation_p_value(ranks, w_plus)
            self.assertTrue(math.isclose(exact, approximate, abs_tol=0.01),
                            msg=f"shift {shift}: exact {exact}, approximation {approximate}")


if __name__ == "__main__":
    unittest.main()
