// Without any OpenCL platform, discovery raises NoOpenClDeviceError, the one error the other tests
// turn into a skip. The ICD loader reads its vendor directory once per process, so the check runs
// in a child process of this executable whose OCL_ICD_VENDORS names an empty place.
#include <gtest/gtest.h>
#include <unistd.h>

#include <climits>
#include <cstdlib>
#include <string>

#include "gpu/opencl_device.hpp"
#include "gpu/opencl_error.hpp"
#include "gpu/opencl_implementations.hpp"
#include "gpu/opencl_runtime.hpp"

namespace {

constexpr const char* kChildVariable = "GPU_TESTS_WITHOUT_PLATFORMS";

std::string this_executable() {
  char path[PATH_MAX];
  const ssize_t length = readlink("/proc/self/exe", path, sizeof(path) - 1);
  return length > 0 ? std::string(path, static_cast<std::size_t>(length)) : std::string();
}

TEST(NoOpenClPlatform, DiscoveryRaisesNoOpenClDeviceError) {
  if (std::getenv(kChildVariable) != nullptr) {
    EXPECT_THROW(gpu::list_devices(), gpu::NoOpenClDeviceError);
    EXPECT_THROW(gpu::default_runtime(), gpu::NoOpenClDeviceError);
    EXPECT_FALSE(gpu::opencl_device_available());
    for (const attention::Implementation& implementation : gpu::opencl_implementations()) {
      EXPECT_FALSE(implementation.is_supported()) << implementation.name;
    }
    return;
  }
  const std::string executable = this_executable();
  ASSERT_FALSE(executable.empty());
  const std::string command = std::string("OCL_ICD_VENDORS=/nonexistent-opencl-vendors ") + kChildVariable + "=1 '" +
                              executable + "' --gtest_filter=NoOpenClPlatform.* > /dev/null 2>&1";
  EXPECT_EQ(std::system(command.c_str()), 0) << command;
}

}  // namespace
