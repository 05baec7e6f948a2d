// The roofline of one rank's hot ops (issue 38 item 5): for each distinct
// (op name, Input Dims, Input type, Concrete Inputs) among the cpu ops with
// recorded shapes that launched device activity, its model (op_work.h), the
// device time of everything its calls launched (every kernel, memcpy and
// memset linked to the call: a split-K GEMM's reduction kernel too) and where
// that puts it against the device's roofs (roofline.h). The device is the one
// its kernels ran on, matched in the trace's deviceProperties (device_peaks.h);
// without them (or an unknown device) the peaks are absent and so are the
// percentages, the bound and the time at the roof.
//
// The `top_n` heaviest groups (by device time) with a model are the rows; the
// groups without one (or whose shapes contradict the op) met on the way, as
// hot as a row, are counted and named in `unmodelled`, never guessed. A trace without device activity (a
// CPU trace) gives no rows.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "fastenough/roofline/device_peaks.h"
#include "fastenough/trace/event_store.h"

namespace fastenough::roofline {

// The peak an op was held to. Absent figures: NaN (written null).
struct PeakUsed {
  std::string device;  // the peak table's name; "" no device matched
  std::string dtype;   // the column: "bf16", "tf32", "fp32_matrix", ...; "" none
  double flop_per_s = std::numeric_limits<double>::quiet_NaN();
  double bytes_per_s = std::numeric_limits<double>::quiet_NaN();
  std::string source;  // the vendor document, and how the device was matched
};

struct OpRoofline {
  std::string op;
  std::string input_dims;   // raw JSON text
  std::string input_types;  // raw JSON text
  std::string family;       // matmul, attention, ...
  int64_t calls = 0;        // calls with these arguments that launched device activity
  int64_t device_ns = 0;    // the summed duration of everything they launched
  double flops = 0;         // per call
  double bytes = 0;         // per call
  double arithmetic_intensity = 0;  // flops / bytes; NaN with no bytes
  double achieved_flop_per_s = 0;   // calls * flops / device time
  double achieved_bytes_per_s = 0;  // calls * bytes / device time
  double pct_of_compute_peak = std::numeric_limits<double>::quiet_NaN();
  double pct_of_memory_peak = std::numeric_limits<double>::quiet_NaN();
  std::string bound;  // "compute" | "memory"; "" without both peaks
  double time_at_roof_ns = std::numeric_limits<double>::quiet_NaN();  // all calls
  PeakUsed peak;
  std::vector<std::string> notes;
};

struct UnmodelledOps {
  int64_t count = 0;           // hot (op, shapes) groups without a model
  int64_t device_ns = 0;       // their device time
  std::vector<std::string> ops;  // their distinct names, hottest first
};

struct RankRoofline {
  int rank = 0;
  std::vector<OpRoofline> ops;  // by device time, heaviest first
  UnmodelledOps unmodelled;
};

// enclosing_op(launch row): the innermost cpu op enclosing a launch call on its
// thread (the analyses' call tree, analysis/call_tree.h); a device activity
// belongs to the op enclosing its launch (linked by correlation). Without it,
// or where it gives none, the External id link of the activity or of its
// launch (EventStore::cpu_op_row) is used; older traces give their kernels
// the correlation as External id, which links to no op.
using EnclosingOp = std::function<int32_t(int32_t launch_row)>;
RankRoofline ComputeRankRoofline(const trace::EventStore& store, size_t top_n,
                                 const PeakTable& peaks, const EnclosingOp& enclosing_op = {});
// With the built-in peak table.
RankRoofline ComputeRankRoofline(const trace::EventStore& store, size_t top_n,
                                 const EnclosingOp& enclosing_op = {});

}  // namespace fastenough::roofline
