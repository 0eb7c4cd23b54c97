"""Everything compared between two runs, and what of it gates."""

import statistics
from dataclasses import dataclass

from .benchmark_matching import common_benchmarks
from .machine_fingerprint import fingerprint_differences
from .minimum_effects import minimum_effect_for
from .speedup_ratios import ratio_samples
from .unusable_input import UnusableInput
from .verdicts import Verdict, compare_paired_samples, compare_samples


@dataclass(frozen=True)
class ComparisonReport:
    benchmarks: list  # of Comparison, of times
    ratios: list  # of Comparison, of speedups
    machine_differences: list  # of FieldDifference
    ratios_only: bool  # asked for on the command line
    paired: bool = False  # repetition i of both runs ran side by side (scripts/bench --against)
    drift: float = None  # with --drift: the common change divided out of the current times, else None

    @property
    def times_gate(self):
        """Either the times gate or the speedup ratios do, never both. Times mean something only
        between runs on the same kind of machine; there they are the direct measure, and a
        ratio also falls when its reference benchmark gets faster, which is no regression."""
        return not self.ratios_only and not self.machine_differences

    def regressions(self):
        gating = self.benchmarks if self.times_gate else self.ratios
        return [comparison for comparison in gating if comparison.verdict is Verdict.SLOWER]


# Fewest benchmarks whose median change tells a drift of the whole machine: with fewer, one
# regressed benchmark would move the median itself.
MIN_DRIFT_BENCHMARKS = 5


def compare_runs(baseline, current, alpha, minimum_effects, min_repetitions, ratios_only=False,
                 paired=False, drift=False):
    """Raises UnusableInput if the runs cannot be compared. With `paired`, repetitions pair up by
    index and each pair's ratio is what is tested (compare_paired_samples). With `drift`, the
    current times are first divided by common_drift (not with `paired`, whose pairs cancel it)."""
    names = common_benchmarks(baseline, current, min_repetitions)
    if paired:
        _check_pairs(baseline, current, names)
    compare = compare_paired_samples if paired else compare_samples
    factor = common_drift(baseline, current, names) if drift else None
    benchmarks = [
        compare(name, *_values(baseline.benchmarks[name].times_ns,
                               {i: time / (factor or 1.0) for i, time in current.benchmarks[name].times_ns.items()},
                               paired),
                alpha, minimum_effect_for(name, minimum_effects))
        for name in names
    ]
    # Both runs have the same benchmarks, hence the same ratios.
    current_ratios = {ratio.name: ratio for ratio in ratio_samples(current)}
    ratio_pairs = [(ratio, current_ratios[ratio.name]) for ratio in ratio_samples(baseline)]
    problems = [
        f"{run.path}: {ratio.candidate} and {ratio.reference} share only {len(ratio.speedups)} "
        f"repetition indices, fewer than --min-repetitions {min_repetitions}"
        for pair in ratio_pairs
        for run, ratio in zip((baseline, current), pair)
        if len(ratio.speedups) < min_repetitions
    ]
    if problems:
        raise UnusableInput(problems)
    ratios = [
        compare(base_ratio.name,
                *_values(dict(zip(base_ratio.repetitions, base_ratio.speedups)),
                         dict(zip(current_ratio.repetitions, current_ratio.speedups)), paired),
                alpha,
                # A ratio is as noisy as the noisier of its two benchmarks.
                max(minimum_effect_for(base_ratio.candidate, minimum_effects),
                    minimum_effect_for(base_ratio.reference, minimum_effects)),
                higher_is_faster=True)
        for base_ratio, current_ratio in ratio_pairs
    ]
    differences = fingerprint_differences(baseline.context, current.context)
    return ComparisonReport(benchmarks, ratios, differences, ratios_only, paired, factor)


def common_drift(baseline, current, names):
    """The median over NAMES of current median / baseline median: how much the machine moved
    every benchmark between two runs made apart. A slow phase of a shared host slows all of them
    alike; a regression of the code slows some. Divided out, the phase cancels and the
    regression stands out. A change that slows every benchmark alike cancels as well: the
    speedup ratios and the calibration benchmark, which no code change moves, tell those."""
    if len(names) < MIN_DRIFT_BENCHMARKS:
        raise UnusableInput([f"--drift needs {MIN_DRIFT_BENCHMARKS} or more benchmarks in common to tell "
                             f"a drift of the machine from a regression; these runs have {len(names)}"])
    return statistics.median(statistics.median(current.benchmarks[name].times_ns.values()) /
                             statistics.median(baseline.benchmarks[name].times_ns.values())
                             for name in names)


def _values(baseline, current, paired):
    """The (baseline, current) values to compare from two {repetition index: value} maps: all of
    them, or with `paired` those of the indices both have, in the same order."""
    if not paired:
        return list(baseline.values()), list(current.values())
    shared = sorted(baseline.keys() & current.keys())
    return [baseline[i] for i in shared], [current[i] for i in shared]


def _check_pairs(baseline, current, names):
    problems = []
    for name in names:
        base, cur = baseline.benchmarks[name].times_ns, current.benchmarks[name].times_ns
        if base.keys() != cur.keys():
            problems.append(f"{name}: repetitions {_indices(base.keys() - cur.keys())} of {baseline.path} and "
                            f"{_indices(cur.keys() - base.keys())} of {current.path} have no partner; paired "
                            "runs repeat every benchmark in the same rounds")
    if problems:
        raise UnusableInput(problems)


def _indices(indices):
    return ", ".join(str(i) for i in sorted(indices)) or "none"
