#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

namespace cli_support {

// A fault in the arguments themselves (exit status 2), as opposed to a fault met while
// carrying them out (exit status 1).
class UsageError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// An argument as messages show it: 'like this'. Built with += because GCC 12 warns falsely
// (-Wrestrict) about "'" + std::string.
inline std::string quoted(std::string_view text) {
  std::string out = "'";
  out += text;
  out += '\'';
  return out;
}

}  // namespace cli_support
