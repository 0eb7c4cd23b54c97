"""The verdict on one quantity measured in two runs: slower, faster or the same."""

import enum
import statistics
from dataclasses import dataclass

from .mann_whitney import mann_whitney_u_test

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
    change: float  # current median / baseline median - 1
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
    verdict = Verdict.SAME
    if p_value < alpha and abs(change) > min_effect + ROUNDING_TOLERANCE:
        got_larger = change > 0
        verdict = Verdict.FASTER if got_larger == higher_is_faster else Verdict.SLOWER
    return Comparison(name, baseline_median, current_median, change, p_value, min_effect, verdict)
