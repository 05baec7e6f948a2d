#include "fastenough/report/rank_summary_json.h"

#include <simdjson.h>

#include "fastenough/report/depth_json.h"
#include "fastenough/report/fields/json_fields.h"
#include "fastenough/report/fields/rank_summary_fields.h"
#include "fastenough/report/fields/turns_fields.h"
#include "fastenough/report/json_object_reader.h"
#include "fastenough/report/json_writer.h"
#include "fastenough/report/report_json.h"

// The summary's keys are declared once, in fields/rank_summary_fields.h; the
// generic writer and reader (fields/json_fields.h) walk that declaration.
// What follows is the code of its custom values and checks.

namespace fastenough::report {

namespace dom = simdjson::dom;

namespace fields {

namespace {

// [start, end] pairs of integers with end >= start, or the message.
bool ReadPairs(ObjectReader& o, std::string_view key, std::string_view what,
               std::vector<std::pair<int64_t, int64_t>>& out) {
  for (dom::element e : o.Array(key)) {
    dom::array pair;
    std::optional<int64_t> lo, hi;
    if (e.get_array().get(pair) == simdjson::SUCCESS && pair.size() == 2) {
      lo = ElementInt(pair.at(0).value_unsafe());
      hi = ElementInt(pair.at(1).value_unsafe());
    }
    if (!lo || !hi || *hi < *lo) {
      o.Fail(key, what);
      return false;
    }
    out.emplace_back(*lo, *hi);
  }
  return true;
}


}  // namespace

void WriteSummaryCounters(JsonWriter& w, const RankSummary& s) {
  w.BeginArray();
  for (size_t c = 0; c < trace::kCounterCount; ++c) {
    const auto counter = static_cast<trace::Counter>(c);
    if (s.counters.Get(counter) == 0) continue;
    w.BeginObject();
    w.Field("name", trace::GetCounterInfo(counter).name);
    w.Field("count", s.counters.Get(counter));
    w.EndObject();
  }
  w.EndArray();
}

void ReadSummaryCounters(ObjectReader& root, RankSummary& s) {
  for (ObjectReader c : root.Objects("counters")) {
    const std::string name = c.String("name");
    bool known = false;
    for (size_t k = 0; k < trace::kCounterCount && c.ok(); ++k) {
      const auto counter = static_cast<trace::Counter>(k);
      if (trace::GetCounterInfo(counter).name != name) continue;
      s.counters.Add(counter, c.Uint("count"));
      known = true;
    }
    if (!known) c.Fail("name", "unknown counter '" + name + "'");
  }
}

void WriteSummaryDeviceTurns(JsonWriter& w, const RankSummary& s) {
  if (s.analysis.device_turns.measured()) WriteRankDeviceTurns(w, s.analysis); else w.Null();
}

void ReadSummaryDeviceTurns(ObjectReader& o, RankSummary& s) {
  // (absent in summaries written before device_turns existed: no devices taking turns)
  if (!o.Has("device_turns")) return;
  if (auto t = o.ObjectOrNull("device_turns")) {
    ReadFields<analysis::DeviceTurns, TurnsOfRank>(*t, s.analysis.device_turns);
  }
}

void WriteSteadyWork(JsonWriter& w, const RankSummary& s) {
  w.BeginArray();
  for (const auto& iv : s.analysis.step_breakdown.steady_work.intervals()) {
    w.BeginArray().Int(iv.start).Int(iv.end).EndArray();
  }
  w.EndArray();
}

void ReadSteadyWork(ObjectReader& o, RankSummary& s) {
  // (absent in summaries written before steady_work existed: no work known)
  if (!o.Has("steady_work")) return;
  std::vector<std::pair<int64_t, int64_t>> pairs;
  ReadPairs(o, "steady_work", "expected [start_ns, end_ns] pairs", pairs);
  std::vector<timeline::Interval> work;
  for (const auto& [lo, hi] : pairs) work.push_back({lo, hi});
  s.analysis.step_breakdown.steady_work = timeline::IntervalSet::FromUnsorted(std::move(work));
}

namespace {

using BreakdownRow = analysis::StepBreakdownRow;

// One integer per step of step_breakdown.steps, in order.
void WriteStepInts(JsonWriter& w, const RankSummary& s, int64_t BreakdownRow::*member) {
  w.BeginArray();
  for (const auto& row : s.analysis.step_breakdown.steps) w.Int(row.*member);
  w.EndArray();
}

// Absent in summaries written before the value existed: the rows keep their
// default (unknown). `least`: the smallest value that means something.
void ReadStepInts(ObjectReader& o, RankSummary& s, std::string_view key,
                  int64_t BreakdownRow::*member, int64_t least, std::string_view what) {
  if (!o.Has(key)) return;
  auto& steps = s.analysis.step_breakdown.steps;
  const auto values = o.Array(key);
  if (values.size() != steps.size()) {
    return o.Fail(key, "expected one " + std::string(what) + " per step of step_breakdown");
  }
  for (size_t i = 0; i < values.size(); ++i) {
    const std::optional<int64_t> n = ElementInt(values[i]);
    if (!n || *n < least) {
      return o.Fail(key, "expected " + std::string(what) + "s of " + std::to_string(least) +
                             " or more");
    }
    steps[i].*member = *n;
  }
}

}  // namespace

void WriteStepWorkItems(JsonWriter& w, const RankSummary& s) {
  WriteStepInts(w, s, &BreakdownRow::work_items);
}

void ReadStepWorkItems(ObjectReader& o, RankSummary& s) {
  ReadStepInts(o, s, "step_work_items", &BreakdownRow::work_items, 0, "count");  // 0: unknown
}

void WriteStepHostWork(JsonWriter& w, const RankSummary& s) {
  WriteStepInts(w, s, &BreakdownRow::host_work_ns);
}

void ReadStepHostWork(ObjectReader& o, RankSummary& s) {
  ReadStepInts(o, s, "step_host_work_ns", &BreakdownRow::host_work_ns, -1, "time");  // -1: unknown
}

void WriteSummaryCollectives(JsonWriter& w, const RankSummary& s) {
  w.BeginArray();
  for (const auto& [name, calls] : s.collectives.by_name) {
    w.BeginObject();
    w.Field("name", name);
    w.Key("calls").BeginArray();
    for (const auto& c : calls) w.BeginArray().Int(c.start_ns).Int(c.start_ns + c.dur_ns).EndArray();
    w.EndArray();
    w.EndObject();
  }
  w.EndArray();
}

void ReadSummaryCollectives(ObjectReader& o, RankSummary& s) {
  for (ObjectReader c : o.Objects("collectives")) {
    std::vector<analysis::CollectiveCall>& calls = s.collectives.by_name[c.String("name")];
    std::vector<std::pair<int64_t, int64_t>> pairs;
    ReadPairs(c, "calls", "expected [start_ns, end_ns] pairs of integers, end >= start", pairs);
    for (const auto& [start, end] : pairs) calls.push_back({start, end - start});
  }
}

void CheckSummary(ObjectReader& o, RankSummary& s) {
  analysis::RankAnalysis& a = s.analysis;
  a.path = s.input.path;
  s.collectives.rank = a.rank;
  for (size_t i = 0; i < a.efficiency.devices.size(); ++i) {
    if (a.efficiency.devices[i].steps.size() > a.steps.steps.size()) {
      o.Fail("efficiency.devices[" + std::to_string(i) + "].steps", "more steps than steps.windows");
    }
  }
}

}  // namespace fields

std::string RankSummaryToJson(const RankSummary& s) {
  // Compact: a summary is read by programs (jq pretty-prints it).
  JsonWriter w(0);
  fields::WriteObject(w, s, {s.analysis.rank, nullptr, &s.analysis});
  std::string out = w.Take();
  out.push_back('\n');
  return out;
}

StatusOr<RankSummary> ParseRankSummary(std::string_view json, const std::string& source) {
  dom::parser parser;
  dom::element root;
  if (auto error = parser.parse(json.data(), json.size()).get(root)) {
    return InvalidArgument(source + ": not a JSON document (" + simdjson::error_message(error) +
                           ")");
  }
  Status status;
  ObjectReader o(root, "$", &status);
  if (o.ok() && o.String("schema") != kRankSummarySchema) {
    return InvalidArgument(source + ": not a " + std::string(kRankSummarySchema) +
                           " document (its \"schema\" is not that)");
  }
  RankSummary s;
  fields::ReadFields(o, s);
  if (!status.ok()) return Status(status.code(), source + ": " + status.message());
  return s;
}

}  // namespace fastenough::report
