#include <gtest/gtest.h>

#include <array>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "gpu/opencl_error.hpp"
#include "gpu/opencl_launch.hpp"
#include "gpu/opencl_memory.hpp"
#include "gpu/opencl_program.hpp"
#include "opencl_test_fixture.hpp"

namespace {

using ProgramBuild = gpu_tests::OpenClTest;

constexpr std::string_view kFillSource = R"(
__kernel __attribute__((reqd_work_group_size(4, 1, 1)))
void fill_with_index(__global float* out, float offset) {
  out[get_global_id(0)] = offset + (float)get_global_id(0);
}
)";

gpu::Program build(gpu::OpenClRuntime& runtime, std::string_view source, std::string_view options = "") {
  const std::array sources{source};
  return gpu::build_program(runtime.context(), runtime.device().id, "test program", sources, options);
}

TEST_F(ProgramBuild, AFailureCarriesTheCompilersLog) {
  const std::string_view broken = "__kernel void broken(__global float* out) { out[0] = undeclared_value; }\n";
  try {
    build(runtime(), broken);
    FAIL() << "a broken program built";
  } catch (const gpu::ProgramBuildError& error) {
    EXPECT_NE(error.log().find("undeclared_value"), std::string::npos) << error.log();
    const std::string message = error.what();
    EXPECT_NE(message.find("test program"), std::string::npos) << message;
    EXPECT_NE(message.find(error.log()), std::string::npos) << message;
  }
}

TEST_F(ProgramBuild, OptionsReachThePreprocessor) {
  const std::string_view source = "__kernel void guarded(__global float* out) { out[0] = REQUIRED_MACRO; }\n";
  EXPECT_THROW(build(runtime(), source), gpu::ProgramBuildError);
  EXPECT_NO_THROW(build(runtime(), source, "-DREQUIRED_MACRO=1.0f"));
}

TEST_F(ProgramBuild, ABuiltKernelRunsAndItsResultComesBack) {
  const gpu::Program program = build(runtime(), kFillSource);
  const gpu::Kernel kernel = gpu::create_kernel(program.get(), "fill_with_index");
  const gpu::Buffer out = gpu::create_buffer(runtime().context(), CL_MEM_WRITE_ONLY, 8 * sizeof(float));
  gpu::set_kernel_arguments(kernel.get(), out, cl_float{0.5f});
  const std::array global{std::size_t{8}};
  const std::array local{std::size_t{4}};
  std::vector<gpu::Event> events;
  events.push_back(gpu::enqueue_kernel(runtime().queue(), kernel.get(), global, local));
  gpu::profiled_seconds(events);
  std::vector<float> values(8);
  gpu::download_buffer(runtime().queue(), out.get(), values);
  EXPECT_EQ(values, (std::vector<float>{0.5f, 1.5f, 2.5f, 3.5f, 4.5f, 5.5f, 6.5f, 7.5f}));
}

TEST_F(ProgramBuild, AnEnqueueErrorNamesTheCallTheKernelAndTheCode) {
  const gpu::Program program = build(runtime(), kFillSource);
  const gpu::Kernel kernel = gpu::create_kernel(program.get(), "fill_with_index");
  const gpu::Buffer out = gpu::create_buffer(runtime().context(), CL_MEM_WRITE_ONLY, 8 * sizeof(float));
  gpu::set_kernel_arguments(kernel.get(), out, cl_float{0.0f});
  const std::array global{std::size_t{8}};
  const std::array wrong_local{std::size_t{8}};
  try {
    gpu::enqueue_kernel(runtime().queue(), kernel.get(), global, wrong_local);
    FAIL() << "a work-group size against reqd_work_group_size was accepted";
  } catch (const gpu::OpenClError& error) {
    EXPECT_EQ(error.code(), CL_INVALID_WORK_GROUP_SIZE);
    EXPECT_STREQ(error.what(), "clEnqueueNDRangeKernel(fill_with_index): CL_INVALID_WORK_GROUP_SIZE (-54)");
  }
}

TEST_F(ProgramBuild, AMissingKernelNameIsAnOpenClError) {
  const gpu::Program program = build(runtime(), kFillSource);
  try {
    gpu::create_kernel(program.get(), "no_such_kernel");
    FAIL() << "created a kernel the program does not have";
  } catch (const gpu::OpenClError& error) {
    EXPECT_EQ(error.code(), CL_INVALID_KERNEL_NAME);
    EXPECT_STREQ(error.what(), "clCreateKernel(no_such_kernel): CL_INVALID_KERNEL_NAME (-46)");
  }
}

TEST_F(ProgramBuild, TheRuntimeBuildsEachEmbeddedProgramOncePerOptions) {
  const std::array files{std::string_view("sdpa_common.cl"), std::string_view("naive_sdpa.cl")};
  const cl_program first = runtime().program(files, "");
  EXPECT_EQ(runtime().program(files, ""), first);
  const cl_program other_options = runtime().program(files, "-DUNUSED_MACRO=1");
  EXPECT_NE(other_options, first);
  EXPECT_EQ(runtime().program(files, "-DUNUSED_MACRO=1"), other_options);
}

TEST_F(ProgramBuild, ThreadsAskingForOneProgramAtOnceShareOneBuild) {
  const std::array files{std::string_view("sdpa_common.cl"), std::string_view("naive_sdpa.cl")};
  std::array<cl_program, 4> programs{};
  std::vector<std::thread> threads;
  for (cl_program& program : programs) {
    threads.emplace_back([&] { program = runtime().program(files, "-DCONCURRENT_REQUEST=1"); });
  }
  for (std::thread& thread : threads) thread.join();
  for (const cl_program program : programs) EXPECT_EQ(program, programs[0]);
  EXPECT_NE(programs[0], nullptr);
}

TEST_F(ProgramBuild, AnUnknownEmbeddedFileIsALogicError) {
  const std::array files{std::string_view("no_such_file.cl")};
  EXPECT_THROW(runtime().program(files, ""), std::logic_error);
}

}  // namespace
