"""The verdict on one quantity measured in two runs: slower, faster or the same."""

import enum
import math
import statistics
from dataclasses import dataclass

from .mann_whitney import mann_whitney_u_test
from .wilcoxon_signed_rank import signed_rank_test

# Medians are rounded floating-point numbers: a change of exactly 10% computes as 0.1 plus or
# minus a few ulps. Changes this close to the minimum effect count as equal to it, so that a
# change at the limit is never flagged, whichever way the rounding went.
ROUNDING_TOLERANCE = 1e-9


class Verdict(enum.Enum):
    SLOWER = "slower"
    FASTER = "faster"
    SAME = "same"


@dataclass(frozen=True)
class Comparison:
    name: str
    baseline_median: float
    current_median: float
    change: float  # current median / baseline median - 1; paired: the median of the ratios - 1
    p_value: float
    min_effect: float  # fraction of the baseline median a change must exceed
    verdict: Verdict


def compare_samples(name, baseline, current, alpha, min_effect, higher_is_faster=False):
    """Compares repetition values; `higher_is_faster` for speedups, not for times.

    A difference counts only if it is both unlikely to be chance (p < alpha) and larger than
    `min_effect`: with many repetitions a tiny shift becomes significant, and on a noisy machine
    a whole run can shift at once, which the test, seeing repetitions alike, takes as real."""
    baseline_median = statistics.median(baseline)
    current_median = statistics.median(current)
    change = current_median / baseline_median - 1
    p_value = mann_whitney_u_test(baseline, current).p_value
    return Comparison(name, baseline_median, current_median, change, p_value, min_effect,
                      _verdict(change, p_value, alpha, min_effect, higher_is_faster))


def compare_paired_samples(name, baseline, current, alpha, min_effect, higher_is_faster=False):
    """Like compare_samples, for repetitions that ran in pairs (baseline[i] beside current[i]).

    The change is the median of the ratios current[i] / baseline[i], and the test the Wilcoxon
    signed-rank test of their logarithms: what the machine did to both members of a pair cancels,
    so far smaller changes stand out of the noise than between runs made apart."""
    if len(baseline) != len(current):
        raise ValueError(f"{name}: {len(baseline)} baseline and {len(current)} current values do not pair up")
    change = statistics.median(c / b for b, c in zip(baseline, current)) - 1
    p_value = signed_rank_test([math.log(c / b) for b, c in zip(baseline, current)]).p_value
    return Comparison(name, statistics.median(baseline), statistics.median(current), change, p_value,
                      min_effect, _verdict(change, p_value, alpha, min_effect, higher_is_faster))


def verdict_of_change(change, min_effect, higher_is_faster=False):
    """The verdict on a relative change that needs no test (or passed it): beyond the minimum
    effect, slower or faster as the quantity's direction says; else the same."""
    if abs(change) > min_effect + ROUNDING_TOLERANCE:
        got_larger = change > 0
        return Verdict.FASTER if got_larger == higher_is_faster else Verdict.SLOWER
    return Verdict.SAME


def _verdict(change, p_value, alpha, min_effect, higher_is_faster):
    return verdict_of_change(change, min_effect, higher_is_faster) if p_value < alpha else Verdict.SAME
