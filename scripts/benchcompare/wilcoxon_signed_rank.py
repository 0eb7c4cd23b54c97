"""Two-sided Wilcoxon signed-rank test of paired samples.

For runs made side by side (scripts/bench --against): repetition i of both runs ran moments apart,
so a slow phase of the machine slows both and their log-ratio d_i = log(current_i / baseline_i)
cancels it. The test asks whether the d_i lean to one side of zero, using only their signs and
the order of their sizes: an outlier weighs no more than any other pair. Zero differences are
dropped (Wilcoxon's convention); tied sizes get the mean of the ranks they span.
"""

import math
from dataclasses import dataclass
from functools import lru_cache

# Up to this many pairs the p-value comes from the exact distribution; above it the normal
# approximation is within a few thousandths of the exact value.
EXACT_MAX_PAIRS = 40


@dataclass(frozen=True)
class SignedRankResult:
    w_plus: float  # the sum of the ranks of the positive differences
    p_value: float
    exact: bool


def signed_rank_test(differences):
    """Tests whether `differences` (a sequence of numbers) are centred on zero."""
    nonzero = [d for d in differences if d != 0]
    if not nonzero:
        return SignedRankResult(0.0, 1.0, True)
    ranks = _doubled_ranks([abs(d) for d in nonzero])
    doubled_w_plus = sum(rank for rank, d in zip(ranks, nonzero) if d > 0)
    exact = len(nonzero) <= EXACT_MAX_PAIRS
    p_value = (_exact_p_value(tuple(sorted(ranks)), doubled_w_plus) if exact
               else _normal_approximation_p_value(ranks, doubled_w_plus))
    return SignedRankResult(doubled_w_plus / 2, p_value, exact)


def smallest_p_value(pairs):
    """The smallest p-value `pairs` nonzero differences can reach: every one on the same side."""
    return min(1.0, 2 / 2 ** pairs)


def _doubled_ranks(sizes):
    """Twice the mid-ranks of `sizes`, in their order: integers, so sums compare exactly."""
    order = sorted(range(len(sizes)), key=lambda i: sizes[i])
    ranks = [0] * len(sizes)
    start = 0
    while start < len(order):
        end = start
        while end + 1 < len(order) and sizes[order[end + 1]] == sizes[order[start]]:
            end += 1
        for position in range(start, end + 1):
            ranks[order[position]] = start + end + 2
        start = end + 1
    return ranks


def _exact_p_value(doubled_ranks, doubled_w_plus):
    """P(|W+ - mean| >= |w+ - mean|) over the 2^n equally likely sign assignments: exact with
    tied sizes too (the test conditional on them)."""
    counts = _signed_rank_sum_counts(doubled_ranks)
    total = sum(doubled_ranks)  # mean of the doubled W+ is total / 2
    observed = abs(2 * doubled_w_plus - total)
    extreme = sum(count for value, count in enumerate(counts) if abs(2 * value - total) >= observed)
    return min(1.0, extreme / 2 ** len(doubled_ranks))


def _normal_approximation_p_value(doubled_ranks, doubled_w_plus):
    """Normal approximation of W+ with the variance computed from the (mid-)ranks themselves,
    which corrects for ties, and a continuity correction."""
    ranks = [rank / 2 for rank in doubled_ranks]
    mean = sum(ranks) / 2
    variance = sum(rank * rank for rank in ranks) / 4
    distance = max(0.0, abs(doubled_w_plus / 2 - mean) - 0.5)
    return min(1.0, math.erfc(distance / math.sqrt(2 * variance)))


@lru_cache(maxsize=64)
def _signed_rank_sum_counts(doubled_ranks):
    """counts[s]: how many subsets of the ranks (the positive ones) sum to s.

    Dynamic programming over the ranks: each one either joins a subset or not."""
    counts = [1] + [0] * sum(doubled_ranks)
    reach = 0
    for rank in doubled_ranks:
        reach += rank
        for total in range(reach, rank - 1, -1):
            counts[total] += counts[total - rank]
    return counts
