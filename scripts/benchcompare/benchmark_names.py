"""What a benchmark's name says: how it is timed, and its family and member.

Names are FAMILY/MEMBER with an optional timing suffix, e.g. `long_encoding/simd`,
`adversarial_encoding/digits/parallel/real_time` (family `adversarial_encoding/digits`, member
`parallel`).
"""

# Google Benchmark appends these to benchmarks timed by the wall clock (UseRealTime, or
# UseManualTime, whose time it also reports as real_time); the others are timed by the CPU time
# of the calling thread.
WALL_CLOCK_SUFFIXES = ("/real_time", "/manual_time")


def is_wall_clock(name):
    return name.endswith(WALL_CLOCK_SUFFIXES)


def time_field(name):
    """The JSON field that holds the benchmark's time."""
    return "real_time" if is_wall_clock(name) else "cpu_time"


def family_and_member(name):
    """(family, member) of a name; the family is empty for a name without a slash."""
    for suffix in WALL_CLOCK_SUFFIXES:
        if name.endswith(suffix):
            name = name[: -len(suffix)]
            break
    family, _, member = name.rpartition("/")
    return family, member
