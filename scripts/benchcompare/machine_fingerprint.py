"""Whether two runs were measured on the same kind of machine and build, from their contexts."""

from dataclasses import dataclass

# The context fields that change absolute times. cpu_model is written by newer builds of
# build/benches only; host_name is left out on purpose: identical CI machines differ in it.
FINGERPRINT_FIELDS = (
    "cpu_model", "num_cpus", "mhz_per_cpu", "caches", "compiler", "build_type", "simd_isa",
)


@dataclass(frozen=True)
class FieldDifference:
    field: str
    baseline: object
    current: object


def fingerprint_differences(baseline_context, current_context):
    """The fingerprint fields whose values differ; a field missing from either context is not
    compared (an older file without cpu_model still matches a newer one)."""
    return [
        FieldDifference(key, baseline_context[key], current_context[key])
        for key in FINGERPRINT_FIELDS
        if key in baseline_context and key in current_context
        and baseline_context[key] != current_context[key]
    ]


def describe_value(field, value):
    """A field's value in a line: Google Benchmark's cache list, e.g., as 'L1 Data 32 KiB, ...'."""
    if field == "caches" and isinstance(value, list) and all(isinstance(c, dict) for c in value):
        return ", ".join(_describe_cache(cache) for cache in value)
    return str(value)


def _describe_cache(cache):
    size = cache.get("size", 0)
    for unit, scale in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if isinstance(size, int) and size >= scale and size % scale == 0:
            size = f"{size // scale} {unit}"
            break
    description = f"L{cache.get('level', '?')} {cache.get('type', '?')} {size}"
    sharing = cache.get("num_sharing", 1)
    return description + (f" (shared by {sharing})" if sharing != 1 else "")
