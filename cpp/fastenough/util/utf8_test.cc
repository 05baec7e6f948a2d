// Strict UTF-8: sequence lengths and the first bad offset, as Python reports it.
#include "fastenough/util/utf8.h"

#include <gtest/gtest.h>

namespace fastenough {
namespace {

TEST(Utf8SequenceLength, WellFormedAndNot) {
  EXPECT_EQ(Utf8SequenceLength("a", 0), 1u);
  EXPECT_EQ(Utf8SequenceLength("\xC3\xA9", 0), 2u);
  EXPECT_EQ(Utf8SequenceLength("\xE2\x82\xAC", 0), 3u);
  EXPECT_EQ(Utf8SequenceLength("\xF0\x9F\x98\x80", 0), 4u);
  EXPECT_EQ(Utf8SequenceLength("\x80", 0), 0u);              // stray continuation
  EXPECT_EQ(Utf8SequenceLength("\xE0\x80\x80", 0), 0u);    // overlong
  EXPECT_EQ(Utf8SequenceLength("\xF4\x90\x80\x80", 0), 0u);  // above U+10FFFF
  EXPECT_EQ(Utf8SequenceLength("\xE2\x82", 0), 0u);         // truncated
}

TEST(FirstInvalidUtf8, OffsetsAsPythonReportsThem) {
  EXPECT_EQ(FirstInvalidUtf8("plain ascii"), std::nullopt);
  EXPECT_EQ(FirstInvalidUtf8("caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80"), std::nullopt);
  EXPECT_EQ(FirstInvalidUtf8("ab\xFF"), 2u);              // never valid
  EXPECT_EQ(FirstInvalidUtf8("x\xC0\x80"), 1u);           // overlong NUL
  EXPECT_EQ(FirstInvalidUtf8("xy\xED\xA0\x80"), 2u);      // a surrogate
  EXPECT_EQ(FirstInvalidUtf8("\xF4\x90\x80\x80"), 0u);    // above U+10FFFF
  EXPECT_EQ(FirstInvalidUtf8("abc\xE2\x82"), 3u);         // truncated at the end
  EXPECT_EQ(FirstInvalidUtf8("# latin-1: \xE9t\xE9\n"), 11u);
}

}  // namespace
}  // namespace fastenough
