"""Counting the instructions of build/bench_counts' workloads with callgrind, one process each."""

import json
import re
import subprocess
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from .unusable_input import UnusableInput

# The widest instruction set valgrind 3.19 runs: under it the CPU shows no AVX-512, so counts
# recorded on any x86-64 machine with AVX2 use the same kernels.
ISA_CAP = "avx2"

# The environment of every counted process: the same on every machine and in every checkout, so
# that nothing a workload reads (the variables, whose size moves the stack; the data folder's
# path, whose length moves the heap) differs between two counts of the same code.
ENVIRONMENT = {"PATH": "/usr/bin:/bin", "LC_ALL": "C", "TOKBENCH_MAX_ISA": ISA_CAP, "TOKENIZER_DATA_DIR": "data"}

_TOTALS = re.compile(r"^totals:\s+(\d+)", re.MULTILINE)


@dataclass(frozen=True)
class Workload:
    name: str
    iterations: int


@dataclass(frozen=True)
class Count:
    workload: Workload
    instructions: int  # per iteration, rounded down
    seconds: float  # the whole process under valgrind, for information


def callgrind_total(text, where):
    """The instructions (Ir) of a callgrind output file's text: its totals line."""
    match = _TOTALS.search(text)
    if not match:
        raise UnusableInput([f"{where} has no callgrind totals line"])
    return int(match.group(1))


def list_workloads(binary):
    """The workloads `binary --list` names, in order."""
    listing = _run([str(binary), "--list"], f"{binary} --list")
    workloads = []
    for line in listing.splitlines():
        name, _, iterations = line.rpartition(" ")
        if not name or not iterations.isdigit():
            raise UnusableInput([f"{binary} --list printed a line that is not NAME ITERATIONS: {line!r}"])
        workloads.append(Workload(name, int(iterations)))
    return workloads


def read_context(binary):
    """What `binary --context` says the counts depend on, with the gate's ISA cap."""
    text = _run([str(binary), "--context"], f"{binary} --context", env=ENVIRONMENT)
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        raise UnusableInput([f"{binary} --context printed no JSON object: {text!r}"]) from None


def count_workloads(binary, workloads, data_dir, jobs, progress):
    """A Count for each workload, in order, counted `jobs` at a time; `progress(done, total, count)`
    is called as each finishes. Raises UnusableInput if valgrind or a workload fails."""
    binary = Path(binary).resolve()
    with tempfile.TemporaryDirectory(prefix="tokbench-counts-") as scratch:
        # Every process runs in a folder of the same name, with the data folder linked as "data"
        # and the program as "bench_counts", so that the paths it is given and builds (its argv[0],
        # which lies on its stack) are the same in every checkout: from two checkouts, loading a
        # vocabulary counted up to 224 instructions apart when the program ran by its own path.
        workdir = Path(scratch) / "run"
        workdir.mkdir()
        (workdir / "data").symlink_to(Path(data_dir).resolve())
        (workdir / "bench_counts").symlink_to(binary)
        done = []

        def count(indexed):
            result = _count_one(*indexed, workdir)
            done.append(result)
            progress(len(done), len(workloads), result)
            return result

        with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
            return list(pool.map(count, enumerate(workloads)))


def _count_one(index, workload, workdir):
    out = workdir.parent / f"callgrind.{index}.out"
    command = ["valgrind", "--tool=callgrind", "--instr-atstart=no", "--collect-atstart=no",
               f"--callgrind-out-file={out}", "./bench_counts", workload.name]
    start = time.monotonic()
    _run(command, f"counting {workload.name}", env=ENVIRONMENT, cwd=workdir)
    seconds = time.monotonic() - start
    try:
        total = callgrind_total(out.read_text(encoding="utf-8", errors="replace"), out)
    except OSError as error:
        raise UnusableInput([f"counting {workload.name}: callgrind wrote no {out}: {error.strerror}"]) from None
    out.unlink()
    return Count(workload, total // workload.iterations, seconds)


def _run(command, what, env=None, cwd=None):
    try:
        completed = subprocess.run(command, env=env, cwd=cwd, capture_output=True, text=True, check=False)
    except FileNotFoundError:
        raise UnusableInput([f"{what}: {command[0]} is not installed"]) from None
    if completed.returncode != 0:
        raise UnusableInput([f"{what} failed with status {completed.returncode}:\n{completed.stderr.strip()}"])
    return completed.stdout
