#pragma once

#include <cstddef>
#include <memory>
#include <new>

namespace attention {

// An uninitialised array of floats on a 64-byte boundary (a cache line, and the widest vector).
class AlignedFloats {
 public:
  static constexpr std::align_val_t kAlignment{64};

  explicit AlignedFloats(std::size_t count)
      : data_(static_cast<float*>(::operator new(count * sizeof(float), kAlignment))) {}

  float* data() const { return data_.get(); }

 private:
  struct Release {
    void operator()(float* p) const { ::operator delete(p, kAlignment); }
  };
  std::unique_ptr<float[], Release> data_;
};

}  // namespace attention
