"""The tables printed at the end: the peers' results, and ours beside them."""

import json
import statistics
import sys

from benchcompare.tables import Table, render_text_table


def speed(row):
    """(value, unit) of the rate the tables show: GB/s of K and V for decoding, GFLOP/s for other
    SDPA, else MB/s."""
    if "GBps" in row:
        return row["GBps"], "GBps"
    if "GFLOPS" in row:
        return row["GFLOPS"], "GFLOPS"
    return row["bytes_per_second"] / 1e6, "MB/s"


UNIT_TITLES = {
    "MB/s": "MB/s (10^6 bytes/s; medians where repeated)",
    "GFLOPS": "GFLOP/s (FlashAttention's count, see benches/sdpa_bench_inputs.hpp; medians where repeated)",
    "GBps": "GB/s of K and V read (decoding, see benches/sdpa_bench_inputs.hpp; medians where repeated)",
}


def representative(rows):
    """Per run_name: the median aggregate if there is one, else the median of the iteration rows."""
    by_run = {}
    for row in rows:
        by_run.setdefault(row["run_name"], []).append(row)
    out = {}
    for run_name, group in by_run.items():
        medians = [r for r in group if r.get("aggregate_name") == "median"]
        if medians:
            out[run_name] = medians[0]
        else:
            iterations = sorted((r for r in group if r.get("run_type", "iteration") == "iteration"),
                                key=lambda r: speed(r)[0])
            if iterations:
                out[run_name] = iterations[len(iterations) // 2]
    return out


def print_table(rows):
    chosen = representative(rows)
    tokenizer_rows = {name: row for name, row in chosen.items() if "GFLOPS" not in row}
    sdpa_rows = {name: row for name, row in chosen.items() if "GFLOPS" in row}
    if tokenizer_rows:
        print(f"{'benchmark':<46} {'time':>14} {'cpu':>14} {'MB/s':>9} {'Mtok/s':>8}")
        for name, row in tokenizer_rows.items():
            print(f"{name:<46} {row['real_time']:>11.0f} ns {row['cpu_time']:>11.0f} ns "
                  f"{row['bytes_per_second'] / 1e6:>9.1f} {row['items_per_second'] / 1e6:>8.2f}")
    if sdpa_rows:
        print(f"{'benchmark':<86} {'time':>11} {'GFLOPS':>8} {'GB/s':>7}")
        for name, row in sdpa_rows.items():
            gbps = f"{row['GBps']:>7.2f}" if "GBps" in row else f"{'':>7}"
            print(f"{name:<86} {row['real_time'] / 1e6:>8.1f} ms {row['GFLOPS']:>8.1f} {gbps}")


def round_ratio_rows(rows, groups, ours_names):
    """(benchmark, ours, peer, median, lowest, highest) for each group of GROUPS (the names of one
    benchmark's peers, measured in the same rounds) that holds one of OURS_NAMES and another peer
    with results in ROWS: the per-round speed of ours over that of the other peer whose median time
    is the lowest, the fastest peer of the benchmark."""
    times = {}
    for row in rows:
        if row.get("run_type", "iteration") == "iteration":
            times.setdefault(row["name"], {})[row.get("repetition_index", 0)] = row["real_time"]
    out = []
    for names in groups:
        measured = [name for name in names if name in times]
        peers = [name for name in measured if name.partition("/")[0] not in ours_names]
        if not peers:
            continue
        fastest = min(peers, key=lambda name: statistics.median(times[name].values()))
        for ours in (name for name in measured if name.partition("/")[0] in ours_names):
            rounds = sorted(set(times[ours]) & set(times[fastest]))
            ratios = [times[fastest][i] / times[ours][i] for i in rounds]
            if ratios:
                benchmark = ours.partition("/")[2]
                out.append((benchmark, ours.partition("/")[0], fastest.partition("/")[0], statistics.median(ratios),
                            min(ratios), max(ratios)))
    return out


def print_round_ratios(rows, groups, ours_names):
    lines = round_ratio_rows(rows, groups, ours_names)
    if not lines:
        return
    print("\nours over the fastest peer of each benchmark, in the same rounds: medians of the per-round speed "
          "ratios [lowest .. highest]")
    width = max(len(benchmark) for benchmark, *_ in lines)
    for benchmark, ours, peer, median, lowest, highest in lines:
        print(f"{benchmark:<{width}}  {ours} / {peer:<12} {median:6.2f}x  [{lowest:.2f} .. {highest:.2f}]")


def split_name(run_name, peer_names):
    """(family, column) of an our or a peer's run name; /real_time is dropped from both. Ours are
    FAMILY/ENCODER, or sdpa/IMPLEMENTATION/SHAPE (sdpa_decode/...) whose family is sdpa/SHAPE
    (sdpa_decode/SHAPE), as the peers'."""
    base = run_name.removesuffix("/real_time")
    head, _, rest = base.partition("/")
    if head in peer_names:
        return rest, head
    if head in ("sdpa", "sdpa_decode"):
        implementation, _, shape = rest.partition("/")
        return f"{head}/{shape}", implementation
    family, _, encoder = base.rpartition("/")
    return family, encoder


def print_comparison(peer_rows, ours_file, peer_names):
    ours = _read_ours(ours_file)
    peer_families = {split_name(r["run_name"], peer_names)[0] for r in peer_rows}
    # Per unit: {family: {column: value}} and the columns in order of appearance.
    tables = {}
    for source in (ours, peer_rows):
        for run_name, row in representative(source).items():
            family, column = split_name(run_name, peer_names)
            if family not in peer_families:
                continue
            value, unit = speed(row)
            table, columns = tables.setdefault(unit, ({}, []))
            table.setdefault(family, {})[column] = value
            if column not in columns:
                columns.append(column)
    for unit, (table, columns) in tables.items():
        width = max(30, *(len(family) + 2 for family in table))
        print(f"\n{UNIT_TITLES[unit]}, ours from {ours_file}:")
        print(f"{'family':<{width}}" + "".join(f"{c:>15}" for c in columns))
        for family, cells in table.items():
            print(f"{family:<{width}}" + "".join(f"{cells[c]:>15.1f}" if c in cells else f"{'-':>15}"
                                                 for c in columns))


# The columns of the regime table: (heading, family of cl100k_base, of o200k_base or None, what).
REGIME_COLUMNS = [
    ("long warm", "long_encoding", "long_encoding_o200k", "MB/s"),
    ("long cold", "long_encoding/cold", "long_encoding_o200k/cold", "MB/s"),
    ("stream", "stream_encoding", "stream_encoding_o200k", "MB/s"),
    ("short", "short_encoding", "short_encoding_o200k", "us"),
    ("batch warm", "encode_batch", None, "MB/s"),
    ("batch cold", "encode_batch/cold", None, "MB/s"),
]


def print_regime_table(peer_rows, ours_file, peer_names):
    """One table per encoding: a row per peer and per encoder of ours, a column per regime (MB/s;
    the short call in microseconds), as the issue of the peers measured them."""
    ours = _read_ours(ours_file)
    cells = {}  # (family, column) -> the representative row
    for source in (peer_rows, ours):
        for run_name, row in representative(source).items():
            cells[split_name(run_name, peer_names)] = row
    ours_columns = []
    for family, column in cells:
        if column not in peer_names and column not in ours_columns and family.startswith("long_encoding"):
            ours_columns.append(column)
    rows_of = [(name, name) for name in peer_names] + [(f"ours {c}", c) for c in ours_columns]
    for encoding, index in (("cl100k_base", 1), ("o200k_base", 2)):
        headings = [heading for heading, *families in REGIME_COLUMNS if families[index - 1]]
        lines = []
        for label, column in rows_of:
            values = []
            for heading, *families in REGIME_COLUMNS:
                family, unit = families[index - 1], families[2]
                if family is None:
                    continue
                row = cells.get((family, column))
                if row is None:
                    values.append("-")
                elif unit == "us":
                    values.append(f"{row['real_time'] / 1e3:.2f}")
                else:
                    values.append(f"{speed(row)[0]:.0f}")
            if any(value != "-" for value in values):
                lines.append([label, *values])
        if not lines:
            continue
        print(f"\n{encoding}: MB/s (10^6 bytes/s), short: microseconds a call; medians; ours from {ours_file}")
        print(render_text_table(Table(["encoder", *headings], lines, frozenset(range(1, len(headings) + 1)))))


def _read_ours(ours_file):
    try:
        return json.loads(ours_file.read_text())["benchmarks"]
    except (OSError, ValueError, KeyError) as e:
        sys.exit(f"error: cannot read Google Benchmark JSON from {ours_file}: {e}")
