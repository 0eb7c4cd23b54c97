#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace attention {

// `count` floats uniform in [-1, 1), from std::mt19937 seeded with `seed`: the top 24 bits of each
// output, scaled. The same values on every platform and standard library (unlike
// std::uniform_real_distribution, whose algorithm is left to the library), so that inputs built
// from a seed, by a test or a tuner, are the same everywhere.
std::vector<float> uniform_values(std::size_t count, std::uint32_t seed);

}  // namespace attention
