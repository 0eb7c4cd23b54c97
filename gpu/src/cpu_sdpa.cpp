#include "gpu/cpu_sdpa.hpp"

#include <array>
#include <optional>
#include <stdexcept>
#include <string>

#include "gpu/opencl_launch.hpp"
#include "gpu/opencl_memory.hpp"
#include "gpu/opencl_program.hpp"
#include "gpu/opencl_tuning.hpp"
#include "opencl_kernel_entries.hpp"
#include "sdpa_kernel_arguments.hpp"

namespace gpu {

namespace {

constexpr std::array<std::string_view, 2> kProgramFiles{"sdpa_common.cl", "cpu_sdpa.cl"};
// Must match KEY_LANES of cpu_sdpa.cl.
constexpr std::size_t kKeyLanes = 16;
constexpr std::size_t kMaxQueryRows = 8;

std::size_t packed_keys_bytes(const attention::AttentionShape& shape) {
  return shape.batch * shape.kv_heads * shape.head_dim * round_up(shape.seq_k, kKeyLanes) * sizeof(float);
}

class PreparedCpuSdpa final : public PreparedSdpa {
 public:
  PreparedCpuSdpa(OpenClRuntime& runtime, const attention::AttentionShape& shape, const CpuSdpaParameters& parameters)
      : runtime_(runtime), shape_(shape), query_rows_(parameters.query_rows) {
    const std::string problem = cpu_parameters_problem(parameters);
    if (!problem.empty()) throw std::invalid_argument("opencl_cpu: " + parameters.to_string() + ": " + problem);
    // -w: without AVX-512, clang warns at every float16 builtin call that the vector type changes
    // the calling convention; everything is inlined into the kernel, so no call crosses that ABI.
    const std::string options = "-w -DHEAD_DIM=" + std::to_string(shape.head_dim) +
                                " -DVALUE_DIM=" + std::to_string(shape.value_dim) +
                                " -DQUERY_ROWS=" + std::to_string(query_rows_);
    const cl_program program = runtime.program(kProgramFiles, options);
    pack_kernel_ = create_kernel(program, "pack_keys");
    attention_kernel_ = create_kernel(program, "row_block_attention");
    packed_keys_ = create_buffer(runtime.context(), CL_MEM_READ_WRITE, packed_keys_bytes(shape));
  }

  std::vector<Event> enqueue(const DeviceAttentionProblem& problem) override {
    const SdpaKernelArguments arguments = sdpa_kernel_arguments(problem, shape_);
    const std::size_t padded_seq_k = round_up(shape_.seq_k, kKeyLanes);
    const cl_command_queue queue = runtime_.queue();
    std::vector<Event> events;

    set_kernel_arguments(pack_kernel_.get(), problem.k, packed_keys_, arguments.seq_k,
                         static_cast<cl_int>(padded_seq_k));
    const std::array pack_global{padded_seq_k, shape_.head_dim, shape_.batch * shape_.kv_heads};
    events.push_back(enqueue_kernel(queue, pack_kernel_.get(), pack_global, {}));

    set_kernel_arguments(attention_kernel_.get(), problem.q, packed_keys_, problem.v, problem.mask, problem.out,
                         arguments.group, arguments.seq_q, arguments.seq_k, static_cast<cl_int>(padded_seq_k),
                         arguments.key_offset, arguments.scale);
    const std::array attention_global{(shape_.seq_q + query_rows_ - 1) / query_rows_, shape_.batch * shape_.heads};
    const std::array attention_local{std::size_t{1}, std::size_t{1}};
    events.push_back(enqueue_kernel(queue, attention_kernel_.get(), attention_global, attention_local));
    return events;
  }

 private:
  OpenClRuntime& runtime_;
  attention::AttentionShape shape_;
  std::size_t query_rows_;
  Kernel pack_kernel_;
  Kernel attention_kernel_;
  // [batch*kv_heads][seq_k rounded up to 16, / 16][head_dim][16]: K packed key-block by key-block,
  // zero-padded (see pack_keys in cpu_sdpa.cl).
  Buffer packed_keys_;
};

}  // namespace

std::string CpuSdpaParameters::to_string() const { return "query_rows=" + std::to_string(query_rows); }

std::string cpu_parameters_problem(const CpuSdpaParameters& parameters) {
  if (parameters.query_rows < 1 || parameters.query_rows > kMaxQueryRows) return "query_rows must be 1 to 8";
  return "";
}

std::vector<CpuSdpaParameters> cpu_parameter_candidates() {
  std::vector<CpuSdpaParameters> candidates{CpuSdpaParameters{}};
  for (std::size_t rows = 1; rows <= kMaxQueryRows; ++rows) {
    if (rows != candidates.front().query_rows) candidates.push_back({rows});
  }
  return candidates;
}

CpuSdpaParameters chosen_cpu_parameters(const OpenClRuntime& runtime, const attention::AttentionShape& shape) {
  const std::optional<CpuSdpaParameters> tuned =
      tuned_parameters_of<CpuSdpaParameters>(runtime.device(), shape.head_dim, shape.value_dim);
  if (tuned && cpu_parameters_problem(*tuned).empty()) return *tuned;
  return CpuSdpaParameters{};
}

std::unique_ptr<PreparedSdpa> prepare_cpu_sdpa(OpenClRuntime& runtime, const attention::AttentionShape& shape,
                                               const CpuSdpaParameters& parameters) {
  return std::make_unique<PreparedCpuSdpa>(runtime, shape, parameters);
}

OpenClKernel cpu_sdpa_kernel() {
  return OpenClKernel{
      "opencl_cpu",
      "shaped for CPU devices: K packed by 16-key blocks, then each work-item takes a few queries (4, or as tuned) and "
      "walks 16 keys per float16, online softmax, no local memory",
      runs_on_any_device,
      packed_keys_bytes,
      [](OpenClRuntime& runtime, const attention::AttentionShape& shape) -> std::unique_ptr<PreparedSdpa> {
        return prepare_cpu_sdpa(runtime, shape, chosen_cpu_parameters(runtime, shape));
      },
  };
}

}  // namespace gpu
