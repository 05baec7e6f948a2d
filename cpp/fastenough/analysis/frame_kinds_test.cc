#include "fastenough/analysis/frame_kinds.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "fastenough/analysis/call_sites.h"

namespace fastenough::analysis {
namespace {

namespace fs = std::filesystem;

TEST(FrameKinds, ByNameAlone) {
  EXPECT_EQ(ClassifyByName("<built-in method item of Tensor object at 0x7f>"), FrameKind::kLibrary);
  EXPECT_EQ(ClassifyByName("torch/nn/modules/module.py"), FrameKind::kLibrary);
  EXPECT_EQ(ClassifyByName("pytorch_lightning/loops/fit_loop.py"), FrameKind::kLibrary);
  EXPECT_EQ(ClassifyByName("/venv/lib/python3.11/site-packages/timm/models/vit.py"),
            FrameKind::kLibrary);
  EXPECT_EQ(ClassifyByName("/venv/lib/python3.11/site-packages/fastenough/agent/x.py"),
            FrameKind::kTool);
  EXPECT_EQ(ClassifyByName("fastenough/agent/checks/logits.py"), FrameKind::kTool);
  EXPECT_EQ(ClassifyByName("train.py"), FrameKind::kUser);
  EXPECT_EQ(ClassifyByName("mingpt/trainer.py"), FrameKind::kUser);
  EXPECT_EQ(ClassifyByName("/home/me/proj/train.py"), FrameKind::kUser);
}

TEST(FrameKinds, RelativeNamesAreLookedUpUnderTheProgramsRoots) {
  // A package the name list does not know is a library when it lies under a
  // library root; a file of the program's own directory is the user's.
  const fs::path root = fs::temp_directory_path() / "fastenough_frame_kinds_test";
  fs::remove_all(root);
  fs::create_directories(root / "site" / "somelib");
  fs::create_directories(root / "proj" / "mypkg");
  std::ofstream(root / "site" / "somelib" / "core.py") << "";
  std::ofstream(root / "site" / "contextlib.py") << "";
  std::ofstream(root / "proj" / "mypkg" / "model.py") << "";
  FrameRoots roots;
  roots.library = {(root / "site").string()};
  roots.user = {(root / "proj").string()};
  roots.tool = {"/opt/fe/fastenough"};
  FrameClassifier c(roots);
  EXPECT_EQ(c.Classify("somelib/core.py"), FrameKind::kLibrary);
  EXPECT_EQ(c.Classify("contextlib.py"), FrameKind::kLibrary);
  EXPECT_EQ(c.Classify("mypkg/model.py"), FrameKind::kUser);
  EXPECT_EQ(c.Classify("fastenough/agent/runtime.py"), FrameKind::kTool);
  EXPECT_EQ(c.Classify("/opt/fe/fastenough/agent/runtime.py"), FrameKind::kTool);
  EXPECT_EQ(c.Classify((root / "site" / "somelib" / "core.py").string()), FrameKind::kLibrary);
  fs::remove_all(root);
}

TEST(CallSites, MostFrequentLineWins) {
  auto c = CallSites::Parse(
      R"({"schema": "fastenough.callsites/1", "calls": [)"
      R"(["train.py(18): forward", "nn.Module: Linear_0", 29, 999],)"
      R"(["train.py(18): forward", "nn.Module: Linear_0", 33, 1],)"
      R"(["bad row"], ["x.py(1): f", "g", -3, 1]]})");
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->LineOf("train.py(18): forward", "nn.Module: Linear_0"), 29);
  EXPECT_EQ(c->LineOf("train.py(18): forward", "nn.Module: Linear_1"), 0);
  EXPECT_EQ(c->LineOf("x.py(1): f", "g"), 0);
  EXPECT_FALSE(CallSites::Parse("[1, 2]").ok());
  EXPECT_TRUE(CallSites::ForTrace("/no/such/rank0.pt.trace.json.gz").empty());
}

}  // namespace
}  // namespace fastenough::analysis
