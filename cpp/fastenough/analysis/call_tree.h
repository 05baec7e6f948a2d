// CallTree: the nesting of host-side slices (cpu ops, python_function
// frames, user annotations, runtime calls) per thread, built once so that
// every detector can ask "which op / which Python line was this runtime
// call made from" in O(depth) without searching.
//
// Kineto writes host slices of one thread as properly nested ranges:
//   python_function "eval.py(57): forward"
//     cpu_op "aten::item"
//       cpu_op "aten::_local_scalar_dense"
//         cuda_runtime "cudaMemcpyAsync" / "cudaStreamSynchronize"
// A slice's parent is the innermost slice on the same (pid, tid) that
// encloses it; a child that sticks out of its parent by clock jitter still
// nests if it starts inside.
#pragma once

#include <cstdint>
#include <vector>

#include "fastenough/trace/event_store.h"

namespace fastenough::analysis {

inline bool IsHostSlice(trace::EventKind k) {
  return k == trace::EventKind::kCpuOp || k == trace::EventKind::kUserAnnotation ||
         k == trace::EventKind::kPythonFunction || k == trace::EventKind::kRuntime ||
         k == trace::EventKind::kDriver;
}

struct CallTree {
  // parent[row]: enclosing host slice of the same thread, or trace::kNoRow.
  // Device rows keep kNoRow.
  std::vector<int32_t> parent;
  // Host rows ordered by (pid, tid, start, longer first): a pre-order walk.
  std::vector<uint32_t> host_order;
  // True for cpu ops that (directly or through children) launched device work.
  std::vector<uint8_t> launches_device;

  // Innermost enclosing slice (row itself excluded) of `kind`; kNoRow if none.
  int32_t Enclosing(const trace::EventStore& store, int32_t row, trace::EventKind kind) const;
};

CallTree BuildCallTree(const trace::EventStore& store);

}  // namespace fastenough::analysis
