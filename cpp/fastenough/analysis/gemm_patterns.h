// Runs of matmul calls that a grouped/batched GEMM or a fused projection
// could replace. A "matmul call" is a top-level aten::linear / matmul / mm /
// addmm / bmm (not one nested in another matmul op). Calls are siblings when
// they share the same scope: the nearest enclosing cpu op, user annotation or
// user Python frame (library frames such as torch/nn/modules/linear.py are
// skipped, so the 8 iterations of
//   for e in experts: y += e(x)        # moe.py(31): forward
// are siblings under "moe.py(31): forward"). A run is a maximal sequence of
// sibling calls in time order whose first input has the same "Input Dims":
//   args: {"Input Dims": [[64, 512], [2048, 512], [2048]], "Input type": ["float", ...]}
// with no matmul of another key between two of them anywhere on the thread
// (an LSTM cell's gates between per-timestep Linear calls end the run).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "fastenough/analysis/call_tree.h"
#include "fastenough/timeline/interval_set.h"
#include "fastenough/trace/event_store.h"

namespace fastenough::analysis {

bool IsMatmulOp(std::string_view name);
// The first element of an "Input Dims" JSON text: "[[8, 16], [4, 16]]" -> "[8, 16]".
std::string_view FirstInputDims(std::string_view dims_json);

// Multiply-adds x 2 of one matmul call from its op name and Input Dims, or -1
// when the shapes do not say (a size the host load cannot change):
//   aten::linear [[..., K], [N, K], ...]   2 * prod(...) * K * N
//   aten::mm / aten::matmul [[M, K], [K, N]]   2 * M * K * N
//   aten::addmm [[N], [M, K], [K, N]]     2 * M * K * N
//   aten::bmm [[B, M, K], [B, K, N]]      2 * B * M * K * N
int64_t MatmulFlops(std::string_view op, std::string_view dims_json);

struct GemmRun {
  int32_t scope = -1;             // the enclosing scope row (kNoRow: thread top level)
  std::vector<uint32_t> calls;    // the matmul op rows, time order
  bool identical_dims = true;     // every call has the same full Input Dims
  bool same_op_name = true;
  bool host_timed = false;        // CPU program: "kernels" are the calls themselves
  int64_t kernel_count = 0;       // kernels launched by the calls
  int64_t kernel_ns = 0;          // their summed duration
  int64_t min_kernel_ns = 0;      // the shortest per-call kernel time
  int64_t max_kernel_ns = 0;      // the longest per-call kernel time
  int64_t max_flops = -1;         // the largest call's FLOPs (MatmulFlops); -1 unknown
  int64_t gap_ns = 0;             // device idle between the first and last kernel
  std::string kernel_name;        // of the first call's first kernel
  int64_t start_ns = 0;           // first kernel start (host start when none)
  int64_t end_ns = 0;
  // Saving bound if grouped into one call: the idle gaps plus (n-1)/n of the
  // per-call floor (n calls x the shortest call's kernel time). On a CPU
  // program (host_timed) the time between the calls is the program's other
  // host work (an LSTM cell's recurrence between time_sequence_prediction's
  // Linear calls), which no grouping removes: only the calls count.
  int64_t saving_bound_ns() const {
    const int64_t n = static_cast<int64_t>(calls.size());
    return (host_timed ? 0 : gap_ns) + (n > 0 ? (n - 1) * min_kernel_ns : 0);
  }
};

// Runs of length >= min_len, in time order. busy: union of device activity;
// when it is empty (a CPU-only program) the calls are timed by their host
// durations instead of their kernels (GemmRun::host_timed).
// What makes consecutive sibling calls one run: the same first input (the
// shape of projections of one input: q/k/v, gate/up) or the same Input Dims
// for every input (a loop over experts/heads with same-shaped weights).
enum class RunKey : uint8_t { kFirstInput, kAllInputs };

std::vector<GemmRun> FindGemmRuns(const trace::EventStore& store, const CallTree& tree,
                                  const timeline::IntervalSet& busy, size_t min_len = 2,
                                  RunKey key = RunKey::kFirstInput);

}  // namespace fastenough::analysis
