#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <string_view>

#include "gpu/opencl_error.hpp"
#include "gpu/opencl_runtime.hpp"

namespace gpu_tests {

// Tests that need a device. They are skipped only when no OpenCL device exists at all, and not
// even then with TOKBENCH_REQUIRE_OPENCL=1 (scripts/test sets it: its machine has PoCL); any other
// failure to set up the runtime (a bad OPENCL_DEVICE, a driver error) fails them.
class OpenClTest : public ::testing::Test {
 protected:
  void SetUp() override {
    try {
      runtime_ = &gpu::default_runtime();
    } catch (const gpu::NoOpenClDeviceError& error) {
      const char* required = std::getenv("TOKBENCH_REQUIRE_OPENCL");
      if (required != nullptr && std::string_view(required) == "1") FAIL() << error.what();
      GTEST_SKIP() << error.what();
    }
  }

  gpu::OpenClRuntime& runtime() { return *runtime_; }

 private:
  gpu::OpenClRuntime* runtime_ = nullptr;
};

}  // namespace gpu_tests
