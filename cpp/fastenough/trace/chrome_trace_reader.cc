#include "fastenough/trace/chrome_trace_reader.h"

#include <simdjson.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "fastenough/trace/json_scan.h"
#include "fastenough/util/decimal.h"

namespace fastenough::trace {

namespace {

namespace od = simdjson::ondemand;
using simdjson::error_code;

static_assert(PaddedBuffer::kPadding >= simdjson::SIMDJSON_PADDING);

// pid/tid given as text ("pid": "Spans", "pid": "CPU functions") get ids far
// above any real process id.
constexpr int64_t kStringIdBase = kTextIdBase;
constexpr uint64_t kProgressStep = 4u << 20;
constexpr size_t kMaxEventBytes = size_t{64} << 20;

enum class Num : uint8_t { kAbsent, kOk, kBad, kNotFinite, kOverflow };

// The longest duration a profiler event can have: a year. Longer ones
// (1e300 µs, 2^64-1 µs written as a number, a negative one) are not
// measurements; the event is dropped and counted (duration_unusable).
constexpr int64_t kMaxDurationNs = int64_t{365} * 24 * 3600 * 1000000000;
// The largest byte count taken from a trace: 256 TiB, beyond any device's
// memory; larger (2^63-1) or negative sizes are counted (bytes_unusable).
constexpr int64_t kMaxBytes = int64_t{1} << 48;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

struct PendingCounters {
  Counter c[16];
  int n = 0;
  void Add(Counter x) {
    if (n < 16) c[n++] = x;
  }
};

// One event as read from its JSON object, before it is committed. Views
// point into the input or into the parser's string buffer, so the event must
// be committed before the next document is parsed.
struct Event {
  std::string_view ph, name, cat, id;
  bool has_ph = false, has_cat = false, has_id = false, ts_string = false;
  Num ts_state = Num::kAbsent, dur_state = Num::kAbsent;
  int64_t ts = 0, dur = 0;
  int64_t pid = 0, tid = 0;
  std::string_view pid_text, tid_text;  // non-empty: pid/tid was a non-numeric string
  int64_t correlation = kNone, external_id = kNone, device = kNone, stream = kNone;
  int64_t bytes = kNone, python_id = kNone, python_parent_id = kNone, stream_id = kNone;
  std::string_view input_dims, input_types, input_strides, input_concrete, arg_name, task_type,
      labels;
  // [memory] instant events ("Bytes" with a capital B; "bytes" is a copy's size).
  int64_t mem_bytes = kNone, total_allocated = kNone, total_reserved = kNone;
  int64_t device_type = kNone, device_id = kNone, addr = kNone;
  // Kernel launch figures; NaN when absent.
  double blocks_per_sm = kNaN, warps_per_sm = kNaN, occupancy_pct = kNaN;
  // cuda_sync "Event Sync" / "Stream Wait Event".
  int64_t wait_on_stream = kNone, record_correlation = kNone;
  PendingCounters counters;
};

std::string_view TrimRight(std::string_view s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\n' || s.back() == '\r' ||
                        s.back() == '\t')) {
    s.remove_suffix(1);
  }
  return s;
}

// The text of a number field, as written: `"ts": 12.5` and `"ts": "12.5"`
// both give "12.5" (*as_string tells which). *t is the JSON type; for types
// other than number and string, *text is left empty.
error_code NumberText(od::value& v, od::json_type* t, std::string_view* text, bool* as_string) {
  if (auto e = v.type().get(*t)) return e;
  *as_string = false;
  if (*t == od::json_type::number) {
    *text = v.raw_json_token();
  } else if (*t == od::json_type::string) {
    if (auto e = v.get_string().get(*text)) return e;
    *as_string = true;
  }
  return simdjson::SUCCESS;
}

// Reads a µs time ("ts", "dur"): a number, or a number as a string.
error_code ReadTime(od::value v, Num* state, int64_t* out, PendingCounters* pc,
                    bool* was_string = nullptr) {
  od::json_type t;
  std::string_view text;
  bool as_string = false;
  if (auto e = NumberText(v, &t, &text, &as_string)) return e;
  if (as_string && was_string != nullptr) *was_string = true;
  if (t == od::json_type::null) {
    *state = Num::kNotFinite;
    pc->Add(Counter::number_not_finite);
    return simdjson::SUCCESS;
  }
  if (t != od::json_type::number && t != od::json_type::string) {
    *state = Num::kBad;
    return simdjson::SUCCESS;
  }
  switch (ParseMicrosToNanos(text, out)) {
    case DecimalResult::kOk:
      *state = Num::kOk;
      if (as_string) pc->Add(Counter::number_as_string);
      break;
    case DecimalResult::kEmpty:
    case DecimalResult::kNotFinite:
      *state = Num::kNotFinite;
      pc->Add(Counter::number_not_finite);
      break;
    case DecimalResult::kOverflow:
      *state = Num::kOverflow;
      pc->Add(Counter::integer_overflow);
      break;
    case DecimalResult::kGarbage:
      *state = Num::kBad;
      break;
  }
  return simdjson::SUCCESS;
}

// Reads an integer we use (ids, device, bytes). Values beyond int64 (e.g.
// "Comms Id": 10159970886766084423) leave *out unchanged and are counted.
error_code ReadInt(od::value v, int64_t* out, PendingCounters* pc) {
  od::json_type t;
  std::string_view text;
  bool as_string = false;
  if (auto e = NumberText(v, &t, &text, &as_string)) return e;
  if (t != od::json_type::number && t != od::json_type::string) return simdjson::SUCCESS;
  int64_t x;
  switch (ParseScaledDecimal(text, 0, &x)) {
    case DecimalResult::kOk:
      *out = x;
      if (as_string) pc->Add(Counter::number_as_string);
      break;
    case DecimalResult::kOverflow:
      pc->Add(Counter::integer_overflow);
      break;
    case DecimalResult::kEmpty:
    case DecimalResult::kNotFinite:
      pc->Add(Counter::number_not_finite);
      break;
    case DecimalResult::kGarbage:
      break;
  }
  return simdjson::SUCCESS;
}

