#include "gpu/opencl_launch.hpp"

#include <string>
#include <vector>

namespace gpu {

namespace {

std::string kernel_name(cl_kernel kernel) {
  std::size_t size = 0;
  if (clGetKernelInfo(kernel, CL_KERNEL_FUNCTION_NAME, 0, nullptr, &size) != CL_SUCCESS) return "?";
  std::string name(size, '\0');
  if (clGetKernelInfo(kernel, CL_KERNEL_FUNCTION_NAME, size, name.data(), nullptr) != CL_SUCCESS) return "?";
  while (!name.empty() && name.back() == '\0') name.pop_back();
  return name;
}

cl_ulong profiling_value(cl_event event, cl_profiling_info what) {
  cl_ulong nanoseconds = 0;
  check(clGetEventProfilingInfo(event, what, sizeof(nanoseconds), &nanoseconds, nullptr), "clGetEventProfilingInfo");
  return nanoseconds;
}

}  // namespace

Event enqueue_kernel(cl_command_queue queue, cl_kernel kernel, std::span<const std::size_t> global,
                     std::span<const std::size_t> local) {
  cl_event event = nullptr;
  const cl_int status = clEnqueueNDRangeKernel(queue, kernel, static_cast<cl_uint>(global.size()), nullptr,
                                               global.data(), local.empty() ? nullptr : local.data(), 0, nullptr,
                                               &event);
  if (status != CL_SUCCESS) throw OpenClError("clEnqueueNDRangeKernel(" + kernel_name(kernel) + ")", status);
  return Event(event);
}

double profiled_seconds(std::span<const Event> events) {
  std::vector<cl_event> handles;
  for (const Event& event : events) handles.push_back(event.get());
  if (handles.empty()) return 0.0;
  check(clWaitForEvents(static_cast<cl_uint>(handles.size()), handles.data()), "clWaitForEvents");
  cl_ulong nanoseconds = 0;
  for (const cl_event event : handles) {
    nanoseconds +=
        profiling_value(event, CL_PROFILING_COMMAND_END) - profiling_value(event, CL_PROFILING_COMMAND_START);
  }
  return static_cast<double>(nanoseconds) * 1e-9;
}

}  // namespace gpu
