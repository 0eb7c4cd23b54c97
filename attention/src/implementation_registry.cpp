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

constexpr Bf16Implementation kBf16Implementations[] = {
    {"reference_bf16", "reference on the inputs widened to float (double inside), the output rounded to bfloat16",
     always, reference_bf16_workspace_bytes, sdpa_reference_bf16},
    {"flash_bf16",
     "flash on bfloat16: products of bfloat16 pairs (AVX512-BF16), else of K and V widened to float a tile at a "
     "time (AVX-512F, AVX2+FMA or SSE2); scores, softmax and sums in float",
     always, flash_bf16_workspace_bytes, sdpa_flash_bf16},
    {"decode_bf16",
     "decode on bfloat16: K and V widened to float a block of keys at a time, the float kernels' arithmetic "
     "(decoding is bound by memory: half the bytes of float)",
     always, decode_bf16_workspace_bytes, sdpa_decode_bf16},
};

template <class Element, std::size_t N>
const BasicImplementation<Element>* find_by_name(const BasicImplementation<Element> (&table)[N],
                                                 std::string_view name) {
  const auto it = std::find_if(std::begin(table), std::end(table),
                               [&](const BasicImplementation<Element>& i) { return i.name == name; });
  return it == std::end(table) ? nullptr : &*it;
}

}  // namespace

std::span<const Implementation> cpu_implementations() { return kImplementations; }

const Implementation* find_cpu_implementation(std::string_view name) { return find_by_name(kImplementations, name); }

std::span<const Bf16Implementation> cpu_bf16_implementations() { return kBf16Implementations; }

const Bf16Implementation* find_cpu_bf16_implementation(std::string_view name) {
  return find_by_name(kBf16Implementations, name);
}

const Bf16Implementation& default_cpu_bf16_implementation() { return kBf16Implementations[1]; }

const Implementation& default_cpu_implementation() { return kImplementations[1]; }

}  // namespace attention
