// The declared fields (field.h) of a turns split (analysis/device_turns.h):
// device_turns.per_rank[] and a rank summary's device_turns (the devices of
// one rank: TurnsOfRank), device_turns.job (the ranks of a job: TurnsOfJob).
// The report lists the devices row_bound.h keeps (two at least, the schema's
// minimum) and sums the others in `omitted`.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "fastenough/analysis/device_turns.h"
#include "fastenough/report/fields/field.h"
#include "fastenough/report/fields/json_fields.h"
#include "fastenough/report/json_object_reader.h"
#include "fastenough/report/json_writer.h"
#include "fastenough/report/row_bound.h"

namespace fastenough::report::fields {

struct TurnsOfRank {};
struct TurnsOfJob {};

// The devices (or ranks) a turns split does not list, summed: its `omitted`.
struct TurnsOmitted {
  int64_t count = 0;
  int64_t busy_ns = 0;
};

template <class V>
void Fields(V& v, Of<TurnsOmitted>) {
  using T = TurnsOmitted;
  v.Field("count", &T::count, Unit::kCount, "how many are not listed", Attr{.least = "1"});
  v.Field("busy_ns", &T::busy_ns, Unit::kNs, "their busy time in the windows, summed",
          Attr{.least = "0"});
}

// Whether t's i-th device is listed: all of them without rows, or when fewer
// than two are kept.
inline std::vector<bool> ListedTurns(const analysis::DeviceTurns& t, const RankRows* rows) {
  size_t kept = 0;
  for (int32_t id : t.devices) kept += rows == nullptr || rows->KeepsDevice(id) ? 1 : 0;
  std::vector<bool> listed(t.devices.size(), true);
  if (kept < 2 || rows == nullptr) return listed;
  for (size_t i = 0; i < t.devices.size(); ++i) listed[i] = rows->KeepsDevice(t.devices[i]);
  return listed;
}

// who: "devices" or "ranks"; count: "windows" or "steps".
template <class V>
void TurnsFields(V& v, std::string_view who, std::string_view count) {
  using T = analysis::DeviceTurns;
  const auto listed_busy = [](const T& t, const WriteContext& ctx) {
    const std::vector<bool> listed = ListedTurns(t, ctx.rows);
    std::vector<int64_t> kept, left;
    for (size_t i = 0; i < t.busy_ns.size(); ++i) {
      (i >= listed.size() || listed[i] ? kept : left).push_back(t.busy_ns[i]);
    }
    return std::make_pair(kept, left);
  };
  v.Custom(
      who, "array of integers", Unit::kId, "those with work in the windows (at least two)",
      [](JsonWriter& w, const T& t, const WriteContext& ctx) {
        const std::vector<bool> listed = ListedTurns(t, ctx.rows);
        w.BeginArray();
        for (size_t i = 0; i < t.devices.size(); ++i) {
          if (listed[i]) w.Int(t.devices[i]);
        }
        w.EndArray();
      },
      [who](ObjectReader& o, T& t) {
        for (simdjson::dom::element e : o.Array(who)) {
          std::optional<int64_t> d = ElementInt(e);
          if (!d) return o.Fail(who, "expected integers");
          t.devices.push_back(static_cast<int32_t>(*d));
        }
      },
      Attr{.least_items = "2"});
  v.Custom(
      "busy_ns", "array of integers", Unit::kNs, "each one's busy time in the windows, same order",
      [listed_busy](JsonWriter& w, const T& t, const WriteContext& ctx) {
        w.BeginArray();
        for (int64_t b : listed_busy(t, ctx).first) w.Int(b);
        w.EndArray();
      },
      [](ObjectReader& o, T& t) {
        for (simdjson::dom::element e : o.Array("busy_ns")) {
          std::optional<int64_t> b = ElementInt(e);
          if (!b) return o.Fail("busy_ns", "expected integers");
          t.busy_ns.push_back(*b);
        }
        if (t.busy_ns.size() != t.devices.size()) o.Fail("busy_ns", "one per device expected");
      },
      Attr{.least = "0", .least_items = "2"});
  v.CustomIf(
      "omitted", "object", Unit::kNone,
      "a rank of more than 256 devices lists those the report lists (devices_omitted); the "
      "others, summed (only when some are left out)",
      [listed_busy](const T& t, const WriteContext& ctx) { return !listed_busy(t, ctx).second.empty(); },
      [listed_busy](JsonWriter& w, const T& t, const WriteContext& ctx) {
        const std::vector<int64_t> left = listed_busy(t, ctx).second;
        TurnsOmitted omitted{static_cast<int64_t>(left.size()), 0};
        for (int64_t b : left) omitted.busy_ns += b;
        WriteObject(w, omitted);
      },
      [](ObjectReader&, T&) {});  // a summary lists every device
  v.Field(count, &T::windows, Unit::kCount, "steady windows measured over");
  v.Field("window_ns", &T::window_ns, Unit::kNs, "their total length");
  v.Field("all_busy_ns", &T::all_busy_ns, Unit::kNs, "every one worked");
  v.Field("taking_turns_ns", &T::some_busy_ns, Unit::kNs, "some worked, some waited: they took turns");
  v.Field("all_idle_ns", &T::all_idle_ns, Unit::kNs, "none worked");
  v.Derived("overlap_bound_ns", [](const T& t) { return t.overlap_bound_ns(); }, Unit::kNs,
            "the most overlapping their work could save");
}

template <class V>
void Fields(V& v, Of<analysis::DeviceTurns, TurnsOfRank>) {
  v.Rank("the rank of the devices");
  TurnsFields(v, "devices", "windows");
}

template <class V>
void Fields(V& v, Of<analysis::DeviceTurns, TurnsOfJob>) {
  TurnsFields(v, "ranks", "steps");
}

}  // namespace fastenough::report::fields
