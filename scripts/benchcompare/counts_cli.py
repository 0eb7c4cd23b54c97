"""The command line of scripts/counts."""

import argparse
import re
import shutil
from pathlib import Path

from .callgrind_counting import ISA_CAP, count_workloads, list_workloads, read_context
from .cli import regular_expression
from .instruction_count_run import COUNTER, KEY_FIELDS, counts_document, dumps, load_counts
from .unusable_input import UnusableInput, print_problems

PROGRAM = "scripts/counts"
REPOSITORY = Path(__file__).resolve().parents[2]
DEFAULT_DIRECTORY = REPOSITORY / "data" / "baselines" / "counts"

DESCRIPTION = f"""\
The instruction-count gate's measurements: every workload of build/bench_counts (the work of
each benchmark, done a fixed number of times) run in its own process under valgrind's callgrind,
which counts the instructions of the workload's iterations alone. Counts repeat exactly from run
to run and machine to machine (for one compiler and one instruction set: the kernels are capped
at TOKBENCH_MAX_ISA={ISA_CAP}, the widest valgrind runs), so a change of the code shows, however
noisy the machine. scripts/bench --counts runs all of this and compares.

  run --out FILE   counts every workload (or those of --filter), --jobs at a time, printing each
                   as it finishes, into FILE: Google-Benchmark-shaped JSON, one row per workload
                   with the counter "{COUNTER}" (per iteration)
  baseline RUN     prints the stored counts to compare RUN with: DIR/KEY.json, KEY naming the
                   context fields {", ".join(KEY_FIELDS)} of RUN
  save RUN         stores RUN as the counts of its key, replacing any, and prints the path"""

EPILOG = """\
exit status: 0 done; 2 unusable input (valgrind missing or failing, a workload failing, a file
that is not a counting run, no stored counts for the key), with a message for each problem."""


def baseline_name(context):
    parts = [str(context.get(field, "unknown")) for field in KEY_FIELDS]
    return "-".join(re.sub(r"[^a-z0-9.]+", "_", part.lower()).strip("_") for part in parts) + ".json"


def main(argv=None):
    arguments = _parse_arguments(argv)
    try:
        if arguments.command == "run":
            _run(arguments)
            return 0
        context, _ = load_counts(arguments.run)
        path = arguments.dir / baseline_name(context)
        if arguments.command == "baseline":
            if not path.is_file():
                raise UnusableInput([f"no stored counts for {path.name} in {arguments.dir}: record them with "
                                     "scripts/bench --counts --save-baseline"])
        else:
            arguments.dir.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(arguments.run, path)
    except UnusableInput as error:
        print_problems(PROGRAM, error.messages)
        return 2
    print(path)
    return 0


def _run(arguments):
    workloads = list_workloads(arguments.binary)
    if arguments.filter:
        workloads = [workload for workload in workloads if arguments.filter.search(workload.name)]
        if not workloads:
            raise UnusableInput([f"--filter {arguments.filter.pattern!r} selects no workload"])
    context = read_context(arguments.binary)
    print(f"Counting {len(workloads)} workloads under callgrind, {arguments.jobs} at a time "
          f"(TOKBENCH_MAX_ISA={ISA_CAP})", flush=True)
    width = len(str(len(workloads)))

    def progress(done, total, count):
        print(f"[{done:>{width}}/{total}] {count.workload.name}: {count.instructions:,} instructions "
              f"({count.seconds:.1f} s)", flush=True)

    counts = count_workloads(arguments.binary, workloads, arguments.data_dir, arguments.jobs, progress)
    arguments.out.write_text(dumps(counts_document(context, counts)), encoding="utf-8")


def _parse_arguments(argv):
    parser = argparse.ArgumentParser(prog=PROGRAM, description=DESCRIPTION, epilog=EPILOG,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("command", choices=("run", "baseline", "save"))
    parser.add_argument("run", metavar="RUN", nargs="?", type=Path, help="baseline, save: a counting run")
    parser.add_argument("--out", type=Path, help="run: the file to write")
    parser.add_argument("--binary", type=Path, default=REPOSITORY / "build" / "bench_counts",
                        help="run: the bench_counts program (default: %(default)s)")
    parser.add_argument("--data-dir", type=Path, default=REPOSITORY / "data",
                        help="run: the vocabularies and corpora (default: %(default)s)")
    parser.add_argument("--filter", type=regular_expression,
                        help="run: only the workloads whose names REGEX finds")
    parser.add_argument("--jobs", type=_positive, default=1, help="run: processes at a time (default: 1)")
    parser.add_argument("--dir", type=Path, default=DEFAULT_DIRECTORY,
                        help="baseline, save: the stored counts (default: data/baselines/counts)")
    arguments = parser.parse_args(argv)
    if arguments.command == "run" and arguments.out is None:
        parser.error("run needs --out FILE")
    if arguments.command != "run" and arguments.run is None:
        parser.error(f"{arguments.command} needs a counting run (RUN)")
    return arguments


def _positive(text):
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a positive whole number")
    return int(text)
