#pragma once

#include <concepts>
#include <optional>
#include <span>
#include <string_view>

// The one mechanism by which the libraries pick a kernel per instruction set at run time. Each
// kernel file is compiled for its ISA alone (tokbench_compile_for_isa in isa/CMakeLists.txt);
// a table of a component's kernels, widest first, ends with sse2, the x86-64 baseline, and the
// widest entry that this CPU runs, within TOKBENCH_MAX_ISA, is chosen.
namespace isa {

// Narrowest first; each level includes every feature of the ones before it, so "at most X" is
// a comparison. The features of a level are exactly what tokbench_compile_for_isa lets the
// compiler use for it:
//   sse2        the x86-64 baseline
//   avx2        AVX, AVX2, FMA3, BMI1, BMI2, LZCNT and POPCNT
//   avx512f     avx2 and AVX-512F
//   avx512bw     avx512f and AVX-512CD, DQ, BW and VL
//   avx512vbmi2  avx512bw and AVX512-VBMI2 (Ice Lake, Zen 4 and later)
//   avx512bf16   avx512vbmi2 and AVX512-BF16 (Zen 4, Sapphire Rapids and later; Cooper Lake, which
//                has BF16 but not VBMI2, stops at avx512bw)
//   amxbf16      avx512bf16 and AMX-TILE and AMX-BF16 (Sapphire Rapids and later), with the OS's
//                leave to use the tile registers: XCR0's tile state and, on Linux, the process's
//                permission (arch_prctl ARCH_REQ_XCOMP_PERM), which cpu_supports asks for once
enum class Isa { sse2, avx2, avx512f, avx512bw, avx512vbmi2, avx512bf16, amxbf16 };

inline constexpr Isa kAllIsas[] = {Isa::sse2,        Isa::avx2,       Isa::avx512f, Isa::avx512bw,
                                   Isa::avx512vbmi2, Isa::avx512bf16, Isa::amxbf16};

std::string_view name(Isa isa);
// The Isa of that name, or nothing.
std::optional<Isa> parse(std::string_view name);

// Whether this CPU has every feature of `isa` and the OS saves the registers it uses (XCR0).
bool cpu_supports(Isa isa);

// The widest ISA a kernel may use: TOKBENCH_MAX_ISA (a level's name) when set, so that a user or
// the instruction-count gate can pin the kernels of every component whatever the CPU; else
// amxbf16, no cap. Read once; an unknown value throws std::invalid_argument.
Isa max_isa();

// cpu_supports(isa) and isa <= max_isa().
bool is_usable(Isa isa);

// The widest usable level: the one every component's table is cut at.
Isa widest_usable_isa();

template <typename Entry>
concept IsaEntry = requires(const Entry& entry) {
  { entry.isa } -> std::convertible_to<Isa>;
};

// The first usable entry of `table` (widest first, ending with an sse2 entry, which every x86-64
// CPU runs whatever the cap).
template <IsaEntry Entry>
const Entry& widest_usable(std::span<const Entry> table) {
  for (const Entry& entry : table)
    if (is_usable(entry.isa)) return entry;
  return table.back();
}

}  // namespace isa
