"""Our SDPA implementations measured beside torch's in the same rounds (scripts/peers --ours-sdpa):
each repetition of ours is one run of build/benches for exactly that benchmark, so that on a
machine whose speed moves between minutes ours and torch's see the same minutes, and the ratio
of each round, not of two runs minutes apart, is what the table reports: ours over torch of the
same element type, ours in bfloat16 over ours in float where both run, and, for decoding, the
fraction of the memory bandwidth that build/benches measured in the same process seconds before
(its bandwidth_fraction)."""

import json
import statistics
import subprocess

from .sdpa import SDPA_VARIANTS


def dtype_of(implementation):
    """The element type of one of our implementations, by the registry's naming: *_bf16 for
    bfloat16."""
    return "bfloat16" if implementation.endswith("_bf16") else "float32"


def our_name(family_and_shape, implementation):
    """Our benchmark's name for a torch row's FAMILY/SHAPE (sdpa/... or sdpa_decode/...)."""
    family, _, shape = family_and_shape.partition("/")
    return f"{family}/{implementation}/{shape}/real_time"


def counterparts(implementation, variants):
    """The torch variants of VARIANTS whose ratios against IMPLEMENTATION are reported: those of
    its element type."""
    return [v for v in variants if SDPA_VARIANTS[v][2] == dtype_of(implementation)]


# The counters of a run of build/benches that its record keeps as they are: ratios of that run,
# not amounts a second.
KEPT_COUNTERS = ("bandwidth_fraction",)


def parse_benches_run(output, name):
    """(iterations, real ns, cpu ns, kept) of the single run of NAME in build/benches' JSON OUTPUT,
    the times in total over its iterations, kept its counters of KEPT_COUNTERS; ValueError if there
    is none or it failed."""
    for row in json.loads(output).get("benchmarks", []):
        if row.get("run_name", row.get("name")) != name or row.get("run_type", "iteration") != "iteration":
            continue
        if row.get("error_occurred"):
            raise ValueError(f"{name}: {row.get('error_message', 'failed')}")
        scale = {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}[row.get("time_unit", "ns")]
        iterations = row["iterations"]
        kept = {counter: row[counter] for counter in KEPT_COUNTERS if counter in row}
        return iterations, row["real_time"] * scale * iterations, row["cpu_time"] * scale * iterations, kept
    raise ValueError(f"build/benches ran no {name}")


class BenchesRunner:
    """Runs one benchmark of build/benches (BENCHES) for at least MIN_TIME seconds."""

    def __init__(self, benches, min_time):
        self.benches, self.min_time = benches, min_time
        self._names = None

    def names(self):
        """Every benchmark build/benches has, listed once."""
        if self._names is None:
            listed = subprocess.run([str(self.benches), "--benchmark_list_tests"], check=True, capture_output=True,
                                    text=True).stdout
            self._names = set(listed.split())
        return self._names

    def run(self, name):
        """(iterations, real ns, cpu ns, kept counters) of one run of NAME; ValueError if it failed."""
        done = subprocess.run([str(self.benches), f"--benchmark_filter=^{name}$", "--benchmark_format=json",
                               f"--benchmark_min_time={self.min_time}", "--benchmark_repetitions=1"],
                              capture_output=True, text=True)
        if done.returncode != 0:
            raise ValueError(f"build/benches exited with {done.returncode}: {done.stderr.strip()[-300:]}")
        return parse_benches_run(done.stdout, name)


def round_ratios(ours, theirs):
    """Per round, ours' rate over theirs (time per call, theirs over ours), from the iteration
    records of two benchmarks measured in the same rounds."""
    return [t["real_time"] / o["real_time"] for o, t in zip(ours, theirs)]


def float_counterpart(implementation):
    """Our float implementation that IMPLEMENTATION computes in bfloat16 (flash for flash_bf16),
    or None for a float one."""
    return implementation.removesuffix("_bf16") if dtype_of(implementation) == "bfloat16" else None


def ratio_rows(records, pairs):
    """(ours, what, median, lowest, highest) of the per-round ratios of each (ours name, theirs
    name, theirs' implementation) of PAIRS that both have records in RECORDS (name -> iteration
    records), `what` "/ " and the implementation ("/ torch_bf16", "/ decode"); then of every
    benchmark whose records keep a bandwidth_fraction, `what` "of bandwidth"."""
    rows = []
    for ours, theirs, implementation in pairs:
        if ours in records and theirs in records:
            ratios = round_ratios(records[ours], records[theirs])
            if ratios:
                rows.append((ours, f"/ {implementation}", statistics.median(ratios), min(ratios), max(ratios)))
    for name, runs in records.items():
        fractions = [record["bandwidth_fraction"] for record in runs if "bandwidth_fraction" in record]
        if fractions:
            rows.append((name, "of bandwidth", statistics.median(fractions), min(fractions), max(fractions)))
    return rows


def print_ratio_rows(rows):
    if not rows:
        return
    width = max(len(ours) for ours, *_ in rows)
    print("\nours in the same rounds as torch: medians of the per-round ratios [lowest .. highest]; "
          "of bandwidth: over the memory bandwidth build/benches measured seconds before in the same process")
    for ours, what, median, lowest, highest in rows:
        if what == "of bandwidth":
            print(f"{ours:<{width}}  {what:<14} {median:6.0%}   [{lowest:.0%} .. {highest:.0%}]")
        else:
            print(f"{ours:<{width}}  {what:<14} {median:6.2f}x  [{lowest:.2f} .. {highest:.2f}]")
