"""The smallest change of a median that counts, per benchmark: the noise floor of the machine.

Rules are fnmatch globs on the benchmark name (`*` also matches `/`); the last rule that matches
a name wins, so rules given on the command line, which come after the defaults, override them.
"""

import fnmatch
import math
from dataclasses import dataclass


@dataclass(frozen=True)
class MinimumEffect:
    pattern: str
    percent: float
    reason: str = "given with --min-effect"


# The floors of the noisiest machine measured (runs of one build compared pairwise, false alarms
# counted; docs/performance-notes.md): single-threaded benchmarks keep the 10% a real regression
# should be caught at, the 1 MiB adversarial inputs (a few iterations a repetition) and the
# multi-threaded ones (wall clock, which also waits for cores a neighbour holds) need more.
DEFAULT_MINIMUM_EFFECTS = (
    MinimumEffect("*", 10.0, "single-threaded: CPU time"),
    MinimumEffect("adversarial_encoding/*", 20.0, "1 MiB adversarial inputs"),
    MinimumEffect("*/real_time", 30.0, "multi-threaded: wall clock"),
)


def parse_minimum_effect(text):
    """PATTERN=PCT, e.g. 'long_encoding/*=5'; raises ValueError saying what is wrong."""
    pattern, equals, percent_text = text.rpartition("=")
    if not equals or not pattern:
        raise ValueError(f"{text!r} is not PATTERN=PCT (e.g. 'long_encoding/*=5')")
    try:
        percent = float(percent_text.rstrip("%"))
    except ValueError:
        raise ValueError(f"{text!r}: {percent_text!r} is not a number of percent") from None
    if not (math.isfinite(percent) and percent >= 0):
        raise ValueError(f"{text!r}: the percentage must be a number of at least 0")
    return MinimumEffect(pattern, percent)


def read_minimum_effects(path):
    """The rules of a file of minimum effects (data/baselines/*minimum_effects): one PATTERN=PCT
    a line, blank lines and lines starting with # skipped, in order. Raises ValueError naming
    the file and line of a bad rule, OSError if it cannot be read."""
    rules = []
    with open(path, encoding="utf-8") as file:
        for number, line in enumerate(file, start=1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            try:
                rule = parse_minimum_effect(line)
            except ValueError as error:
                raise ValueError(f"{path}:{number}: {error}") from None
            rules.append(MinimumEffect(rule.pattern, rule.percent, f"from {path}"))
    return tuple(rules)


def minimum_effect_for(name, rules):
    """The fraction of its baseline median a change of benchmark NAME must exceed."""
    matching = [rule for rule in rules if fnmatch.fnmatchcase(name, rule.pattern)]
    if not matching:
        raise ValueError(f"no minimum-effect rule matches {name}")
    return matching[-1].percent / 100
