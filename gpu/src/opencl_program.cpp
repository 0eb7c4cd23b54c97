#include "gpu/opencl_program.hpp"

#include <string>
#include <vector>

#include "gpu/opencl_error.hpp"

namespace gpu {

namespace {

std::string build_log(cl_program program, cl_device_id device) {
  std::size_t size = 0;
  check(clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, 0, nullptr, &size), "clGetProgramBuildInfo");
  std::string log(size, '\0');
  check(clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, size, log.data(), nullptr),
        "clGetProgramBuildInfo");
  while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
  return log;
}

}  // namespace

Program build_program(cl_context context, cl_device_id device, std::string_view name,
                      std::span<const std::string_view> sources, std::string_view options) {
  std::vector<const char*> texts;
  std::vector<std::size_t> lengths;
  for (const std::string_view source : sources) {
    texts.push_back(source.data());
    lengths.push_back(source.size());
  }
  cl_int status = CL_SUCCESS;
  Program program(clCreateProgramWithSource(context, static_cast<cl_uint>(texts.size()), texts.data(),
                                            lengths.data(), &status));
  check(status, "clCreateProgramWithSource");
  const std::string options_text(options);
  status = clBuildProgram(program.get(), 1, &device, options_text.c_str(), nullptr, nullptr);
  if (status == CL_BUILD_PROGRAM_FAILURE) throw ProgramBuildError(name, options, build_log(program.get(), device));
  check(status, "clBuildProgram");
  return program;
}

Kernel create_kernel(cl_program program, const char* name) {
  cl_int status = CL_SUCCESS;
  Kernel kernel(clCreateKernel(program, name, &status));
  check(status, std::string("clCreateKernel(") + name + ")");
  return kernel;
}

}  // namespace gpu
