// encoder_ratios: every encoder on the benchmark inputs, measured in alternation within one
// process, reported as medians and as ratios to serial. On a shared, noisy machine, Google
// Benchmark measures each benchmark in its own stretch of time, and the load of that stretch
// lands in its result; here each round runs every (encoder, input) once, so load phases hit all
// of them alike and the ratios stay stable where absolute times do not.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "bench_inputs.hpp"

namespace {

struct Input {
  const char* name;
  std::string_view (*text)();
  int calls;  // encodes per timed sample, so that short inputs are timed over microseconds
};

constexpr Input kInputs[] = {
    {"short", benches::short_text, 2000},
    {"medium", benches::medium_text, 50},
    {"long", benches::long_text, 1},
    {"letters", benches::adversarial_letters, 1},
    {"digits", benches::adversarial_digits, 1},
    {"spaces", benches::adversarial_spaces, 1},
    {"base64", benches::adversarial_base64, 1},
};
constexpr std::size_t kLong = 2;           // index of the long English text in kInputs
constexpr std::size_t kFirstAdversarial = 3;

void usage(std::FILE* to) {
  std::fprintf(to,
               "Usage: encoder_ratios [--encoding NAME] [--rounds N]\n\n"
               "Runs every supported encoder on the inputs of build/benches (short, medium, long; the\n"
               "four 1 MiB adversarial inputs), each (encoder, input) once per round, and prints per\n"
               "input the median time per byte, MB/s (10^6 bytes/s) and the speed relative to serial,\n"
               "then per encoder the worst adversarial input's time per byte over long English's.\n"
               "Both ratios are medians over rounds of the ratio within one round.\n\n"
               "  --encoding NAME  built-in encoding (default: cl100k_base)\n"
               "  --rounds N       rounds, odd for a true median (default: 11)\n"
               "  -h, --help       this text\n");
}

}  // namespace

int main(int argc, char** argv) {
  std::string encoding = "cl100k_base";
  int rounds = 11;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "-h" || arg == "--help") {
      usage(stdout);
      return 0;
    }
    if (arg == "--encoding" || arg == "--rounds") {
      if (i + 1 == argc) {
        std::fprintf(stderr, "encoder_ratios: %s needs a value (see --help)\n", argv[i]);
        return 2;
      }
      const char* value = argv[++i];
      if (arg == "--encoding") {
        encoding = value;
      } else {
        char* end = nullptr;
        rounds = static_cast<int>(std::strtol(value, &end, 10));
        if (*end != '\0' || rounds < 1) {
          std::fprintf(stderr, "encoder_ratios: --rounds needs a positive integer, not '%s'\n", value);
          return 2;
        }
      }
      continue;
    }
    std::fprintf(stderr, "encoder_ratios: unknown argument '%s' (see --help)\n", argv[i]);
    return 2;
  }
  try {
    const tokenizer::Tokenizer& tok = benches::tokenizer_for(encoding);
    const std::vector<const tokenizer::Encoder*> encoders = tokenizer::supported_encoders();
    const std::size_t inputs = std::size(kInputs);
    // samples[e][k]: nanoseconds per byte of encoder e on input k, one per round.
    std::vector<std::vector<std::vector<double>>> samples(encoders.size(), std::vector<std::vector<double>>(inputs));
    std::vector<tokenizer::Rank> ids;
    // Within a round the encoders of one input run back to back, so the ratios between them
    // compare moments milliseconds apart; odd rounds take them in reverse order, so that no
    // encoder always runs first on an input (after another input's encodes) or always last.
    for (int round = 0; round < rounds; ++round)
      for (std::size_t k = 0; k < inputs; ++k)
        for (std::size_t i = 0; i < encoders.size(); ++i) {
          const std::size_t e = round % 2 == 0 ? i : encoders.size() - 1 - i;
          const std::string_view text = kInputs[k].text();
          const auto start = std::chrono::steady_clock::now();
          for (int call = 0; call < kInputs[k].calls; ++call) {
            ids.clear();
            encoders[e]->encode(tok, text, ids);
          }
          const std::chrono::duration<double, std::nano> elapsed = std::chrono::steady_clock::now() - start;
          samples[e][k].push_back(elapsed.count() / kInputs[k].calls / static_cast<double>(text.size()));
        }
    // The speed relative to serial is the median over rounds of serial's time over the encoder's
    // in the same round: the two ran one after the other, so the load of that moment cancels,
    // which a ratio of medians taken from different rounds would not do.
    const auto median_of = [](std::vector<double> values) {
      std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(values.size() / 2), values.end());
      return values[values.size() / 2];
    };
    std::vector<std::vector<double>> median(encoders.size(), std::vector<double>(inputs));
    std::vector<std::vector<double>> speedup(encoders.size(), std::vector<double>(inputs));
    for (std::size_t e = 0; e < encoders.size(); ++e)
      for (std::size_t k = 0; k < inputs; ++k) {
        median[e][k] = median_of(samples[e][k]);
        std::vector<double> ratios;
        for (int round = 0; round < rounds; ++round) ratios.push_back(samples[0][k][round] / samples[e][k][round]);
        speedup[e][k] = median_of(std::move(ratios));
      }
    std::printf("%s, %d rounds; median ns/byte, MB/s, and median speed relative to serial in the same round\n", encoding.c_str(), rounds);
    std::printf("%-9s", "input");
    for (const tokenizer::Encoder* encoder : encoders) std::printf(" %27.*s", static_cast<int>(encoder->name.size()), encoder->name.data());
    std::printf("\n");
    for (std::size_t k = 0; k < inputs; ++k) {
      std::printf("%-9s", kInputs[k].name);
      for (std::size_t e = 0; e < encoders.size(); ++e)
        std::printf("   %6.2f ns/B %6.1f MB/s %4.2fx", median[e][k], 1e3 / median[e][k], speedup[e][k]);
      std::printf("\n");
    }
    std::printf("%-9s", "worst/long");
    for (std::size_t e = 0; e < encoders.size(); ++e) {
      double worst = 0;
      for (std::size_t k = kFirstAdversarial; k < inputs; ++k) {
        std::vector<double> ratios;
        for (int round = 0; round < rounds; ++round) ratios.push_back(samples[e][k][round] / samples[e][kLong][round]);
        worst = std::max(worst, median_of(std::move(ratios)));
      }
      std::printf(" %26.2fx", worst);
    }
    std::printf("\n");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "encoder_ratios: %s\n", e.what());
    return 1;
  }
  return 0;
}
