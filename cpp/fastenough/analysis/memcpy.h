// Host-device copies. Kineto names the device-side copy after its direction
// and the host memory kind:
//   gpu_memcpy "Memcpy HtoD (Pageable -> Device)"  args: {"bytes": 4194304, ...}
//   gpu_memcpy "Memcpy DtoH (Device -> Pinned)"
//   gpu_memcpy "Memcpy DtoD (Device -> Device)"
// A pageable copy is staged by the driver through a pinned bounce buffer and
// cannot overlap compute; pinned + non_blocking copies can.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "fastenough/timeline/interval_set.h"
#include "fastenough/trace/event_store.h"

namespace fastenough::analysis {

enum class CopyDirection : uint8_t { kHtoD, kDtoH, kDtoD, kHtoH, kOther };
const char* CopyDirectionName(CopyDirection d);

CopyDirection ParseCopyDirection(std::string_view name);
bool IsPageableCopy(std::string_view name);

struct CopyRow {
  uint32_t row = 0;
  CopyDirection direction = CopyDirection::kOther;
  bool pageable = false;
  int64_t bytes = 0;  // 0 when the trace has no size
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  int64_t overlap_compute_ns = 0;  // part of the copy during which compute kernels ran
};

// Every memcpy of the trace, time order. compute: union of compute kernels.
std::vector<CopyRow> FindCopies(const trace::EventStore& store,
                                const timeline::IntervalSet& compute);

// Per name id: 1 for communication kernels, 0 for other kernels, -1 for
// names of no kernel.
std::vector<int8_t> CommunicationByName(const trace::EventStore& store);

// Union of compute (non-communication) kernels of every device.
timeline::IntervalSet ComputeUnion(const trace::EventStore& store);

}  // namespace fastenough::analysis
