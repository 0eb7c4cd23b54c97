#include <array>
#include <stdexcept>
#include <string>

#include "gpu/opencl_launch.hpp"
#include "gpu/opencl_memory.hpp"
#include "gpu/opencl_program.hpp"
#include "opencl_kernel_entries.hpp"
#include "sdpa_kernel_arguments.hpp"

namespace gpu {

namespace {

// Must match GEMM_TILE and SOFTMAX_WORK_GROUP of naive_sdpa.cl.
constexpr std::size_t kGemmTile = 16;
constexpr std::size_t kSoftmaxWorkGroup = 64;

constexpr std::array<std::string_view, 2> kProgramFiles{"sdpa_common.cl", "naive_sdpa.cl"};

std::size_t scores_bytes(const attention::AttentionShape& shape) {
  return shape.batch * shape.heads * shape.seq_q * shape.seq_k * sizeof(float);
}

class PreparedNaiveSdpa final : public PreparedSdpa {
 public:
  PreparedNaiveSdpa(OpenClRuntime& runtime, const attention::AttentionShape& shape) : runtime_(runtime), shape_(shape) {
    if (scores_bytes(shape) > runtime.limits().max_allocation_bytes) {
      throw std::runtime_error("opencl_naive: the scores need " + std::to_string(scores_bytes(shape)) +
                               " bytes, more than the device's largest allocation (" +
                               std::to_string(runtime.limits().max_allocation_bytes) + " bytes)");
    }
    // Dimensions are kernel arguments: one program serves every shape.
    const cl_program program = runtime.program(kProgramFiles, "");
    scores_kernel_ = create_kernel(program, "query_key_scores");
    softmax_kernel_ = create_kernel(program, "masked_softmax_rows");
    values_kernel_ = create_kernel(program, "weighted_values");
    scores_ = create_buffer(runtime.context(), CL_MEM_READ_WRITE, scores_bytes(shape));
  }

  std::vector<Event> enqueue(const DeviceAttentionProblem& problem) override {
    const SdpaKernelArguments arguments = sdpa_kernel_arguments(problem, shape_);
    const std::size_t heads = shape_.batch * shape_.heads;
    const cl_command_queue queue = runtime_.queue();
    std::vector<Event> events;

    set_kernel_arguments(scores_kernel_.get(), problem.q, problem.k, scores_, arguments.group, arguments.seq_q,
                         arguments.seq_k, static_cast<cl_int>(shape_.head_dim));
    const std::array scores_global{round_up(shape_.seq_k, kGemmTile), round_up(shape_.seq_q, kGemmTile), heads};
    const std::array gemm_local{kGemmTile, kGemmTile, std::size_t{1}};
    events.push_back(enqueue_kernel(queue, scores_kernel_.get(), scores_global, gemm_local));

    set_kernel_arguments(softmax_kernel_.get(), scores_, problem.mask, arguments.scale, arguments.seq_q,
                         arguments.seq_k, arguments.key_offset);
    const std::array softmax_global{kSoftmaxWorkGroup, heads * shape_.seq_q};
    const std::array softmax_local{kSoftmaxWorkGroup, std::size_t{1}};
    events.push_back(enqueue_kernel(queue, softmax_kernel_.get(), softmax_global, softmax_local));

    set_kernel_arguments(values_kernel_.get(), scores_, problem.v, problem.out, arguments.group, arguments.seq_q,
                         arguments.seq_k, static_cast<cl_int>(shape_.value_dim));
    const std::array values_global{round_up(shape_.value_dim, kGemmTile), round_up(shape_.seq_q, kGemmTile), heads};
    events.push_back(enqueue_kernel(queue, values_kernel_.get(), values_global, gemm_local));
    return events;
  }

 private:
  OpenClRuntime& runtime_;
  attention::AttentionShape shape_;
  Kernel scores_kernel_;
  Kernel softmax_kernel_;
  Kernel values_kernel_;
  // [batch*heads][seq_q][seq_k]: raw scores, then probabilities in place.
  Buffer scores_;
};

}  // namespace

OpenClKernel naive_sdpa_kernel() {
  return OpenClKernel{
      "opencl_naive",
      "three kernels: tiled Q Kᵀ GEMM into a global scores buffer, row-wise scale+mask+softmax, tiled P V GEMM",
      runs_on_any_device,
      scores_bytes,
      [](OpenClRuntime& runtime, const attention::AttentionShape& shape) -> std::unique_ptr<PreparedSdpa> {
        return std::make_unique<PreparedNaiveSdpa>(runtime, shape);
      },
  };
}

}  // namespace gpu
