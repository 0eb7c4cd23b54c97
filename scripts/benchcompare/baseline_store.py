"""data/baselines/: one Google Benchmark run per machine fingerprint, found by the context of a
new run.

A file's name is readable (CPU, cores, ISA, compiler, build type) and ends in a hash of every
fingerprint field, so two machines that differ only in their caches or clock still get two files.
What decides whether a file belongs to a run is its context, not its name.
"""

import hashlib
import json
import os
import re
from pathlib import Path

from .benchmark_run import load_benchmark_run
from .machine_fingerprint import FINGERPRINT_FIELDS, fingerprint_differences
from .unusable_input import UnusableInput


# File systems allow 255 bytes a name: five parts of this, with the hash, stay under it.
SLUG_LENGTH = 40


def baseline_file_name(context):
    readable = [context.get("cpu_model", "unknown-cpu"), f"{context.get('num_cpus', '?')}cpus",
                context.get("simd_isa", ""), context.get("compiler", ""),
                context.get("build_type", "")]
    slug = "-".join(_slug(str(part)) for part in readable if part)
    fingerprint = json.dumps({key: context.get(key) for key in FINGERPRINT_FIELDS},
                             sort_keys=True)
    return f"{slug}-{hashlib.sha256(fingerprint.encode()).hexdigest()[:8]}.json"


def _slug(text):
    """TEXT for a file name: lower case, runs of other characters as one '_', at most
    SLUG_LENGTH characters (the hash that ends the name tells runs apart, not the slug)."""
    return re.sub(r"[^a-z0-9.]+", "_", text.lower()).strip("_")[:SLUG_LENGTH]


def stored_runs(directory):
    """Every run in DIRECTORY (its *.json files), sorted by name; raises UnusableInput for a
    missing directory or a file that is not a usable run."""
    directory = Path(directory)
    if not directory.is_dir():
        raise UnusableInput([f"{directory} is not a directory of baselines"])
    runs, problems = [], []
    for path in sorted(directory.glob("*.json")):
        try:
            runs.append(load_benchmark_run(path))
        except UnusableInput as error:
            problems += error.messages
    if problems:
        raise UnusableInput(problems)
    return runs


def find_baseline(directory, context):
    """(path, same_machine): the baseline recorded on this machine's fingerprint if there is
    one, else the newest of the others, whose speedup ratios still carry over."""
    runs = stored_runs(directory)
    if not runs:
        raise UnusableInput([f"{directory} holds no baseline (*.json); record one with "
                             "scripts/bench --save-baseline"])
    for run in runs:
        if not fingerprint_differences(run.context, context):
            return Path(run.path), True
    newest = max(runs, key=lambda run: str(run.context.get("date", "")))
    return Path(newest.path), False


DEFAULT_MINIMUM_EFFECTS_NAME = "minimum_effects"
MINIMUM_EFFECTS_SUFFIX = ".minimum_effects"


def find_minimum_effects(directory, context):
    """(path, own_machine): the minimum effects to gate a run's times with. A machine whose noise
    was measured has them beside its baseline, under the baseline's name with the suffix
    .minimum_effects; every other run gets the directory's minimum_effects, the floors of the
    noisiest machine measured."""
    baseline, same_machine = find_baseline(directory, context)
    own = baseline.with_suffix(MINIMUM_EFFECTS_SUFFIX)
    if same_machine and own.is_file():
        return own, True
    default = Path(directory) / DEFAULT_MINIMUM_EFFECTS_NAME
    if not default.is_file():
        raise UnusableInput([f"{directory} holds no {DEFAULT_MINIMUM_EFFECTS_NAME} file of default noise floors"])
    return default, False


def save_baseline(results_path, directory):
    """Copies the run RESULTS_PATH into DIRECTORY under its fingerprint's name, replacing the
    baselines recorded on the same fingerprint; returns (new path, replaced paths)."""
    run = load_benchmark_run(results_path)
    if not any(samples.times_ns for samples in run.benchmarks.values()):
        raise UnusableInput([f"{results_path} has no row per repetition (it was run with "
                             "--benchmark_report_aggregates_only): a baseline needs them"])
    replaced = [Path(old.path) for old in stored_runs(directory)
                if not fingerprint_differences(old.context, run.context)]
    target = Path(directory) / baseline_file_name(run.context)
    # The new file whole first, beside the store's files (not a .json: not one of them) and then
    # renamed over its name: a baseline that cannot be written leaves the old ones as they were.
    partial = target.with_name(target.name + ".partial")
    try:
        partial.write_bytes(Path(results_path).read_bytes())
        os.replace(partial, target)
    except OSError as error:
        partial.unlink(missing_ok=True)
        raise UnusableInput([f"cannot write {target}: {error.strerror}"]) from None
    for path in replaced:
        if path != target:
            path.unlink()
    return target, replaced
