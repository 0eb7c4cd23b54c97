"""Speedups between members of one family measured in the same run.

A machine that is faster or busier as a whole moves every benchmark of a run together, so the
ratio of two of them carries over between machines and between quiet and noisy moments far better
than either time does.
"""

from dataclasses import dataclass

from .benchmark_names import family_and_member


@dataclass(frozen=True)
class SpeedupRatio:
    """How many times faster `candidate` is than `reference` in the same family."""

    candidate: str
    reference: str


# A family gets every ratio whose two members it has; a new pair is one line here.
SPEEDUP_RATIOS = (
    SpeedupRatio("simd", "serial"),
    SpeedupRatio("parallel", "serial"),
    SpeedupRatio("simd_parallel", "simd"),
    SpeedupRatio("simd", "scalar"),  # pretokenization: SIMD batch scanner vs hand-written one
)


@dataclass(frozen=True)
class RatioSamples:
    name: str  # e.g. "long_encoding simd/serial"
    candidate: str  # full benchmark names
    reference: str
    speedups: tuple  # time(reference)_i / time(candidate)_i, one per repetition i in both
    repetitions: tuple = ()  # the repetition index i of each speedup


def ratio_samples(run):
    """Every ratio of SPEEDUP_RATIOS that RUN has, in the order of its families."""
    members = {}  # family -> member -> BenchmarkSamples
    for name, samples in run.benchmarks.items():
        family, member = family_and_member(name)
        members.setdefault(family, {})[member] = samples
    ratios = []
    for family, by_member in members.items():
        for ratio in SPEEDUP_RATIOS:
            if ratio.candidate in by_member and ratio.reference in by_member:
                candidate, reference = by_member[ratio.candidate], by_member[ratio.reference]
                ratios.append(_pair(family, ratio, candidate, reference))
    return ratios


def _pair(family, ratio, candidate, reference):
    # Repetitions pair up by index. They need not have run close in time (random interleaving
    # shuffles all repetitions of the run), so a ratio sample holds the noise of both times; what
    # cancels is a change of the whole machine between the two runs compared.
    shared = sorted(candidate.times_ns.keys() & reference.times_ns.keys())
    speedups = tuple(reference.times_ns[i] / candidate.times_ns[i] for i in shared)
    name = f"{family} {ratio.candidate}/{ratio.reference}"
    return RatioSamples(name, candidate.name, reference.name, speedups, tuple(shared))
