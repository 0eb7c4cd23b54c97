#pragma once

#include <CL/cl.h>

#include <utility>

namespace gpu {

// Sole owner of one reference to an OpenCL object: released once, on destruction; movable, not
// copyable. A null handle owns nothing.
template <typename Handle, cl_int(CL_API_CALL* Release)(Handle)>
class OpenClHandle {
 public:
  OpenClHandle() = default;
  // Takes over a reference the caller owns (the one a clCreate* call returned).
  explicit OpenClHandle(Handle handle) : handle_(handle) {}
  OpenClHandle(OpenClHandle&& other) noexcept : handle_(std::exchange(other.handle_, nullptr)) {}
  OpenClHandle& operator=(OpenClHandle&& other) noexcept {
    if (this != &other) {
      reset();
      handle_ = std::exchange(other.handle_, nullptr);
    }
    return *this;
  }
  OpenClHandle(const OpenClHandle&) = delete;
  OpenClHandle& operator=(const OpenClHandle&) = delete;
  ~OpenClHandle() { reset(); }

  Handle get() const { return handle_; }
  explicit operator bool() const { return handle_ != nullptr; }

 private:
  // A release error leaves nothing to recover in a destructor; the reference is gone either way.
  void reset() {
    if (handle_ != nullptr) Release(std::exchange(handle_, nullptr));
  }

  Handle handle_ = nullptr;
};

using Context = OpenClHandle<cl_context, clReleaseContext>;
using CommandQueue = OpenClHandle<cl_command_queue, clReleaseCommandQueue>;
using Buffer = OpenClHandle<cl_mem, clReleaseMemObject>;
using Program = OpenClHandle<cl_program, clReleaseProgram>;
using Kernel = OpenClHandle<cl_kernel, clReleaseKernel>;
using Event = OpenClHandle<cl_event, clReleaseEvent>;

}  // namespace gpu
