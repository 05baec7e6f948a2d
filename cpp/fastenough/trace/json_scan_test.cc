#include "fastenough/trace/json_scan.h"

#include <gtest/gtest.h>

namespace fastenough::trace {
namespace {

size_t SkipLen(std::string_view s) {
  const char* e = SkipValue(s.data(), s.data() + s.size());
  return e == nullptr ? std::string_view::npos : static_cast<size_t>(e - s.data());
}

TEST(ReaderScan, SkipValue) {
  EXPECT_EQ(SkipLen(R"({"a": "}"}, 1)"), 10u);
  EXPECT_EQ(SkipLen(R"({"a": "x\"}"} )"), 13u);
  EXPECT_EQ(SkipLen(R"({"a": "x\\"}, 2)"), 12u);
  EXPECT_EQ(SkipLen(R"([1, [2, {"]": 3}]], )"), 18u);
  EXPECT_EQ(SkipLen("123, "), 3u);
  EXPECT_EQ(SkipLen(R"("abc" )"), 5u);
  EXPECT_EQ(SkipLen(R"({"a": "unterminated)"), std::string_view::npos);
  EXPECT_EQ(SkipLen(R"({"a": [1, 2)"), std::string_view::npos);
}

TEST(ReaderScan, RepairStrayQuote) {
  std::string out;
  std::string_view in = R"({"name": "foo"bar", "ph": "X"}, {"next": 1})";
  RepairResult r = RepairObject(in.data(), in.data() + in.size(), &out);
  ASSERT_NE(r.end, nullptr);
  EXPECT_TRUE(r.quotes_fixed);
  EXPECT_FALSE(r.utf8_fixed);
  EXPECT_EQ(out, R"({"name": "foo\"bar", "ph": "X"})");
  EXPECT_EQ(std::string_view(in.data(), static_cast<size_t>(r.end - in.data())),
            R"({"name": "foo"bar", "ph": "X"})");
}

TEST(ReaderScan, RepairUtf8AndControl) {
  std::string out;
  std::string in = "{\"name\": \"a\xff\tb\"}";
  RepairResult r = RepairObject(in.data(), in.data() + in.size(), &out);
  ASSERT_NE(r.end, nullptr);
  EXPECT_TRUE(r.utf8_fixed);
  EXPECT_TRUE(r.quotes_fixed);
  EXPECT_EQ(out, "{\"name\": \"a\xEF\xBF\xBD\\u0009b\"}");
}

TEST(ReaderScan, FixUtf8) {
  std::string out;
  EXPECT_FALSE(FixUtf8("plain \xC3\xA9 ok", &out));
  EXPECT_EQ(out, "plain \xC3\xA9 ok");
  EXPECT_TRUE(FixUtf8("bad \xC3 end", &out));
  EXPECT_EQ(out, "bad \xEF\xBF\xBD end");
  EXPECT_TRUE(FixUtf8("\xED\xA0\x80", &out));  // a UTF-16 surrogate is not UTF-8
  EXPECT_EQ(out, "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");
}

TEST(ReaderScan, Excerpt) {
  std::string_view s = "hello world, this is long";
  EXPECT_EQ(Excerpt(s.data(), s.data() + s.size(), 7), "\"hello w...\"");
  std::string_view t = "a\nb";
  EXPECT_EQ(Excerpt(t.data(), t.data() + t.size()), "\"a\\x0ab\"");
}

}  // namespace
}  // namespace fastenough::trace
