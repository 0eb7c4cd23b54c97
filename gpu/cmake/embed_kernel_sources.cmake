# Writes OUTPUT, a C++ source file defining gpu::embedded_kernel_sources() (see
# gpu/src/kernel_sources.hpp) with the text of every file of KERNEL_FILES ('|'-separated paths,
# '|' because a ';' would split the -D argument) as a raw string literal.
# Usage: cmake -DOUTPUT=<file.cpp> -DKERNEL_FILES=<a.cl|b.cl> -P embed_kernel_sources.cmake

string(REPLACE "|" ";" kernel_files "${KERNEL_FILES}")
list(SORT kernel_files)
# The literal ends at the first )opencl_source" it meets, so no kernel file may contain that.
set(delimiter "opencl_source")
set(entries "")
foreach(path IN LISTS kernel_files)
  get_filename_component(file_name "${path}" NAME)
  file(READ "${path}" text)
  string(FIND "${text}" ")${delimiter}\"" clash)
  if(NOT clash EQUAL -1)
    message(FATAL_ERROR "${path} contains )${delimiter}\", which would end its raw string literal early")
  endif()
  string(APPEND entries "    KernelSource{\"${file_name}\", R\"${delimiter}(${text})${delimiter}\"},\n")
endforeach()

file(WRITE "${OUTPUT}"
"// Generated from gpu/kernels/*.cl by gpu/cmake/embed_kernel_sources.cmake; edit the .cl files instead.
#include <array>

#include \"kernel_sources.hpp\"

namespace gpu {

namespace {

const std::array kSources{
${entries}};

}  // namespace

std::span<const KernelSource> embedded_kernel_sources() { return kSources; }

}  // namespace gpu
")
