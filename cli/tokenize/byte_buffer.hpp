#pragma once

#include <cstdlib>
#include <memory>
#include <new>
#include <string_view>

namespace tokenizer::cli {

// Raw bytes in one malloc'd block, neither zero-filled nor copied when it grows: realloc of a
// large block remaps its pages (glibc), so a pipe of unknown length is read without the copies
// and the untouched zero-filled tail that a growing std::string would cost.
class ByteBuffer {
 public:
  char* data() { return data_.get(); }
  std::size_t size() const { return size_; }
  std::size_t capacity() const { return capacity_; }
  std::string_view view() const { return {data_.get(), size_}; }

  void reserve(std::size_t capacity) {
    if (capacity <= capacity_) return;
    char* grown = static_cast<char*>(std::realloc(data_.get(), capacity));
    if (!grown) throw std::bad_alloc();
    (void)data_.release();  // realloc has taken over (or freed) the old block
    data_.reset(grown);
    capacity_ = capacity;
  }
  // The first `size` bytes (at most capacity()) have been written.
  void set_size(std::size_t size) { size_ = size; }

 private:
  struct Free {
    void operator()(char* p) const { std::free(p); }
  };
  std::unique_ptr<char, Free> data_;
  std::size_t size_ = 0;
  std::size_t capacity_ = 0;
};

}  // namespace tokenizer::cli
