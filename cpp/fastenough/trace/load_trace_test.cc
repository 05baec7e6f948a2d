#include "fastenough/trace/load_trace.h"

#include <gtest/gtest.h>

#include <fstream>
#include <random>
#include <sstream>
#include <string>

namespace fastenough::trace {
namespace {

const std::string kTraces = std::string(FASTENOUGH_TEST_DATA) + "/traces/";

std::string ReadText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

EventStore MustLoad(const std::string& name) {
  auto s = LoadTrace(kTraces + name);
  EXPECT_TRUE(s.ok()) << s.status().message();
  return std::move(s).value();
}

EventStore MustParse(std::string_view json) {
  auto s = ParseTrace(json);
  EXPECT_TRUE(s.ok()) << s.status().message();
  if (!s.ok()) return EventStore();
  return std::move(s).value();
}

uint64_t C(const EventStore& s, Counter c) { return s.counters().Get(c); }

TEST(ReaderKineto, MinimalTrace) {
  EventStore s = MustLoad("kineto_minimal.json");
  EXPECT_EQ(s.format, TraceFormat::kKineto);
  EXPECT_EQ(s.event_count, 12u);
  ASSERT_EQ(s.size(), 5u);
  EXPECT_EQ(s.rank, 3);
  EXPECT_TRUE(s.rank_known);
  EXPECT_EQ(s.world_size, 8);
  EXPECT_EQ(s.backend, "nccl");
  EXPECT_EQ(s.base_time_ns, 1712195400000000000);
  EXPECT_EQ(s.path, kTraces + "kineto_minimal.json");
  EXPECT_EQ(s.file_bytes, s.json_bytes);
  ASSERT_EQ(s.device_properties.size(), 1u);
  EXPECT_EQ(s.device_properties[0].name, "NVIDIA A100-SXM4-80GB");
  EXPECT_EQ(s.device_properties[0].total_memory_bytes, 85051572224);
  EXPECT_EQ(s.device_properties[0].compute_major, 8);
  EXPECT_EQ(s.device_properties[0].compute_minor, 0);
  EXPECT_EQ(s.device_properties[0].num_sms, 108);

  // Row 0: the CPU op.
  EXPECT_EQ(s.name_of(0), "aten::mm");
  EXPECT_EQ(s.kind[0], EventKind::kCpuOp);
  EXPECT_EQ(s.strings().Get(s.category[0]), "cpu_op");
  EXPECT_EQ(s.ts_ns[0], 1712195495505582988);
  EXPECT_EQ(s.dur_ns[0], 40500);
  EXPECT_EQ(s.external_id[0], 7);
  EXPECT_EQ(s.pid[0], 1234);
  EXPECT_EQ(s.tid[0], 1234);
  EXPECT_EQ(s.strings().Get(s.input_dims[0]), "[[64, 128], [128, 256]]");
  EXPECT_EQ(s.strings().Get(s.input_types[0]), "[\"float\", \"float\"]");
  EXPECT_EQ(s.strings().Get(s.input_strides[0]), "[[128, 1], [256, 1]]");
  EXPECT_EQ(s.python_id[0], 11);
  EXPECT_EQ(s.python_parent_id[0], 10);
  EXPECT_EQ(s.device[0], -1);
  // Row 1: the launch.
  EXPECT_EQ(s.kind[1], EventKind::kRuntime);
  EXPECT_EQ(s.ts_ns[1], 1712195495505590100);
  EXPECT_EQ(s.dur_ns[1], 4928);
  EXPECT_EQ(s.correlation[1], 99);
  EXPECT_EQ(s.cpu_op_row[1], 0);
  // Row 2: the kernel, linked to both.
  EXPECT_EQ(s.kind[2], EventKind::kKernel);
  EXPECT_EQ(s.ts_ns[2], 1712195495505600000);
  EXPECT_EQ(s.dur_ns[2], 12001);
  EXPECT_EQ(s.device[2], 0);
  EXPECT_EQ(s.stream[2], 7);
  EXPECT_EQ(s.launch_row[2], 1);
  EXPECT_EQ(s.cpu_op_row[2], 0);
  // Rows 3, 4: memcpy and its launch.
  EXPECT_EQ(s.kind[4], EventKind::kMemcpy);
  EXPECT_EQ(s.bytes[4], 1048576);
  EXPECT_EQ(s.launch_row[4], 3);
  EXPECT_EQ(s.bytes[0], -1);

  EXPECT_EQ(s.process_names.at(1234), "python3");
  EXPECT_EQ(s.process_names.at(0), "GPU 0");
  EXPECT_EQ(s.thread_names.at(1234), "thread 1234 (python3)");

  EXPECT_EQ(C(s, Counter::string_pid_tid), 2u);  // "pid": "Traces", "tid": "Trace PyTorch..."
  EXPECT_EQ(C(s, Counter::top_level_extra), 1u);  // "INFO"
  EXPECT_EQ(C(s, Counter::flow_unmatched), 0u);
  EXPECT_EQ(C(s, Counter::flow_duplicated), 0u);
  EXPECT_EQ(C(s, Counter::kernel_without_launch), 0u);
  EXPECT_EQ(C(s, Counter::file_truncated), 0u);
  EXPECT_EQ(C(s, Counter::unknown_category), 0u);
}

TEST(ReaderKineto, OldCategoryNames) {
  EventStore s = MustLoad("kineto_old_format.json");
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(s.event_count, 6u);
  EXPECT_EQ(s.kind[0], EventKind::kCpuOp);
  EXPECT_EQ(s.kind[1], EventKind::kRuntime);
  EXPECT_EQ(s.kind[2], EventKind::kKernel);
  EXPECT_EQ(s.ts_ns[0], 1665536373729077000);
  EXPECT_EQ(s.external_id[2], 3);  // old lower-case "external id"
  EXPECT_EQ(s.tid[0], 100);        // "tid": "100"
  EXPECT_EQ(s.stream[2], 7);       // "tid": "stream 7"
  EXPECT_EQ(s.device[2], 0);
  EXPECT_EQ(s.launch_row[2], 1);
  EXPECT_EQ(s.cpu_op_row[2], 0);
  EXPECT_FALSE(s.rank_known);
  EXPECT_EQ(C(s, Counter::number_as_string), 3u);  // "tid": "100" on two slices and a flow
  EXPECT_EQ(C(s, Counter::string_pid_tid), 2u);
  EXPECT_EQ(C(s, Counter::flow_unmatched), 0u);
}

TEST(ReaderNpu, TraceView) {
  EventStore s = MustLoad("npu_trace_view.json");
  EXPECT_EQ(s.format, TraceFormat::kNpuTraceView);
  EXPECT_EQ(s.event_count, 16u);
  ASSERT_EQ(s.size(), 5u);
  EXPECT_EQ(s.kind[0], EventKind::kCpuOp);
  EXPECT_EQ(s.ts_ns[0], 1698129183417650140);
  EXPECT_EQ(s.dur_ns[0], 20300);
  EXPECT_EQ(s.name_of(1), "AscendCL@aclnnAdd");
  EXPECT_EQ(s.kind[1], EventKind::kRuntime);  // classified after the metadata came
  EXPECT_EQ(s.kind[2], EventKind::kKernel);
  EXPECT_EQ(s.device[2], 0);  // process_labels "NPU 0"
  EXPECT_EQ(s.stream[2], 2);
  EXPECT_EQ(s.ts_ns[2], 1698129183417670020);
  EXPECT_EQ(s.launch_row[2], 1);  // through the HostToDevice flow
  EXPECT_EQ(s.kind[3], EventKind::kMemcpy);
  EXPECT_EQ(s.kind[4], EventKind::kKernel);  // HCCL
  EXPECT_EQ(s.process_names.at(2000), "Ascend Hardware");
  EXPECT_EQ(C(s, Counter::number_as_string), 10u);
  EXPECT_EQ(C(s, Counter::flow_unmatched), 0u);
  EXPECT_EQ(C(s, Counter::unknown_phase), 0u);
}

TEST(ReaderLegacy, AutogradArray) {
  EventStore s = MustLoad("legacy_array.json");
  EXPECT_EQ(s.format, TraceFormat::kLegacyArray);
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(s.event_count, 5u);
  EXPECT_EQ(s.kind[0], EventKind::kCpuOp);
  EXPECT_EQ(s.kind[1], EventKind::kCpuOp);
  EXPECT_EQ(s.kind[2], EventKind::kKernel);
  EXPECT_EQ(s.ts_ns[0], 100500);
  EXPECT_EQ(s.dur_ns[1], 8250);
  EXPECT_EQ(s.device[2], 0);
  EXPECT_EQ(s.process_names.at(s.pid[0]), "CPU functions");
  EXPECT_EQ(C(s, Counter::string_pid_tid), 5u);
  EXPECT_EQ(C(s, Counter::flow_unmatched), 0u);
}

TEST(ReaderKineto, ShapeArgsPrettyPrintedLastKeepNoTrailingSpace) {
  // torch writes args pretty-printed; an array last before the newline once
  // kept the newline and indent, and the report wrote it as a string.
  EventStore s = MustParse(R"({"traceEvents": [
  {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 10, "dur": 5,
    "args": {
      "Input Dims": [[2, 3], [3, 4]],
      "Input type": ["float", "float"]
    }
  },
  {"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 1, "ts": 20, "dur": 5,
    "args": {"Input type": ["float"],
      "Concrete Inputs": {"alpha": 1}
    }
  }
]})");
  ASSERT_EQ(s.input_types.size(), 2u);
  EXPECT_EQ(s.strings().Get(s.input_types[0]), R"(["float", "float"])");
  EXPECT_EQ(s.strings().Get(s.input_types[1]), R"(["float"])");
  EXPECT_EQ(s.strings().Get(s.input_concrete[1]), R"({"alpha": 1})");
}

