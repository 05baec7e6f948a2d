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
#include <memory>
#include <optional>
#include <string>
#include <string_view>
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

// One (op, Input Dims, Input type) that two or more ranks ran, with a bound:
// the rank that ran it furthest below its binding roof (the lowest % of the
// roof its bound names), and the one that ran it closest. A rank with two rows
// of the key (Concrete Inputs apart) counts its lower one.
struct OpWorstRank {
  std::string op;
  std::string input_dims;   // raw JSON text
  std::string input_types;  // raw JSON text
  int64_t ranks = 0;        // ranks with a row of it that has a bound
  int64_t device_ns = 0;    // its device time summed over those ranks
  int worst_rank = 0;
  double worst_pct_of_roof = std::numeric_limits<double>::quiet_NaN();
  std::string worst_bound;  // "compute" | "memory": the roof the worst rank's row sits under
  int best_rank = 0;
  double best_pct_of_roof = std::numeric_limits<double>::quiet_NaN();
};
// The worst rank of each op that two or more ranks ran, heaviest (summed
// device time) first, at most top_n; ties go to the lower rank, then to the
// earlier input.
// The % of the roof that binds the row (its `bound` side's). NaN without a
// bound, and NaN above 100%: such a row did more than the device can (its note
// says why), so no verdict or comparison stands on it.
double PctOfBindingRoof(const OpRoofline& row);

std::vector<OpWorstRank> WorstRankPerOp(const std::vector<RankRoofline>& ranks, size_t top_n);

// enclosing_op(launch row): the innermost cpu op enclosing a launch call on its
// thread (the analyses' call tree, analysis/call_tree.h); a device activity
// belongs to the op enclosing its launch (linked by correlation). Without it,
// or where it gives none, the External id link of the activity or of its
// launch (EventStore::cpu_op_row) is used; older traces give their kernels
// the correlation as External id, which links to no op.
using EnclosingOp = std::function<int32_t(int32_t launch_row)>;

// What the command line says of the peaks (analyze --device NAME, --peaks
// FILE.json). A rank's device is the one its trace's deviceProperties
// describe; --device names it where the trace has no deviceProperties for it,
// or names one the table does not know (a note says so). --peaks overrides
// entries of the table (or adds devices, which --device may then name).
struct PeakSettings {
  std::shared_ptr<const PeakTable> table;  // null: the built-in table
  std::optional<DeviceMatch> device;       // --device, looked up in `table`
  std::string device_name;                 // as given
};
// The settings of --device (empty: none) and the --peaks file's text (empty:
// none). InvalidArgument with the reason: a malformed peaks file (nothing of
// it applied), or a device name the table does not know (with the closest
// names it has).
StatusOr<PeakSettings> MakePeakSettings(std::string_view device, std::string_view peaks_json);
RankRoofline ComputeRankRoofline(const trace::EventStore& store, size_t top_n,
                                 const PeakSettings& settings, const EnclosingOp& enclosing_op = {});
RankRoofline ComputeRankRoofline(const trace::EventStore& store, size_t top_n,
                                 const PeakTable& peaks, const EnclosingOp& enclosing_op = {});
// With the built-in peak table.
RankRoofline ComputeRankRoofline(const trace::EventStore& store, size_t top_n,
                                 const EnclosingOp& enclosing_op = {});

}  // namespace fastenough::roofline
