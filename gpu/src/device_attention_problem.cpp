#include "gpu/device_attention_problem.hpp"

#include <stdexcept>
#include <string>

#include "gpu/opencl_memory.hpp"

namespace gpu {

namespace {

void check_kernel_dimension(const char* name, std::size_t value) {
  if (value > kMaxKernelDimension) {
    throw std::invalid_argument(std::string("OpenCL SDPA: ") + name + " = " + std::to_string(value) +
                                " exceeds the kernels' limit of " + std::to_string(kMaxKernelDimension));
  }
}

}  // namespace

DeviceAttentionProblem upload_problem(const OpenClRuntime& runtime, const attention::AttentionProblem& problem) {
  attention::validate(problem);
  const attention::AttentionShape& shape = problem.shape;
  check_kernel_dimension("batch * heads", shape.batch * shape.heads);
  check_kernel_dimension("seq_q", shape.seq_q);
  check_kernel_dimension("seq_k", shape.seq_k);
  const cl_context context = runtime.context();
  DeviceAttentionProblem uploaded{shape,
                                  problem.causal,
                                  problem.effective_scale(),
                                  upload_buffer(context, problem.q),
                                  upload_buffer(context, problem.k),
                                  upload_buffer(context, problem.v),
                                  problem.mask.empty() ? Buffer() : upload_buffer(context, problem.mask),
                                  create_buffer(context, CL_MEM_WRITE_ONLY, shape.out_elements() * sizeof(float))};
  return uploaded;
}

void download_output(const OpenClRuntime& runtime, const DeviceAttentionProblem& problem, std::span<float> out) {
  if (out.size() != problem.shape.out_elements()) {
    throw std::invalid_argument("download_output: out has " + std::to_string(out.size()) + " floats, the shape needs " +
                                std::to_string(problem.shape.out_elements()));
  }
  download_buffer(runtime.queue(), problem.out.get(), out);
}

}  // namespace gpu
