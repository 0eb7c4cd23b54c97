#pragma once

#include <vector>

#include "simd/flash_kernels.hpp"

namespace attention::test {

// Every compiled entry of the flash kernels' ISA table, as the parameters of a test over them
// (gtest copies parameters, and the tests run the table's own kernels); an entry this CPU does not
// run is the test's to skip.
inline std::vector<const simd::FlashIsa*> flash_isa_entries() {
  std::vector<const simd::FlashIsa*> out;
  for (const simd::FlashIsa& entry : simd::all_flash_isas()) out.push_back(&entry);
  return out;
}

}  // namespace attention::test
