"""Runs a Google Benchmark program in rounds, showing progress, and merges the rounds into one run.

Each round is one process that runs every selected benchmark once, in a shuffled order
(--benchmark_enable_random_interleaving), so that a slow phase of the machine spreads over all
benchmarks instead of hitting a few; round i becomes repetition i of the merged run
(round_merging). Google Benchmark itself, given N repetitions interleaved in one process, reports
a benchmark only once all of its repetitions have run, i.e. nearly all of them at the end: one
benchmark per process is what lets the progress line count benchmarks as they finish.

The program's console output (stdout and stderr) goes to a log file, and to the terminal too with
--verbose; the progress goes to stderr: on a terminal one line rewritten in place, elsewhere (CI
logs) a line at the first benchmark, every tenth of the run or 30 seconds, and at the end.

Usage (with scripts/ on PYTHONPATH):
  python3 -m benchcompare.round_running --rounds N --out OUT.json --log LOG [--verbose] -- COMMAND...
COMMAND is the program with its arguments (a filter, a minimum time), possibly behind a launcher
such as `setarch -R`; the runner appends the flags of a round after them.
"""

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

from .round_merging import merge_rounds
from .unusable_input import UnusableInput, print_problems

PROGRAM = "round_running.py"
EXIT_RUN = 0
EXIT_FAILED = 2
# Without a terminal: a progress line at least this often, and at every tenth of the run.
PLAIN_INTERVAL_S = 30.0


def list_benchmarks(command):
    """The names COMMAND runs, in its order; raises UnusableInput if it cannot list them."""
    try:
        listing = subprocess.run([*command, "--benchmark_list_tests=true"], capture_output=True, text=True,
                                 check=False)
    except OSError as error:
        raise UnusableInput([f"cannot run {command[0]}: {error.strerror}"]) from None
    if listing.returncode != 0:
        raise UnusableInput([f"{' '.join(command)} --benchmark_list_tests=true failed with status "
                             f"{listing.returncode}: {listing.stderr.strip()}"])
    names = [line.strip() for line in listing.stdout.splitlines() if line.strip()]
    if not names:
        raise UnusableInput(["no benchmark matches the filter"])
    return names


def format_clock(seconds):
    seconds = max(0, round(seconds))
    minutes, seconds = divmod(seconds, 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02d}:{seconds:02d}" if hours else f"{minutes}:{seconds:02d}"


class TimeLeft:
    """Estimates the time left from the benchmarks finished so far. In the first round each
    benchmark is assumed to take the mean of those finished (the order is shuffled, so the
    finished ones are a fair sample); from the second round on each takes what it took in the
    first, setup and Google Benchmark's choice of an iteration count included."""

    def __init__(self, names, rounds):
        self.names = names
        self.rounds = rounds
        self.first_round = {}  # name -> seconds, from the end of the benchmark before it

    def record(self, round_index, name, seconds):
        if round_index == 0:
            self.first_round[name] = seconds

    def seconds_left(self, round_index, finished_in_round, elapsed, finished):
        total = len(self.names) * self.rounds
        if round_index == 0:
            return elapsed / finished * (total - finished) if finished else None
        round_seconds = sum(self.first_round.values())
        this_round = sum(seconds for name, seconds in self.first_round.items() if name not in finished_in_round)
        return this_round + (self.rounds - 1 - round_index) * round_seconds


class Progress:
    """The progress line: benchmark i of n, elapsed time, time left, the round and the benchmark."""

    def __init__(self, total, rounds, stream=sys.stderr):
        self.total = total
        self.rounds = rounds
        self.stream = stream
        self.on_terminal = stream.isatty()
        self.last_plain = (None, 0)  # (time, tenth of the run) of the last line without a terminal

    def show(self, finished, elapsed, left, round_index, name):
        left_text = f"about {format_clock(left)} left" if left is not None else "estimating the time left"
        width = len(str(self.total))
        line = (f"[{finished:>{width}}/{self.total}] {format_clock(elapsed)} elapsed, {left_text}; "
                f"round {round_index + 1} of {self.rounds}: {name}")
        if self.on_terminal:
            self.stream.write("\r\033[K" + line)
            if finished == self.total:
                self.stream.write("\n")
        else:
            tenth = finished * 10 // self.total
            last_time, last_tenth = self.last_plain
            if last_time is None or tenth > last_tenth or elapsed - last_time >= PLAIN_INTERVAL_S \
                    or finished == self.total:
                self.stream.write(line + "\n")
                self.last_plain = (elapsed, tenth)
        self.stream.flush()

    def interrupt(self):
        """Ends the line being rewritten, so that a message printed next starts on its own line."""
        if self.on_terminal:
            self.stream.write("\n")
            self.stream.flush()