// Reads a figure that is a measurement, not an id ("blocks per SM":
// 414.51852): parsed as a decimal scaled by 10^6 (the fast path the
// timestamps take), then divided, so it is exact to a millionth. Strings and
// non-finite values leave *out unchanged.
error_code ReadDouble(od::value v, double* out) {
  od::json_type t;
  if (auto e = v.type().get(t)) return e;
  if (t != od::json_type::number) return simdjson::SUCCESS;
  int64_t x;
  if (ParseScaledDecimal(TrimRight(v.raw_json_token()), 6, &x) == DecimalResult::kOk) {
    *out = static_cast<double>(x) / 1e6;
  }
  return simdjson::SUCCESS;
}

// pid / tid: a number, a numeric string, or a label such as "Spans".
error_code ReadId(od::value v, int64_t* out, std::string_view* text_out, PendingCounters* pc) {
  od::json_type t;
  if (auto e = v.type().get(t)) return e;
  std::string_view text;
  if (t == od::json_type::number) {
    text = v.raw_json_token();
    if (ParseScaledDecimal(text, 0, out) != DecimalResult::kOk) *text_out = TrimRight(text);
    return simdjson::SUCCESS;
  }
  if (t == od::json_type::string) {
    if (auto e = v.get_string().get(text)) return e;
    if (ParseScaledDecimal(text, 0, out) == DecimalResult::kOk) {
      pc->Add(Counter::number_as_string);
    } else {
      *text_out = text.empty() ? std::string_view("\"\"") : text;
    }
  }
  return simdjson::SUCCESS;
}

error_code ReadString(od::value v, std::string_view* out) {
  od::json_type t;
  if (auto e = v.type().get(t)) return e;
  if (t == od::json_type::string) return v.get_string().get(*out);
  if (t == od::json_type::number || t == od::json_type::boolean) {
    *out = v.raw_json_token();
    *out = TrimRight(*out);
  }
  return simdjson::SUCCESS;
}

// Raw JSON text of a value ("Input Dims": [[1, 2], []]), kept verbatim.
error_code ReadRaw(od::value v, std::string_view* out) {
  od::json_type t;
  if (auto e = v.type().get(t)) return e;
  // An array's or object's raw text runs to the next token: the whitespace
  // after it is no part of the value (a pretty-printed trace: '["float"]\n    '
  // became a string in the report's shapes instead of an array).
  if (t == od::json_type::array) {
    od::array a;
    if (auto e = v.get_array().get(a)) return e;
    if (auto e = a.raw_json().get(*out)) return e;
    *out = TrimRight(*out);
    return simdjson::SUCCESS;
  }
  if (t == od::json_type::object) {
    od::object o;
    if (auto e = v.get_object().get(o)) return e;
    if (auto e = o.raw_json().get(*out)) return e;
    *out = TrimRight(*out);
    return simdjson::SUCCESS;
  }
  *out = v.raw_json_token();
  *out = TrimRight(*out);
  return simdjson::SUCCESS;
}

// The args the deeper analyses use (kernel launch figures, allocator events,
// event-sync waits). Kept out of line and behind the other keys, so that the
// hot path of ReadArgs stays as it was: an unused key ("queued", "grid",
// "Sequence number") costs a call and a switch on its length.
// key == lit for the literal keys of events and args: a byte loop of known
// length, which the compiler unrolls. (string_view's operator== ends in an
// out-of-line compare() call per key once the reader grows past the
// inliner's budget: twice the instructions for the same parse.)
template <size_t N>
inline bool KeyIs(std::string_view k, const char (&lit)[N]) {
  if (k.size() != N - 1) return false;
  for (size_t i = 0; i + 1 < N; ++i) {
    if (k[i] != lit[i]) return false;
  }
  return true;
}

// Equality of the keys this reader adds, kept apart from string_view's
// operator== so that the hot path's comparisons stay inlined as before.
[[gnu::noinline]] bool Same(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size()) == 0;
}

[[gnu::noinline]] error_code ReadDepthArg(std::string_view key, od::value a, Event* ev) {
  switch (key.size()) {
    case 4:
      if (KeyIs(key, "Addr")) return ReadInt(a, &ev->addr, &ev->counters);
      break;
    case 5:
      if (KeyIs(key, "Bytes")) return ReadInt(a, &ev->mem_bytes, &ev->counters);
      break;
    case 9:
      if (KeyIs(key, "Device Id")) return ReadInt(a, &ev->device_id, &ev->counters);
      break;
    case 11:
      if (KeyIs(key, "Device Type")) return ReadInt(a, &ev->device_type, &ev->counters);
      break;
    case 12:
      if (KeyIs(key, "warps per SM")) return ReadDouble(a, &ev->warps_per_sm);
      break;
    case 13:
      if (KeyIs(key, "blocks per SM")) return ReadDouble(a, &ev->blocks_per_sm);
      break;
    case 14:
      if (KeyIs(key, "Total Reserved")) return ReadInt(a, &ev->total_reserved, &ev->counters);
      if (KeyIs(key, "wait_on_stream")) return ReadInt(a, &ev->wait_on_stream, &ev->counters);
      break;
    case 15:
      if (KeyIs(key, "Total Allocated")) return ReadInt(a, &ev->total_allocated, &ev->counters);
      break;
    case 25:
      if (KeyIs(key, "est. achieved occupancy %")) return ReadDouble(a, &ev->occupancy_pct);
      break;
    case 33:
      if (KeyIs(key, "wait_on_cuda_event_record_corr_id")) {
        return ReadInt(a, &ev->record_correlation, &ev->counters);
      }
      break;
    default: break;
  }
  return simdjson::SUCCESS;
}