TEST(ReaderErrors, Structural) {
  struct Case {
    std::string text;
    StatusCode code;
    std::string message;  // expected prefix
  };
  const Case cases[] = {
      {"", StatusCode::kInvalidArgument, "<memory>: not a trace: the file is empty"},
      {" \n", StatusCode::kInvalidArgument, "<memory>: not a trace: the file is empty"},
      {"hello world", StatusCode::kInvalidArgument,
       "<memory>: not a trace: expected '{' or '[' at byte 0, found \"hello world\""},
      {"hello world and more text", StatusCode::kInvalidArgument,
       "<memory>: not a trace: expected '{' or '[' at byte 0, found \"hello world and ...\""},
      {"  42", StatusCode::kInvalidArgument,
       "<memory>: not a trace: expected '{' or '[' at byte 2, found \"42\""},
      {"\"str\"", StatusCode::kInvalidArgument, "<memory>: not a trace: expected '{' or '['"},
      {"{\"a\": 1, \"b\": [2]}", StatusCode::kInvalidArgument,
       "<memory>: not a trace: the top-level object has no \"traceEvents\" (keys: a, b)"},
      {"{\"traceEvents\": 5}", StatusCode::kInvalidArgument,
       "<memory>: not a trace: \"traceEvents\" is not an array at byte 16"},
      {"[1, 2, 3]", StatusCode::kInvalidArgument,
       "<memory>: not a trace: the top-level array holds no event objects"},
      {"{\"schemaVersion\": 1, \"traceEv", StatusCode::kDataLoss,
       "<memory>: truncated: the file ends before the event list"},
      {"{\"a\" 1}", StatusCode::kInvalidArgument, "<memory>: not JSON: expected ':' at byte 5"},
  };
  for (const Case& c : cases) {
    auto s = ParseTrace(c.text);
    ASSERT_FALSE(s.ok()) << c.text;
    EXPECT_EQ(s.status().code(), c.code) << c.text;
    EXPECT_EQ(s.status().message().substr(0, c.message.size()), c.message) << c.text;
  }
}

