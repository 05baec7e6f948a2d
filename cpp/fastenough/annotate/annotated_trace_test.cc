#include "fastenough/annotate/annotated_trace.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string_view>

#include "fastenough/trace/load_trace.h"

namespace fastenough::annotate {
namespace {

TEST(Annotate, MicrosTextIsExact) {
  EXPECT_EQ(MicrosText(1234567), "1234.567");
  EXPECT_EQ(MicrosText(1661203463042907500), "1661203463042907.500");
  EXPECT_EQ(MicrosText(0), "0.000");
  EXPECT_EQ(MicrosText(-5), "-0.005");
}

TEST(Annotate, InsertsBeforeTheClosingBracket) {
  const std::string text = R"({"traceEvents": [{"a": 1}], "traceName": "x"})";
  const auto close = static_cast<int64_t>(text.find(']'));
  auto out = InsertEvents(text, close, R"({"b": 2})");
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(out.value(), R"({"traceEvents": [{"a": 1},{"b": 2}], "traceName": "x"})");
  // An empty list takes no comma.
  const std::string empty = "{\"traceEvents\": [ \n]}";
  auto out2 = InsertEvents(empty, static_cast<int64_t>(empty.find(']')), "{}");
  ASSERT_TRUE(out2.ok());
  EXPECT_EQ(out2.value(), "{\"traceEvents\": [ \n{}]}");
  // Anything but the ']' is refused.
  EXPECT_EQ(InsertEvents(text, 3, "{}").status().code(), StatusCode::kDataLoss);
  EXPECT_EQ(InsertEvents(text, -1, "{}").status().code(), StatusCode::kDataLoss);
}

findings::Finding TwoMarkFinding() {
  findings::Finding f;
  f.code = "sync-in-loop";
  f.title = "Host syncs \"inside\" the loop";  // quotes must be escaped
  f.action = "Keep values on the device.";
  f.saving.per_step_ns = 208000;
  findings::Mark at_event;
  at_event.what = "host sync";
  at_event.start_ns = 1340000;
  at_event.end_ns = 1530000;
  findings::TracePoint p;
  p.pid = 100;
  p.tid = 100;
  p.ts_ns = 1410000;
  at_event.at = p;
  findings::Mark on_text_track = at_event;
  on_text_track.at->pid_text = "Spans";  // a track the trace named with a string
  on_text_track.at->tid_text = "PyTorch Profiler";
  f.marks = {at_event, on_text_track};
  return f;
}

TEST(Annotate, RoundTripKeepsTheTraceAndFindsEveryAnnotation) {
  const std::string trace =
      R"({"traceEvents": [)"
      R"({"ph": "X", "cat": "cpu_op", "name": "aten::item", "pid": 100, "tid": 100, "ts": 1310, "dur": 200},)"
      R"({"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 100, "tid": 100, "ts": 1520, "dur": 20})"
      R"(], "traceName": "t"})";
  auto before = trace::ParseTrace(trace);
  ASSERT_TRUE(before.ok());
  AnnotationCounts counts;
  const std::string events = AnnotationEventsJson({TwoMarkFinding()}, &counts);
  EXPECT_EQ(counts.findings, 1);
  EXPECT_EQ(counts.slices, 2);
  EXPECT_EQ(counts.instants, 2);
  EXPECT_EQ(counts.flows, 2);
  // process_name, process_sort_index, thread_name; per mark X, i, s, f.
  EXPECT_EQ(counts.events, 3 + 2 * 4);
  EXPECT_NE(events.find("\"pid\":\"Spans\""), std::string::npos);
  EXPECT_NE(events.find("\"ts\":1410.000"), std::string::npos);
  auto annotated = InsertEvents(trace, static_cast<int64_t>(trace.find(']')), events);
  ASSERT_TRUE(annotated.ok());
  auto after = trace::ParseTrace(annotated.value());
  ASSERT_TRUE(after.ok()) << after.status().message();
  // The profiler's events are what they were; ours are kept apart.
  EXPECT_EQ(after.value().size(), before.value().size());
  EXPECT_TRUE(before.value().annotations.empty());
  ASSERT_EQ(static_cast<int64_t>(after.value().annotations.size()), counts.events);
  int instants = 0;
  for (const auto& a : after.value().annotations) {
    if (a.ph == 'i') {
      ++instants;
      EXPECT_EQ(a.name, "fastenough: sync-in-loop");
      EXPECT_EQ(a.ts_ns, 1410000);
    }
  }
  EXPECT_EQ(instants, 2);
}

TEST(Annotate, TruncatedTraceIsRefusedAndWritesNothing) {
  const std::string in = ::testing::TempDir() + "/truncated.json";
  const std::string out = ::testing::TempDir() + "/truncated.annotated.json";
  std::remove(out.c_str());
  {
    std::ofstream f(in);
    f << R"({"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "a", "pid": 1, "tid": 1, "ts": 1, "dur": 2},)";
  }
  const int fd = open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  ASSERT_GE(fd, 0);
  auto r = AnnotateTrace(in, fd, out, false);
  close(fd);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kDataLoss);
  EXPECT_NE(r.status().message().find("truncated"), std::string::npos);
  struct stat st {};
  ASSERT_EQ(stat(out.c_str(), &st), 0);
  EXPECT_EQ(st.st_size, 0);  // not a byte written
}

TEST(Annotate, WritesPlainAndGzipCopies) {
  const std::string in = ::testing::TempDir() + "/small.json";
  const std::string text =
      R"({"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "a", "pid": 1, "tid": 1, "ts": 1, "dur": 2}]})";
  {
    std::ofstream f(in);
    f << text;
  }
  for (const char* name : {"/small.out.json", "/small.out.json.gz"}) {
    const std::string out = ::testing::TempDir() + name;
    const int fd = open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    ASSERT_GE(fd, 0);
    auto r = AnnotateTrace(in, fd, out, std::string_view(name).ends_with(".gz"));
    close(fd);
    ASSERT_TRUE(r.ok()) << r.status().message();
    auto back = trace::LoadTrace(out);
    ASSERT_TRUE(back.ok()) << back.status().message();
    EXPECT_EQ(back.value().size(), 1u);
    // No findings on one op: only the findings process's own metadata.
    EXPECT_EQ(static_cast<int64_t>(back.value().annotations.size()), r.value().counts.events);
  }
}

}  // namespace
}  // namespace fastenough::annotate
