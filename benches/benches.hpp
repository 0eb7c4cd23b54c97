#pragma once

namespace benches {

// Each family registers its benchmarks here; main() calls them all before running.
void register_encoding_benchmarks();

}  // namespace benches