TEST(ReaderErrors, MissingFile) {
  auto s = LoadTrace(kTraces + "no_such_trace.json");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(s.status().message().rfind(kTraces + "no_such_trace.json", 0), 0u);
}

std::string Wrap(const std::string& events) { return "{\"traceEvents\": [" + events + "]}"; }

TEST(ReaderEvents, UnescapedQuoteRecovered) {
  EventStore s = MustParse(Wrap(
      R"({"ph": "X", "cat": "cpu_op", "name": "foo"bar", "ts": 1, "dur": 2, "pid": 1, "tid": 1},)"
      R"({"ph": "X", "cat": "cpu_op", "name": "next", "ts": 3, "dur": 1, "pid": 1, "tid": 1})"));
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s.name_of(0), "foo\"bar");
  EXPECT_EQ(s.name_of(1), "next");
  EXPECT_EQ(C(s, Counter::event_repaired), 1u);
  EXPECT_EQ(C(s, Counter::event_malformed), 0u);
  EXPECT_EQ(C(s, Counter::file_truncated), 0u);
}

TEST(ReaderEvents, TwoStrayQuotesAndBraces) {
  // An even number of stray quotes keeps the fast scan in step but the JSON
  // is still invalid; braces inside the damaged name must not matter.
  EventStore s = MustParse(Wrap(
      R"({"ph": "X", "name": "a"{b"c}", "ts": 1, "dur": 2, "pid": 1, "tid": 1},)"
      R"({"ph": "X", "name": "next", "ts": 3, "dur": 1, "pid": 1, "tid": 1})"));
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s.name_of(0), "a\"{b\"c}");
  EXPECT_EQ(s.name_of(1), "next");
  EXPECT_EQ(C(s, Counter::event_repaired), 1u);
}