error_code ReadArgs(od::value v, Event* ev) {
  od::json_type t;
  if (auto e = v.type().get(t)) return e;
  if (t != od::json_type::object) return simdjson::SUCCESS;
  od::object obj;
  if (auto e = v.get_object().get(obj)) return e;
  for (auto fr : obj) {
    od::field f;
    if (auto e = std::move(fr).get(f)) return e;
    std::string_view key;
    if (auto e = f.unescaped_key().get(key)) return e;
    od::value a = f.value();
    error_code e = simdjson::SUCCESS;
    if (KeyIs(key, "External id") || KeyIs(key, "external id")) {
      e = ReadInt(a, &ev->external_id, &ev->counters);
    } else if (KeyIs(key, "correlation")) {
      e = ReadInt(a, &ev->correlation, &ev->counters);
    } else if (KeyIs(key, "Input Dims")) {
      e = ReadRaw(a, &ev->input_dims);
    } else if (KeyIs(key, "Input type")) {
      e = ReadRaw(a, &ev->input_types);
    } else if (KeyIs(key, "Input Strides")) {
      e = ReadRaw(a, &ev->input_strides);
    } else if (KeyIs(key, "Concrete Inputs")) {
      e = ReadRaw(a, &ev->input_concrete);
    } else if (KeyIs(key, "device")) {
      e = ReadInt(a, &ev->device, &ev->counters);
    } else if (KeyIs(key, "stream")) {
      e = ReadInt(a, &ev->stream, &ev->counters);
    } else if (KeyIs(key, "bytes")) {
      e = ReadInt(a, &ev->bytes, &ev->counters);
    } else if (KeyIs(key, "Python id")) {
      e = ReadInt(a, &ev->python_id, &ev->counters);
    } else if (KeyIs(key, "Python parent id")) {
      e = ReadInt(a, &ev->python_parent_id, &ev->counters);
    } else if (KeyIs(key, "name")) {
      e = ReadString(a, &ev->arg_name);
    } else if (KeyIs(key, "labels")) {
      e = ReadString(a, &ev->labels);
    } else if (KeyIs(key, "Task Type")) {
      e = ReadString(a, &ev->task_type);
    } else if (KeyIs(key, "Stream Id")) {
      e = ReadInt(a, &ev->stream_id, &ev->counters);
    } else {
      e = ReadDepthArg(key, a, ev);
    }
    if (e) return e;
  }
  return simdjson::SUCCESS;
}

error_code ParseEvent(od::parser& parser, const char* p, size_t len, size_t capacity, Event* ev) {
  od::document doc;
  if (auto e = parser.iterate(p, len, capacity).get(doc)) return e;
  od::object obj;
  if (auto e = doc.get_object().get(obj)) return e;
  for (auto fr : obj) {
    od::field f;
    if (auto e = std::move(fr).get(f)) return e;
    std::string_view key;
    if (auto e = f.unescaped_key().get(key)) return e;
    od::value v = f.value();
    error_code e = simdjson::SUCCESS;
    if (KeyIs(key, "ph")) {
      ev->has_ph = true;
      e = ReadString(v, &ev->ph);
    } else if (KeyIs(key, "name")) {
      e = ReadString(v, &ev->name);
    } else if (KeyIs(key, "cat")) {
      ev->has_cat = true;
      e = ReadString(v, &ev->cat);
    } else if (KeyIs(key, "ts")) {
      e = ReadTime(v, &ev->ts_state, &ev->ts, &ev->counters, &ev->ts_string);
    } else if (KeyIs(key, "dur")) {
      e = ReadTime(v, &ev->dur_state, &ev->dur, &ev->counters);
    } else if (KeyIs(key, "pid")) {
      e = ReadId(v, &ev->pid, &ev->pid_text, &ev->counters);
    } else if (KeyIs(key, "tid")) {
      e = ReadId(v, &ev->tid, &ev->tid_text, &ev->counters);
    } else if (KeyIs(key, "args")) {
      e = ReadArgs(v, ev);
    } else if (KeyIs(key, "id")) {
      ev->has_id = true;
      e = ReadString(v, &ev->id);
    }
    if (e) return e;
  }
  return simdjson::SUCCESS;
}

bool Contains(std::string_view s, std::string_view part) {
  return s.find(part) != std::string_view::npos;
}

// Category text -> kind; *known is false for categories never seen in traces
// written by PyTorch / Kineto / torch_npu / HTA.
EventKind KindOfCategory(std::string_view c, bool* known) {
  *known = true;
  if (c == "cpu_op" || c == "Operator") return EventKind::kCpuOp;
  if (c == "kernel" || c == "Kernel" || c == "mtia_ccp_events") return EventKind::kKernel;
  if (c == "cuda_runtime" || c == "Runtime" || c == "mtia_runtime" ||
      c == "privateuse1_runtime" || c == "hip_runtime" || c == "hip runtime" ||
      c == "xpu_runtime" || c == "cuda_runtime_api") {
    return EventKind::kRuntime;
  }
  if (c == "cuda_driver" || c == "privateuse1_driver" || c == "hip_driver" ||
      c == "mtia_driver") {
    return EventKind::kDriver;
  }
  if (c == "user_annotation") return EventKind::kUserAnnotation;
  if (c == "python_function") return EventKind::kPythonFunction;
  if (c == "gpu_memcpy" || c == "Memcpy") return EventKind::kMemcpy;
  if (c == "gpu_memset" || c == "Memset") return EventKind::kMemset;
  if (c == "gpu_user_annotation") return EventKind::kGpuUserAnnotation;
  if (c == "cuda_sync") return EventKind::kDeviceSync;
  static const std::unordered_set<std::string_view> kKnownOther = {
      "Trace", "overhead", "cpu_instant_event", "ac2g", "async_gpu", "async_cpu_to_gpu",
      "fwdbwd", "cuda_profiler_range", "critical_path", "gpu_op", "Python", "Mark",
      "async_npu", "HostToDevice", "cpu_to_gpu", "Activity", "external_correlation",
      "python_function_sampled", "Memory", "cpu_memory", "gpu_memory", "collective",
      "nccl", "MTIA", "mtia_insight", "Stream", "Record", "user_annotation_gpu",
      "kineto_runtime", "Annotation", "instant_event", "Flow", "Async", "async", "cpu_to_cuda"};
  *known = kKnownOther.count(c) != 0;
  return EventKind::kOther;
}

bool IsFlowCategory(std::string_view c) {
  return c == "ac2g" || c == "async_gpu" || c == "async_cpu_to_gpu" || c == "fwdbwd" ||
         c == "async_npu" || c == "HostToDevice" || c == "async" || c == "cpu_to_cuda" || c.empty();
}

bool IsNpuProcessName(std::string_view n) {
  return Contains(n, "Ascend Hardware") || n == "CANN" || Contains(n, "HCCL") ||
         n == "Communication" || Contains(n, "Overlap Analysis") || Contains(n, "AscendCL") ||
         n == "NPU" || Contains(n, "Ascend");
}

// Trailing decimal number of a label ("stream 7" -> 7), or kNone.
int64_t TrailingNumber(std::string_view s) {
  size_t i = s.size();
  while (i > 0 && s[i - 1] >= '0' && s[i - 1] <= '9') --i;
  if (i == s.size() || s.size() - i > 15) return kNone;
  int64_t v;
  if (ParseScaledDecimal(s.substr(i), 0, &v) != DecimalResult::kOk) return kNone;
  return v;
}

