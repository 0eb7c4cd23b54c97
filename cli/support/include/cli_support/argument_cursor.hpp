#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include "cli_support/usage_error.hpp"

namespace cli_support {

// Walks the arguments one by one; an option's value is either the next argument or follows
// '=' in the same one (--format=u32).
class ArgumentCursor {
 public:
  explicit ArgumentCursor(std::span<const std::string_view> args) : args_(args) {}

  bool done() const { return next_ == args_.size(); }

  // Advances to the next argument and returns it. Until options end (after "--", for programs
  // that have it), "--name=value" comes back as "--name" and the value is kept for value().
  std::string_view advance(bool options_ended = false) {
    std::string_view arg = args_[next_++];
    inline_value_.reset();
    if (const std::size_t eq = arg.find('='); !options_ended && arg.starts_with("--") && eq != std::string_view::npos) {
      inline_value_ = arg.substr(eq + 1);
      arg = arg.substr(0, eq);
    }
    return arg;
  }

  std::string_view value(std::string_view option) {
    if (inline_value_) return *std::exchange(inline_value_, std::nullopt);
    if (done()) throw UsageError("option " + std::string(option) + " needs a value");
    return args_[next_++];
  }

  void expect_no_value(std::string_view option) const {
    if (inline_value_) throw UsageError("option " + std::string(option) + " takes no value");
  }

 private:
  std::span<const std::string_view> args_;
  std::size_t next_ = 0;
  std::optional<std::string_view> inline_value_;
};

}  // namespace cli_support
