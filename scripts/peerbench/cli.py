"""scripts/peers: peer tokenizers on exactly the inputs of build/benches, and PyTorch's SDPA on
the shapes of its sdpa family.

Every tokenizer peer of peers.TOKENIZER_PEERS that is installed encodes the inputs of the encoding
benchmarks with the vocabularies of data/vocab. The results are written as Google Benchmark JSON,
named PEER/FAMILY (e.g. tiktoken/long_encoding beside our long_encoding/<encoder>), so both can be
read in one table; a short table goes to stdout.

The peers of one benchmark take turns, a repetition each a round, a warm one in parts that
alternate with the others' (measure_together), so that they share the machine's slow and fast
minutes.

Before measuring, the ids of every peer are compared with ours (BUILD_DIR/tokenize) for every
input measured: a peer is measured only on inputs where it does exactly our work, and an input
where its ids differ is reported as not exact, never dropped silently.

The batch benchmark runs first, on all threads; then the process is pinned to one CPU for the
single-document benchmarks, so that a peer that spreads one call over all cores (gigatoken) is
measured on one, as ours are.

torch (optional: skipped when not installed) runs torch.nn.functional.scaled_dot_product_attention
in float32 on the CPU with the shapes of our sdpa/<implementation>/... benchmarks, named
torch/sdpa/batch:4/heads:8/seq_q:S/seq_k:S/dim:D/causal:C/real_time, after its output has been
compared with a float64 reference on one small shape; and in bfloat16 beside our *_bf16
implementations, as torch_bf16/sdpa/... (checked within bfloat16's tolerances). Where torch sees a CUDA device, the same
shapes run there too: torch_cuda/sdpa/... (torch's choice of kernel) and torch_cuda_math/sdpa/...
(its unfused float32 path, TF32 off), beside our sdpa/opencl_* on that GPU. The decode shapes of
our sdpa_decode/<implementation>/... benchmarks run likewise, as torch/sdpa_decode/batch:B/heads:32/
kv_heads:8/seq_q:Q/seq_k:S/dim:128/real_time (grouped heads through enable_gqa, a bottom-right mask
for more than one query), with GFLOPS and GBps (K and V bytes per second) as ours.
"""

import argparse
import itertools
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

from .environment import PEER_MODULES, VENV_DIR, ensure_modules
from .id_check import OurIds, check_ids
from .inputs import BATCH_INPUT, FAMILIES, ISOLATED_INPUTS, WARM_UP_INPUT, Inputs
from .locations import BUILD_DIR
from .ours_sdpa import (BenchesRunner, counterparts, dtype_of, float_counterpart, our_name, print_ratio_rows,
                        ratio_rows)
from .peers import OURS_PEERS, TOKENIZER_PEERS
from .results import aggregates, context, iteration_record
from .sdpa import (DECODE_DIM, DECODE_HEADS, DECODE_KV_HEADS, DECODE_SHAPES, ELEMENT_BYTES, SDPA_BATCH, SDPA_HEADS,
                   SDPA_SHAPES, SDPA_VARIANTS, TorchSdpaPeer, decode_bytes, decode_flops, decode_name, import_torch,
                   sdpa_flops, sdpa_name)
from .tables import print_comparison, print_regime_table, print_round_ratios, print_table
from .timing import find_iterations, time_iterations


