#include "attention/attention_problem.hpp"

#include <cmath>
#include <functional>
#include <stdexcept>

namespace attention {

namespace {

[[noreturn]] void fail(const std::string& message) { throw std::invalid_argument("attention: " + message); }

void require_positive(std::size_t value, const char* name) {
  if (value == 0) fail(std::string(name) + " is zero");
}

// The product of a tensor's dimensions, refusing one that does not fit in size_t: a wrapped count
// could equal a small span's size and let every later index run out of bounds.
std::size_t checked_product(std::initializer_list<std::size_t> dims, const char* tensor) {
  std::size_t product = 1;
  for (std::size_t d : dims)
    if (__builtin_mul_overflow(product, d, &product)) fail(std::string(tensor) + " has more bytes than size_t counts");
  return product;
}

template <class Element>
constexpr const char* kElementsName = "floats";
template <>
constexpr const char* kElementsName<bfloat16> = "bfloat16 values";

template <class Element>
void require_size(std::size_t actual, std::size_t expected, const char* name) {
  if (actual != expected)
    fail(std::string(name) + " holds " + std::to_string(actual) + " " + kElementsName<Element> +
         ", the shape needs " + std::to_string(expected));
}

// Whether the bytes of two spans, of any element types, overlap.
template <class A, class B>
bool overlaps(std::span<A> a, std::span<B> b) {
  if (a.empty() || b.empty()) return false;
  const auto* const a_begin = reinterpret_cast<const std::byte*>(a.data());
  const auto* const b_begin = reinterpret_cast<const std::byte*>(b.data());
  const std::less<const std::byte*> before;
  return before(a_begin, b_begin + b.size_bytes()) && before(b_begin, a_begin + a.size_bytes());
}

template <class Element>
void validate_problem(const BasicAttentionProblem<Element>& problem) {
  const AttentionShape& s = problem.shape;
  validate_shape(s);
  switch (problem.causal) {
    case CausalAlignment::none:
    case CausalAlignment::top_left:
    case CausalAlignment::bottom_right: break;
    default: fail("causal alignment " + std::to_string(static_cast<int>(problem.causal)) + " is not one of the enum's");
  }

  require_size<Element>(problem.q.size(), s.q_elements(), "q");
  require_size<Element>(problem.k.size(), s.k_elements(), "k");
  require_size<Element>(problem.v.size(), s.v_elements(), "v");
  require_size<Element>(problem.out.size(), s.out_elements(), "out");
  if (!problem.mask.empty()) require_size<float>(problem.mask.size(), s.mask_elements(), "mask");

  if (problem.scale) {
    const float scale = *problem.scale;
    if (!std::isfinite(scale)) fail("scale " + std::to_string(scale) + " is not finite");
    if (scale <= 0) fail("scale " + std::to_string(scale) + " is not positive");
  }

  // Implementations write out while still reading the inputs.
  if (overlaps(problem.out, problem.q)) fail("out overlaps q");
  if (overlaps(problem.out, problem.k)) fail("out overlaps k");
  if (overlaps(problem.out, problem.v)) fail("out overlaps v");
  if (overlaps(problem.out, problem.mask)) fail("out overlaps mask");
}

}  // namespace

std::optional<CausalAlignment> parse_causal_alignment(std::string_view text) {
  if (text == "none") return CausalAlignment::none;
  if (text == "top-left") return CausalAlignment::top_left;
  if (text == "bottom-right") return CausalAlignment::bottom_right;
  return std::nullopt;
}

std::string_view to_string(CausalAlignment alignment) {
  switch (alignment) {
    case CausalAlignment::none: return "none";
    case CausalAlignment::top_left: return "top-left";
    case CausalAlignment::bottom_right: return "bottom-right";
  }
  return "unknown";
}

float default_scale(const AttentionShape& shape) {
  return static_cast<float>(1.0 / std::sqrt(static_cast<double>(shape.head_dim)));
}

void validate_shape(const AttentionShape& s) {
  require_positive(s.batch, "batch");
  require_positive(s.heads, "heads");
  require_positive(s.kv_heads, "kv_heads");
  require_positive(s.seq_q, "seq_q");
  require_positive(s.seq_k, "seq_k");
  require_positive(s.head_dim, "head_dim");
  require_positive(s.value_dim, "value_dim");
  if (s.heads % s.kv_heads != 0)
    fail("heads (" + std::to_string(s.heads) + ") is not a multiple of kv_heads (" + std::to_string(s.kv_heads) + ")");
  if (s.head_dim > kMaxHeadDim)
    fail("head_dim " + std::to_string(s.head_dim) + " exceeds the maximum " + std::to_string(kMaxHeadDim));
  if (s.value_dim > kMaxHeadDim)
    fail("value_dim " + std::to_string(s.value_dim) + " exceeds the maximum " + std::to_string(kMaxHeadDim));
  // Bytes, not only elements, so that every *_elements() * sizeof(float) a caller computes is exact.
  checked_product({s.batch, s.heads, s.seq_q, s.head_dim, sizeof(float)}, "q");
  checked_product({s.batch, s.kv_heads, s.seq_k, s.head_dim, sizeof(float)}, "k");
  checked_product({s.batch, s.kv_heads, s.seq_k, s.value_dim, sizeof(float)}, "v");
  checked_product({s.batch, s.heads, s.seq_q, s.value_dim, sizeof(float)}, "out");
  checked_product({s.seq_q, s.seq_k, sizeof(float)}, "mask");
}

void validate(const AttentionProblem& problem) { validate_problem(problem); }
void validate(const Bf16AttentionProblem& problem) { validate_problem(problem); }

}  // namespace attention
