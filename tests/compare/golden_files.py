"""The golden inputs of data/ (described in data/README.md), and variants of them that tests
write to a temporary folder."""

import json
from pathlib import Path

from repository import GOLDEN_DIR

# The benchmarks of every golden file, in the order they appear.
GOLDEN_BENCHMARK_NAMES = [
    "short_encoding/serial",
    "short_encoding/parallel/real_time",
    "short_encoding/simd",
    "short_encoding/simd_parallel/real_time",
    "adversarial_encoding/digits/serial",
    "adversarial_encoding/digits/simd",
]


def golden_path(name):
    return str(GOLDEN_DIR / name)


def read_golden(name):
    with open(GOLDEN_DIR / name, encoding="utf-8") as file:
        return json.load(file)


def write_document(directory, name, document):
    """Writes DOCUMENT as JSON to DIRECTORY/NAME; returns the path."""
    path = Path(directory) / name
    path.write_text(json.dumps(document, indent=1), encoding="utf-8")
    return str(path)


def iteration_rows(document, run_name):
    return [row for row in document["benchmarks"]
            if row["run_name"] == run_name and row["run_type"] == "iteration"]


TIME_FIELDS = ("real_time", "cpu_time")
RATE_FIELDS = ("bytes_per_second", "items_per_second", "GFLOPS", "peak_fraction")


def slowed_down(document, factors):
    """DOCUMENT with every repetition of each benchmark in FACTORS (run name -> factor) that many
    times slower: its times multiplied, its rates divided."""
    for name, factor in factors.items():
        for row in iteration_rows(document, name):
            for key in TIME_FIELDS:
                row[key] *= factor
            for key in RATE_FIELDS:
                if key in row:
                    row[key] /= factor
    return document


def timed_value(row):
    """The time the comparison uses: real_time for wall-clock benchmarks, else cpu_time."""
    return row["real_time"] if row["run_name"].endswith("/real_time") else row["cpu_time"]
