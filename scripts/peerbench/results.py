"""Results as Google Benchmark JSON: iteration rows, aggregates, the context."""

import datetime
import os
import platform
import socket
import statistics
import subprocess
from .locations import REPO_ROOT

# The rates a row may have: bytes and tokens per second for the tokenizers, GFLOP/s for SDPA, and
# for decoding also the GB/s of K and V read.
RATE_FIELDS = ["bytes_per_second", "items_per_second", "GFLOPS", "GBps"]


def iteration_record(name, family_index, repetitions, index, iterations, real, cpu, amounts):
    """amounts: per rate field of RATE_FIELDS, the amount of one iteration (bytes, tokens, GFLOP)."""
    seconds = (real if name.endswith("/real_time") else cpu) / 1e9
    return {
        "name": name,
        "family_index": family_index,
        "per_family_instance_index": 0,
        "run_name": name,
        "run_type": "iteration",
        "repetitions": repetitions,
        "repetition_index": index,
        "threads": 1,
        "iterations": iterations,
        "real_time": real / iterations,
        "cpu_time": cpu / iterations,
        "time_unit": "ns",
        **{field: amount * iterations / seconds for field, amount in amounts.items()},
    }


def aggregates(runs):
    """mean, median, stddev and cv rows over the repetitions, as Google Benchmark writes them."""
    first = runs[0]
    fields = ["real_time", "cpu_time", *(field for field in RATE_FIELDS if field in first)]
    stats = [
        ("mean", "time", statistics.mean),
        ("median", "time", statistics.median),
        ("stddev", "time", statistics.stdev),
        ("cv", "percentage", lambda xs: statistics.stdev(xs) / statistics.mean(xs)),
    ]
    out = []
    for stat, unit, fn in stats:
        value = {field: fn([r[field] for r in runs]) for field in fields}
        out.append({
            "name": f"{first['run_name']}_{stat}",
            "family_index": first["family_index"],
            "per_family_instance_index": first["per_family_instance_index"],
            "run_name": first["run_name"],
            "run_type": "aggregate",
            "repetitions": len(runs),
            "threads": 1,
            "aggregate_name": stat,
            "aggregate_unit": unit,
            "iterations": len(runs),
            "real_time": value["real_time"],
            "cpu_time": value["cpu_time"],
            "time_unit": "ns",
            **{field: value[field] for field in fields if field in RATE_FIELDS},
        })
    return out


def git_commit():
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO_ROOT, check=True,
                              capture_output=True, text=True).stdout.strip() or "unknown"
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def context(peers, skipped_peers, threads, notes):
    ctx = {
        "date": datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
        "host_name": socket.gethostname(),
        "executable": str(REPO_ROOT / "scripts" / "peers"),
        "num_cpus": os.cpu_count(),
        "load_avg": list(os.getloadavg()),
        "git_commit": git_commit(),
        "python": platform.python_version(),
        "batch_threads": threads,
    }
    for peer in peers:
        ctx[f"{peer.name}_version"] = peer.version
    for name, why in skipped_peers.items():
        ctx[f"{name}_skipped"] = why
    if notes:
        ctx["notes"] = "; ".join(notes)
    return ctx
