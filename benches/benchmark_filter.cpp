#include "benchmark_filter.hpp"

#include <regex>

namespace benches {

bool filter_selects_any(std::string_view filter, const std::vector<std::string>& names) {
  const bool negated = filter.starts_with('-');
  if (negated) filter.remove_prefix(1);
  const bool everything = filter.empty() || filter == "all";
  std::regex pattern;
  try {
    pattern = std::regex(everything ? std::string(".") : std::string(filter), std::regex::extended);
  } catch (const std::regex_error&) {
    return false;
  }
  for (const std::string& name : names)
    if (std::regex_search(name, pattern) != negated) return true;
  return false;
}

}  // namespace benches
