#pragma once

#include <benchmark/benchmark.h>

#include <exception>
#include <string>

namespace benches {

// benchmark::RegisterBenchmark for a function that may throw (a missing vocabulary, an OpenCL
// failure): the exception becomes the benchmark's error (SkipWithError), which the run reports
// and logs, instead of ending the whole run in std::terminate.
template <class Function, class... Arguments>
benchmark::internal::Benchmark* register_guarded(const std::string& name, Function function,
                                                 Arguments... arguments) {
  return benchmark::RegisterBenchmark(name.c_str(), [=](benchmark::State& state) {
    try {
      function(state, arguments...);
    } catch (const std::exception& error) {
      state.SkipWithError(error.what());
    }
  });
}

}  // namespace benches
