#include "fastenough/report/json_writer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <utility>

namespace fastenough::report {
namespace {

std::string Esc(std::string_view s) {
  std::string out;
  JsonWriter::AppendEscaped(out, s);
  return out;
}

TEST(JsonWriterTest, EscapesQuotesBackslashAndControlChars) {
  EXPECT_EQ(Esc("a\"b\\c"), R"("a\"b\\c")");
  EXPECT_EQ(Esc("\n\t\r\b\f"), R"("\n\t\r\b\f")");
  EXPECT_EQ(Esc(std::string_view("\x00\x01\x1f", 3)), R"("\u0000\u0001\u001f")");
  EXPECT_EQ(Esc("\x7f"), "\"\x7f\"");  // DEL is legal in JSON strings
  EXPECT_EQ(Esc("/"), "\"/\"");
}

TEST(JsonWriterTest, ValidUtf8PassesThrough) {
  EXPECT_EQ(Esc("caf\xC3\xA9"), "\"caf\xC3\xA9\"");                // U+00E9
  EXPECT_EQ(Esc("\xE2\x82\xAC"), "\"\xE2\x82\xAC\"");              // U+20AC
  EXPECT_EQ(Esc("\xF0\x9F\x98\x80"), "\"\xF0\x9F\x98\x80\"");      // U+1F600
}

TEST(JsonWriterTest, InvalidUtf8BecomesReplacementChar) {
  const std::string r = "\xEF\xBF\xBD";
  EXPECT_EQ(Esc("a\xFFz"), "\"a" + r + "z\"");           // never valid
  EXPECT_EQ(Esc("\x80"), "\"" + r + "\"");                 // stray continuation
  EXPECT_EQ(Esc("\xC0\xAF"), "\"" + r + r + "\"");         // overlong '/'
  EXPECT_EQ(Esc("\xED\xA0\x80"), "\"" + r + r + r + "\"");  // surrogate U+D800
  EXPECT_EQ(Esc("\xF4\x90\x80\x80"), "\"" + r + r + r + r + "\"");  // > U+10FFFF
  EXPECT_EQ(Esc("ab\xE2\x82"), "\"ab" + r + r + "\"");     // truncated at the end
  EXPECT_EQ(Esc("\xC3("), "\"" + r + "(\"");               // bad continuation
}

TEST(JsonWriterTest, CompactNesting) {
  JsonWriter w;
  w.BeginObject();
  w.Field("a", int64_t{1});
  w.Key("b").BeginArray().Int(1).String("x").Null().Bool(true).EndArray();
  w.Key("c").BeginObject().EndObject();
  w.Key("d").BeginArray().EndArray();
  w.Key("e").Raw("{\"k\":2}");
  w.EndObject();
  EXPECT_EQ(w.str(), R"({"a":1,"b":[1,"x",null,true],"c":{},"d":[],"e":{"k":2}})");
}

TEST(JsonWriterTest, PrettyNesting) {
  JsonWriter w(2);
  w.BeginObject().Field("a", int64_t{1}).Key("b").BeginArray().Int(2).EndArray().EndObject();
  EXPECT_EQ(w.str(), "{\n  \"a\": 1,\n  \"b\": [\n    2\n  ]\n}");
}

TEST(JsonWriterTest, Numbers) {
  JsonWriter w;
  w.BeginArray();
  w.Double(1500.0).Double(42.5).Double(0.1).Double(std::nan(""));
  w.Double(std::numeric_limits<double>::infinity()).Double(-3.0).Double(1e300);
  w.Int(std::numeric_limits<int64_t>::min()).Uint(std::numeric_limits<uint64_t>::max());
  w.EndArray();
  EXPECT_EQ(w.str(),
            "[1500,42.5,0.1,null,null,-3,1e+300,-9223372036854775808,18446744073709551615]");
  JsonWriter v;
  v.BeginObject().FieldOrNull("x", -1).FieldOrNull("y", 7).EndObject();
  EXPECT_EQ(v.str(), R"({"x":null,"y":7})");
}

// Each as Python's json.dumps writes the float (repr): what meta.json holds,
// so the report writes the record back as the file had it.
TEST(JsonWriterTest, PythonFloatSpellsAsPython) {
  const std::pair<double, const char*> cases[] = {
      {2.0, "2.0"},          {60.0, "60.0"},       {0.5, "0.5"},
      {123.456, "123.456"},  {0.1, "0.1"},         {0.0001, "0.0001"},
      {1e-05, "1e-05"},      {1.5e-07, "1.5e-07"}, {1e15, "1000000000000000.0"},
      {1e16, "1e+16"},       {1.5e300, "1.5e+300"}, {-2.5, "-2.5"},
      {-0.0, "-0.0"},        {0.0, "0.0"},         {1234567.0, "1234567.0"},
      {1.0 / 3, "0.3333333333333333"},
  };
  for (const auto& [v, want] : cases) {
    JsonWriter w;
    w.PythonFloat(v);
    EXPECT_EQ(w.str(), want) << v;
  }
  JsonWriter w;
  w.BeginArray().PythonFloat(std::numeric_limits<double>::quiet_NaN()).PythonFloat(2).EndArray();
  EXPECT_EQ(w.str(), "[null,2.0]");
}

}  // namespace
}  // namespace fastenough::report