TEST(ReaderEvents, InvalidUtf8Replaced) {
  EventStore s = MustParse(Wrap(
      "{\"ph\": \"X\", \"name\": \"a\xff" "b\", \"ts\": 1, \"dur\": 2, \"pid\": 1, \"tid\": 1}"));
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s.name_of(0), "a\xEF\xBF\xBD" "b");
  EXPECT_EQ(C(s, Counter::invalid_utf8), 1u);
  EXPECT_EQ(C(s, Counter::event_repaired), 0u);
}

TEST(ReaderEvents, HugeIntegers) {
  EventStore s = MustParse(Wrap(
      R"({"ph": "X", "cat": "kernel", "name": "k", "ts": 1, "dur": 2, "pid": 0, "tid": 7,)"
      R"( "args": {"Comms Id": 10159970886766084423, "device": 0, "stream": 7}},)"
      R"({"ph": "X", "cat": "kernel", "name": "k2", "ts": 1, "dur": 2, "pid": 0, "tid": 7,)"
      R"( "args": {"correlation": 18446744073709551615}})"));
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s.correlation[1], kNone);
  EXPECT_EQ(C(s, Counter::integer_overflow), 1u);  // only the field we use
}

TEST(ReaderEvents, NumbersAsStringsAndNotFinite) {
  EventStore s = MustParse(Wrap(
      R"({"ph": "X", "name": "a", "ts": "1698129183417650.140", "dur": "inf", "pid": 1, "tid": 1},)"
      R"({"ph": "X", "name": "b", "ts": "N/A", "dur": 1, "pid": 1, "tid": 1},)"
      R"({"ph": "X", "name": "c", "ts": "", "dur": 1, "pid": 1, "tid": 1},)"
      R"({"ph": "X", "name": "d", "ts": 5, "dur": "2.5", "pid": 1, "tid": 1})"));
  // "dur": "inf" is no time an event took: dropped, not kept as zero.
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s.name_of(0), "d");
  EXPECT_EQ(s.dur_ns[0], 2500);
  EXPECT_EQ(C(s, Counter::number_as_string), 2u);
  EXPECT_EQ(C(s, Counter::number_not_finite), 3u);
  EXPECT_EQ(C(s, Counter::event_missing_ts), 2u);
  EXPECT_EQ(C(s, Counter::duration_unusable), 1u);
}