def finished_benchmark(line, names):
    """The benchmark a console line of Google Benchmark reports (its result or its error), else None:
    such a line starts with the name, padded."""
    fields = line.split(maxsplit=1)
    return fields[0] if fields and fields[0] in names else None


def run_rounds(command, rounds, out, log_path, verbose=False, stream=sys.stderr, clock=time.monotonic):
    """Runs COMMAND ROUNDS times into OUT (merged) and LOG_PATH; returns EXIT_RUN or EXIT_FAILED."""
    names = list_benchmarks(command)
    name_set = set(names)
    rounds_dir = out.parent / f"{out.stem}-rounds"
    rounds_dir.mkdir(parents=True, exist_ok=True)
    progress = Progress(len(names) * rounds, rounds, stream)
    estimate = TimeLeft(names, rounds)
    stream.write(f"Running {_count(len(names), 'benchmark')}, {_count(rounds, 'round')} of each in shuffled order; "
                 f"console output: {log_path}\n")
    stream.flush()
    started = clock()
    finished = 0
    round_paths = []
    with open(log_path, "w", encoding="utf-8") as log:
        for round_index in range(rounds):
            round_path = rounds_dir / f"round-{round_index}.json"
            round_paths.append(round_path)
            arguments = [*command, "--benchmark_repetitions=1", "--benchmark_enable_random_interleaving=true",
                         "--benchmark_color=false", f"--benchmark_out={round_path}",
                         "--benchmark_out_format=json"]
            log.write(f"# round {round_index + 1} of {rounds}: {' '.join(arguments)}\n")
            finished_in_round = set()
            last_end = clock()
            process = subprocess.Popen(arguments, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                       errors="replace")
            for line in process.stdout:
                log.write(line)
                log.flush()
                if verbose:
                    progress.interrupt()
                    sys.stdout.write(line)
                    sys.stdout.flush()
                name = finished_benchmark(line, name_set)
                if name is None or name in finished_in_round:
                    continue
                now = clock()
                estimate.record(round_index, name, now - last_end)
                last_end = now
                finished_in_round.add(name)
                finished += 1
                progress.show(finished, now - started,
                              estimate.seconds_left(round_index, finished_in_round, now - started, finished),
                              round_index, name)
            status = process.wait()
            if status != 0:
                progress.interrupt()
                stream.write(f"{PROGRAM}: {command[0]} failed with status {status} in round {round_index + 1}; "
                             f"its output is in {log_path}\n")
                return EXIT_FAILED
            missing = [name for name in names if name not in finished_in_round]
            if missing:
                progress.interrupt()
                stream.write(f"{PROGRAM}: round {round_index + 1} did not report {len(missing)} of "
                             f"{len(names)} benchmarks (first: {missing[0]}); see {log_path}\n")
                return EXIT_FAILED
    out.write_text(json.dumps(merge_rounds([str(path) for path in round_paths]), indent=1), encoding="utf-8")
    stream.write(f"Ran {_count(len(names), 'benchmark')} x {_count(rounds, 'round')} in "
                 f"{format_clock(clock() - started)}\n")
    stream.flush()
    return EXIT_RUN


def _count(number, noun):
    return f"{number} {noun}{'' if number == 1 else 's'}"


def main(argv=None):
    parser = argparse.ArgumentParser(prog=PROGRAM, description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, required=True, help="rounds, i.e. repetitions of each benchmark")
    parser.add_argument("--out", type=Path, required=True, help="the merged run (Google Benchmark JSON)")
    parser.add_argument("--log", type=Path, required=True, help="the program's console output")
    parser.add_argument("--verbose", action="store_true", help="print the console output too")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="-- then the program and its arguments")
    arguments = parser.parse_args(argv)
    command = arguments.command[1:] if arguments.command[:1] == ["--"] else arguments.command
    if not command:
        parser.error("no program to run (give it after --)")
    if arguments.rounds < 1:
        parser.error("--rounds must be at least 1")
    try:
        return run_rounds(command, arguments.rounds, arguments.out, arguments.log, arguments.verbose)
    except UnusableInput as error:
        print_problems(PROGRAM, error.messages)
        return EXIT_FAILED


if __name__ == "__main__":
    sys.exit(main())
