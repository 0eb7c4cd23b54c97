#include "attention/uniform_values.hpp"

#include <random>

namespace attention {

std::vector<float> uniform_values(std::size_t count, std::uint32_t seed) {
  std::mt19937 generator(seed);
  std::vector<float> values(count);
  for (float& value : values) value = static_cast<float>(generator() >> 8) * 0x1p-23f - 1.0f;
  return values;
}

}  // namespace attention