struct PendingRow {
  int32_t row;
  StringId task_type;
  int64_t stream_id;
  bool device_set;
};

struct FlowEnd {
  uint64_t key;
  bool start;
  int64_t pid, tid, ts;
};

class Reader {
 public:
  Reader(PaddedBuffer* buf, const std::string& name, const LoadOptions& options, EventStore* store)
      : buf_(buf), name_(name), options_(options), store_(store) {
    begin_ = buf->data();
    end_ = begin_ + buf->size();
    limit_ = end_ + PaddedBuffer::kPadding;
  }

  Status Run();

 private:
  Status Error(StatusCode code, const char* at, const std::string& what) const {
    return Status(code, name_ + ": " + what + " at byte " + std::to_string(at - begin_) +
                            ", found " + (at < end_ ? Excerpt(at, end_) : std::string("end of file")));
  }
  Status ReadObjectTop(const char* p);
  // p is just after the '[' of the event list. Returns the byte after the
  // closing ']' or nullptr when the text ends inside the list.
  const char* ReadEvents(const char* p);
  // Parses the event at p (fast_end: the end the fast scan found within
  // window_end, or nullptr). *next: where scanning goes on; nullptr when the
  // text ends inside the event.
  void ApplyOne(const char* p, const char* window_end, const char* fast_end, const char** next);
  const char* Resync(const char* p);
  bool TryApply(const char* p, size_t len, size_t capacity, bool repaired_quotes,
                bool repaired_utf8);
  void Commit(Event& ev);
  void CommitSlice(Event& ev);
  void CommitMetadata(Event& ev);
  void CommitFlow(Event& ev, bool start);
  // Out of line: rare, and keeping them out keeps the hot path inlined.
  [[gnu::noinline]] void CommitInstant(const Event& ev);
  [[gnu::noinline]] void CommitLaunchFigures(const Event& ev, EventKind kind);
  int64_t MapTextId(std::string_view text, bool is_pid);
  EventKind KindOf(StringId cat_id, std::string_view cat);
  void ClassifyPending();
  void LinkFlows();
  void CountFlows();
  void ParseTopLevelValue(std::string_view key, const char* v, const char* v_end);
  void Progress(const char* p);

  PaddedBuffer* buf_;
  const std::string& name_;
  const LoadOptions& options_;
  EventStore* store_;
  const char* begin_;
  const char* end_;
  const char* limit_;
  od::parser parser_;
  std::string repair_;
  std::vector<int8_t> cat_kind_;  // by category StringId; -1: not yet seen
  std::vector<PendingRow> pending_;
  std::vector<uint64_t> flow_keys_;  // flow key with bit 0: 0 start, 1 end
  std::unordered_map<int64_t, int32_t> device_by_pid_;
  std::vector<FlowEnd> flow_ends_;
  bool keep_flow_ends_ = false;
  bool truncated_ = false;
  bool saw_string_ts_ = false;
  bool saw_npu_process_ = false;
  uint64_t objects_ = 0;  // event objects that parsed as JSON objects
  uint64_t next_progress_ = kProgressStep;
};

void Reader::Progress(const char* p) {
  const auto done = static_cast<uint64_t>(p - begin_);
  if (done < next_progress_) return;
  next_progress_ = done + kProgressStep;
  if (options_.progress) options_.progress(done, buf_->size());
  // Keep a margin: the event being repaired may start a little before p.
  if (done > (1u << 20)) buf_->ReleaseBefore(done - (1u << 20));
}

int64_t Reader::MapTextId(std::string_view text, bool is_pid) {
  store_->counters().Add(Counter::string_pid_tid);
  const int64_t id = kStringIdBase + store_->strings().Intern(text);
  auto& names = is_pid ? store_->process_names : store_->thread_names;
  if (names.find(id) == names.end()) names.emplace(id, std::string(text));
  return id;
}

EventKind Reader::KindOf(StringId cat_id, std::string_view cat) {
  if (cat_id >= cat_kind_.size()) cat_kind_.resize(cat_id + 64, -1);
  if (cat_kind_[cat_id] < 0) {
    bool known;
    EventKind k = KindOfCategory(cat, &known);
    if (!known) store_->counters().Add(Counter::unknown_category);
    cat_kind_[cat_id] = static_cast<int8_t>(k);
    return k;
  }
  return static_cast<EventKind>(cat_kind_[cat_id]);
}

void Reader::Commit(Event& ev) {
  ++objects_;
  if (ev.ts_string) saw_string_ts_ = true;
  for (int i = 0; i < ev.counters.n; ++i) store_->counters().Add(ev.counters.c[i]);
  if (!ev.pid_text.empty()) ev.pid = MapTextId(ev.pid_text, true);
  if (!ev.tid_text.empty()) {
    ev.tid = MapTextId(ev.tid_text, false);
  }
  if (!ev.has_ph) {
    store_->counters().Add(Counter::event_missing_ph);
    CommitSlice(ev);
    return;
  }
  const char ph = ev.ph.size() == 1 ? ev.ph[0] : '?';
  if (ev.cat == kAnnotationCategory) {
    // Written by `fastenough analyze --annotate`: not profiler data.
    store_->annotations.push_back({ph, std::string(ev.name), ev.ts_state == Num::kOk ? ev.ts : 0});
    return;
  }
  switch (ph) {
    case 'X': CommitSlice(ev); return;
    case 'M': CommitMetadata(ev); return;
    case 's': CommitFlow(ev, true); return;
    case 'f': CommitFlow(ev, false); return;
    case 'i': case 'I': CommitInstant(ev); return;
    case 't': case 'C': return;  // not used by the analyses
    default: store_->counters().Add(Counter::unknown_phase); return;
  }
}

