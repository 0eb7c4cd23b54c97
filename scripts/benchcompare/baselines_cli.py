"""The command line of scripts/baselines."""

import argparse
import sys
from pathlib import Path

from .baseline_store import find_baseline, find_minimum_effects, save_baseline
from .benchmark_run import load_benchmark_run
from .unusable_input import UnusableInput, print_problems

PROGRAM = "scripts/baselines"
DEFAULT_DIRECTORY = Path(__file__).resolve().parents[2] / "data" / "baselines"

DESCRIPTION = """\
The saved baselines: one Google Benchmark JSON run of build/benches per machine fingerprint (CPU
model, cores, clock, caches, compiler, build type, SIMD instruction set: the context fields that
scripts/compare checks), in DIR.

  find RUN.json   prints the path of the baseline to compare RUN.json with: the one recorded on
                  RUN's fingerprint, else the newest other one (then only its speedup ratios
                  gate, which scripts/compare decides by itself); says which on stderr.
                  With --commit, prints the git commit that baseline was measured at instead
                  (its context's git_commit), for scripts/bench --against; a baseline
                  measured on uncommitted changes (a git_commit ending in -dirty) has none
  floors RUN.json prints the path of the minimum effects (noise floors) to gate RUN.json's times
                  with: those measured on RUN's fingerprint, a file beside its baseline with the
                  baseline's name and the suffix .minimum_effects, else DIR/minimum_effects
  save RUN.json   copies RUN.json into DIR under its fingerprint's name, replacing the baseline
                  of that fingerprint, and prints the new path (a .minimum_effects file of the
                  fingerprint stays: same fingerprint, same name)"""

EPILOG = """\
exit status: 0 done; 2 unusable input (a file missing or not a run with one row per repetition,
a missing directory, no baseline to find, no default minimum effects), with a message for each
problem."""


def main(argv=None):
    arguments = _parse_arguments(argv)
    try:
        if arguments.command == "find":
            run = load_benchmark_run(arguments.run)
            path, same_machine = find_baseline(arguments.dir, run.context)
            how = ("recorded on this machine's fingerprint" if same_machine else
                   "recorded on another machine: only speedup ratios will gate")
            print(f"{PROGRAM}: baseline {path.name}: {how}", file=sys.stderr)
            if arguments.commit:
                commit = load_benchmark_run(path).context.get("git_commit")
                if not isinstance(commit, str) or not commit or commit == "unknown":
                    raise UnusableInput([f"{path} records no git_commit"])
                if commit.endswith("-dirty"):
                    raise UnusableInput([f"{path} was measured on uncommitted changes to {commit[:-6]} "
                                         f"(git_commit {commit}): no commit holds its code"])
                print(commit)
                return 0
        elif arguments.command == "floors":
            path, own_machine = find_minimum_effects(arguments.dir, load_benchmark_run(arguments.run).context)
            how = ("measured on this machine's fingerprint" if own_machine else
                   "the defaults: no floors were measured on this machine's fingerprint")
            print(f"{PROGRAM}: minimum effects {path.name}: {how}", file=sys.stderr)
        else:
            path, replaced = save_baseline(arguments.run, arguments.dir)
            for old in replaced:
                print(f"{PROGRAM}: replaced {old.name}", file=sys.stderr)
    except UnusableInput as error:
        print_problems(PROGRAM, error.messages)
        return 2
    print(path)
    return 0


def _parse_arguments(argv):
    parser = argparse.ArgumentParser(prog=PROGRAM, description=DESCRIPTION, epilog=EPILOG,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("command", choices=("find", "floors", "save"))
    parser.add_argument("run", metavar="RUN.json", help="a run of build/benches")
    parser.add_argument("--commit", action="store_true",
                        help="find: print the baseline's git commit instead of its path")
    parser.add_argument("--dir", type=Path, default=DEFAULT_DIRECTORY,
                        help="the baselines (default: data/baselines of this repository)")
    return parser.parse_args(argv)
