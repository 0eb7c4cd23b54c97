// encoder_ratios: every encoder on the benchmark inputs, measured in alternation within one
// process, reported as medians and as ratios to serial. On a shared, noisy machine, Google
// Benchmark measures each benchmark in its own stretch of time, and the load of that stretch
// lands in its result; here each round runs every (encoder, input) once, so load phases hit all
// of them alike and the ratios stay stable where absolute times do not.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include "bench_inputs.hpp"
#include "cold_encoding.hpp"

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
               "four 1 MiB adversarial inputs), each (encoder, input) once per round: a first call,\n"
               "then the timed sample. Prints per input the median time per byte, MB/s (10^6 bytes/s)\n"
               "and the speed relative to serial; as row long-1st, the first calls on long English,\n"
               "in which a parallel encoder must also wake the threads that slept while a\n"
               "single-threaded encoder ran; then per encoder the worst adversarial input's time per\n"
               "byte over long English's; as row threads, each multithreaded encoder's speed on long\n"
               "English relative to its single-threaded counterpart; last, their yardsticks: long English\n"
               "cut into four parts per thread, each part encoded by the counterpart, all at once. Ratios\n"
               "are medians over rounds of the ratio within one round.\n"
               "The rows above are warm: the tokenizer has encoded the same text just before, and its\n"
               "caches hold its pieces. Rows long-cold and worst-cold time long English and the\n"
               "adversarial inputs encoded once by a tokenizer made anew (after the multilingual text), so\n"
               "that no cache hides what the encoder itself costs: long-cold in the table's units,\n"
               "worst-cold the worst adversarial input's time per byte over long English's, both cold.\n\n"
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
    // samples[e][k]: nanoseconds per byte of encoder e on input k, one per round; k == inputs
    // holds long English's first calls (see usage).
    const std::size_t long_first = inputs;
    std::vector<std::vector<std::vector<double>>> samples(encoders.size(), std::vector<std::vector<double>>(inputs + 1));
    std::vector<tokenizer::Rank> ids;
    // Nanoseconds per byte of a text of `bytes` bytes, over `calls` calls of `run`.
    const auto nanoseconds_per_byte = [](auto&& run, std::size_t bytes, int calls) {
      const auto start = std::chrono::steady_clock::now();
      for (int call = 0; call < calls; ++call) run();
      const std::chrono::duration<double, std::nano> elapsed = std::chrono::steady_clock::now() - start;
      return elapsed.count() / calls / static_cast<double>(bytes);
    };
    // The yardstick of each multithreaded encoder: long English cut at line starts into four parts
    // per TBB thread, each part encoded by the encoder's single-threaded counterpart, all at once;
    // four per thread so that a thread the VM slows down leaves parts to the others, as the
    // parallel encoders' chunks do. That is the counterpart's work shared with nothing to
    // coordinate or stitch, so its speed relative to the counterpart is what this many threads
    // give that work on this machine now. On a shared VM it moves with the load, and the parallel
    // encoders move with it.
    const std::string_view long_text = kInputs[kLong].text();
    const auto threads = static_cast<std::size_t>(tbb::this_task_arena::max_concurrency());
    const std::vector<std::string_view> parts = benches::line_parts(long_text, 4 * threads);
    std::vector<std::vector<tokenizer::Rank>> part_ids(parts.size());
    const auto encode_parts = [&](const tokenizer::Encoder& encoder) {
      tbb::parallel_for(
          std::size_t{0}, parts.size(),
          [&](std::size_t p) {
            part_ids[p].clear();
            encoder.encode(tok, parts[p], part_ids[p]);
          },
          tbb::simple_partitioner());
    };
    // counterpart_of[e]: the index in `encoders` of encoder e's single-threaded counterpart, or
    // encoders.size() for none; `counterparts`: those indices, each once, in order.
    std::vector<std::size_t> counterpart_of(encoders.size(), encoders.size()), counterparts;
    for (std::size_t e = 0; e < encoders.size(); ++e)
      for (std::size_t c = 0; c < encoders.size(); ++c)
        if (encoders[e]->multithreaded() && encoders[c]->name == encoders[e]->single_threaded_counterpart) {
          counterpart_of[e] = c;
          if (std::find(counterparts.begin(), counterparts.end(), c) == counterparts.end()) counterparts.push_back(c);
        }
    // parts_samples[c]: nanoseconds per byte of long English in parts by counterparts[c], one per round.
    std::vector<std::vector<double>> parts_samples(counterparts.size());
    // cold[e][k]: nanoseconds per byte of encoder e's one call on input k (long English or an
    // adversarial input) by a tokenizer made for it, which has encoded only other text; one per
    // round. The memos of a tokenizer are made on their first use, so that text comes first.
    std::vector<std::vector<std::vector<double>>> cold(encoders.size(), std::vector<std::vector<double>>(inputs));
    const auto encode_cold = [&](const tokenizer::Encoder& encoder, std::string_view text) {
      const std::unique_ptr<tokenizer::Tokenizer> fresh = benches::fresh_tokenizer(encoding, encoder);
      const auto start = std::chrono::steady_clock::now();
      ids.clear();
      encoder.encode(*fresh, text, ids);
      const std::chrono::duration<double, std::nano> elapsed = std::chrono::steady_clock::now() - start;
      return elapsed.count() / static_cast<double>(text.size());
    };
    // Within a round the encoders of one input run back to back, so the ratios between them
    // compare moments milliseconds apart; odd rounds take them in reverse order, so that no
    // encoder always runs first on an input (after another input's encodes) or always last.
    // A sample follows one call of the same encoder on the same input. While a single-threaded
    // encoder runs, the parallel encoders' other thread goes to sleep, and waking it slows the
    // first call measurably on a VM (docs/performance-notes.md). So
    // the samples measure encoders at work, as a stream of documents or Google Benchmark's
    // back-to-back iterations see them, and the first calls on long English are reported apart.
    for (int round = 0; round < rounds; ++round)
      for (std::size_t k = 0; k < inputs; ++k)
        for (std::size_t i = 0; i < encoders.size(); ++i) {
          const std::size_t e = round % 2 == 0 ? i : encoders.size() - 1 - i;
          const std::string_view text = kInputs[k].text();
          const auto encode = [&] {
            ids.clear();
            encoders[e]->encode(tok, text, ids);
          };
          const double first = nanoseconds_per_byte(encode, text.size(), 1);
          if (k == kLong) samples[e][long_first].push_back(first);
          samples[e][k].push_back(nanoseconds_per_byte(encode, text.size(), kInputs[k].calls));
          if (k == kLong || k >= kFirstAdversarial) cold[e][k].push_back(encode_cold(*encoders[e], text));
          if (k == kLong && i + 1 == encoders.size())
            for (std::size_t c = 0; c < counterparts.size(); ++c) {
              const auto encode_in_parts = [&] { encode_parts(*encoders[counterparts[c]]); };
              encode_in_parts();
              parts_samples[c].push_back(nanoseconds_per_byte(encode_in_parts, text.size(), 1));
            }
        }
    // The speed relative to serial is the median over rounds of serial's time over the encoder's
    // in the same round: the two ran one after the other, so the load of that moment cancels,
    // which a ratio of medians taken from different rounds would not do.
    const auto median_of = [](std::vector<double> values) {
      std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(values.size() / 2), values.end());
      return values[values.size() / 2];
    };
    std::printf("%s, %d rounds; median ns/byte, MB/s, and median speed relative to serial in the same round\n", encoding.c_str(), rounds);
    std::printf("%-9s", "input");
    for (const tokenizer::Encoder* encoder : encoders) std::printf(" %27.*s", static_cast<int>(encoder->name.size()), encoder->name.data());
    std::printf("\n");
    // A row of cells from times[e][k] (one per round).
    const auto print_row = [&](const char* name, const std::vector<std::vector<std::vector<double>>>& times,
                               std::size_t k) {
      std::printf("%-9s", name);
      for (std::size_t e = 0; e < encoders.size(); ++e) {
        const double median = median_of(times[e][k]);
        std::vector<double> ratios;
        for (int round = 0; round < rounds; ++round) ratios.push_back(times[0][k][round] / times[e][k][round]);
        std::printf("   %6.2f ns/B %6.1f MB/s %4.2fx", median, 1e3 / median, median_of(std::move(ratios)));
      }
      std::printf("\n");
    };
    // Per encoder, the worst adversarial input's time per byte over long English's in times.
    const auto print_worst = [&](const char* name, const std::vector<std::vector<std::vector<double>>>& times) {
      std::printf("%-9s", name);
      for (std::size_t e = 0; e < encoders.size(); ++e) {
        double worst = 0;
        for (std::size_t k = kFirstAdversarial; k < inputs; ++k) {
          std::vector<double> ratios;
          for (int round = 0; round < rounds; ++round) ratios.push_back(times[e][k][round] / times[e][kLong][round]);
          worst = std::max(worst, median_of(std::move(ratios)));
        }
        std::printf(" %26.2fx", worst);
      }
      std::printf("\n");
    };
    for (std::size_t k = 0; k < inputs; ++k) {
      print_row(kInputs[k].name, samples, k);
      if (k == kLong) print_row("long-1st", samples, long_first);
    }
    print_worst("worst/long", samples);
    print_row("long-cold", cold, kLong);
    print_worst("worst-cold", cold);
    // What the threads give each multithreaded encoder on long English: the median over rounds of
    // its single-threaded counterpart's time over its own in the same round.
    std::printf("%-9s", "threads");
    for (std::size_t e = 0; e < encoders.size(); ++e) {
      const std::size_t c = counterpart_of[e];
      if (c == encoders.size()) {
        std::printf(" %31s", "");
        continue;
      }
      std::vector<double> ratios;
      for (int round = 0; round < rounds; ++round) ratios.push_back(samples[c][kLong][round] / samples[e][kLong][round]);
      char over[40];
      std::snprintf(over, sizeof over, "%.2fx over %.*s", median_of(std::move(ratios)),
                    static_cast<int>(encoders[c]->name.size()), encoders[c]->name.data());
      std::printf(" %31s", over);
    }
    std::printf("\n");
    std::printf("%zu threads: long in %zu parts, each part encoded at once", threads, parts.size());
    for (std::size_t c = 0; c < counterparts.size(); ++c) {
      const std::vector<double>& counterpart = samples[counterparts[c]][kLong];
      std::vector<double> speedups;
      for (int round = 0; round < rounds; ++round) speedups.push_back(counterpart[round] / parts_samples[c][round]);
      const std::string_view name = encoders[counterparts[c]]->name;
      std::printf("%s by %.*s: %.2f ns/B %.2fx", c == 0 ? "" : ";", static_cast<int>(name.size()), name.data(),
                  median_of(parts_samples[c]), median_of(std::move(speedups)));
    }
    std::printf("\n");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "encoder_ratios: %s\n", e.what());
    return 1;
  }
  return 0;
}
