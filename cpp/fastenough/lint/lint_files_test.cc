// The threaded driver: every file read once, unreadable and non-UTF-8 files
// skipped with a reason, output sorted whatever the thread count.
#include "fastenough/lint/lint_files.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

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
  EXPECT_EQ(r.errors[2].message, "cannot read: No such file or directory: skipped");
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
