#pragma once

#include <CL/cl.h>

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace gpu {

// One device of one platform, as discovery found it.
struct DeviceInfo {
  // Position in the flat list of every device of every platform: what OPENCL_DEVICE=<index> names.
  std::size_t index = 0;
  cl_platform_id platform = nullptr;
  cl_device_id id = nullptr;
  std::string name;
  std::string platform_name;
  cl_device_type type = 0;

  // "GPU", "CPU", "accelerator" or "other".
  std::string_view type_name() const;
  // "[0] pthread-haswell-AMD EPYC (Portable Computing Language, CPU)".
  std::string describe() const;
};

// The environment variable that chooses the device: an index into list_devices(), or a
// case-insensitive substring of a device name.
inline constexpr const char* kDeviceVariable = "OPENCL_DEVICE";

// Every device of every platform, platforms in the ICD loader's order and devices in each
// platform's. Throws NoOpenClDeviceError when no platform is installed or none has a device.
std::vector<DeviceInfo> list_devices();

// The device `request` names (an index, else the first device whose name contains it, ignoring
// case); without a request (nullopt or empty), the first GPU, else the first CPU, else the first
// device. Throws std::invalid_argument listing every device when the request matches none.
const DeviceInfo& select_device(std::span<const DeviceInfo> devices, std::optional<std::string_view> request);

// select_device(list_devices(), $OPENCL_DEVICE).
DeviceInfo select_device_from_environment();

}  // namespace gpu
