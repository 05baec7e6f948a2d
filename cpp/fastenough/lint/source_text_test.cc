// Line splitting, character columns and suppression comments.
#include "fastenough/lint/source_text.h"

#include <gtest/gtest.h>

#include "fastenough/lint/suppress.h"

namespace fastenough::lint {
namespace {

TEST(SplitLines, PythonLineBreaksOnly) {
  auto lines = SplitLines("a\r\nb\rc\nd\fe\n");
  ASSERT_EQ(lines.size(), 5u);
  EXPECT_EQ(lines[0], "a");
  EXPECT_EQ(lines[1], "b");
  EXPECT_EQ(lines[2], "c");
  EXPECT_EQ(lines[3], "d\fe");  // a form feed does not break a line
  EXPECT_EQ(lines[4], "");
}

TEST(CharColumn, BytesToCharacters) {
  EXPECT_EQ(CharColumn("x = y.item()", 6), 7);
  EXPECT_EQ(CharColumn("\xC3\xA9t\xC3\xA9 = t.item()", 8), 7);  // "été = ": 6 characters, 8 bytes
  EXPECT_EQ(CharColumn("\xE2\x82\xAC", 1), 1);  // inside a character: it does not count
}

TEST(Suppressions, OnTheLineAndTheLineBelowABareComment) {
  std::vector<std::string_view> lines = {
      "x = t.item()  # fastenough: ignore[sync-in-loop]",
      "# fastenough: ignore[transfer-in-loop, sync-in-loop]",
      "y = t.to(dev)",
      "z = 1  # fastenough: ignore",
      "w = 2  #fastenough:ignore[]",
      "v = 3  # fastenough: ignore[ , ]",
  };
  Suppressions s(lines);
  EXPECT_TRUE(s.Suppressed(1, "sync-in-loop"));
  EXPECT_FALSE(s.Suppressed(1, "transfer-in-loop"));
  EXPECT_TRUE(s.Suppressed(3, "transfer-in-loop"));  // the comment stands alone above
  EXPECT_TRUE(s.Suppressed(3, "sync-in-loop"));
  EXPECT_TRUE(s.Suppressed(4, "x"));                  // bare: every code
  EXPECT_TRUE(s.Suppressed(5, "anything"));           // empty brackets: every code
  EXPECT_FALSE(s.Suppressed(6, "anything"));          // only blanks listed: nothing
  EXPECT_FALSE(s.Suppressed(2, "other"));
}

}  // namespace
}  // namespace fastenough::lint
