// The ISA levels against what Linux says this CPU has, and the choice of a table's entry.
#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "isa/isa.hpp"

namespace {

// The feature flags of the first processor in /proc/cpuinfo.
std::set<std::string> cpuinfo_flags() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  for (std::string line; std::getline(cpuinfo, line);) {
    if (line.rfind("flags", 0) != 0) continue;
    std::istringstream words(line.substr(line.find(':') + 1));
    std::set<std::string> flags;
    for (std::string word; words >> word;) flags.insert(word);
    return flags;
  }
  return {};
}

bool has_all(const std::set<std::string>& flags, std::initializer_list<const char*> wanted) {
  for (const char* flag : wanted)
    if (!flags.contains(flag)) return false;
  return true;
}

// Linux lists a feature only where the kernel also saves its registers, so its flags answer
// the same question as CPUID plus XCR0.
TEST(Isa, LevelsMatchTheKernelsCpuFlags) {
  const std::set<std::string> flags = cpuinfo_flags();
  if (flags.empty()) GTEST_SKIP() << "no /proc/cpuinfo flags";
  const bool avx2 = has_all(flags, {"avx", "avx2", "fma", "bmi1", "bmi2", "abm", "popcnt"});
  const bool avx512f = avx2 && flags.contains("avx512f");
  const bool avx512bw = avx512f && has_all(flags, {"avx512cd", "avx512dq", "avx512bw", "avx512vl"});
  const bool avx512vbmi2 = avx512bw && flags.contains("avx512_vbmi2");
  const bool avx512bf16 = avx512vbmi2 && flags.contains("avx512_bf16");
  // Linux lists AMX where it saves the tile state; the process's permission is granted on request.
  const bool amxbf16 = avx512bf16 && has_all(flags, {"amx_tile", "amx_bf16"});
  EXPECT_TRUE(isa::cpu_supports(isa::Isa::sse2));
  EXPECT_EQ(isa::cpu_supports(isa::Isa::avx2), avx2);
  EXPECT_EQ(isa::cpu_supports(isa::Isa::avx512f), avx512f);
  EXPECT_EQ(isa::cpu_supports(isa::Isa::avx512bw), avx512bw);
  EXPECT_EQ(isa::cpu_supports(isa::Isa::avx512vbmi2), avx512vbmi2);
  EXPECT_EQ(isa::cpu_supports(isa::Isa::avx512bf16), avx512bf16);
  EXPECT_EQ(isa::cpu_supports(isa::Isa::amxbf16), amxbf16);
}

TEST(Isa, NamesParseBack) {
  for (const isa::Isa level : isa::kAllIsas) EXPECT_EQ(isa::parse(isa::name(level)), level);
  EXPECT_EQ(isa::parse("avx512"), std::nullopt);
  EXPECT_EQ(isa::parse("AVX2"), std::nullopt);
  EXPECT_EQ(isa::parse(""), std::nullopt);
}

struct Entry {
  isa::Isa isa;
  int id;
};

TEST(Isa, WidestUsableIsTheFirstEntryThisCpuRunsWithinTheCap) {
  constexpr Entry table[] = {{isa::Isa::amxbf16, 6}, {isa::Isa::avx512bf16, 5}, {isa::Isa::avx512vbmi2, 4}, {isa::Isa::avx512bw, 3}, {isa::Isa::avx512f, 2}, {isa::Isa::avx2, 1}, {isa::Isa::sse2, 0}};
  const Entry& chosen = isa::widest_usable(std::span<const Entry>(table));
  int expected = 0;
  for (const Entry& entry : table) {
    if (isa::cpu_supports(entry.isa) && entry.isa <= isa::max_isa()) {
      expected = entry.id;
      break;
    }
  }
  EXPECT_EQ(chosen.id, expected);
  EXPECT_TRUE(isa::is_usable(chosen.isa));
}

TEST(Isa, WidestUsableIsaIsUsableAndNothingWiderIs) {
  const isa::Isa widest = isa::widest_usable_isa();
  EXPECT_TRUE(isa::is_usable(widest));
  for (const isa::Isa level : isa::kAllIsas) {
    if (level > widest) {
      EXPECT_FALSE(isa::is_usable(level)) << isa::name(level);
    }
  }
}

TEST(Isa, TheBaselineIsChosenWhenNothingWiderIsUsable) {
  constexpr Entry table[] = {{isa::Isa::sse2, 7}};
  EXPECT_EQ(isa::widest_usable(std::span<const Entry>(table)).id, 7);
}

}  // namespace
