#include "attention/implementation_registry.hpp"

#include <algorithm>
#include <iterator>

#include "workspace_sizes.hpp"

namespace attention {

namespace {

bool always() { return true; }

constexpr Implementation kImplementations[] = {
    {"reference", "one thread; scores materialised per query row, softmax and accumulation in double",
     always, reference_workspace_bytes, sdpa_reference},
    {"flash",
     "oneTBB over batch x heads x query tiles; online softmax over key tiles, register-blocked SIMD kernels "
     "(AVX-512F, AVX2+FMA or SSE2, chosen at run time)",
     always, flash_workspace_bytes, sdpa_flash},
    {"decode",
     "Flash-Decoding: oneTBB over batch x key/value heads x key ranges, each key and value row read once for "
     "every query head of its group; per-range max and sum combined exactly (SIMD kernels as flash's)",
     always, decode_workspace_bytes, sdpa_decode},
};

}  // namespace

std::span<const Implementation> cpu_implementations() { return kImplementations; }

const Implementation* find_cpu_implementation(std::string_view name) {
  const auto it = std::find_if(std::begin(kImplementations), std::end(kImplementations),
                               [&](const Implementation& i) { return i.name == name; });
  return it == std::end(kImplementations) ? nullptr : &*it;
}

const Implementation& default_cpu_implementation() { return kImplementations[1]; }

}  // namespace attention