void Reader::CommitSlice(Event& ev) {
  if (ev.ts_state != Num::kOk) {
    store_->counters().Add(Counter::event_missing_ts);
    return;
  }
  SliceRow r;
  r.ts_ns = ev.ts;
  if (ev.dur_state == Num::kOk || ev.dur_state == Num::kNotFinite ||
      ev.dur_state == Num::kOverflow) {
    // "dur": -5, 1e300, 18446744073709551615, "inf": not a time an event
    // took. Kept as zero they made device time vanish (a fabricated idle
    // device); the event is dropped and counted instead.
    int64_t end = 0;
    if (ev.dur_state != Num::kOk || ev.dur < 0 || ev.dur > kMaxDurationNs ||
        __builtin_add_overflow(ev.ts, ev.dur, &end)) {
      store_->counters().Add(Counter::duration_unusable);
      return;
    }
    r.dur_ns = ev.dur;
  } else {
    store_->counters().Add(Counter::duration_missing);
  }
  r.name = store_->strings().Intern(ev.name);
  r.pid = ev.pid;
  r.tid = ev.tid;
  r.correlation = ev.correlation;
  r.external_id = ev.external_id;
  r.bytes = ev.bytes == kNone ? -1 : ev.bytes;
  if (ev.bytes != kNone && (ev.bytes < 0 || ev.bytes > kMaxBytes)) {
    r.bytes = -1;  // a copy of unknown size
    store_->counters().Add(Counter::bytes_unusable);
  }
  if (!ev.input_dims.empty()) r.input_dims = store_->strings().Intern(ev.input_dims);
  if (!ev.input_types.empty()) r.input_types = store_->strings().Intern(ev.input_types);
  if (!ev.input_strides.empty()) r.input_strides = store_->strings().Intern(ev.input_strides);
  if (!ev.input_concrete.empty()) r.input_concrete = store_->strings().Intern(ev.input_concrete);
  r.python_id = ev.python_id;
  r.python_parent_id = ev.python_parent_id;
  const int64_t tid_stream = ev.tid_text.empty() ? ev.tid : TrailingNumber(ev.tid_text);
  if (ev.device != kNone) r.device = static_cast<int32_t>(ev.device);
  if (ev.stream != kNone) r.stream = ev.stream;
  if (ev.has_cat && !ev.cat.empty()) {
    r.category = store_->strings().Intern(ev.cat);
    r.kind = KindOf(r.category, ev.cat);
    const bool device_side = IsDeviceActivity(r.kind) || r.kind == EventKind::kDeviceSync ||
                             r.kind == EventKind::kGpuUserAnnotation;
    if (device_side) {
      // Kineto device events carry args.device / args.stream; the same
      // numbers are also the pid / tid of the row, which we fall back to.
      if (r.device < 0) r.device = (ev.pid >= 0 && ev.pid < INT32_MAX) ? static_cast<int32_t>(ev.pid) : 0;
      if (r.stream < 0) r.stream = tid_stream == kNone ? ev.tid : tid_stream;
    }
  }
  const bool pending = !(ev.has_cat && !ev.cat.empty());
  store_->AddSlice(r);
  if (r.kind == EventKind::kKernel || r.kind == EventKind::kDeviceSync) CommitLaunchFigures(ev, r.kind);
  if (pending) {
    StringId tt = ev.task_type.empty() ? kNoString : store_->strings().Intern(ev.task_type);
    int64_t sid = ev.stream_id != kNone ? ev.stream_id : (ev.stream != kNone ? ev.stream : tid_stream);
    pending_.push_back({static_cast<int32_t>(store_->size() - 1), tt, sid, ev.device != kNone});
  }
}

void Reader::CommitInstant(const Event& ev) {
  // Only the allocator's events are used:
  // {"ph": "i", "name": "[memory]", "ts": ..., "args": {"Device Type": 1, "Device Id": 0,
  //  "Addr": ..., "Bytes": -4096, "Total Allocated": ..., "Total Reserved": ...}}
  if (!Same(ev.name, "[memory]")) return;
  if (ev.ts_state != Num::kOk) {
    store_->counters().Add(Counter::event_missing_ts);
    return;
  }
  // One block of more than 256 TiB (or a total outside [0, 256 TiB]) is not
  // an allocation: fifty of "Bytes": 2^63-1 once summed to -50.
  const auto absurd = [](int64_t b) { return b != kNone && (b > kMaxBytes || b < -kMaxBytes); };
  const auto absurd_total = [](int64_t b) { return b != kNone && (b < 0 || b > kMaxBytes); };
  if (absurd(ev.mem_bytes) || absurd_total(ev.total_allocated) ||
      absurd_total(ev.total_reserved)) {
    store_->counters().Add(Counter::bytes_unusable);
    return;
  }
  MemoryEvent m;
  m.ts_ns = ev.ts;
  m.pid = ev.pid;
  m.tid = ev.tid;
  m.device_type = ev.device_type;
  m.device_id = ev.device_id;
  m.addr = ev.addr;
  m.bytes = ev.mem_bytes == kNone ? 0 : ev.mem_bytes;
  m.total_allocated = ev.total_allocated;
  m.total_reserved = ev.total_reserved;
  store_->memory_events.push_back(m);
}

void Reader::CommitLaunchFigures(const Event& ev, EventKind kind) {
  // The row just added: a kernel's launch figures, a cuda_sync's event wait.
  const auto row = static_cast<uint32_t>(store_->size() - 1);
  if (kind == EventKind::kKernel &&
      !(std::isnan(ev.blocks_per_sm) && std::isnan(ev.warps_per_sm) && std::isnan(ev.occupancy_pct))) {
    store_->kernel_args.push_back({row, ev.blocks_per_sm, ev.warps_per_sm, ev.occupancy_pct});
  }
  if (kind == EventKind::kDeviceSync && (ev.wait_on_stream != kNone || ev.record_correlation != kNone)) {
    store_->sync_waits.push_back({row, ev.wait_on_stream, ev.record_correlation});
  }
}

void Reader::CommitMetadata(Event& ev) {
  // {"name": "process_name", "ph": "M", "pid": 7, "tid": 0, "args": {"name": "python3"}}
  if (ev.name == "process_name") {
    store_->process_names[ev.pid] = std::string(ev.arg_name);
    if (IsNpuProcessName(ev.arg_name)) saw_npu_process_ = true;
  } else if (ev.name == "thread_name") {
    store_->thread_names[ev.tid] = std::string(ev.arg_name);
  } else if (ev.name == "process_labels") {
    // torch_npu: {"name": "process_labels", "ph": "M", "pid": 2000, "args": {"labels": "NPU 0"}}
    const int64_t n = TrailingNumber(ev.labels);
    if (n != kNone && (ev.labels.rfind("NPU", 0) == 0 || ev.labels.rfind("GPU", 0) == 0)) {
      device_by_pid_[ev.pid] = static_cast<int32_t>(n);
    }
  }
}

