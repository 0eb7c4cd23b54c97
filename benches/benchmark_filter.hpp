#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace benches {

// Whether Google Benchmark's --benchmark_filter `filter` (a POSIX extended regular expression, a
// leading '-' negating it; "" and "all" select everything) selects any of `names`. A filter that
// is no valid expression selects nothing: Google Benchmark reports it, and runs nothing.
bool filter_selects_any(std::string_view filter, const std::vector<std::string>& names);

}  // namespace benches
