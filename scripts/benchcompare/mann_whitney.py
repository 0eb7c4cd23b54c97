"""Two-sided Mann-Whitney U test (Wilcoxon rank-sum test) of two independent samples.

It asks whether the values of one sample tend to be larger than those of the other, using only
their order: an outlier, common in timings on a shared machine, weighs no more than any other
value. Tied values get the mean of the ranks they span (mid-ranks).
"""

import math
from dataclasses import dataclass
from functools import lru_cache

# Up to this many values on each side the p-value comes from the exact distribution (60 values
# in all take about half a second, once per sample shape); above it the normal approximation is
# within a few thousandths of the exact value.
EXACT_MAX_PER_SIDE = 30


@dataclass(frozen=True)
class MannWhitneyResult:
    u: float  # of the first sample: pairs (x, y) with x > y, plus half of those with x == y
    p_value: float
    exact: bool  # from the exact distribution, not the normal approximation


def mann_whitney_u_test(x, y):
    """Tests sample `x` against sample `y` (sequences of numbers, neither empty)."""
    if not x or not y:
        raise ValueError("Mann-Whitney U test of an empty sample")
    exact = len(x) <= EXACT_MAX_PER_SIDE and len(y) <= EXACT_MAX_PER_SIDE
    p_value = exact_p_value(x, y) if exact else normal_approximation_p_value(x, y)
    return MannWhitneyResult(_DoubledRanks(x, y).doubled_u / 2, p_value, exact)


def exact_p_value(x, y):
    """P(|U - mean| >= |u - mean|) over all equally likely ways of splitting the pooled values
    into samples of len(x) and len(y): exact with ties too (the test conditional on them)."""
    ranks = _DoubledRanks(x, y)
    n = len(x)
    counts = _rank_sum_counts(tuple(ranks.pooled), n)
    # Doubled rank sums are integers, so these comparisons are exact.
    mean = n * (len(ranks.pooled) + 1)
    observed = abs(ranks.sum_of_x - mean)
    extreme = sum(count for total, count in enumerate(counts) if abs(total - mean) >= observed)
    return extreme / math.comb(len(ranks.pooled), n)


def normal_approximation_p_value(x, y):
    """Normal approximation of U with the tie correction of its variance and a continuity
    correction (as scipy.stats.mannwhitneyu(method="asymptotic"))."""
    ranks = _DoubledRanks(x, y)
    n, m = len(x), len(y)
    pooled = n + m
    tie_term = sum(size ** 3 - size for size in ranks.tie_group_sizes)
    variance = n * m / 12 * ((pooled + 1) - tie_term / (pooled * (pooled - 1)))
    if variance <= 0:  # every value is equal: nothing tells the samples apart
        return 1.0
    distance = max(0.0, abs(ranks.doubled_u / 2 - n * m / 2) - 0.5)
    return min(1.0, math.erfc(distance / math.sqrt(2 * variance)))


def smallest_p_value(n, m):
    """The smallest exact p-value samples of n and m distinct values can reach: one sample
    entirely above the other."""
    return min(1.0, 2 / math.comb(n + m, n))


class _DoubledRanks:
    """Twice the mid-ranks of the pooled values: a tie group at sorted positions i..j (from 1)
    has mid-rank (i + j) / 2, so doubled ranks are integers."""

    def __init__(self, x, y):
        pooled = sorted([(value, True) for value in x] + [(value, False) for value in y])
        self.pooled = []  # in increasing order
        self.tie_group_sizes = []
        start = 0
        while start < len(pooled):
            end = start
            while end + 1 < len(pooled) and pooled[end + 1][0] == pooled[start][0]:
                end += 1
            size = end - start + 1
            self.pooled += [start + end + 2] * size
            self.tie_group_sizes.append(size)
            start = end + 1
        self.sum_of_x = sum(rank for rank, (_, in_x) in zip(self.pooled, pooled) if in_x)
        self.doubled_u = self.sum_of_x - len(x) * (len(x) + 1)


@lru_cache(maxsize=64)
def _rank_sum_counts(doubled_ranks, size):
    """counts[s]: how many subsets of `size` of the pooled values have doubled ranks summing to s.

    Dynamic programming over the values: by_size[k][s] counts the subsets of k of the values seen
    so far that sum to s; a value of rank r extends each subset of k - 1 of them to one of k.
    Without ties this is the textbook distribution of the rank sum."""
    total = sum(doubled_ranks)
    by_size = [[1] + [0] * total] + [[0] * (total + 1) for _ in range(size)]
    for seen, rank in enumerate(doubled_ranks):
        # Larger k first, so that by_size[k - 1] does not include this value yet.
        for k in range(min(seen + 1, size), 0, -1):
            target = by_size[k]
            by_size[k] = target[:rank] + [
                count + extended for count, extended in zip(target[rank:], by_size[k - 1])
            ]
    return by_size[size]
