// The run directory's readers on what a program may leave where a file is
// expected: a FIFO nobody writes to (read with a plain open(), this waited
// forever), a device that never ends, a sparse file larger than the bound.
// Each is skipped at once and named in `problems`.
#include "fastenough/rundir/run_files.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>

namespace fastenough::rundir {
namespace {

std::string TempPath(const char* tag) {
  return testing::TempDir() + "/fe_run_files_" + tag + "_" + std::to_string(getpid());
}

TEST(RunFiles, AFifoIsSkippedAtOnceAndSaidToBe) {
  const std::string path = TempPath("fifo");
  std::remove(path.c_str());
  ASSERT_EQ(mkfifo(path.c_str(), 0600), 0);
  RunFiles files;
  ReadSteps(path, &files);
  std::remove(path.c_str());
  EXPECT_TRUE(files.steps.empty());
  ASSERT_EQ(files.problems.size(), 1u);
  EXPECT_EQ(files.problems[0], "steps.jsonl: not a regular file (a FIFO or pipe); skipped");
}

TEST(RunFiles, ADeviceIsSkipped) {
  std::vector<std::string> problems;
  EXPECT_FALSE(ReadFile("/dev/zero", "samples.csv", &problems).has_value());
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0], "samples.csv: not a regular file (a character device); skipped");
}

TEST(RunFiles, AMissingFileIsQuietlyEmpty) {
  RunFiles files;
  ReadPhases(TempPath("missing"), &files);
  EXPECT_TRUE(files.problems.empty());
}

TEST(RunFiles, ASparseFileOverTheRunBoundIsSkipped) {
  const std::string path = TempPath("sparse");
  { std::ofstream(path) << "x"; }
  ASSERT_EQ(truncate(path.c_str(), static_cast<off_t>(kMaxRunFileBytes + 1)), 0);
  std::vector<std::string> problems;
  EXPECT_FALSE(ReadFile(path, "steps.jsonl", &problems).has_value());
  std::remove(path.c_str());
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0], "steps.jsonl: too large: " + std::to_string(kMaxRunFileBytes + 1) +
                             " bytes, more than the limit of " +
                             std::to_string(kMaxRunFileBytes) + "; skipped");
}

}  // namespace
}  // namespace fastenough::rundir
