"""scripts/large_inputs: build/tokenize on a GiB of English and hundreds of MiB of each
adversarial kind, with each encoder: time, MB/s and peak resident memory, and whether the memory
stays within the input plus twice the output (the ids, 4 bytes each) and the speed linear in
the size (beyond what the process holds on a small input: the program, the vocabulary and the
long-piece tables)."""

import argparse
import os
import random
import string
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from .tables import Table, render_markdown_table, render_text_table

PROGRAM = "scripts/large_inputs"
REPO_ROOT = Path(__file__).resolve().parents[2]
ENGLISH_SOURCE = REPO_ROOT / "data" / "corpus" / "en_shakespeare.txt"
MINIFIED_CODE = (b"function f(a,b){for(var i=0,n=a.length;i<n;++i){if(a[i]!==b[i])return!1}return!0}"
                 b"var x={k:[1,2,3],s:'text',o:{p:null}};window.onload=function(){f(x.k,[1,2,3])};")
MIB = 1 << 20

DESCRIPTION = __doc__
EPILOG = """Inputs are made in a temporary folder (deleted after) from a fixed seed: ENGLISH MiB of
data/corpus/en_shakespeare.txt repeated; ADVERSARIAL MiB of each of one letter ('a'), random
decimal digits, spaces, random base64 without newlines, one line of minified JavaScript repeated,
and random bytes. Each runs once per encoder as `tokenize --encoding E --encoder X --format u32
FILE`, its output read from a pipe and counted. Linearity: the default encoder also runs
on a quarter of each input; the column 'linear' is MB/s at the full size over MB/s at a quarter
(1.00: linear; below 1: slower per byte on the larger input).

Exit status: 0 every run succeeded within the memory bound, 1 a run failed or exceeded it,
2 bad arguments or no build/tokenize."""


