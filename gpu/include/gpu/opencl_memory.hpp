#pragma once

#include <CL/cl.h>

#include <cstddef>
#include <span>

#include "gpu/opencl_handle.hpp"

namespace gpu {

// A device buffer of `bytes` bytes, contents undefined.
Buffer create_buffer(cl_context context, cl_mem_flags flags, std::size_t bytes);

// A read-only device buffer holding a copy of `values` (copied before this returns).
Buffer upload_buffer(cl_context context, std::span<const float> values);

// Copies the first values.size() floats of `buffer` into `values`; returns once they are there,
// hence after every command enqueued before it on this in-order queue.
void download_buffer(cl_command_queue queue, cl_mem buffer, std::span<float> values);

}  // namespace gpu