TEST(ReaderEvents, DurationsAndMissingFields) {
  EventStore s = MustParse(Wrap(
      R"({"ph": "X", "name": "neg", "ts": 10, "dur": -5, "pid": 1, "tid": 1},)"
      R"({"ph": "X", "name": "nodur", "ts": 10, "pid": 1, "tid": 1},)"
      R"({"name": "noph", "ts": 1.5e3, "dur": 1, "pid": 1, "tid": 1},)"
      R"({"ph": "X", "name": "nots", "dur": 1, "pid": 1, "tid": 1},)"
      R"({"ph": "X", "name": "garbage", "ts": true, "dur": 1, "pid": 1, "tid": 1},)"
      R"({"ph": "B", "name": "begin", "ts": 1, "pid": 1, "tid": 1},)"
      R"(7, "text", [1],)"
      R"({"ph": "X", "name": "bad", "ts": 1, "dur": },)"
      R"({"ph": "X", "name": "last", "ts": 2, "dur": 1, "pid": 1, "tid": 1, "cat": "brand_new"})"));
  // The negative duration drops its event (duration_unusable).
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(s.event_count, 11u);
  EXPECT_EQ(s.name_of(0), "nodur");
  EXPECT_EQ(s.dur_ns[0], 0);
  EXPECT_EQ(s.ts_ns[1], 1500000);
  EXPECT_EQ(s.name_of(2), "last");
  EXPECT_EQ(s.kind[2], EventKind::kOther);
  EXPECT_EQ(C(s, Counter::duration_unusable), 1u);
  EXPECT_EQ(C(s, Counter::duration_missing), 1u);
  EXPECT_EQ(C(s, Counter::event_missing_ph), 1u);
  EXPECT_EQ(C(s, Counter::event_missing_ts), 2u);
  EXPECT_EQ(C(s, Counter::unknown_phase), 1u);
  EXPECT_EQ(C(s, Counter::event_not_object), 3u);
  EXPECT_EQ(C(s, Counter::event_malformed), 1u);
  EXPECT_EQ(C(s, Counter::unknown_category), 1u);
}

// An event past the 64 MiB per-event limit is skipped whole and counted as too
// large (it was "could not be parsed"), and the events after it are read.
TEST(ReaderEvents, EventPastThePerEventLimitIsTooLargeNotMalformed) {
  const std::string big(65u << 20, 'x');
  EventStore s = MustParse(Wrap(
      R"({"ph": "X", "name": "before", "ts": 1, "dur": 1, "pid": 1, "tid": 1},)"
      R"({"ph": "X", "name": "huge", "ts": 2, "dur": 1, "pid": 1, "tid": 1, "args": {"s": ")" +
      big + R"("}},)"
      R"({"ph": "X", "name": "after", "ts": 3, "dur": 1, "pid": 1, "tid": 1})"));
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s.name_of(1), "after");
  EXPECT_EQ(C(s, Counter::event_too_large), 1u);
  EXPECT_EQ(C(s, Counter::event_malformed), 0u);
}

TEST(ReaderEvents, EscapedNamesAndKeyOrder) {
  EventStore s = MustParse(
      R"({"displayTimeUnit": "ns", "x": {"traceEvents": 1}, "traceEvents": [)"
      R"({"args": {"correlation": 5}, "tid": 2, "pid": 1, "dur": 1.001, "ts": 2.002, "name": "a\"b\\c\u00e9", "cat": "kernel", "ph": "X"}]})");
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s.name_of(0), "a\"b\\c\xC3\xA9");
  EXPECT_EQ(s.ts_ns[0], 2002);
  EXPECT_EQ(s.dur_ns[0], 1001);
  EXPECT_EQ(s.correlation[0], 5);
  EXPECT_EQ(s.stream[0], 2);  // no args.stream: the tid
  EXPECT_EQ(s.device[0], 1);  // no args.device: the pid
}

TEST(ReaderEvents, Progress) {
  std::string events;
  for (int i = 0; i < 40000; ++i) {
    if (i) events += ",";
    events += R"({"ph": "X", "cat": "cpu_op", "name": "aten::add_some_long_name_for_bytes", "ts": )" +
              std::to_string(i) + R"(, "dur": 1, "pid": 1, "tid": 1, "args": {"External id": 1}})";
  }
  uint64_t calls = 0, last_done = 0, total = 0;
  bool monotone = true;
  LoadOptions opt;
  opt.progress = [&](uint64_t done, uint64_t t) {
    monotone = monotone && done >= last_done;
    last_done = done;
    total = t;
    ++calls;
  };
  const std::string json = Wrap(events);
  auto s = ParseTrace(json, opt);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->size(), 40000u);
  EXPECT_GE(calls, 2u);
  EXPECT_TRUE(monotone);
  EXPECT_EQ(total, json.size());
  EXPECT_EQ(last_done, json.size());
}

