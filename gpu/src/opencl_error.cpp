#include "gpu/opencl_error.hpp"

#include <algorithm>
#include <array>
#include <utility>

namespace gpu {

namespace {

struct NamedError {
  cl_int code;
  std::string_view name;
};

// Numbers rather than the headers' macros: with CL_TARGET_OPENCL_VERSION 120 the headers hide the
// codes of later versions, which a newer driver may still return.
constexpr std::array kNamedErrors{
    NamedError{-1, "CL_DEVICE_NOT_FOUND"},
    NamedError{-2, "CL_DEVICE_NOT_AVAILABLE"},
    NamedError{-3, "CL_COMPILER_NOT_AVAILABLE"},
    NamedError{-4, "CL_MEM_OBJECT_ALLOCATION_FAILURE"},
    NamedError{-5, "CL_OUT_OF_RESOURCES"},
    NamedError{-6, "CL_OUT_OF_HOST_MEMORY"},
    NamedError{-7, "CL_PROFILING_INFO_NOT_AVAILABLE"},
    NamedError{-8, "CL_MEM_COPY_OVERLAP"},
    NamedError{-9, "CL_IMAGE_FORMAT_MISMATCH"},
    NamedError{-10, "CL_IMAGE_FORMAT_NOT_SUPPORTED"},
    NamedError{-11, "CL_BUILD_PROGRAM_FAILURE"},
    NamedError{-12, "CL_MAP_FAILURE"},
    NamedError{-13, "CL_MISALIGNED_SUB_BUFFER_OFFSET"},
    NamedError{-14, "CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST"},
    NamedError{-15, "CL_COMPILE_PROGRAM_FAILURE"},
    NamedError{-16, "CL_LINKER_NOT_AVAILABLE"},
    NamedError{-17, "CL_LINK_PROGRAM_FAILURE"},
    NamedError{-18, "CL_DEVICE_PARTITION_FAILED"},
    NamedError{-19, "CL_KERNEL_ARG_INFO_NOT_AVAILABLE"},
    NamedError{-30, "CL_INVALID_VALUE"},
    NamedError{-31, "CL_INVALID_DEVICE_TYPE"},
    NamedError{-32, "CL_INVALID_PLATFORM"},
    NamedError{-33, "CL_INVALID_DEVICE"},
    NamedError{-34, "CL_INVALID_CONTEXT"},
    NamedError{-35, "CL_INVALID_QUEUE_PROPERTIES"},
    NamedError{-36, "CL_INVALID_COMMAND_QUEUE"},
    NamedError{-37, "CL_INVALID_HOST_PTR"},
    NamedError{-38, "CL_INVALID_MEM_OBJECT"},
    NamedError{-39, "CL_INVALID_IMAGE_FORMAT_DESCRIPTOR"},
    NamedError{-40, "CL_INVALID_IMAGE_SIZE"},
    NamedError{-41, "CL_INVALID_SAMPLER"},
    NamedError{-42, "CL_INVALID_BINARY"},
    NamedError{-44, "CL_INVALID_PROGRAM"},
    NamedError{-45, "CL_INVALID_PROGRAM_EXECUTABLE"},
    NamedError{-46, "CL_INVALID_KERNEL_NAME"},
    NamedError{-47, "CL_INVALID_KERNEL_DEFINITION"},
    NamedError{-48, "CL_INVALID_KERNEL"},
    NamedError{-49, "CL_INVALID_ARG_INDEX"},
    NamedError{-50, "CL_INVALID_ARG_VALUE"},
    NamedError{-51, "CL_INVALID_ARG_SIZE"},
    NamedError{-52, "CL_INVALID_KERNEL_ARGS"},
    NamedError{-53, "CL_INVALID_WORK_DIMENSION"},
    NamedError{-54, "CL_INVALID_WORK_GROUP_SIZE"},
    NamedError{-55, "CL_INVALID_WORK_ITEM_SIZE"},
    NamedError{-56, "CL_INVALID_GLOBAL_OFFSET"},
    NamedError{-57, "CL_INVALID_EVENT_WAIT_LIST"},
    NamedError{-58, "CL_INVALID_EVENT"},
    NamedError{-59, "CL_INVALID_OPERATION"},
    NamedError{-60, "CL_INVALID_GL_OBJECT"},
    NamedError{-61, "CL_INVALID_BUFFER_SIZE"},
    NamedError{-62, "CL_INVALID_MIP_LEVEL"},
    NamedError{-63, "CL_INVALID_GLOBAL_WORK_SIZE"},
    NamedError{-64, "CL_INVALID_PROPERTY"},
    NamedError{-65, "CL_INVALID_IMAGE_DESCRIPTOR"},
    NamedError{-66, "CL_INVALID_COMPILER_OPTIONS"},
    NamedError{-67, "CL_INVALID_LINKER_OPTIONS"},
    NamedError{-68, "CL_INVALID_DEVICE_PARTITION_COUNT"},
    NamedError{-69, "CL_INVALID_PIPE_SIZE"},
    NamedError{-70, "CL_INVALID_DEVICE_QUEUE"},
    NamedError{-71, "CL_INVALID_SPEC_ID"},
    NamedError{-72, "CL_MAX_SIZE_RESTRICTION_EXCEEDED"},
    NamedError{-1001, "CL_PLATFORM_NOT_FOUND_KHR"},
};

}  // namespace

OpenClError::OpenClError(std::string_view call, cl_int code)
    : std::runtime_error(std::string(call) + ": " + describe_error(code)), call_(call), code_(code) {}

ProgramBuildError::ProgramBuildError(std::string_view program_name, std::string_view options, std::string log)
    : std::runtime_error("clBuildProgram: OpenCL program " + std::string(program_name) + " (options \"" +
                         std::string(options) + "\") failed to build; build log:\n" + log),
      log_(std::move(log)) {}

std::string_view error_name(cl_int code) {
  const auto* found = std::find_if(kNamedErrors.begin(), kNamedErrors.end(),
                                   [code](const NamedError& error) { return error.code == code; });
  return found == kNamedErrors.end() ? std::string_view("unknown OpenCL error") : found->name;
}

std::string describe_error(cl_int code) {
  return std::string(error_name(code)) + " (" + std::to_string(code) + ")";
}

}  // namespace gpu
