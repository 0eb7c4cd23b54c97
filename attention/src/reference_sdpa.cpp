#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "attention/implementation_registry.hpp"
#include "attention/visible_keys.hpp"
#include "workspace_sizes.hpp"

namespace attention {

// One score row and one output row in double, reused for every (batch, head, query).
std::size_t reference_workspace_bytes(const AttentionShape& shape) {
  return (shape.seq_k + shape.value_dim) * sizeof(double);
}

void sdpa_reference(const AttentionProblem& problem) {
  validate(problem);
  const AttentionShape& s = problem.shape;
  const double scale = problem.effective_scale();
  const KeyWindow window = key_window(s, problem.causal);
  const std::size_t group = s.heads / s.kv_heads;
  constexpr double kMinusInfinity = -std::numeric_limits<double>::infinity();

  std::vector<double> scores(s.seq_k);
  std::vector<double> row(s.value_dim);
  for (std::size_t b = 0; b < s.batch; ++b) {
    for (std::size_t h = 0; h < s.heads; ++h) {
      const std::size_t kv = b * s.kv_heads + h / group;
      const float* k = problem.k.data() + kv * s.seq_k * s.head_dim;
      const float* v = problem.v.data() + kv * s.seq_k * s.value_dim;
      for (std::size_t i = 0; i < s.seq_q; ++i) {
        const float* q = problem.q.data() + ((b * s.heads + h) * s.seq_q + i) * s.head_dim;
        float* out = problem.out.data() + ((b * s.heads + h) * s.seq_q + i) * s.value_dim;
        const std::size_t visible = visible_keys(window, i);

        // std::max passes over NaN scores; their weights below are NaN all the same.
        double max_score = kMinusInfinity;
        for (std::size_t j = 0; j < visible; ++j) {
          double dot = 0;
          for (std::size_t d = 0; d < s.head_dim; ++d)
            dot += static_cast<double>(q[d]) * static_cast<double>(k[j * s.head_dim + d]);
          scores[j] = scale * dot + (problem.mask.empty() ? 0.0 : problem.mask[i * s.seq_k + j]);
          max_score = std::max(max_score, scores[j]);
        }

        // The sum is 0 exactly when every visible score is -inf (or no key is visible): the row
        // outputs zeros. A NaN score makes the sum NaN, and a +inf one its own weight
        // exp(inf - inf): either way the row is NaN, as PyTorch's is.
        const double base = max_score == kMinusInfinity ? 0.0 : max_score;
        std::fill(row.begin(), row.end(), 0.0);
        double sum = 0;
        for (std::size_t j = 0; j < visible; ++j) {
          const double weight = std::exp(scores[j] - base);
          sum += weight;
          for (std::size_t c = 0; c < s.value_dim; ++c) row[c] += weight * v[j * s.value_dim + c];
        }
        for (std::size_t c = 0; c < s.value_dim; ++c) out[c] = sum == 0 ? 0.0f : static_cast<float>(row[c] / sum);
      }
    }
  }
}

// The float copies of Q, K, V and O, besides the reference's own.
std::size_t reference_bf16_workspace_bytes(const AttentionShape& shape) {
  return reference_workspace_bytes(shape) +
         (shape.q_elements() + shape.k_elements() + shape.v_elements() + shape.out_elements()) * sizeof(float);
}

void sdpa_reference_bf16(const Bf16AttentionProblem& problem) {
  validate(problem);
  const AttentionShape& s = problem.shape;
  std::vector<float> q(s.q_elements()), k(s.k_elements()), v(s.v_elements()), out(s.out_elements());
  to_float(problem.q, q);
  to_float(problem.k, k);
  to_float(problem.v, v);
  sdpa_reference(AttentionProblem{s, q, k, v, problem.mask, problem.causal, problem.scale, out});
  to_bfloat16(out, problem.out);
}

}  // namespace attention
