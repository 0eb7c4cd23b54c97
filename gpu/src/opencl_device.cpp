#include "gpu/opencl_device.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdlib>
#include <stdexcept>

#include "gpu/opencl_error.hpp"

namespace gpu {

namespace {

// OpenCL strings come with their terminating NUL, and some drivers pad them with spaces.
std::string trimmed(std::string text) {
  while (!text.empty() && (text.back() == '\0' || text.back() == ' ')) text.pop_back();
  return text;
}

// A string property through clGetPlatformInfo or clGetDeviceInfo: its size first, then the text.
template <class Handle, class Info>
std::string info_string(cl_int (*get)(Handle, Info, std::size_t, void*, std::size_t*), const char* call,
                        Handle handle, Info what) {
  std::size_t size = 0;
  check(get(handle, what, 0, nullptr, &size), call);
  std::string text(size, '\0');
  check(get(handle, what, size, text.data(), nullptr), call);
  return trimmed(std::move(text));
}

std::string platform_string(cl_platform_id platform, cl_platform_info what) {
  return info_string(clGetPlatformInfo, "clGetPlatformInfo", platform, what);
}

std::string device_string(cl_device_id device, cl_device_info what) {
  return info_string(clGetDeviceInfo, "clGetDeviceInfo", device, what);
}

std::vector<cl_platform_id> platform_ids() {
  cl_uint count = 0;
  const cl_int status = clGetPlatformIDs(0, nullptr, &count);
  // The ICD loader reports an empty registry as CL_PLATFORM_NOT_FOUND_KHR (-1001).
  if (status == -1001 || (status == CL_SUCCESS && count == 0)) {
    throw NoOpenClDeviceError("no OpenCL platform is installed (the ICD loader found none)");
  }
  check(status, "clGetPlatformIDs");
  std::vector<cl_platform_id> platforms(count);
  check(clGetPlatformIDs(count, platforms.data(), nullptr), "clGetPlatformIDs");
  return platforms;
}

std::vector<cl_device_id> device_ids(cl_platform_id platform) {
  cl_uint count = 0;
  const cl_int status = clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 0, nullptr, &count);
  if (status == CL_DEVICE_NOT_FOUND) return {};
  check(status, "clGetDeviceIDs");
  std::vector<cl_device_id> devices(count);
  check(clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, count, devices.data(), nullptr), "clGetDeviceIDs");
  return devices;
}

std::string lowercase(std::string_view text) {
  std::string lower(text);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return lower;
}

const DeviceInfo* first_of_type(std::span<const DeviceInfo> devices, cl_device_type type) {
  const auto found = std::find_if(devices.begin(), devices.end(),
                                  [type](const DeviceInfo& device) { return (device.type & type) != 0; });
  return found == devices.end() ? nullptr : &*found;
}

const DeviceInfo* find_requested(std::span<const DeviceInfo> devices, std::string_view request) {
  std::size_t index = 0;
  const auto [end, error] = std::from_chars(request.data(), request.data() + request.size(), index);
  if (error == std::errc() && end == request.data() + request.size()) {
    return index < devices.size() ? &devices[index] : nullptr;
  }
  const std::string needle = lowercase(request);
  const auto found = std::find_if(devices.begin(), devices.end(), [&needle](const DeviceInfo& device) {
    return lowercase(device.name).find(needle) != std::string::npos;
  });
  return found == devices.end() ? nullptr : &*found;
}

}  // namespace

std::string_view DeviceInfo::type_name() const {
  if ((type & CL_DEVICE_TYPE_GPU) != 0) return "GPU";
  if ((type & CL_DEVICE_TYPE_CPU) != 0) return "CPU";
  if ((type & CL_DEVICE_TYPE_ACCELERATOR) != 0) return "accelerator";
  return "other";
}

std::string DeviceInfo::describe() const {
  std::string text = "[";
  text.append(std::to_string(index)).append("] ").append(name);
  text.append(" (").append(platform_name).append(", ").append(type_name()).append(")");
  return text;
}

std::vector<DeviceInfo> list_devices() {
  std::vector<DeviceInfo> devices;
  std::string platform_names;
  for (const cl_platform_id platform : platform_ids()) {
    const std::string platform_name = platform_string(platform, CL_PLATFORM_NAME);
    platform_names += (platform_names.empty() ? "" : ", ") + platform_name;
    for (const cl_device_id id : device_ids(platform)) {
      cl_device_type type = 0;
      check(clGetDeviceInfo(id, CL_DEVICE_TYPE, sizeof(type), &type, nullptr), "clGetDeviceInfo");
      devices.push_back(
          DeviceInfo{devices.size(), platform, id, device_string(id, CL_DEVICE_NAME), platform_name, type});
    }
  }
  if (devices.empty()) throw NoOpenClDeviceError("no OpenCL platform has a device (platforms: " + platform_names + ")");
  return devices;
}

const DeviceInfo& select_device(std::span<const DeviceInfo> devices, std::optional<std::string_view> request) {
  if (devices.empty()) throw std::invalid_argument("select_device: no OpenCL device to choose from");
  if (!request || request->empty()) {
    if (const DeviceInfo* gpu = first_of_type(devices, CL_DEVICE_TYPE_GPU)) return *gpu;
    if (const DeviceInfo* cpu = first_of_type(devices, CL_DEVICE_TYPE_CPU)) return *cpu;
    return devices.front();
  }
  if (const DeviceInfo* found = find_requested(devices, *request)) return *found;
  std::string message = std::string(kDeviceVariable) + "=\"" + std::string(*request) +
                        "\" is neither the index nor part of the name of an OpenCL device; available devices:";
  for (const DeviceInfo& device : devices) message += "\n  " + device.describe();
  throw std::invalid_argument(message);
}

DeviceInfo select_device_from_environment() {
  const std::vector<DeviceInfo> devices = list_devices();
  const char* request = std::getenv(kDeviceVariable);
  return select_device(devices, request == nullptr ? std::nullopt : std::optional<std::string_view>(request));
}

}  // namespace gpu