// Cut a fixture at every byte: never crash; either a structural Status or the
// complete events so far plus file_truncated.
void CheckAllCuts(const std::string& text, size_t full_slices) {
  size_t last_slices = 0;
  for (size_t cut = 0; cut < text.size(); ++cut) {
    auto s = ParseTrace(std::string_view(text).substr(0, cut));
    if (!s.ok()) {
      EXPECT_EQ(s.status().message().rfind("<memory>: ", 0), 0u) << cut;
      EXPECT_TRUE(s.status().code() == StatusCode::kDataLoss ||
                  s.status().code() == StatusCode::kInvalidArgument)
          << cut;
      continue;
    }
    const bool complete = text.find_first_not_of(" \n\r\t", cut) == std::string::npos;
    if (!complete) EXPECT_EQ(s->counters().Get(Counter::file_truncated), 1u) << cut;
    EXPECT_EQ(s->counters().Get(Counter::event_malformed), 0u) << cut;
    EXPECT_LE(s->size(), full_slices) << cut;
    EXPECT_GE(s->size(), last_slices) << cut;  // a longer prefix never loses events
    last_slices = s->size();
  }
  EXPECT_EQ(last_slices, full_slices);
}

TEST(ReaderTruncation, EveryByteKineto) {
  CheckAllCuts(ReadText(kTraces + "kineto_minimal.json"), 5);
}

TEST(ReaderTruncation, EveryByteNpu) { CheckAllCuts(ReadText(kTraces + "npu_trace_view.json"), 5); }

TEST(ReaderTruncation, EveryByteOld) {
  CheckAllCuts(ReadText(kTraces + "kineto_old_format.json"), 3);
}

TEST(ReaderGarbage, RandomBytesNeverCrash) {
  std::mt19937 rng(1234);
  const std::string base = ReadText(kTraces + "kineto_minimal.json");
  for (int i = 0; i < 300; ++i) {
    std::string t = base;
    const int flips = 1 + static_cast<int>(rng() % 8);
    for (int k = 0; k < flips; ++k) t[rng() % t.size()] = static_cast<char>(rng() % 256);
    auto s = ParseTrace(t);
    if (s.ok()) EXPECT_LE(s->size(), 6u);
  }
}

}  // namespace
}  // namespace fastenough::trace

namespace fastenough::trace {
namespace {

// Issue 34 item 13: numbers no measurement can have are counted and left out,
// never turned into zeros, wrapped sums or negative delays.
TEST(ReaderImpossible, UnusableDurationsDropTheirEvents) {
  EventStore s = MustParse(Wrap(
      R"({"ph": "X", "cat": "kernel", "name": "neg", "ts": 10, "dur": -5, "pid": 0, "tid": 7},)"
      R"({"ph": "X", "cat": "kernel", "name": "huge", "ts": 10, "dur": 1e300, "pid": 0, "tid": 7},)"
      R"({"ph": "X", "cat": "kernel", "name": "u64", "ts": 10, "dur": 18446744073709551615, "pid": 0, "tid": 7},)"
      R"({"ph": "X", "cat": "kernel", "name": "year", "ts": 10, "dur": 31536000000001, "pid": 0, "tid": 7},)"
      R"({"ph": "X", "cat": "kernel", "name": "end", "ts": 9223372036854775, "dur": 1000, "pid": 0, "tid": 7},)"
      R"({"ph": "X", "cat": "kernel", "name": "ok", "ts": 10, "dur": 31536000000000, "pid": 0, "tid": 7})"));
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s.name_of(0), "ok");
  EXPECT_EQ(s.dur_ns[0], int64_t{31536000000000} * 1000);  // a year exactly is kept
  EXPECT_EQ(C(s, Counter::duration_unusable), 5u);
  EXPECT_EQ(GetCounterInfo(Counter::duration_unusable).severity, Severity::kDataLoss);
}

TEST(ReaderImpossible, AbsurdByteCountsAreCountedNotSummed) {
  EventStore s = MustParse(Wrap(
      R"({"ph": "i", "s": "t", "name": "[memory]", "ts": 1, "pid": 1, "tid": 1,)"
      R"( "args": {"Device Type": 1, "Device Id": 0, "Addr": 1, "Bytes": 9223372036854775807}},)"
      R"({"ph": "i", "s": "t", "name": "[memory]", "ts": 2, "pid": 1, "tid": 1,)"
      R"( "args": {"Device Type": 1, "Device Id": 0, "Addr": 2, "Bytes": 512, "Total Allocated": -4}},)"
      R"({"ph": "i", "s": "t", "name": "[memory]", "ts": 3, "pid": 1, "tid": 1,)"
      R"( "args": {"Device Type": 1, "Device Id": 0, "Addr": 3, "Bytes": 512, "Total Allocated": 1024}},)"
      R"({"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD", "ts": 1, "dur": 1, "pid": 0, "tid": 7,)"
      R"( "args": {"bytes": -8, "device": 0, "stream": 7}})"));
  ASSERT_EQ(s.memory_events.size(), 1u);
  EXPECT_EQ(s.memory_events[0].bytes, 512);
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s.bytes[0], -1);  // a copy of unknown size
  EXPECT_EQ(C(s, Counter::bytes_unusable), 3u);
}

