// One side of a trace diff: CPU ops and device activity of one or more trace
// files, aggregated by (kind, name, input shapes).
//
// CPU ops are counted at every nesting level with their inclusive time, so an
// aten::mm under aten::matmul has a row of its own (a diff then shows the
// inner op that vanished, not only its caller); a parent's time therefore
// overlaps its children's and the rows of one kind do not add up to a wall
// time. Device rows are kernels, memcpys and memsets, keyed by name only
// (device events carry no input shapes).
//
// Two aggregates are kept: over the whole trace, and over the steady
// ProfilerStep windows only (the first step of three or more is left out, as
// in analysis/steps.cc). Device activity belongs to the step in which its
// launching runtime call started (the kernel itself may run later).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "fastenough/roofline/rank_roofline.h"
#include "fastenough/trace/event_store.h"
#include "fastenough/util/status.h"

namespace fastenough::diff {

enum class RowKind : uint8_t { kCpuOp, kKernel, kMemcpy, kMemset };
const char* RowKindName(RowKind k);

struct OpKey {
  RowKind kind = RowKind::kCpuOp;
  std::string name;
  std::string input_dims;  // raw JSON text of "Input Dims"; empty when absent
  auto operator<=>(const OpKey&) const = default;
};

struct OpTotals {
  int64_t calls = 0;
  int64_t total_ns = 0;
};

using OpTable = std::map<OpKey, OpTotals>;

// One (op, Input Dims, Input type) of a side's roofline rows
// (roofline/rank_roofline.h), summed over its files (ranks).
struct RooflineKey {
  std::string op;
  std::string input_dims;   // raw JSON text, as the rows have it
  std::string input_types;  // raw JSON text
  auto operator<=>(const RooflineKey&) const = default;
};
struct RooflineTotals {
  int64_t calls = 0;
  int64_t device_ns = 0;
  // Summed time at the roof; NaN when a file had no peaks for it.
  double time_at_roof_ns = 0;
  std::string bound;   // the first file's row's: "compute" | "memory" | ""
  std::string device;  // the peak table's device; "" none
  std::string dtype;   // the compute peak's column; "" none
  // time_at_roof_ns / device_ns: the % of its binding roof the op ran at
  // (for one row, its pct_of_compute_peak or pct_of_memory_peak, as its bound
  // says); NaN when unknown.
  double pct_of_roof() const;
};
using RooflineTable = std::map<RooflineKey, RooflineTotals>;
// How many roofline rows each file contributes (the heaviest by device time).
constexpr size_t kDiffRooflineRows = 50;

struct SideAggregate {
  std::vector<std::string> paths;
  OpTable whole;   // every event of the trace(s)
  OpTable steady;  // events inside steady step windows
  int64_t steady_steps = 0;  // summed over the files
  // True when every file had at least one ProfilerStep window.
  bool all_files_have_steps = false;
  // The hot ops' roofline rows over the whole trace(s): every call, whatever the basis.
  RooflineTable roofline;
};

// Adds one loaded trace to `side`; its roofline rows held to `peaks`
// (diff --device / --peaks; default: the built-in table).
void AddTrace(const trace::EventStore& store, SideAggregate& side,
              const roofline::PeakSettings& peaks = {});

// Loads each file (LoadTrace) and aggregates them; the first unreadable file
// is the error.
StatusOr<SideAggregate> AggregateTraceFiles(const std::vector<std::string>& paths,
                                            const roofline::PeakSettings& peaks = {});

}  // namespace fastenough::diff