void Reader::CommitFlow(Event& ev, bool start) {
  // {"ph": "s", "id": 12, "pid": 1, "tid": 2, "ts": 1.5, "cat": "ac2g", "name": "ac2g"}
  if (!IsFlowCategory(ev.cat) || !ev.has_id) return;
  const uint64_t key = std::hash<std::string_view>()(ev.cat) * 1000003u ^
                       std::hash<std::string_view>()(TrimRight(ev.id));
  // Sorted once at the end: cheaper than a hash map per flow endpoint.
  flow_keys_.push_back((key & ~uint64_t{1}) | (start ? 0 : 1));
  // Only flows that stand for a launch link (torch_npu HostToDevice, legacy
  // cpu_to_cuda) are kept for LinkFlows; async_npu links an op to its ACL call.
  if (keep_flow_ends_ && ev.ts_state == Num::kOk &&
      (ev.cat == "HostToDevice" || ev.cat == "cpu_to_cuda")) {
    flow_ends_.push_back({key, start, ev.pid, ev.tid, ev.ts});
  }
}

bool Reader::TryApply(const char* p, size_t len, size_t capacity, bool repaired_quotes,
                      bool repaired_utf8) {
  Event ev;
  if (ParseEvent(parser_, p, len, capacity, &ev)) return false;
  if (repaired_quotes) store_->counters().Add(Counter::event_repaired);
  if (repaired_utf8) store_->counters().Add(Counter::invalid_utf8);
  Commit(ev);
  return true;
}

void Reader::ApplyOne(const char* p, const char* window_end, const char* fast_end,
                      const char** next) {
  if (fast_end != nullptr &&
      TryApply(p, static_cast<size_t>(fast_end - p), static_cast<size_t>(limit_ - p), false,
               false)) {
    *next = fast_end;
    return;
  }
  // simdjson rejected the extent (or the scan ran off the end): rescan it
  // leniently from the same start, repair a copy and try once more.
  RepairResult r = RepairObject(p, window_end, &repair_);
  if (r.end == nullptr) {
    if (fast_end == nullptr && window_end == end_) {  // really cut short
      *next = nullptr;
      return;
    }
    if (fast_end == nullptr) {
      // The per-event window ended first. A well-formed event that closes
      // later, followed by the list's ',' or ']', is one larger than the
      // limit: skipped whole and counted as such, not as damage.
      const char* whole = SkipValue(p, end_);
      const char* after = whole != nullptr ? SkipSpace(whole, end_) : nullptr;
      if (after != nullptr && after < end_ && (*after == ',' || *after == ']')) {
        store_->counters().Add(Counter::event_too_large);
        *next = whole;
        return;
      }
    }
    store_->counters().Add(Counter::event_malformed);
    *next = fast_end != nullptr ? fast_end : Resync(p + 1);
    return;
  }
  *next = r.end;
  if (r.quotes_fixed || r.utf8_fixed) {
    const size_t len = repair_.size();
    repair_.append(PaddedBuffer::kPadding, '\0');
    if (TryApply(repair_.data(), len, repair_.size(), r.quotes_fixed, r.utf8_fixed)) return;
  }
  store_->counters().Add(Counter::event_malformed);
}

const char* Reader::Resync(const char* p) {
  // The next event start: a '{' whose previous non-space byte is ','.
  for (; p < end_; ++p) {
    if (*p != '{') continue;
    const char* b = p - 1;
    while (b > begin_ && (*b == ' ' || *b == '\n' || *b == '\r' || *b == '\t')) --b;
    if (*b == ',') return p;
  }
  return end_;
}

const char* Reader::ReadEvents(const char* p) {
  while (true) {
    p = SkipSpace(p, end_);
    if (p >= end_) return nullptr;
    const char c = *p;
    if (c == ']') {
      store_->events_close_offset = p - begin_;
      return p + 1;
    }
    if (c == ',') {
      ++p;
      continue;
    }
    ++store_->event_count;
    if (c == '{') {
      // A damaged event (stray quote) can make the fast scan run on to the
      // end of the file; the window bounds that cost per damaged event.
      const char* window_end =
          static_cast<size_t>(end_ - p) > kMaxEventBytes ? p + kMaxEventBytes : end_;
      const char* fast_end = SkipValue(p, window_end);
      const char* next = nullptr;
      ApplyOne(p, window_end, fast_end, &next);
      if (next == nullptr) {
        --store_->event_count;  // the cut-off event is not an element
        return nullptr;
      }
      p = next;
      Progress(p);
      continue;
    }
    store_->counters().Add(Counter::event_not_object);
    const char* q = SkipValue(p, end_);
    if (q == nullptr) return nullptr;
    if (q == p) ++q;  // a stray } or similar: step over it
    p = q;
  }
}

