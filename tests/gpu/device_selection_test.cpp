#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "gpu/opencl_device.hpp"
#include "gpu/opencl_error.hpp"

namespace {

gpu::DeviceInfo fake_device(std::size_t index, std::string name, cl_device_type type) {
  gpu::DeviceInfo device;
  device.index = index;
  device.name = std::move(name);
  device.platform_name = "Fake Platform";
  device.type = type;
  return device;
}

// Two platforms' worth of devices, flattened: the CPU comes before the GPUs.
const std::vector<gpu::DeviceInfo> kDevices{
    fake_device(0, "pthread-haswell-AMD EPYC", CL_DEVICE_TYPE_CPU),
    fake_device(1, "NVIDIA H100 80GB HBM3", CL_DEVICE_TYPE_GPU),
    fake_device(2, "NVIDIA GeForce RTX 4090", CL_DEVICE_TYPE_GPU),
};

std::string selection_error(std::span<const gpu::DeviceInfo> devices, std::string_view request) {
  try {
    gpu::select_device(devices, request);
  } catch (const std::invalid_argument& error) {
    return error.what();
  }
  return "no error";
}

TEST(DeviceSelection, WithoutARequestPrefersTheFirstGpu) {
  EXPECT_EQ(gpu::select_device(kDevices, std::nullopt).index, 1u);
  EXPECT_EQ(gpu::select_device(kDevices, "").index, 1u);
}

TEST(DeviceSelection, WithoutARequestOrGpuTakesTheFirstCpu) {
  const std::vector<gpu::DeviceInfo> devices{fake_device(0, "FPGA emulator", CL_DEVICE_TYPE_ACCELERATOR),
                                             fake_device(1, "pthread-haswell", CL_DEVICE_TYPE_CPU)};
  EXPECT_EQ(gpu::select_device(devices, std::nullopt).index, 1u);
}

TEST(DeviceSelection, WithoutARequestGpuOrCpuTakesTheFirstDevice) {
  const std::vector<gpu::DeviceInfo> devices{fake_device(0, "FPGA emulator", CL_DEVICE_TYPE_ACCELERATOR)};
  EXPECT_EQ(gpu::select_device(devices, std::nullopt).index, 0u);
}

TEST(DeviceSelection, AnIndexNamesThatDeviceOfTheFlatList) {
  EXPECT_EQ(gpu::select_device(kDevices, "0").index, 0u);
  EXPECT_EQ(gpu::select_device(kDevices, "2").index, 2u);
}

TEST(DeviceSelection, AnythingElseIsACaseInsensitiveSubstringOfTheName) {
  EXPECT_EQ(gpu::select_device(kDevices, "h100").index, 1u);
  EXPECT_EQ(gpu::select_device(kDevices, "GEFORCE").index, 2u);
  EXPECT_EQ(gpu::select_device(kDevices, "NVIDIA").index, 1u) << "the first match wins";
  EXPECT_EQ(gpu::select_device(kDevices, "epyc").index, 0u);
}

TEST(DeviceSelection, ARequestMatchingNothingListsEveryDevice) {
  const std::string message = selection_error(kDevices, "radeon");
  EXPECT_NE(message.find("OPENCL_DEVICE=\"radeon\""), std::string::npos) << message;
  EXPECT_NE(message.find("[0] pthread-haswell-AMD EPYC (Fake Platform, CPU)"), std::string::npos) << message;
  EXPECT_NE(message.find("[1] NVIDIA H100 80GB HBM3 (Fake Platform, GPU)"), std::string::npos) << message;
  EXPECT_NE(message.find("[2] NVIDIA GeForce RTX 4090 (Fake Platform, GPU)"), std::string::npos) << message;
}

TEST(DeviceSelection, AnIndexPastTheListIsAnError) {
  const std::string message = selection_error(kDevices, "3");
  EXPECT_NE(message.find("OPENCL_DEVICE=\"3\""), std::string::npos) << message;
  EXPECT_NE(message.find("[2] NVIDIA GeForce RTX 4090"), std::string::npos) << message;
}

TEST(DeviceSelection, NoDeviceToChooseFromIsAnError) {
  EXPECT_THROW(gpu::select_device({}, std::nullopt), std::invalid_argument);
}

// The real platforms of this machine, through the environment variable.
class EnvironmentDeviceSelection : public ::testing::Test {
 protected:
  void SetUp() override {
    try {
      devices_ = gpu::list_devices();
    } catch (const gpu::NoOpenClDeviceError& error) {
      GTEST_SKIP() << error.what();
    }
  }
  void TearDown() override { unsetenv(gpu::kDeviceVariable); }

  std::vector<gpu::DeviceInfo> devices_;
};

TEST_F(EnvironmentDeviceSelection, DevicesAreNumberedInListOrder) {
  for (std::size_t i = 0; i < devices_.size(); ++i) {
    EXPECT_EQ(devices_[i].index, i);
    EXPECT_NE(devices_[i].id, nullptr);
    EXPECT_FALSE(devices_[i].name.empty());
  }
}

TEST_F(EnvironmentDeviceSelection, ByIndex) {
  const std::size_t last = devices_.size() - 1;
  setenv(gpu::kDeviceVariable, std::to_string(last).c_str(), 1);
  const gpu::DeviceInfo selected = gpu::select_device_from_environment();
  EXPECT_EQ(selected.index, last);
  EXPECT_EQ(selected.id, devices_[last].id);
}

TEST_F(EnvironmentDeviceSelection, BySubstringOfTheNameInAnotherCase) {
  std::string part = devices_.back().name.substr(0, 6);
  for (char& c : part) {
    const unsigned char letter = static_cast<unsigned char>(c);
    c = static_cast<char>(std::islower(letter) ? std::toupper(letter) : std::tolower(letter));
  }
  setenv(gpu::kDeviceVariable, part.c_str(), 1);
  const gpu::DeviceInfo selected = gpu::select_device_from_environment();
  EXPECT_NE(selected.name.find(devices_.back().name.substr(0, 6)), std::string::npos) << selected.name;
}

TEST_F(EnvironmentDeviceSelection, ABadValueIsAnErrorNamingEveryDevice) {
  setenv(gpu::kDeviceVariable, "no such device anywhere", 1);
  try {
    gpu::select_device_from_environment();
    FAIL() << "select_device_from_environment did not throw";
  } catch (const std::invalid_argument& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("no such device anywhere"), std::string::npos) << message;
    for (const gpu::DeviceInfo& device : devices_) {
      EXPECT_NE(message.find(device.describe()), std::string::npos) << message;
    }
  }
}

TEST_F(EnvironmentDeviceSelection, UnsetFollowsTheDefaultRule) {
  unsetenv(gpu::kDeviceVariable);
  EXPECT_EQ(gpu::select_device_from_environment().index, gpu::select_device(devices_, std::nullopt).index);
}

}  // namespace
