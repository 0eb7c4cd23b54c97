#include "attention/bfloat16.hpp"

#include <stdexcept>
#include <string>

namespace attention {

namespace {

void require_same_size(std::size_t from, std::size_t to) {
  if (from != to)
    throw std::invalid_argument("attention: converting " + std::to_string(from) + " values into room for " +
                                std::to_string(to));
}

}  // namespace

void to_bfloat16(std::span<const float> from, std::span<bfloat16> to) {
  require_same_size(from.size(), to.size());
  for (std::size_t i = 0; i < from.size(); ++i) to[i] = to_bfloat16(from[i]);
}

void to_float(std::span<const bfloat16> from, std::span<float> to) {
  require_same_size(from.size(), to.size());
  for (std::size_t i = 0; i < from.size(); ++i) to[i] = to_float(from[i]);
}

}  // namespace attention
