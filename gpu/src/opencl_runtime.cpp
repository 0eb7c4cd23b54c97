#include "gpu/opencl_runtime.hpp"

#include <memory>
#include <string>
#include <vector>

#include "gpu/opencl_error.hpp"
#include "gpu/opencl_program.hpp"
#include "embedded_files.hpp"

namespace gpu {

namespace {

template <typename Value>
Value device_value(cl_device_id device, cl_device_info what) {
  Value value{};
  check(clGetDeviceInfo(device, what, sizeof(value), &value, nullptr), "clGetDeviceInfo");
  return value;
}

// cl_nv_device_attribute_query's names (CL/cl_ext.h has them only in newer headers).
constexpr cl_device_info kComputeCapabilityMajorNv = 0x4000;
constexpr cl_device_info kComputeCapabilityMinorNv = 0x4001;

unsigned nvidia_compute_capability(cl_device_id device) {
  std::size_t size = 0;
  check(clGetDeviceInfo(device, CL_DEVICE_EXTENSIONS, 0, nullptr, &size), "clGetDeviceInfo");
  std::string extensions(size, '\0');
  check(clGetDeviceInfo(device, CL_DEVICE_EXTENSIONS, size, extensions.data(), nullptr), "clGetDeviceInfo");
  if (extensions.find("cl_nv_device_attribute_query") == std::string::npos) return 0;
  return 10 * device_value<cl_uint>(device, kComputeCapabilityMajorNv) +
         device_value<cl_uint>(device, kComputeCapabilityMinorNv);
}

DeviceLimits query_limits(cl_device_id device) {
  return DeviceLimits{
      static_cast<std::size_t>(device_value<cl_ulong>(device, CL_DEVICE_LOCAL_MEM_SIZE)),
      device_value<std::size_t>(device, CL_DEVICE_MAX_WORK_GROUP_SIZE),
      static_cast<std::size_t>(device_value<cl_ulong>(device, CL_DEVICE_MAX_MEM_ALLOC_SIZE)),
      device_value<cl_uint>(device, CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT),
      device_value<cl_uint>(device, CL_DEVICE_MAX_COMPUTE_UNITS),
      nvidia_compute_capability(device),
  };
}

Context create_context(const DeviceInfo& device) {
  const cl_context_properties properties[] = {
      CL_CONTEXT_PLATFORM, reinterpret_cast<cl_context_properties>(device.platform), 0};
  cl_int status = CL_SUCCESS;
  Context context(clCreateContext(properties, 1, &device.id, nullptr, nullptr, &status));
  check(status, "clCreateContext");
  return context;
}

CommandQueue create_profiling_queue(cl_context context, cl_device_id device) {
  cl_int status = CL_SUCCESS;
  CommandQueue queue(clCreateCommandQueue(context, device, CL_QUEUE_PROFILING_ENABLE, &status));
  check(status, "clCreateCommandQueue");
  return queue;
}

}  // namespace

OpenClRuntime::OpenClRuntime(DeviceInfo device)
    : device_(std::move(device)),
      limits_(query_limits(device_.id)),
      context_(create_context(device_)),
      queue_(create_profiling_queue(context_.get(), device_.id)) {}

cl_program OpenClRuntime::program(std::span<const std::string_view> kernel_files, std::string_view options) {
  std::string name;
  std::vector<std::string_view> sources;
  for (const std::string_view file : kernel_files) {
    name.append(name.empty() ? "" : " + ").append(file);
    sources.push_back(embedded_kernel_source(file));
  }
  std::string key = name + " | " + std::string(options);
  // Builds happen under the lock: a second thread asking for the same program waits for the first
  // build instead of compiling it again.
  const std::lock_guard lock(programs_mutex_);
  const auto found = programs_.find(key);
  if (found != programs_.end()) return found->second.get();
  Program program = build_program(context_.get(), device_.id, name, sources, options);
  return programs_.emplace(std::move(key), std::move(program)).first->second.get();
}

OpenClRuntime& default_runtime() {
  static std::mutex mutex;
  static std::unique_ptr<OpenClRuntime> runtime;
  const std::lock_guard lock(mutex);
  if (!runtime) runtime = std::make_unique<OpenClRuntime>(select_device_from_environment());
  return *runtime;
}

bool opencl_device_available() {
  try {
    return !list_devices().empty();
  } catch (const NoOpenClDeviceError&) {
    return false;
  }
}

}  // namespace gpu