TEST(ReaderImpossible, RankAndWorldSizeOutOfRangeAreUnknownNotZero) {
  EventStore a = MustParse(R"({"distributedInfo": {"rank": 4611686018427387904, "world_size": 4611686018427387904},)"
                           R"( "traceEvents": []})");
  EXPECT_FALSE(a.rank_known);
  EXPECT_EQ(a.world_size, 1);
  EXPECT_EQ(C(a, Counter::rank_unusable), 2u);
  EventStore b = MustParse(R"({"distributedInfo": {"rank": "0; rm -rf /", "world_size": 0}, "traceEvents": []})");
  EXPECT_FALSE(b.rank_known);
  EXPECT_EQ(b.world_size, 1);
  EXPECT_EQ(C(b, Counter::rank_unusable), 2u);
  EventStore c = MustParse(R"({"distributedInfo": {"rank": 5, "world_size": 2}, "traceEvents": []})");
  EXPECT_TRUE(c.rank_known);
  EXPECT_EQ(c.rank, 5);
  EXPECT_EQ(c.world_size, 1);  // the world that cannot hold rank 5 is dropped
  EXPECT_EQ(C(c, Counter::rank_unusable), 1u);
  EventStore d = MustParse(R"({"distributedInfo": {"rank": 3, "world_size": 8}, "traceEvents": []})");
  EXPECT_EQ(d.rank, 3);
  EXPECT_EQ(d.world_size, 8);
  EXPECT_EQ(C(d, Counter::rank_unusable), 0u);
}

TEST(ReaderImpossible, SharedCorrelationLinksTheLaunchBeforeTheKernel) {
  // Two launch calls with correlation 9 (at 100 and 200 µs); the kernel at
  // 150 µs was launched by the first. A kernel at 50 µs precedes both.
  EventStore s = MustParse(Wrap(
      R"({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "ts": 100, "dur": 5, "pid": 1, "tid": 1, "args": {"correlation": 9}},)"
      R"({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "ts": 200, "dur": 5, "pid": 1, "tid": 1, "args": {"correlation": 9}},)"
      R"({"ph": "X", "cat": "kernel", "name": "k", "ts": 150, "dur": 10, "pid": 0, "tid": 7, "args": {"correlation": 9, "device": 0, "stream": 7}},)"
      R"({"ph": "X", "cat": "kernel", "name": "early", "ts": 50, "dur": 10, "pid": 0, "tid": 7, "args": {"correlation": 9, "device": 0, "stream": 7}})"));
  ASSERT_EQ(s.size(), 4u);
  EXPECT_EQ(s.launch_row[2], 0);
  EXPECT_EQ(C(s, Counter::correlation_duplicated), 1u);
  EXPECT_EQ(C(s, Counter::kernel_before_launch), 1u);
}

}  // namespace
}  // namespace fastenough::trace
