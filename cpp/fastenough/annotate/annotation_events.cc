#include "fastenough/annotate/annotation_events.h"

#include <cstdio>
#include <cstdlib>

#include "fastenough/report/json_writer.h"
#include "fastenough/trace/event_store.h"
#include "fastenough/util/units.h"

namespace fastenough::annotate {
namespace {

using report::JsonWriter;

void Track(JsonWriter& w, const findings::TracePoint& p) {
  w.Key("pid");
  if (p.pid_text.empty()) {
    w.Int(p.pid);
  } else {
    w.String(p.pid_text);
  }
  w.Key("tid");
  if (p.tid_text.empty()) {
    w.Int(p.tid);
  } else {
    w.String(p.tid_text);
  }
}

void Common(JsonWriter& w, std::string_view ph, std::string_view name) {
  w.Field("ph", ph).Field("cat", trace::kAnnotationCategory).Field("name", name);
}

std::string SavingText(const findings::Saving& s) {
  const std::string bound = s.upper_bound ? "at most " : "";
  if (s.per_step_ns >= 0) return bound + util::FormatDuration(s.per_step_ns) + " a step";
  if (s.total_ns >= 0) return bound + util::FormatDuration(s.total_ns) + " over the trace";
  return "not estimated";
}

// One event object per Begin(); joined with commas (a JsonWriter holds one
// JSON value, and the list has no brackets of its own).
class EventList {
 public:
  JsonWriter& Begin() {
    Flush();
    ++n_;
    return cur_;
  }
  int64_t size() const { return n_; }
  std::string Take() {
    Flush();
    return std::move(out_);
  }

 private:
  void Flush() {
    if (cur_.str().empty()) return;
    if (!out_.empty()) out_ += ',';
    out_ += cur_.Take();
    cur_ = JsonWriter();
  }
  JsonWriter cur_;
  std::string out_;
  int64_t n_ = 0;
};

}  // namespace

std::string MicrosText(int64_t ns) {
  char buf[40];
  const char* sign = ns < 0 ? "-" : "";
  const uint64_t a = ns < 0 ? 0 - static_cast<uint64_t>(ns) : static_cast<uint64_t>(ns);
  std::snprintf(buf, sizeof buf, "%s%llu.%03llu", sign,
                static_cast<unsigned long long>(a / 1000),
                static_cast<unsigned long long>(a % 1000));
  return buf;
}

std::string AnnotationEventsJson(const std::vector<findings::Finding>& all,
                                 AnnotationCounts* counts) {
  AnnotationCounts c;
  EventList list;
  findings::TracePoint ours;
  ours.pid = kFindingsPid;
  {
    JsonWriter& w = list.Begin();
    w.BeginObject();
    Common(w, "M", "process_name");
    Track(w, ours);
    w.Key("args").BeginObject().Field("name", "fastenough findings").EndObject();
    w.EndObject();
    JsonWriter& w2 = list.Begin();
    w2.BeginObject();
    Common(w2, "M", "process_sort_index");
    Track(w2, ours);
    w2.Key("args").BeginObject().Field("sort_index", int64_t{-1}).EndObject();
    w2.EndObject();
  }
  int64_t flow_id = 0;
  for (size_t k = 0; k < all.size(); ++k) {
    const findings::Finding& f = all[k];
    if (f.marks.empty()) continue;
    ++c.findings;
    const int64_t number = static_cast<int64_t>(k) + 1;
    ours.tid = number;
    const std::string label = "fastenough: " + f.code;
    {
      JsonWriter& w = list.Begin();
      w.BeginObject();
      Common(w, "M", "thread_name");
      Track(w, ours);
      w.Key("args").BeginObject().Field("name", std::to_string(number) + ". " + f.code).EndObject();
      w.EndObject();
    }
    for (const findings::Mark& m : f.marks) {
      // The finding's slice: the span the mark covers.
      JsonWriter& w = list.Begin();
      w.BeginObject();
      Common(w, "X", f.code + ": " + m.what);
      Track(w, ours);
      w.Key("ts").Raw(MicrosText(m.start_ns));
      w.Key("dur").Raw(MicrosText(m.end_ns - m.start_ns));
      w.Key("args").BeginObject();
      w.Field("finding", number).Field("code", f.code).Field("verdict", findings::VerdictName(f.verdict));
      w.Field("title", f.title).Field("saving", SavingText(f.saving)).Field("fix", f.action);
      w.EndObject();
      w.EndObject();
      ++c.slices;
      if (!m.at) continue;
      // At the event: an instant on its track, and an arrow from the slice.
      JsonWriter& wi = list.Begin();
      wi.BeginObject();
      Common(wi, "i", label);
      wi.Field("s", "t");
      Track(wi, *m.at);
      wi.Key("ts").Raw(MicrosText(m.at->ts_ns));
      wi.Key("args").BeginObject().Field("finding", number).Field("what", m.what).EndObject();
      wi.EndObject();
      ++c.instants;
      ++flow_id;
      JsonWriter& ws = list.Begin();
      ws.BeginObject();
      Common(ws, "s", label);
      ws.Field("id", flow_id);
      Track(ws, ours);
      ws.Key("ts").Raw(MicrosText(m.start_ns + (m.end_ns - m.start_ns) / 2));
      ws.EndObject();
      JsonWriter& wf = list.Begin();
      wf.BeginObject();
      Common(wf, "f", label);
      wf.Field("bp", "e").Field("id", flow_id);
      Track(wf, *m.at);
      wf.Key("ts").Raw(MicrosText(m.at->ts_ns));
      wf.EndObject();
      ++c.flows;
    }
  }
  c.events = list.size();
  if (counts != nullptr) *counts = c;
  return list.Take();
}

}  // namespace fastenough::annotate
