"""Compares two Google Benchmark JSON runs of build/benches with statistics; see scripts/compare."""
