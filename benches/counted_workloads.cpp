#include "counted_workloads.hpp"

#include <benchmark/benchmark.h>

#include <memory>
#include <string>
#include <utility>

#include "attention/implementation_registry.hpp"
#include "bench_inputs.hpp"
#include "cold_encoding.hpp"
#include "pretokenization_scans.hpp"
#include "sdpa_bench_inputs.hpp"

namespace benches {

namespace {

// Short inputs repeat so that their count is the steady state of many calls, as the benchmarks
// measure it, and large enough that a change of a few instructions a call still shows.
int iterations_for(std::size_t input_bytes) {
  if (input_bytes < 1024) return 100;
  if (input_bytes < 64 * 1024) return 10;
  return 1;
}

void add_encoding_workloads(std::vector<CountedWorkload>& out) {
  for (const EncodingInput& input : encoding_inputs()) {
    for (const tokenizer::Encoder* encoder : tokenizer::supported_encoders()) {
      out.push_back({input.family + "/" + std::string(encoder->name), iterations_for(input.text().size()),
                     [&input, encoder] {
                       const tokenizer::Tokenizer& tok = tokenizer_for(input.encoding);
                       auto ids = std::make_shared<std::vector<tokenizer::Rank>>();
                       return CountedWorkload::Iteration{[&tok, encoder, ids, text = input.text()] {
                         ids->clear();
                         encoder->encode(tok, text, *ids);
                         benchmark::DoNotOptimize(ids->data());
                       }};
                     }});
    }
  }
  for (const tokenizer::Encoder* encoder : tokenizer::supported_encoders()) {
    out.push_back({"encode_batch/" + std::string(encoder->name), 1, [encoder] {
                     const tokenizer::Tokenizer& tok = tokenizer_for("cl100k_base");
                     return CountedWorkload::Iteration{[&tok, encoder] {
                       const auto ids = tok.encode_batch(batch_documents(), *encoder);
                       benchmark::DoNotOptimize(ids.data());
                     }};
                   }});
  }
  // The cold families: what a fresh tokenizer's first occurrences cost (the merges above all),
  // which the warm workloads, answered by the piece memos, never count.
  for (const ColdFamily& family : cold_families()) {
    for (const tokenizer::Encoder* encoder : tokenizer::supported_encoders()) {
      out.push_back({family.name + "/" + std::string(encoder->name), 1, [&family, encoder] {
                       auto fresh = std::make_shared<std::unique_ptr<tokenizer::Tokenizer>>();
                       return CountedWorkload::Iteration{
                           [&family, encoder, fresh] {
                             benchmark::DoNotOptimize(encode_cold(family.workload, **fresh, *encoder));
                           },
                           [&family, encoder, fresh] { *fresh = fresh_tokenizer(family.encoding, *encoder); }};
                     }});
    }
  }
}

void add_tokenizer_workloads(std::vector<CountedWorkload>& out) {
  for (const PreTokenizationScan& scan : pretokenization_scans()) {
    out.push_back({std::string("pretokenization/") + scan.name, 1, [&scan] {
                     return CountedWorkload::Iteration{[pass = scan.prepare()] { benchmark::DoNotOptimize(pass()); }};
                   }});
  }
  for (const std::string& name : tokenizer::Vocabulary::builtin_names()) {
    out.push_back({"vocabulary_load/" + name, 1, [name] {
                     return CountedWorkload::Iteration{[name] {
                       const tokenizer::Vocabulary vocabulary = tokenizer::Vocabulary::builtin(name);
                       benchmark::DoNotOptimize(&vocabulary);
                     }};
                   }});
  }
  out.push_back({"decode/long_encoding", 1, [] {
                   const tokenizer::Tokenizer& tok = tokenizer_for("cl100k_base");
                   auto ids = std::make_shared<const std::vector<tokenizer::Rank>>(tok.encode_ordinary(long_text()));
                   return CountedWorkload::Iteration{[&tok, ids] {
                     const std::string text = tok.decode(*ids);
                     benchmark::DoNotOptimize(text.data());
                   }};
                 }});
}

// Two grouped-query shapes: four query heads a key/value head at seq 128, and two at seq 100,
// whose rows and keys fill no kernel tile evenly.
constexpr attention::AttentionShape kCountedSdpaShapes[] = {
    {.batch = 1, .heads = 8, .kv_heads = 2, .seq_q = 128, .seq_k = 128, .head_dim = 64, .value_dim = 64},
    {.batch = 2, .heads = 4, .kv_heads = 2, .seq_q = 100, .seq_k = 100, .head_dim = 128, .value_dim = 128},
};

// A workload that runs `implementation` on `shape` once an iteration.
template <class Element>
CountedWorkload sdpa_workload(std::string name, const attention::BasicImplementation<Element>& implementation,
                              attention::AttentionShape shape, attention::CausalAlignment causal) {
  return {std::move(name), 1, [&implementation, shape, causal] {
            const attention::BasicAttentionProblem<Element> problem =
                sdpa_buffers_for(shape).problem_of<Element>(causal);
            return CountedWorkload::Iteration{[&implementation, problem] {
              implementation.run(problem);
              benchmark::DoNotOptimize(problem.out.data());
            }};
          }};
}

void add_sdpa_workloads(std::vector<CountedWorkload>& out) {
  for (const attention::Implementation& implementation : attention::cpu_implementations()) {
    if (!implementation.is_supported()) continue;
    for (const attention::AttentionShape& shape : kCountedSdpaShapes)
      for (const bool causal : {false, true})
        out.push_back(sdpa_workload(sdpa_benchmark_name(implementation.name, shape, causal), implementation, shape,
                                    causal ? attention::CausalAlignment::top_left : attention::CausalAlignment::none));
    // One and four queries against 1,024 keys, the smallest decode benchmarks, for decode alone:
    // flash's work there is its sdpa shapes' (and under callgrind it takes 15 s a shape, the
    // gate's longest), the reference's would take minutes.
    if (implementation.name != "decode") continue;
    for (const std::size_t seq_q : kDecodeQueries) {
      const attention::AttentionShape shape = decode_shape(1, seq_q, kDecodeKeys[0]);
      out.push_back(sdpa_workload(sdpa_decode_benchmark_name(implementation.name, shape), implementation, shape,
                                  attention::CausalAlignment::bottom_right));
    }
  }
  // flash_bf16 on the same shapes: under valgrind (avx2 at most) its kernel widens K and V a tile
  // at a time; the AVX512-BF16 one runs only outside valgrind.
  const attention::Bf16Implementation& flash_bf16 = *attention::find_cpu_bf16_implementation("flash_bf16");
  for (const attention::AttentionShape& shape : kCountedSdpaShapes)
    for (const bool causal : {false, true})
      out.push_back(sdpa_workload(sdpa_benchmark_name(flash_bf16.name, shape, causal), flash_bf16, shape,
                                  causal ? attention::CausalAlignment::top_left : attention::CausalAlignment::none));
  // decode_bf16 on one query against 1,024 keys: under valgrind its products widen bfloat16 in
  // registers; the vdpbf16ps ones run only outside valgrind.
  const attention::Bf16Implementation& decode_bf16 = *attention::find_cpu_bf16_implementation("decode_bf16");
  const attention::AttentionShape one_query = decode_shape(1, 1, kDecodeKeys[0]);
  out.push_back(sdpa_workload(sdpa_decode_benchmark_name(decode_bf16.name, one_query), decode_bf16, one_query,
                              attention::CausalAlignment::bottom_right));
}

}  // namespace

std::vector<CountedWorkload> counted_workloads() {
  std::vector<CountedWorkload> out;
  add_encoding_workloads(out);
  add_tokenizer_workloads(out);
  add_sdpa_workloads(out);
  return out;
}

}  // namespace benches
