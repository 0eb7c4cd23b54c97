#include "isa/isa.hpp"

#include <cpuid.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>

namespace isa {

namespace {

struct CpuidRegisters {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
};

CpuidRegisters cpuid(unsigned leaf, unsigned subleaf = 0) {
  CpuidRegisters r;
  if (!__get_cpuid_count(leaf, subleaf, &r.eax, &r.ebx, &r.ecx, &r.edx)) return {};
  return r;
}

bool bit(unsigned word, int index) { return (word >> index) & 1u; }

// XCR0, the register state the OS saves on a context switch; 0 where XGETBV is not enabled
// (CPUID.1:ECX.OSXSAVE), so that no AVX level passes.
std::uint64_t enabled_register_state() {
  if (!bit(cpuid(1).ecx, 27)) return 0;
  std::uint32_t low = 0, high = 0;
  __asm__("xgetbv" : "=a"(low), "=d"(high) : "c"(0));
  return (std::uint64_t{high} << 32) | low;
}

// Whether Linux lets this process use the AMX tile data registers, whose state is too large for
// the default signal frame: asked for once (arch_prctl ARCH_REQ_XCOMP_PERM for XTILEDATA), as
// the kernel requires before a thread's first tile instruction, which would otherwise fault.
bool tile_data_permitted() {
  constexpr int kRequestPermission = 0x1023;  // ARCH_REQ_XCOMP_PERM
  constexpr int kTileData = 18;               // XFEATURE_XTILEDATA
  return syscall(SYS_arch_prctl, kRequestPermission, kTileData) == 0;
}

// The ISA levels this CPU runs, decided once.
struct CpuLevels {
  bool avx2 = false, avx512f = false, avx512bw = false, avx512vbmi2 = false, avx512bf16 = false, amxbf16 = false;

  CpuLevels() {
    const CpuidRegisters basic = cpuid(1), extended = cpuid(7), extended1 = cpuid(7, 1), amd = cpuid(0x80000001);
    const std::uint64_t xcr0 = enabled_register_state();
    // XCR0 bits 1 and 2: SSE and AVX (YMM) state; 5, 6 and 7: AVX-512's opmask and ZMM state.
    const bool ymm_saved = (xcr0 & 0x6) == 0x6;
    const bool zmm_saved = ymm_saved && (xcr0 & 0xE0) == 0xE0;
    avx2 = ymm_saved && bit(basic.ecx, 28) /* AVX */ && bit(basic.ecx, 12) /* FMA */ &&
           bit(basic.ecx, 23) /* POPCNT */ && bit(extended.ebx, 5) /* AVX2 */ && bit(extended.ebx, 3) /* BMI1 */ &&
           bit(extended.ebx, 8) /* BMI2 */ && bit(amd.ecx, 5) /* LZCNT */;
    avx512f = avx2 && zmm_saved && bit(extended.ebx, 16);
    avx512bw = avx512f && bit(extended.ebx, 28) /* CD */ && bit(extended.ebx, 17) /* DQ */ &&
               bit(extended.ebx, 30) /* BW */ && bit(extended.ebx, 31) /* VL */;
    avx512vbmi2 = avx512bw && bit(extended.ecx, 6) /* AVX512_VBMI2 */;
    avx512bf16 = avx512vbmi2 && bit(extended1.eax, 5) /* AVX512_BF16 */;
    // XCR0 bits 17 and 18: the tile configuration and tile data.
    const bool tiles_saved = (xcr0 & 0x60000) == 0x60000;
    amxbf16 = avx512bf16 && tiles_saved && bit(extended.edx, 24) /* AMX-TILE */ &&
              bit(extended.edx, 22) /* AMX-BF16 */ && tile_data_permitted();
  }
};

constexpr std::string_view kNames[] = {"sse2", "avx2", "avx512f", "avx512bw", "avx512vbmi2", "avx512bf16", "amxbf16"};

Isa read_max_isa() {
  const char* value = std::getenv("TOKBENCH_MAX_ISA");
  if (value == nullptr || *value == '\0') return Isa::amxbf16;
  if (const std::optional<Isa> cap = parse(value)) return *cap;
  throw std::invalid_argument("TOKBENCH_MAX_ISA=" + std::string(value) +
                              ": not an instruction set; one of sse2, avx2, avx512f, avx512bw, avx512vbmi2, avx512bf16, amxbf16");
}

}  // namespace

std::string_view name(Isa isa) { return kNames[static_cast<int>(isa)]; }

std::optional<Isa> parse(std::string_view text) {
  for (const Isa isa : kAllIsas)
    if (name(isa) == text) return isa;
  return std::nullopt;
}

bool cpu_supports(Isa isa) {
  static const CpuLevels cpu;
  switch (isa) {
    case Isa::sse2: return true;
    case Isa::avx2: return cpu.avx2;
    case Isa::avx512f: return cpu.avx512f;
    case Isa::avx512bw: return cpu.avx512bw;
    case Isa::avx512vbmi2: return cpu.avx512vbmi2;
    case Isa::avx512bf16: return cpu.avx512bf16;
    case Isa::amxbf16: return cpu.amxbf16;
  }
  return false;
}

Isa max_isa() {
  static const Isa cap = read_max_isa();
  return cap;
}

bool is_usable(Isa isa) { return isa <= max_isa() && cpu_supports(isa); }

Isa widest_usable_isa() {
  Isa widest = Isa::sse2;
  for (const Isa level : kAllIsas)
    if (is_usable(level)) widest = level;
  return widest;
}

}  // namespace isa
