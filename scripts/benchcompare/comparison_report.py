"""Everything compared between two runs, and what of it gates."""

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

    @property
    def times_gate(self):
        """Either the times gate or the speedup ratios do, never both. Times mean something only
        between runs on the same kind of machine; there they are the direct measure, and a
        ratio also falls when its reference benchmark gets faster, which is no regression."""
        return not self.ratios_only and not self.machine_differences

    def regressions(self):
        gating = self.benchmarks if self.times_gate else self.ratios
        return [comparison for comparison in gating if comparison.verdict is Verdict.SLOWER]


def compare_runs(baseline, current, alpha, minimum_effects, min_repetitions, ratios_only=False,
                 paired=False):
    """Raises UnusableInput if the runs cannot be compared. With `paired`, repetitions pair up by
    index and each pair's ratio is what is tested (compare_paired_samples)."""
    names = common_benchmarks(baseline, current, min_repetitions)
    if paired:
        _check_pairs(baseline, current, names)
    compare = compare_paired_samples if paired else compare_samples
    benchmarks = [
        compare(name, *_values(baseline.benchmarks[name].times_ns, current.benchmarks[name].times_ns, paired),
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
    return ComparisonReport(benchmarks, ratios, differences, ratios_only, paired)


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
