#include "error_logging_reporter.hpp"

#include <string>

#include "error_log.hpp"

namespace benches {

bool ErrorLoggingReporter::ReportContext(const Context& context) {
  const benchmark::CPUInfo& cpu = context.cpu_info;
  if (cpu.scaling == benchmark::CPUInfo::ENABLED) {
    log_warning("CPU frequency scaling is enabled: times will vary with the clock");
  }
  if (!cpu.load_avg.empty() && cpu.load_avg.front() >= cpu.num_cpus) {
    log_warning("load average " + std::to_string(cpu.load_avg.front()) + " at start on " +
                std::to_string(cpu.num_cpus) + " CPUs: other work competes with the benchmarks");
  }
  if (std::string(TOKBENCH_BUILD_TYPE) != "Release") {
    log_warning(std::string("built as ") + TOKBENCH_BUILD_TYPE + ", not Release: times are not representative");
  }
  return display_.ReportContext(context);
}

void ErrorLoggingReporter::ReportRuns(const std::vector<Run>& runs) {
  for (const Run& run : runs) {
    if (run.error_occurred) log_error(run.benchmark_name() + ": " + run.error_message);
  }
  display_.ReportRuns(runs);
}

}  // namespace benches
