// The threaded driver: every file read once, unreadable and non-UTF-8 files
// skipped with a reason, output sorted whatever the thread count.
#include "fastenough/lint/lint_files.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include <sys/stat.h>

namespace fastenough::lint {
namespace {

namespace fs = std::filesystem;

class LintFilesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("fastenough_lint_files_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
            "_" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string Write(const std::string& name, const std::string& text) {
    fs::path p = dir_ / name;
    std::ofstream(p, std::ios::binary) << text;
    return p.string();
  }

  fs::path dir_;
};

TEST_F(LintFilesTest, SkipsUnreadableNonUtf8AndSyntaxErrorsAndCountsBytes) {
  std::vector<std::string> paths = {
      Write("good.py", "x = 1\n"),
      Write("latin1.py", "s = '\xE9'\n"),
      Write("broken.py", "def f(:\n"),
      (dir_ / "missing.py").string(),
  };
  FilesLintResult r = LintFiles(paths, RuleSelection::All(), LintFilesOptions{2, {}});
  EXPECT_EQ(r.files, 4u);
  EXPECT_EQ(r.bytes, 6u + 8u + 8u);
  ASSERT_EQ(r.errors.size(), 3u);
  EXPECT_EQ(r.errors[0].path, paths[2]);
  EXPECT_EQ(r.errors[0].line, 1);
  EXPECT_EQ(r.errors[0].message.rfind("syntax error: ", 0), 0u);
  EXPECT_EQ(r.errors[1].path, paths[1]);
  EXPECT_EQ(r.errors[1].message, "not UTF-8 (byte offset 5): skipped");
  EXPECT_EQ(r.errors[2].path, paths[3]);
  EXPECT_EQ(r.errors[2].message, "cannot read: no such file: skipped");
}

// A symlink to /dev/zero named like a source file, a FIFO nobody writes to,
// and a file past the size bound: each skipped with its reason at once (the
// reader used to read /dev/zero until memory ran out, and to wait on the FIFO
// forever), the same rules analyze and compare apply (util/file_bytes.h).
TEST_F(LintFilesTest, SkipsDevicesFifosAndOversizedFilesWithoutReadingThem) {
  const fs::path zero = dir_ / "zero.py";
  fs::create_symlink("/dev/zero", zero);
  const fs::path fifo = dir_ / "fifo.py";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  const std::string big = Write("big.py", "");
  fs::resize_file(big, (uint64_t{64} << 20) + 1);
  const std::string good = Write("good.py", "x = 1\n");
  FilesLintResult r = LintFiles({zero.string(), fifo.string(), big, good}, RuleSelection::All(),
                                LintFilesOptions{2, {}});
  EXPECT_EQ(r.bytes, 6u);
  ASSERT_EQ(r.errors.size(), 3u);
  EXPECT_EQ(r.errors[0].path, big);
  EXPECT_EQ(r.errors[0].message,
            "cannot read: too large: 67108865 bytes, more than the limit of 67108864: skipped");
  EXPECT_EQ(r.errors[1].path, fifo.string());
  EXPECT_EQ(r.errors[1].message, "cannot read: not a regular file (a FIFO or pipe): skipped");
  EXPECT_EQ(r.errors[2].path, zero.string());
  EXPECT_EQ(r.errors[2].message, "cannot read: not a regular file (a character device): skipped");
}

TEST_F(LintFilesTest, SameSortedOutputOnOneThreadOrFourAndProgressReachesTheEnd) {
  std::vector<std::string> paths;
  for (int i = 0; i < 40; ++i) {
    paths.push_back(Write("f" + std::to_string(i) + ".py",
                          "import torch\n"
                          "def run(loader):\n"
                          "    for x in loader:\n"
                          "        torch.cuda.synchronize()\n"));
  }
  std::atomic<uint64_t> last{0};
  LintFilesOptions four{4, [&](uint64_t done, uint64_t total) {
                          EXPECT_EQ(total, 40u);
                          uint64_t prev = last.load();
                          while (done > prev && !last.compare_exchange_weak(prev, done)) {
                          }
                        }};
  FilesLintResult a = LintFiles(paths, RuleSelection::All(), LintFilesOptions{1, {}});
  FilesLintResult b = LintFiles(paths, RuleSelection::All(), four);
  EXPECT_EQ(last.load(), 40u);
  EXPECT_EQ(a.findings.size(), 40u);  // one explicit sync in a loop per file
  ASSERT_EQ(a.findings.size(), b.findings.size());
  EXPECT_TRUE(a.findings == b.findings);
  EXPECT_TRUE(std::is_sorted(b.findings.begin(), b.findings.end()));
}

}  // namespace
}  // namespace fastenough::lint
