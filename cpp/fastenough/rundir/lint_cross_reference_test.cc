#include "fastenough/rundir/lint_cross_reference.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace fastenough::rundir {
namespace {

namespace fs = std::filesystem;

// Lines 7 (the forward call, no inference_mode), 8 (.item() in the loop) and
// 12 (an unfused optimizer) are what lint sees.
const char kScript[] = R"(import torch

def evaluate(model, loader):
    model.eval()
    total = 0.0
    for x in loader:
        out = model(x)
        total += out.sum().item()
    return total

def main(model, loader):
    return torch.optim.AdamW(model.cuda().parameters())
)";

class LintCrossReferenceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) / ("crossref_" + std::to_string(getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    std::ofstream(dir_ / "eval.py") << kScript;
    script_ = fs::canonical(dir_ / "eval.py").string();
  }
  void TearDown() override { fs::remove_all(dir_); }

  static findings::Finding At(const std::string& code, const std::string& file, int line,
                              const std::string& function = "") {
    findings::Finding f;
    f.code = code;
    findings::Location loc;
    loc.file = file;
    loc.line = line;
    loc.function = function;
    f.where.push_back(loc);
    return f;
  }

  fs::path dir_;
  std::string script_;
};

TEST_F(LintCrossReferenceTest, MatchingCodeAndLineIsMarkedAndTheRestIsUnconfirmed) {
  std::vector<findings::Finding> fs{
      At("sync-in-loop", script_, 8, "evaluate"),
      // The agent points at the forward call; lint at the same call: same line
      // (and a relative path, taken from the run's cwd).
      At("autograd-in-eval", "eval.py", 7, "evaluate"),
      At("sync-in-loop", script_, 5),  // no lint there
  };
  findings::Finding op_only;
  op_only.code = "padding-waste";
  findings::Location op;
  op.op = "aten::mm";
  op_only.where.push_back(op);
  fs.push_back(op_only);

  auto x = CrossReferenceLint(&fs, dir_.string(), {"python", "eval.py"});
  ASSERT_TRUE(x.has_value());
  ASSERT_EQ(fs[0].also_in_source.size(), 1u);
  EXPECT_EQ(fs[0].also_in_source[0], (findings::SourceSite{script_, 8, "sync-method-in-loop"}));
  ASSERT_EQ(fs[1].also_in_source.size(), 1u);
  EXPECT_EQ(fs[1].also_in_source[0],
            (findings::SourceSite{script_, 7, "eval-without-inference-mode"}));
  EXPECT_TRUE(fs[2].also_in_source.empty());
  EXPECT_TRUE(fs[3].also_in_source.empty());
  EXPECT_EQ(x->files, std::vector<std::string>{script_});
  EXPECT_EQ(x->confirmed, 2);
  ASSERT_EQ(x->unconfirmed.size(), 1u);  // lint findings are never merged into the ranking
  EXPECT_EQ(x->unconfirmed[0].line, 12);
  EXPECT_EQ(x->unconfirmed[0].code, "optimizer-not-fused");
  EXPECT_EQ(fs.size(), 4u);

  report::JsonWriter w(0);
  WriteLintCrossReference(w, *x);
  EXPECT_NE(w.str().find(R"("confirmed":2,"unconfirmed":[{"file":)"), std::string::npos)
      << w.str();
}

TEST_F(LintCrossReferenceTest, AModuleRunWithDashMIsFoundUnderCwd) {
  fs::create_directories(dir_ / "pkg");
  std::ofstream(dir_ / "pkg" / "bench.py") << kScript;
  std::vector<findings::Finding> none;
  auto x = CrossReferenceLint(&none, dir_.string(), {"python", "-m", "pkg.bench"});
  ASSERT_TRUE(x.has_value());
  EXPECT_EQ(x->files, std::vector<std::string>{fs::canonical(dir_ / "pkg" / "bench.py").string()});
  EXPECT_EQ(x->confirmed, 0);
  EXPECT_EQ(x->unconfirmed.size(), 3u);
}

TEST_F(LintCrossReferenceTest, NothingToLintGivesNoSection) {
  findings::Finding k;
  k.code = "small-kernels";
  findings::Location loc;
  loc.kernel = "k";
  k.where.push_back(loc);
  std::vector<findings::Finding> fs{k};
  EXPECT_FALSE(CrossReferenceLint(&fs, dir_.string(), {"torchrun", "--nproc", "2", "train"}));
  // A library's file is not the user's source.
  fs::create_directories(dir_ / "lib" / "site-packages");
  std::ofstream(dir_ / "lib" / "site-packages" / "m.py") << kScript;
  std::vector<findings::Finding> lib{
      At("sync-in-loop", (dir_ / "lib" / "site-packages" / "m.py").string(), 8)};
  EXPECT_FALSE(CrossReferenceLint(&lib, dir_.string(), {"python"}));
}

}  // namespace
}  // namespace fastenough::rundir
