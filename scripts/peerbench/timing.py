"""Measurement as Google Benchmark does it."""

import gc
import time


def time_iterations(fn, arg, iterations):
    """(real ns, cpu ns) of ITERATIONS calls fn(arg). The CPU time is the process's, all threads:
    a peer may spread one call over threads of its own, which the calling thread's time misses."""
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        cpu0, real0 = time.process_time_ns(), time.perf_counter_ns()
        for _ in range(iterations):
            fn(arg)
        real1, cpu1 = time.perf_counter_ns(), time.process_time_ns()
    finally:
        if gc_was_enabled:
            gc.enable()
    return real1 - real0, cpu1 - cpu0


# Grow the iteration count until one batch of iterations lasts --min-time, report that batch;
# later repetitions reuse the count.
def find_iterations(fn, arg, min_time_ns):
    iterations = 1
    while True:
        real, cpu = time_iterations(fn, arg, iterations)
        # By real time: for one thread it is CPU time up to noise, and for the batch, whose work
        # is on other threads, it is the time that counts.
        if real >= min_time_ns:
            return iterations, real, cpu
        multiplier = 10.0 if real < min_time_ns / 10 else min_time_ns * 1.4 / max(real, 1)
        iterations = max(int(iterations * multiplier), iterations + 1)


def run_repetitions(fn, arg, repetitions, min_time):
    iterations, real, cpu = find_iterations(fn, arg, min_time * 1e9)
    runs = [(real, cpu)]
    for _ in range(repetitions - 1):
        runs.append(time_iterations(fn, arg, iterations))
    return iterations, runs
