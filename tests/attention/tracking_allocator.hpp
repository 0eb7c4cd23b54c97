#pragma once

#include <cstddef>

// This test program replaces the global operator new (tracking_allocator.cpp) so that
//  - every allocation comes back filled with 0xFF bytes, a NaN as float: a kernel that reads
//    scratch it never wrote puts NaN into its output, which no tolerance accepts;
//  - the bytes requested between start_counting() and the next bytes_counted() can be read.
namespace attention::test {

void start_counting();
// Stops counting and returns the bytes requested since start_counting().
std::size_t bytes_counted();

}  // namespace attention::test
