#pragma once

#include <gtest/gtest.h>

#include "gpu/opencl_error.hpp"
#include "gpu/opencl_runtime.hpp"

namespace gpu_tests {

// Tests that need a device. They are skipped only when no OpenCL device exists at all; any other
// failure to set up the runtime (a bad OPENCL_DEVICE, a driver error) fails them.
class OpenClTest : public ::testing::Test {
 protected:
  void SetUp() override {
    try {
      runtime_ = &gpu::default_runtime();
    } catch (const gpu::NoOpenClDeviceError& error) {
      GTEST_SKIP() << error.what();
    }
  }

  gpu::OpenClRuntime& runtime() { return *runtime_; }

 private:
  gpu::OpenClRuntime* runtime_ = nullptr;
};

}  // namespace gpu_tests