def parse_args():
    parser = argparse.ArgumentParser(
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="Environment: BUILD_DIR (default: build at the repository root), TOKENIZER_DATA_DIR "
        "(default: data at the repository root), as for build/benches.",
    )
    parser.add_argument("--out", type=Path, default=BUILD_DIR / "peers-results.json",
                        help="JSON results file (default: %(default)s)")
    parser.add_argument("--repetitions", type=int, default=5,
                        help="repetitions of each benchmark; above 1, mean, median, stddev and cv "
                        "aggregates are added (default: %(default)s)")
    parser.add_argument("--filter", default="",
                        help="regular expression searched in the benchmark names, e.g. "
                        "'tiktoken/long' (default: all)")
    parser.add_argument("--min-time", type=float, default=0.5,
                        help="minimum seconds per repetition, as --benchmark_min_time (default: %(default)s)")
    parser.add_argument("--threads", type=int, default=len(os.sched_getaffinity(0)),
                        help="threads of the batch and sdpa benchmarks; the default, the CPUs this "
                        "process may use, is what TBB gives encode_batch and our SDPA (default here: "
                        "%(default)s)")
    parser.add_argument("--tokenize", type=Path, default=BUILD_DIR / "tokenize",
                        help="our tokenize program, for the id check (default: %(default)s)")
    parser.add_argument("--ours", type=Path,
                        help="JSON output of build/benches (--benchmark_out=FILE "
                        "--benchmark_out_format=json) to show beside the peers in the table")
    parser.add_argument("--ours-sdpa", default="",
                        help="comma-separated implementations of ours, each for every selected SDPA shape that "
                        "BUILD_DIR/benches has it for, or FAMILY/IMPLEMENTATION for one family's shapes (e.g. "
                        "sdpa/flash_bf16,sdpa_decode/decode_bf16): measured by build/benches in the same rounds as "
                        "the torch rows of each shape, a run of benches a repetition; a table then gives the median "
                        "of the rounds' ratios of ours over torch of the same element type and of ours in bfloat16 "
                        "over ours in float, and each decoding round's fraction of the memory bandwidth that benches "
                        "measured in the same process")
    parser.add_argument("--setup", action="store_true",
                        help=f"if a peer package is missing, create a virtual environment in "
                        f"{VENV_DIR}, pip-install {', '.join(PEER_MODULES.values())} into it (torch from PyPI: "
                        f"a few GB with its CUDA libraries) and run there")
    # Internal: set for the child process that measures one benchmark of ISOLATED_INPUTS.
    parser.add_argument("--in-child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.repetitions < 1:
        parser.error("--repetitions must be at least 1")
    if args.min_time <= 0:
        parser.error("--min-time must be positive")
    if args.threads < 1:
        parser.error("--threads must be at least 1")
    try:
        re.compile(args.filter)
    except re.error as e:
        parser.error(f"--filter is not a regular expression: {e}")
    return args


class Skipped(Exception):
    """A benchmark that cannot be measured; str() says why."""

    def __init__(self, why, ids_differ=False):
        super().__init__(why)
        self.ids_differ = ids_differ


# Parts of a warm repetition: the members of a family time their parts in alternation (take_turns),
# so that a repetition of each spans the same minutes, a few dozen milliseconds apart, rather than
# following one another, where this VM's speed moved by 2x between the repetitions of one round.
WARM_PARTS = 8
# Fresh objects of a cold repetition, each a part: a pass of a fresh object lasts a few
# milliseconds, too short for the ratio of two single passes to hold on this VM (docs/peers.md).
COLD_PARTS = 4


class Timed:
    """A benchmark ready to be timed one repetition at a time, in PARTS: each part() gives (real ns,
    cpu ns) of its calls, ITERATIONS calls in all a repetition; AMOUNTS are the rate fields' amounts
    of one call."""

    def __init__(self, iterations, amounts, parts):
        self.iterations, self.amounts, self.parts = iterations, amounts, parts


def summed_times(times):
    """(real ns, cpu ns) of a repetition from those of its parts."""
    return sum(real for real, _ in times), sum(cpu for _, cpu in times)


def split_iterations(iterations, parts):
    """ITERATIONS calls in min(PARTS, ITERATIONS) parts whose sizes differ by at most one."""
    count = min(parts, iterations)
    return [iterations // count + (k < iterations % count) for k in range(count)]


def failures_skip(peer, action):
    """action(), with any failure of the peer's code but a skip or an interrupt raised as a Skipped."""
    try:
        return action()
    except (Skipped, KeyboardInterrupt, SystemExit):
        raise
    except BaseException as e:  # pyo3 turns a Rust panic into a BaseException
        raise Skipped(f"{peer.name} failed: {type(e).__name__}: {e}") from e


def prepare(peer, name, encoding, key, regime, inputs, ours, args):
    """The Timed of one benchmark, its ids checked against ours; raises Skipped."""
    batch = key == BATCH_INPUT
    data = inputs.get(key)
    texts = data if isinstance(data, list) else [data]

    def prepared():
        if batch and peer.batch_encoder(encoding) is None:
            raise Skipped(f"{peer.name} has no batch call")
        if ours is not None:
            why = check_ids(peer, encoding, texts, batch, ours)
            if why is not None:
                raise Skipped(f"ids differ from ours ({why})", ids_differ=True)
        strings = [t.decode("utf-8") for t in texts]
        nbytes = sum(len(t) for t in texts)
        ntokens = sum(len(ours.of(encoding, t)) for t in texts) if ours is not None else None
        print(f"preparing {name} ({nbytes} bytes{f', {ntokens} tokens' if ntokens else ''})", file=sys.stderr)
        ntokens = ntokens or sum(len(ids) for ids in encode_all(peer, encoding, batch, strings))
        amounts = {"bytes_per_second": nbytes, "items_per_second": ntokens}
        if regime == "warm":
            fn = peer.batch_encoder(encoding) if batch else peer.encoder(encoding)
            arg = strings if batch else strings[0]
            iterations = find_iterations(fn, arg, args.min_time * 1e9)[0]
            return Timed(iterations, amounts, [lambda calls=calls: time_iterations(fn, arg, calls)
                                               for calls in split_iterations(iterations, WARM_PARTS)])
        warm_up = inputs.get(WARM_UP_INPUT).decode("utf-8")

        def fresh_sample():
            real, cpu, ids = time_fresh(peer, encoding, batch, strings, warm_up)
            # A fresh object is held to our ids too, on every call timed.
            if ours is not None and any(list(got) != ours.of(encoding, text) for got, text in zip(ids, texts)):
                raise Skipped("ids of a fresh object differ from ours", ids_differ=True)
            return real, cpu
        return Timed(COLD_PARTS, amounts, [fresh_sample] * COLD_PARTS)

    return failures_skip(peer, prepared)


def measure_together(members, inputs, ours, args):
    """Per name, the iteration records of each member (peer, name, family_index, encoding, key,
    regime) of one family, or the Skipped that stopped it. The members take turns: each round times
    one repetition of every member, a part of each at a time (Timed), the order reversed at every
    step, so that on a machine whose speed moves between minutes the peers of a row see the same
    minutes, and their ratios hold where their absolute times do not. Timing starts after every
    member has found its iteration count."""
    outcome, timed = {}, {}
    for peer, name, family_index, encoding, key, regime in members:
        try:
            timed[name] = (peer, family_index, prepare(peer, name, encoding, key, regime, inputs, ours, args))
        except Skipped as skip:
            outcome[name] = skip
    parts = {name: [lambda peer=peer, part=part: failures_skip(peer, part) for part in t.parts]
             for name, (peer, _, t) in timed.items()}
    for name, runs in take_turns(parts, args.repetitions, summed_times).items():
        if isinstance(runs, Skipped):
            outcome[name] = runs
            continue
        _, family_index, t = timed[name]
        outcome[name] = [iteration_record(name, family_index, args.repetitions, i, t.iterations, real, cpu, t.amounts)
                         for i, (real, cpu) in enumerate(runs)]
    return outcome


def lone_result(results):
    """A repetition's result where it is one part's."""
    return results[0]


def take_turns(parts, repetitions, combine=lone_result):
    """Per name, the results of REPETITIONS repetitions of the callables parts[name], or the Skipped
    one of them raised; combine(results of a repetition's parts) makes a repetition's result. Each
    round runs every name's first part in turn, then every second part, and so on, the order
    reversed at every step (so odd rounds of one-part samples run in reverse order); a name whose
    part raised is not called again."""
    runs, stopped, step = {name: [] for name in parts}, {}, 0
    for round_index in range(repetitions):
        names = [name for name in parts if name not in stopped]
        if names:
            print(f"round {round_index + 1} of {repetitions}: {', '.join(names)}", file=sys.stderr)
        results = {name: [] for name in names}
        for k in range(max((len(parts[name]) for name in names), default=0)):
            for name in names if step % 2 == 0 else reversed(names):
                if name in stopped or k >= len(parts[name]):
                    continue
                try:
                    results[name].append(parts[name][k]())
                except Skipped as skip:
                    stopped[name] = skip
            step += 1
        for name in names:
            if name not in stopped:
                runs[name].append(combine(results[name]))
    return {name: stopped.get(name, runs[name]) for name in parts}


def measure_in_child(name, family_index, args):
    """The iteration records of benchmark NAME, measured by this script in a process of its own;
    raises Skipped if that process failed, crashed or skipped the benchmark."""
    return records_or_raise(measure_family_in_child([(name, family_index)], args)[name])


def measure_family_in_child(members, args):
    """Per name of MEMBERS ((name, family_index) of the peers of one family), the iteration records
    of that benchmark, measured by this script in a process of its own where the peers take turns,
    or the Skipped that stopped it: its own skip there, or the process's crash or failure."""
    names = [name for name, _ in members]
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "result.json"
        command = [sys.executable, str(Path(sys.argv[0]).resolve()), "--in-child",
                   "--filter", f"^({'|'.join(re.escape(name) for name in names)})$",
                   "--out", str(out), "--repetitions", str(args.repetitions), "--min-time", str(args.min_time),
                   "--threads", str(args.threads), "--tokenize", str(args.tokenize)]
        done = subprocess.run(command, stdout=subprocess.DEVNULL)
        if done.returncode < 0:
            crash = f"its process crashed ({signal.Signals(-done.returncode).name})"
            return {name: Skipped(crash) for name in names}
        try:
            result = json.loads(out.read_text())
        except (OSError, ValueError):
            return {name: Skipped(f"its process failed (exit status {done.returncode})") for name in names}
    skipped = result["context"].get("skipped", {})
    outcome = {}
    for name, family_index in members:
        records = [row for row in result["benchmarks"] if row.get("run_type") == "iteration" and row["name"] == name]
        if not records:
            why = skipped.get(name, "no result")
            outcome[name] = Skipped(why, ids_differ="ids differ" in why)
            continue
        for record in records:
            record["family_index"] = family_index
        outcome[name] = records
    return outcome


def encode_all(peer, encoding, batch, strings):
    """The ids of every string, by the warm object."""
    return peer.batch_encoder(encoding)(strings) if batch else [peer.encoder(encoding)(s) for s in strings]


def time_fresh(peer, encoding, batch, strings, warm_up):
    """(real ns, cpu ns, ids per string) of a fresh object encoding STRINGS (in one batch call, or
    one call each in turn) after it has encoded only WARM_UP, untimed."""
    ids = []
    if batch:
        fn = peer.batch_encoder(encoding, fresh=True)
        fn([warm_up])
        real, cpu = time_iterations(lambda texts: ids.extend(fn(texts)), strings, 1)
    else:
        fn = peer.encoder(encoding, fresh=True)
        fn(warm_up)
        real, cpu = time_iterations(lambda texts: ids.extend(fn(text) for text in texts), strings, 1)
    return real, cpu, ids


def sdpa_workload(seq, dim, causal, dtype):
    """The amounts of one call of an sdpa/SHAPE benchmark in DTYPE (GFLOP/s only, whatever the
    dtype: the bytes of a square shape are not what bounds it), and prepare(peer) -> (inputs,
    function)."""
    del dtype
    amounts = {"GFLOPS": sdpa_flops(SDPA_BATCH, SDPA_HEADS, seq, seq, dim, dim, causal) * 1e-9}
    return amounts, lambda peer: (peer.inputs(SDPA_BATCH, SDPA_HEADS, seq, seq, dim), peer.attention(causal))


def decode_workload(batch, seq_q, seq_k, dtype):
    """The amounts of one call of an sdpa_decode/SHAPE benchmark in DTYPE, and prepare(peer)."""
    amounts = {"GFLOPS": decode_flops(batch, seq_q, seq_k) * 1e-9,
               "GBps": decode_bytes(batch, seq_k, ELEMENT_BYTES[dtype]) * 1e-9}
    return amounts, lambda peer: (peer.inputs(batch, DECODE_HEADS, seq_q, seq_k, DECODE_DIM, kv_heads=DECODE_KV_HEADS),
                                  peer.decode_attention(seq_q, seq_k))


def torch_sample(peer, name, amounts, prepare, args):
    """sample() -> (iterations, real ns, cpu ns) of one repetition of a torch benchmark, whose
    inputs and function prepare(peer) makes here, once, and whose iteration count is found here
    (untimed). Raises Skipped, as sample() does where torch fails."""
    def failing(action):
        try:
            return action()
        except (KeyboardInterrupt, SystemExit):
            raise
        except Exception as e:
            raise Skipped(f"torch failed: {type(e).__name__}: {e}") from e

    def prepared():
        qkv, fn = prepare(peer)
        print(f"preparing {name} ({amounts['GFLOPS']:.2f} GFLOP a call)", file=sys.stderr)
        with peer.torch.inference_mode():
            # Untimed: the first call also starts torch's thread pool.
            fn(qkv)
            return qkv, fn, find_iterations(fn, qkv, args.min_time * 1e9)[0]
    qkv, fn, iterations = failing(prepared)

    def sample():
        with peer.torch.inference_mode():
            return (iterations, *failing(lambda: time_iterations(fn, qkv, iterations)))
    return sample


def ours_sample(runner, name):
    """sample() -> (iterations, real ns, cpu ns, kept counters) of one run of our benchmark NAME by
    build/benches."""
    def sample():
        try:
            return runner.run(name)
        except (OSError, ValueError) as e:
            raise Skipped(str(e)) from e
    return sample


def add_our_sdpa_members(shapes, args, notes):
    """Adds to each SDPA shape of SHAPES (FAMILY/SHAPE -> (workload, members)) the members of
    --ours-sdpa that build/benches has for it, and returns the (ours, theirs, theirs'
    implementation) of the per-round ratios reported: each of ours against the torch rows of its
    element type, and each of ours in bfloat16 against ours in float where both run the shape."""
    # (family or None for every family, implementation)
    implementations = [(entry.rpartition("/")[0] or None, entry.rpartition("/")[2])
                       for entry in args.ours_sdpa.split(",") if entry]
    if not implementations or not shapes:
        return []
    runner = BenchesRunner(BUILD_DIR / "benches", args.min_time)
    try:
        known = runner.names()
    except (OSError, subprocess.CalledProcessError) as e:
        notes.append(f"--ours-sdpa skipped: cannot list {runner.benches}'s benchmarks ({e})")
        print(f"warning: {notes[-1]}", file=sys.stderr)
        return []
    pairs, missing = [], set()
    for family_shape, (workload, members) in shapes.items():
        variants = [name.partition("/")[0] for name, *_ in members]
        for family, implementation in implementations:
            if family not in (None, family_shape.partition("/")[0]):
                continue
            name = our_name(family_shape, implementation)
            if name not in known:
                missing.add(implementation)
                continue
            amounts = workload(dtype_of(implementation))[0]
            members.append((name, amounts, lambda name=name: ours_sample(runner, name)))
            pairs += [(name, f"{variant}/{family_shape}/real_time", variant)
                      for variant in counterparts(implementation, variants)]
        ours = {name for name, *_ in members}
        for family, implementation in implementations:
            name, other = our_name(family_shape, implementation), float_counterpart(implementation)
            if name in ours and other is not None and our_name(family_shape, other) in ours:
                pairs.append((name, our_name(family_shape, other), other))
    for implementation in sorted(missing):
        notes.append(f"{implementation} (--ours-sdpa) has no benchmark of some selected shapes in {runner.benches}")
    return pairs


def measure_sdpa_shape(members, args):
    """Per name, the iteration records of each member (name, family_index, amounts, make_sample)
    of one SDPA shape, or the Skipped that stopped it: make_sample() prepares a member and returns
    its sample() (torch_sample, ours_sample); the members then take turns (take_turns), a sample a
    repetition of one part. A sample's
    fourth value, where it has one, is counters its records keep as they are."""
    outcome, samples = {}, {}
    indexes_and_amounts = {name: (index, amounts) for name, index, amounts, _ in members}
    for name, _, _, make_sample in members:
        try:
            samples[name] = [make_sample()]
        except Skipped as skip:
            outcome[name] = skip
    for name, runs in take_turns(samples, args.repetitions).items():
        if isinstance(runs, Skipped):
            outcome[name] = runs
            continue
        family_index, amounts = indexes_and_amounts[name]
        outcome[name] = [iteration_record(name, family_index, args.repetitions, i, iterations, real, cpu, amounts)
                         | (kept[0] if kept else {})
                         for i, (iterations, real, cpu, *kept) in enumerate(runs)]
    return outcome


def pin_every_thread(cpu):
    """Pins every thread of this process to CPU. os.sched_setaffinity(0, ...) pins the calling
    thread alone: a thread pool that a peer had started went on using every CPU, and a
    single-document call that hands work to its pool ran on two. Threads started later inherit
    the pin."""
    for thread in os.listdir("/proc/self/task"):
        try:
            os.sched_setaffinity(int(thread), {cpu})
        except ProcessLookupError:  # a thread that ended meanwhile
            pass


def records_or_raise(outcome):
    """The records of a measure_together outcome, or its Skipped raised."""
    if isinstance(outcome, Skipped):
        raise outcome
    return outcome


def collect(name, measurement, rows, notes, repetitions, warn=True):
    """Adds the records of measurement() and their aggregates to ROWS, or, if it is Skipped, a note
    saying why (and a warning unless WARN is false); returns the Skipped, or None."""
    try:
        records = measurement()
    except Skipped as skip:
        notes.append(f"{name} skipped: {skip}")
        if warn:
            print(f"warning: {notes[-1]}", file=sys.stderr)
        return skip
    rows.extend(records)
    if repetitions > 1:
        rows.extend(aggregates(records))
    return None


def main():
    args = parse_args()
    missing = ensure_modules(args.setup)
    pattern = re.compile(args.filter)

    peers, skipped_peers = [], {}
    for peer_class in TOKENIZER_PEERS:
        why = peer_class.unavailable(missing)
        if why is None:
            peers.append(peer_class(args.threads))
        else:
            skipped_peers[peer_class.name] = why

    # The batch benchmarks first, on all threads, then the single-document ones pinned (below).
    families = sorted(FAMILIES, key=lambda family: family[2] != BATCH_INPUT)
    selected = [(peer, family, encoding, key, regime) for family, encoding, key, regime in families for peer in peers
                if pattern.search(f"{peer.name}/{family}")]
    # Per variant, (name, FAMILY/SHAPE, workload(dtype) -> (amounts, prepare)) of each
    # selected SDPA benchmark.
    sdpa_selected = {variant: [(name, family_shape, lambda dtype, shape=shape: sdpa_workload(*shape, dtype))
                               for shape in SDPA_SHAPES for family_shape in [sdpa_name(*shape)]
                               for name in [f"{variant}/{family_shape}/real_time"] if pattern.search(name)] +
                              [(name, family_shape, lambda dtype, shape=shape: decode_workload(*shape, dtype))
                               for shape in DECODE_SHAPES for family_shape in [decode_name(*shape)]
                               for name in [f"{variant}/{family_shape}/real_time"] if pattern.search(name)]
                     for variant in SDPA_VARIANTS}
    sdpa_selected = {variant: shapes for variant, shapes in sdpa_selected.items() if shapes}
    if not selected and not sdpa_selected:
        sys.exit(f"error: no benchmark matches --filter {args.filter!r}")
    # torch takes seconds to import: only for its benchmarks.
    sdpa_peers = []
    if sdpa_selected and "torch" in missing:
        for variant in sdpa_selected:
            skipped_peers[variant] = "module torch not installed (scripts/peers --setup installs it)"
    elif sdpa_selected:
        cuda = import_torch().cuda.is_available()
        for variant in sdpa_selected:
            if SDPA_VARIANTS[variant][0] == "cuda" and not cuda:
                skipped_peers[variant] = "torch sees no CUDA device"
            else:
                sdpa_peers.append(TorchSdpaPeer(args.threads, variant))
    for name, why in skipped_peers.items():
        print(f"note: {name} skipped: {why}", file=sys.stderr)

    inputs = Inputs()
    ours = OurIds(args.tokenize) if selected and args.tokenize.exists() else None
    notes = []
    if selected and ours is None:
        notes.append(f"ids not checked against ours: {args.tokenize} not found (build it first)")
        print(f"warning: {notes[-1]}", file=sys.stderr)

    rows, reference_mismatches, pinned_cpu = [], 0, None
    skipped = {}  # the reason of each tokenizer benchmark skipped, by name
    together = []  # the names of each benchmark whose peers took turns in the same rounds
    # selected holds a family's peers one after another: each family is measured at once.
    for _, group in itertools.groupby(enumerate(selected), key=lambda item: item[1][1]):
        members = [(peer, f"{peer.name}/{family}", family_index, encoding, key, regime)
                   for family_index, (peer, family, encoding, key, regime) in group]
        key = members[0][4]
        if key != BATCH_INPUT and pinned_cpu is None:
            pinned_cpu = max(os.sched_getaffinity(0))
            pin_every_thread(pinned_cpu)
            if not args.in_child:
                print(f"single-document benchmarks pinned to CPU {pinned_cpu}", file=sys.stderr)
        if key == BATCH_INPUT and not args.in_child:
            # In a process of their own, the peers taking turns there: the thread pools that the
            # batch calls start are sized for every CPU and end with that process. Left in this
            # one, they lived on into the single-document benchmarks pinned to one CPU, where
            # fastokens handed each call's work to its pool of two threads on that CPU and ran at
            # half the speed it has with a pool sized for the pinned CPU (docs/peers.md).
            outcome = measure_family_in_child([(name, index) for _, name, index, *_ in members], args)
            measurements = {name: lambda name=name: records_or_raise(outcome[name]) for _, name, *_ in members}
            together.append([name for _, name, *_ in members])
        elif key in ISOLATED_INPUTS and not args.in_child:
            # Each in a process of its own, so one after another.
            measurements = {name: lambda name=name, index=index: measure_in_child(name, index, args)
                            for _, name, index, *_ in members}
        else:
            outcome = measure_together(members, inputs, ours, args)
            measurements = {name: lambda name=name: records_or_raise(outcome[name]) for _, name, *_ in members}
            together.append([name for _, name, *_ in members])
        for peer, name, *_ in members:
            # A child's skip is reported by its parent.
            skip = collect(name, measurements[name], rows, notes, args.repetitions, warn=not args.in_child)
            if skip is not None:
                skipped[name] = str(skip)
            reference_mismatches += skip is not None and skip.ids_differ and peer.is_reference

    sdpa_checks, shapes = {}, {}
    for sdpa_peer in sdpa_peers:
        why = sdpa_peer.check()
        if why is not None:
            notes.append(f"{sdpa_peer.name}/sdpa skipped: its output differs from the float64 reference ({why})")
            print(f"warning: {notes[-1]}", file=sys.stderr)
            continue
        sdpa_checks[sdpa_peer.name] = sdpa_peer.describe_check()
        print(f"check: {sdpa_checks[sdpa_peer.name]}", file=sys.stderr)
        for name, family_shape, workload in sdpa_selected[sdpa_peer.name]:
            amounts, prepare = workload(sdpa_peer.dtype_name)
            shapes.setdefault(family_shape, (workload, []))[1].append(
                (name, amounts, lambda peer=sdpa_peer, name=name, amounts=amounts, prepare=prepare:
                 torch_sample(peer, name, amounts, prepare, args)))
    ratio_pairs = add_our_sdpa_members(shapes, args, notes)
    family_index = len(selected)
    sdpa_records = {}
    for family_shape, (_, members) in shapes.items():
        indexed = [(name, family_index + i, amounts, make_sample)
                   for i, (name, amounts, make_sample) in enumerate(members)]
        family_index += len(members)
        outcome = measure_sdpa_shape(indexed, args)
        for name, *_ in indexed:
            collect(name, lambda name=name: records_or_raise(outcome[name]), rows, notes, args.repetitions)
            if not isinstance(outcome[name], Skipped):
                sdpa_records[name] = outcome[name]

    measured_peers = peers + sdpa_peers
    result = {"context": context(measured_peers, skipped_peers, args.threads, notes), "benchmarks": rows}
    if args.in_child:
        # Each skip's reason by name, for measure_family_in_child.
        result["context"]["skipped"] = skipped
    if pinned_cpu is not None:
        result["context"]["single_document_cpu"] = pinned_cpu
    for variant, check in sdpa_checks.items():
        result["context"][f"{variant}_sdpa_check"] = check
    if any(peer.device == "cuda" for peer in sdpa_peers):
        result["context"]["cuda_device"] = next(peer.gpu for peer in sdpa_peers if peer.device == "cuda")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    if args.in_child:
        return 0
    print_table(rows)
    print_round_ratios(rows, together, OURS_PEERS)
    if args.ours:
        print_comparison(rows, args.ours, [p.name for p in measured_peers])
        print_regime_table(rows, args.ours, [p.name for p in peers])
    for note in notes:
        print(f"note: {note}")
    print(f"\nresults: {args.out}")
    if ours is not None:
        print(f"ids: every peer result shown equals ours ({args.tokenize}) on its input")
    for check in sdpa_checks.values():
        print(f"sdpa: {check}")
    print_ratio_rows(ratio_rows(sdpa_records, ratio_pairs))
    if reference_mismatches:
        print(f"error: tiktoken's ids differ from ours on {reference_mismatches} input(s): see the warnings above",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
