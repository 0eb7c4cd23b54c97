#pragma once

// An input as a command line: arguments separated by NUL bytes, at most kMaxArguments of them.

#include <string_view>
#include <vector>

namespace fuzz {

inline constexpr std::size_t kMaxArguments = 24;

inline std::vector<std::string_view> arguments_of(const std::uint8_t* bytes, std::size_t size) {
  std::vector<std::string_view> args;
  std::string_view rest(reinterpret_cast<const char*>(bytes), size);
  while (!rest.empty() && args.size() < kMaxArguments) {
    const std::size_t end = rest.find('\0');
    args.push_back(rest.substr(0, end));
    rest.remove_prefix(end == std::string_view::npos ? rest.size() : end + 1);
  }
  return args;
}

}  // namespace fuzz
