#include "gpu/opencl_memory.hpp"

#include "gpu/opencl_error.hpp"

namespace gpu {

Buffer create_buffer(cl_context context, cl_mem_flags flags, std::size_t bytes) {
  cl_int status = CL_SUCCESS;
  Buffer buffer(clCreateBuffer(context, flags, bytes, nullptr, &status));
  check(status, "clCreateBuffer");
  return buffer;
}

Buffer upload_buffer(cl_context context, std::span<const float> values) {
  cl_int status = CL_SUCCESS;
  // CL_MEM_COPY_HOST_PTR only reads the host memory, whatever the pointer's constness says.
  Buffer buffer(clCreateBuffer(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, values.size_bytes(),
                               const_cast<float*>(values.data()), &status));
  check(status, "clCreateBuffer");
  return buffer;
}

void download_buffer(cl_command_queue queue, cl_mem buffer, std::span<float> values) {
  check(clEnqueueReadBuffer(queue, buffer, CL_TRUE, 0, values.size_bytes(), values.data(), 0, nullptr, nullptr),
        "clEnqueueReadBuffer");
}

}  // namespace gpu