def main(argv=None):
    arguments = _parse_arguments(argv)
    tokenize = arguments.build / "tokenize"
    if not tokenize.is_file():
        print(f"{PROGRAM}: error: {tokenize} does not exist: build the project first (scripts/test)",
              file=sys.stderr)
        return 2
    encoders = arguments.encoders or _encoders(tokenize)
    rows, failures = [], []
    with tempfile.TemporaryDirectory(prefix="tokbench-large-") as folder:
        # What the process holds whatever its input, which the bound below allows besides the
        # input and the output: the program, the vocabulary and the long-piece tables, built on
        # the first long piece (a MiB of one letter is one).
        small = Path(folder) / "base.txt"
        small.write_bytes(b"a" * MIB)
        base_rss = max(_run(tokenize, arguments.encoding, encoder, small)["rss"] for encoder in encoders)
        for kind, size_mib in [("english", arguments.english)] + [(k, arguments.adversarial) for k in KINDS]:
            path = Path(folder) / f"{kind}.txt"
            _write_input(path, kind, size_mib * MIB)
            quarter = Path(folder) / f"{kind}.quarter.txt"
            with open(path, "rb") as source, open(quarter, "wb") as target:
                target.write(source.read(size_mib * MIB // 4))
            for encoder in encoders:
                run = _run(tokenize, arguments.encoding, encoder, path)
                print(f"{kind} {size_mib} MiB {encoder}: {run['seconds']:.2f} s, "
                      f"{run['rss'] / MIB:.0f} MiB peak", file=sys.stderr, flush=True)
                linear = ""
                if encoder == encoders[-1]:
                    small = _run(tokenize, arguments.encoding, encoder, quarter)
                    linear = f"{(run['bytes'] / run['seconds']) / (small['bytes'] / small['seconds']):.2f}"
                bound = base_rss + run["bytes"] + 2 * run["output"]
                within = run["rss"] <= bound
                if run["status"] != 0 or not within:
                    failures.append(f"{kind} with {encoder}: " + (f"exit status {run['status']}" if run["status"]
                                    else f"peak RSS {run['rss']} > base + input + 2 x output = {bound}"))
                rows.append([kind, f"{size_mib}", encoder, f"{run['seconds']:.2f}",
                             f"{run['bytes'] / run['seconds'] / 1e6:.0f}", f"{run['rss'] / MIB:.0f}",
                             f"{run['output'] / MIB:.0f}", f"{run['rss'] / bound:.2f}", linear])
            path.unlink()
            quarter.unlink()
    table = Table(["input", "MiB", "encoder", "seconds", "MB/s", "peak RSS MiB", "output MiB",
                   "RSS / (base + in + 2 out)", "linear"], rows, frozenset({1, 3, 4, 5, 6, 7, 8}))
    print(f"base: {base_rss / MIB:.0f} MiB peak RSS on a MiB of one letter")
    print(render_markdown_table(table) if arguments.markdown else render_text_table(table))
    for failure in failures:
        print(f"{PROGRAM}: failed: {failure}", file=sys.stderr)
    return 1 if failures else 0


KINDS = ["one_letter", "digits", "spaces", "base64", "minified_code", "random_bytes"]
# Random bytes mapped onto an alphabet (a byte b to alphabet[b % len]): fast, and near enough uniform.
DIGITS = bytes((string.digits.encode()[b % 10] for b in range(256)))
BASE64 = bytes(((string.ascii_letters + string.digits + "+/").encode()[b % 64] for b in range(256)))


def _write_input(path, kind, size):
    rng = random.Random(20261126)
    with open(path, "wb") as file:
        if kind == "english":
            text = ENGLISH_SOURCE.read_bytes()
            for _ in range(size // len(text)):
                file.write(text)
            file.write(text[:size % len(text)])
            return
        block = MIB
        for offset in range(0, size, block):
            n = min(block, size - offset)
            if kind == "one_letter":
                data = b"a" * n
            elif kind == "spaces":
                data = b" " * n
            elif kind == "digits":
                data = rng.randbytes(n).translate(DIGITS)
            elif kind == "base64":
                data = rng.randbytes(n).translate(BASE64)
            elif kind == "minified_code":
                data = (MINIFIED_CODE * (n // len(MINIFIED_CODE) + 1))[:n]
            else:
                data = rng.randbytes(n)
            file.write(data)


def _encoders(tokenize):
    """The encoders tokenize --list names as supported here, in its order (the fastest last)."""
    listing = subprocess.run([str(tokenize), "--list"], capture_output=True, text=True, check=True).stdout
    return [line.split()[0] for line in listing.splitlines() if line.strip() and "(not supported" not in line]


def _run(tokenize, encoding, encoder, path):
    """Runs tokenize on PATH, its ids read from a pipe and counted, not stored."""
    start = time.perf_counter()
    process = subprocess.Popen([str(tokenize), "--encoding", encoding, "--encoder", encoder,
                                "--format", "u32", str(path)], stdout=subprocess.PIPE)
    output = 0
    while chunk := process.stdout.read(MIB):
        output += len(chunk)
    _, status, usage = os.wait4(process.pid, 0)
    process.stdout.close()
    seconds = time.perf_counter() - start
    return {"seconds": seconds, "bytes": path.stat().st_size, "output": output, "rss": usage.ru_maxrss * 1024,
            "status": os.waitstatus_to_exitcode(status)}


def _parse_arguments(argv):
    parser = argparse.ArgumentParser(prog=PROGRAM, description=DESCRIPTION, epilog=EPILOG,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--english", type=int, default=1024, metavar="MIB",
                        help="MiB of English (default: 1024)")
    parser.add_argument("--adversarial", type=int, default=256, metavar="MIB",
                        help="MiB of each adversarial kind (default: 256)")
    parser.add_argument("--encoding", default="cl100k_base", help="default: cl100k_base")
    parser.add_argument("--encoder", dest="encoders", action="append",
                        help="an encoder to run (repeatable; default: every supported one)")
    parser.add_argument("--build", type=Path, default=REPO_ROOT / "build",
                        help="the build folder holding tokenize (default: build)")
    parser.add_argument("--markdown", action="store_true", help="a GitHub markdown table")
    arguments = parser.parse_args(argv)
    for name in ("english", "adversarial"):
        if getattr(arguments, name) < 4:
            parser.error(f"--{name} must be at least 4 (MiB)")
    return arguments