void Reader::ParseTopLevelValue(std::string_view key, const char* v, const char* v_end) {
  const size_t len = static_cast<size_t>(v_end - v);
  const size_t cap = static_cast<size_t>(limit_ - v);
  if (key == "baseTimeNanoseconds") {
    int64_t x;
    std::string_view t(v, len);
    if (!t.empty() && t[0] == '"') t = t.substr(1, t.size() >= 2 ? t.size() - 2 : 0);
    if (ParseScaledDecimal(t, 0, &x) == DecimalResult::kOk) store_->base_time_ns = x;
    return;
  }
  if (key == "distributedInfo") {
    // "distributedInfo": {"backend": "nccl", "rank": 0, "world_size": 8, ...}
    od::document doc;
    od::object obj;
    if (parser_.iterate(v, len, cap).get(doc) || doc.get_object().get(obj)) return;
    bool world_size_known = false;
    // A rank outside the world it names: the world size is the figure that
    // cannot be right (it only sizes the job), so it is dropped.
    struct CheckWorld {
      EventStore* s;
      const bool* known;
      ~CheckWorld() {
        if (*known && s->rank_known && s->rank >= s->world_size) {
          s->world_size = 1;
          s->counters().Add(Counter::rank_unusable);
        }
      }
    } check_world{store_, &world_size_known};
    for (auto fr : obj) {
      od::field f;
      std::string_view k;
      if (std::move(fr).get(f) || f.unescaped_key().get(k)) return;
      PendingCounters pc;
      int64_t x = kNone;
      if (k == "rank") {
        // "rank": 3. Anything else ("0; rm -rf /", 2^62, -1, 1.5) is no
        // rank: taken as unknown and said, never as rank 0.
        if (ReadInt(f.value(), &x, &pc)) return;
        if (x != kNone && x >= 0 && x < INT32_MAX) {
          store_->rank = static_cast<int>(x);
          store_->rank_known = true;
        } else {
          store_->counters().Add(Counter::rank_unusable);
        }
      } else if (k == "world_size") {
        if (ReadInt(f.value(), &x, &pc)) return;
        if (x != kNone && x >= 1 && x <= INT32_MAX) {
          store_->world_size = static_cast<int>(x);
          world_size_known = true;
        } else {
          store_->counters().Add(Counter::rank_unusable);
        }
      } else if (k == "backend") {
        std::string_view s;
        if (ReadString(f.value(), &s)) return;
        store_->backend = std::string(s);
      }
    }
    return;
  }
  if (key == "deviceProperties") {
    // "deviceProperties": [{"id": 0, "name": "NVIDIA A100...", "totalGlobalMem": 8510..,
    //                       "computeMajor": 8, "computeMinor": 0, "numSms": 108, ...}]
    od::document doc;
    od::array arr;
    if (parser_.iterate(v, len, cap).get(doc) || doc.get_array().get(arr)) return;
    for (auto dr : arr) {
      od::object obj;
      if (dr.get_object().get(obj)) return;
      DeviceProperties d;
      for (auto fr : obj) {
        od::field f;
        std::string_view k;
        if (std::move(fr).get(f) || f.unescaped_key().get(k)) return;
        PendingCounters pc;
        int64_t x = kNone;
        error_code e = simdjson::SUCCESS;
        if (k == "name") {
          std::string_view s;
          e = ReadString(f.value(), &s);
          d.name = std::string(s);
        } else if (k == "id" || k == "totalGlobalMem" || k == "computeMajor" ||
                   k == "computeMinor" || k == "numSms" || Same(k, "maxThreadsPerMultiprocessor") ||
                   Same(k, "warpSize")) {
          e = ReadInt(f.value(), &x, &pc);
          if (x != kNone) {
            if (k == "id") d.id = x;
            if (k == "totalGlobalMem") d.total_memory_bytes = x;
            if (k == "computeMajor") d.compute_major = static_cast<int>(x);
            if (k == "computeMinor") d.compute_minor = static_cast<int>(x);
            if (k == "numSms") d.num_sms = static_cast<int>(x);
            if (Same(k, "maxThreadsPerMultiprocessor")) d.max_threads_per_sm = static_cast<int>(x);
            if (Same(k, "warpSize")) d.warp_size = static_cast<int>(x);
          }
        }
        if (e) return;
      }
      store_->device_properties.push_back(std::move(d));
    }
  }
}

Status Reader::ReadObjectTop(const char* p) {
  // {"schemaVersion": 1, "deviceProperties": [...], "distributedInfo": {...},
  //  "traceEvents": [ {...}, ... ], "traceName": "...", "displayTimeUnit": "ms"}
  bool found_events = false;
  bool closed = false;
  bool damaged_after = false;
  std::unordered_set<std::string_view> extra_keys;
  std::string key_list;
  ++p;  // '{'
  while (true) {
    p = SkipSpace(p, end_);
    if (p >= end_) break;
    if (*p == '}') {
      closed = true;
      break;
    }
    if (*p == ',') {
      ++p;
      continue;
    }
    if (*p != '"') {
      damaged_after = true;
      if (found_events) break;  // damage after the events: keep them
      return Error(StatusCode::kInvalidArgument, p, "not JSON: expected a key");
    }
    const char* key_end = SkipString(p, end_);
    if (key_end == nullptr) break;
    std::string_view key(p + 1, static_cast<size_t>(key_end - p - 2));
    const char* colon = SkipSpace(key_end, end_);
    if (colon >= end_) break;
    if (*colon != ':') {
      damaged_after = true;
      if (found_events) break;
      return Error(StatusCode::kInvalidArgument, colon, "not JSON: expected ':'");
    }
    const char* v = SkipSpace(colon + 1, end_);
    if (v >= end_) break;
    if (key == "traceEvents") {
      if (*v != '[') {
        return Error(StatusCode::kInvalidArgument, v,
                     "not a trace: \"traceEvents\" is not an array");
      }
      found_events = true;
      const char* after = ReadEvents(v + 1);
      if (after == nullptr) {
        truncated_ = true;
        break;
      }
      p = after;
      continue;
    }
    const char* v_end = SkipValue(v, end_);
    if (v_end == nullptr) break;
    if (v_end == v) {
      damaged_after = true;
      if (found_events) break;
      return Error(StatusCode::kInvalidArgument, v, "not JSON: expected a value");
    }
    if (key_list.size() < 60) key_list += (key_list.empty() ? "" : ", ") + std::string(key);
    if (key == "deviceProperties" || key == "distributedInfo" || key == "baseTimeNanoseconds") {
      ParseTopLevelValue(key, v, v_end);
    } else if (key != "displayTimeUnit" && key != "traceName" && key != "schemaVersion") {
      if (extra_keys.insert(key).second) store_->counters().Add(Counter::top_level_extra);
    }
    p = v_end;
  }
  if (!found_events) {
    if (closed) {
      return Error(StatusCode::kInvalidArgument, begin_,
                   "not a trace: the top-level object has no \"traceEvents\" (keys: " +
                       key_list + ")");
    }
    return Error(StatusCode::kDataLoss, end_,
                 "truncated: the file ends before the event list (\"traceEvents\")");
  }
  // Damage after the event list (a stray byte where a key should be) keeps
  // the events; only running out of text counts as truncation.
  if (!closed && !damaged_after) truncated_ = true;
  return Status::Ok();
}

