#pragma once

#include <benchmark/benchmark.h>

#include <vector>

namespace benches {

// Shows everything through the reporter that --benchmark_format chose, and logs what went wrong
// (error_log.hpp): benchmarks that reported an error, and conditions of the machine or build that
// make the timings doubtful.
class ErrorLoggingReporter : public benchmark::BenchmarkReporter {
 public:
  explicit ErrorLoggingReporter(benchmark::BenchmarkReporter& display) : display_(display) {}

  bool ReportContext(const Context& context) override;
  void ReportRuns(const std::vector<Run>& runs) override;
  void Finalize() override { display_.Finalize(); }

 private:
  benchmark::BenchmarkReporter& display_;
};

}  // namespace benches
