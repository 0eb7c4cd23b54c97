#include <gtest/gtest.h>

#include <string>

#include "gpu/opencl_error.hpp"

namespace {

TEST(OpenClErrorNames, NameEveryCodeOfTheCoreHeader) {
  EXPECT_EQ(gpu::error_name(CL_DEVICE_NOT_FOUND), "CL_DEVICE_NOT_FOUND");
  EXPECT_EQ(gpu::error_name(CL_OUT_OF_RESOURCES), "CL_OUT_OF_RESOURCES");
  EXPECT_EQ(gpu::error_name(CL_BUILD_PROGRAM_FAILURE), "CL_BUILD_PROGRAM_FAILURE");
  EXPECT_EQ(gpu::error_name(CL_INVALID_VALUE), "CL_INVALID_VALUE");
  EXPECT_EQ(gpu::error_name(CL_INVALID_WORK_GROUP_SIZE), "CL_INVALID_WORK_GROUP_SIZE");
  EXPECT_EQ(gpu::error_name(CL_INVALID_GLOBAL_WORK_SIZE), "CL_INVALID_GLOBAL_WORK_SIZE");
  EXPECT_EQ(gpu::error_name(CL_INVALID_DEVICE_PARTITION_COUNT), "CL_INVALID_DEVICE_PARTITION_COUNT");
}

TEST(OpenClErrorNames, NameCodesThatLaterVersionsAndTheIcdLoaderAdd) {
  EXPECT_EQ(gpu::error_name(-70), "CL_INVALID_DEVICE_QUEUE");
  EXPECT_EQ(gpu::error_name(-72), "CL_MAX_SIZE_RESTRICTION_EXCEEDED");
  EXPECT_EQ(gpu::error_name(-1001), "CL_PLATFORM_NOT_FOUND_KHR");
}

TEST(OpenClErrorNames, SayWhenACodeIsUnknown) {
  EXPECT_EQ(gpu::error_name(-29), "unknown OpenCL error");
  EXPECT_EQ(gpu::error_name(1), "unknown OpenCL error");
  EXPECT_EQ(gpu::describe_error(-29), "unknown OpenCL error (-29)");
}

TEST(OpenClError, NamesTheCallAndTheCodeSymbolicallyAndNumerically) {
  const gpu::OpenClError error("clEnqueueNDRangeKernel", CL_OUT_OF_RESOURCES);
  EXPECT_STREQ(error.what(), "clEnqueueNDRangeKernel: CL_OUT_OF_RESOURCES (-5)");
  EXPECT_EQ(error.call(), "clEnqueueNDRangeKernel");
  EXPECT_EQ(error.code(), CL_OUT_OF_RESOURCES);
}

TEST(OpenClError, CheckThrowsOnlyOnFailure) {
  EXPECT_NO_THROW(gpu::check(CL_SUCCESS, "clFinish"));
  try {
    gpu::check(CL_INVALID_KERNEL_ARGS, "clEnqueueNDRangeKernel");
    FAIL() << "check did not throw";
  } catch (const gpu::OpenClError& error) {
    EXPECT_STREQ(error.what(), "clEnqueueNDRangeKernel: CL_INVALID_KERNEL_ARGS (-52)");
  }
}

TEST(ProgramBuildError, EndsWithTheBuildLog) {
  const gpu::ProgramBuildError error("broken.cl", "-DX=1", "broken.cl:3:1: error: expected ';'");
  EXPECT_EQ(error.log(), "broken.cl:3:1: error: expected ';'");
  const std::string message = error.what();
  EXPECT_NE(message.find("broken.cl"), std::string::npos) << message;
  EXPECT_NE(message.find("-DX=1"), std::string::npos) << message;
  EXPECT_TRUE(message.ends_with("\nbroken.cl:3:1: error: expected ';'")) << message;
}

}  // namespace
