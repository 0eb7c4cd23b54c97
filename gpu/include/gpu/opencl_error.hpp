#pragma once

#include <CL/cl.h>

#include <stdexcept>
#include <string>
#include <string_view>

namespace gpu {

// An OpenCL call that returned an error code: "clEnqueueNDRangeKernel: CL_OUT_OF_RESOURCES (-5)".
class OpenClError : public std::runtime_error {
 public:
  OpenClError(std::string_view call, cl_int code);

  const std::string& call() const { return call_; }
  cl_int code() const { return code_; }

 private:
  std::string call_;
  cl_int code_;
};

// No OpenCL platform is installed, or none exposes a device: the one OpenCL failure that means
// "this machine cannot run OpenCL" rather than "something went wrong".
class NoOpenClDeviceError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// clBuildProgram rejected a source; what() names the program and options and ends with the
// compiler's build log, which log() also returns alone.
class ProgramBuildError : public std::runtime_error {
 public:
  ProgramBuildError(std::string_view program_name, std::string_view options, std::string log);

  const std::string& log() const { return log_; }

 private:
  std::string log_;
};

// The symbolic name of an OpenCL error code ("CL_INVALID_VALUE"), "unknown OpenCL error" for a
// code that no header of OpenCL 3.0 or the ICD extension defines.
std::string_view error_name(cl_int code);

// "CL_OUT_OF_RESOURCES (-5)".
std::string describe_error(cl_int code);

// Throws OpenClError(call, code) unless code is CL_SUCCESS.
inline void check(cl_int code, std::string_view call) {
  if (code != CL_SUCCESS) throw OpenClError(call, code);
}

}  // namespace gpu