void Reader::ClassifyPending() {
  // Events without "cat" (torch_npu, legacy arrays): the process they live in
  // says what they are; process_name metadata may come after them.
  auto& s = *store_;
  for (const PendingRow& pr : pending_) {
    const size_t i = static_cast<size_t>(pr.row);
    auto it = s.process_names.find(s.pid[i]);
    std::string_view proc = it == s.process_names.end() ? std::string_view() : it->second;
    EventKind k = EventKind::kOther;
    if (Contains(proc, "Ascend Hardware")) {
      std::string_view tt = s.strings().Get(pr.task_type);
      k = (Contains(tt, "MEMCPY") || Contains(tt, "memcpy")) ? EventKind::kMemcpy
                                                            : EventKind::kKernel;
    } else if (Contains(proc, "HCCL") || proc == "Communication") {
      k = EventKind::kKernel;
    } else if (proc == "CANN" || Contains(proc, "AscendCL")) {
      k = EventKind::kRuntime;
    } else if (proc == "Python" || proc == "CPU" || proc == "CPU functions") {
      k = EventKind::kCpuOp;
    } else if (proc == "CUDA functions") {
      k = EventKind::kKernel;
    }
    s.kind[i] = k;
    if (IsDeviceActivity(k)) {
      if (!pr.device_set) {
        const int64_t pid = s.pid[i];
        auto d = device_by_pid_.find(pid);
        s.device[i] = d != device_by_pid_.end()           ? d->second
                      : (pid >= 0 && pid < INT32_MAX) ? static_cast<int32_t>(pid)
                                                        : 0;
      }
      if (s.stream[i] < 0) s.stream[i] = pr.stream_id == kNone ? s.tid[i] : pr.stream_id;
    }
  }
}

void Reader::LinkFlows() {
  // torch_npu links a host call to its device task only by a flow:
  // {"ph":"s","cat":"async_npu","id":"...","pid":P,"tid":T,"ts":"<host ts>"} and
  // {"ph":"f","bp":"e",...,"ts":"<device ts>"}; the flow endpoints sit at the
  // start of the slices they bind. Give both slices one synthetic correlation.
  if (flow_ends_.empty()) return;
  auto& s = *store_;
  struct Key {
    int64_t pid, tid, ts;
    bool operator==(const Key& o) const { return pid == o.pid && tid == o.tid && ts == o.ts; }
  };
  struct KeyHash {
    size_t operator()(const Key& k) const {
      return std::hash<int64_t>()(k.ts) ^ (std::hash<int64_t>()(k.pid) * 31) ^
             (std::hash<int64_t>()(k.tid) * 1000003);
    }
  };
  std::unordered_map<Key, int32_t, KeyHash> at;
  at.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) at.emplace(Key{s.pid[i], s.tid[i], s.ts_ns[i]}, i);
  std::unordered_map<uint64_t, std::pair<int32_t, int32_t>> ends;  // key -> (start row, end row)
  for (const FlowEnd& f : flow_ends_) {
    auto it = at.find(Key{f.pid, f.tid, f.ts});
    if (it == at.end()) continue;
    auto& e = ends.try_emplace(f.key, kNoRow, kNoRow).first->second;
    (f.start ? e.first : e.second) = it->second;
  }
  int64_t next_id = int64_t{1} << 62;
  for (auto& [key, e] : ends) {
    if (e.first == kNoRow || e.second == kNoRow) continue;
    if (s.correlation[e.first] == kNone) s.correlation[e.first] = next_id;
    if (s.correlation[e.second] == kNone) s.correlation[e.second] = s.correlation[e.first];
    ++next_id;
  }
}

void Reader::CountFlows() {
  std::sort(flow_keys_.begin(), flow_keys_.end());
  auto& c = store_->counters();
  for (size_t i = 0; i < flow_keys_.size();) {
    const uint64_t flow = flow_keys_[i] >> 1;
    uint64_t starts = 0, ends = 0;
    for (; i < flow_keys_.size() && (flow_keys_[i] >> 1) == flow; ++i) {
      (flow_keys_[i] & 1 ? ends : starts) += 1;
    }
    if (starts > 1) c.Add(Counter::flow_duplicated, starts - 1);
    if (ends > 1) c.Add(Counter::flow_duplicated, ends - 1);
    if (starts == 0 || ends == 0) c.Add(Counter::flow_unmatched);
  }
}

Status Reader::Run() {
  store_->json_bytes = buf_->size();
  const char* p = SkipSpace(begin_, end_);
  if (p >= end_) {
    return Status(StatusCode::kInvalidArgument,
                  name_ + ": not a trace: the file is empty" +
                      (begin_ == end_ ? std::string() : std::string(" (only white space)")));
  }
  // Rows take ~120 bytes; an event takes ~250-400 bytes of text.
  const size_t estimate = buf_->size() / 300 + 16;
  auto& s = *store_;
  s.ts_ns.reserve(estimate);
  s.dur_ns.reserve(estimate);
  s.kind.reserve(estimate);
  s.name.reserve(estimate);
  s.category.reserve(estimate);
  s.pid.reserve(estimate);
  s.tid.reserve(estimate);
  s.device.reserve(estimate);
  s.stream.reserve(estimate);
  s.correlation.reserve(estimate);
  s.external_id.reserve(estimate);
  s.bytes.reserve(estimate);
  s.input_dims.reserve(estimate);
  s.input_types.reserve(estimate);
  s.input_strides.reserve(estimate);
  s.input_concrete.reserve(estimate);
  s.python_id.reserve(estimate);
  s.python_parent_id.reserve(estimate);

  if (*p == '{') {
    s.format = TraceFormat::kKineto;
    FE_RETURN_IF_ERROR(ReadObjectTop(p));
  } else if (*p == '[') {
    // [{"name": "aten::add", "ph": "X", "ts": "1698129183417650.140", "pid": 2, ...}, ...]
    keep_flow_ends_ = true;
    const char* after = ReadEvents(p + 1);
    if (after == nullptr) truncated_ = true;
    if (objects_ == 0 && s.event_count > 0) {
      return Error(StatusCode::kInvalidArgument, p,
                   "not a trace: the top-level array holds no event objects");
    }
    s.format = (saw_string_ts_ || saw_npu_process_) ? TraceFormat::kNpuTraceView
                                                    : TraceFormat::kLegacyArray;
  } else {
    return Error(StatusCode::kInvalidArgument, p, "not a trace: expected '{' or '['");
  }
  if (truncated_) s.counters().Add(Counter::file_truncated);
  ClassifyPending();
  LinkFlows();
  CountFlows();
  if (options_.progress) options_.progress(buf_->size(), buf_->size());
  return Status::Ok();
}

}  // namespace

Status ReadChromeTrace(PaddedBuffer* buffer, const std::string& name, const LoadOptions& options,
                       EventStore* store) {
  Reader reader(buffer, name, options, store);
  return reader.Run();
}

}  // namespace fastenough::trace
