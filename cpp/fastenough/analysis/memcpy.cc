#include "fastenough/analysis/memcpy.h"

#include <algorithm>

#include "fastenough/analysis/device_breakdown.h"

namespace fastenough::analysis {

const char* CopyDirectionName(CopyDirection d) {
  switch (d) {
    case CopyDirection::kHtoD: return "HtoD";
    case CopyDirection::kDtoH: return "DtoH";
    case CopyDirection::kDtoD: return "DtoD";
    case CopyDirection::kHtoH: return "HtoH";
    case CopyDirection::kOther: return "other";
  }
  return "other";
}

CopyDirection ParseCopyDirection(std::string_view n) {
  if (n.find("HtoD") != std::string_view::npos) return CopyDirection::kHtoD;
  if (n.find("DtoH") != std::string_view::npos) return CopyDirection::kDtoH;
  if (n.find("DtoD") != std::string_view::npos) return CopyDirection::kDtoD;
  if (n.find("HtoH") != std::string_view::npos) return CopyDirection::kHtoH;
  return CopyDirection::kOther;
}

bool IsPageableCopy(std::string_view n) { return n.find("Pageable") != std::string_view::npos; }

std::vector<int8_t> CommunicationByName(const trace::EventStore& store) {
  // A kernel name has one category in practice, so one decision per name id
  // (the case-insensitive name test is too slow to repeat per kernel).
  std::vector<int8_t> comm(store.strings().size(), -1);
  for (size_t i = 0; i < store.size(); ++i) {
    if (store.kind[i] != trace::EventKind::kKernel) continue;
    int8_t& c = comm[store.name[i]];
    if (c < 0) c = IsCommunicationKernel(store, i) ? 1 : 0;
  }
  return comm;
}

timeline::IntervalSet ComputeUnion(const trace::EventStore& store) {
  const std::vector<int8_t> comm = CommunicationByName(store);
  std::vector<timeline::Interval> iv;
  for (size_t i = 0; i < store.size(); ++i) {
    if (store.kind[i] != trace::EventKind::kKernel) continue;
    if (comm[store.name[i]] == 1) continue;
    iv.push_back({store.ts_ns[i], store.end_ns(i)});
  }
  return timeline::IntervalSet::FromUnsorted(std::move(iv));
}

std::vector<CopyRow> FindCopies(const trace::EventStore& store,
                                const timeline::IntervalSet& compute) {
  std::vector<CopyRow> out;
  for (size_t i = 0; i < store.size(); ++i) {
    if (store.kind[i] != trace::EventKind::kMemcpy) continue;
    CopyRow c;
    c.row = static_cast<uint32_t>(i);
    const std::string_view n = store.name_of(i);
    c.direction = ParseCopyDirection(n);
    c.pageable = IsPageableCopy(n);
    c.bytes = std::max<int64_t>(store.bytes[i], 0);
    c.start_ns = store.ts_ns[i];
    c.end_ns = store.end_ns(i);
    c.overlap_compute_ns = compute.LengthWithin(c.start_ns, c.end_ns);
    out.push_back(c);
  }
  std::sort(out.begin(), out.end(),
            [](const CopyRow& a, const CopyRow& b) { return a.start_ns < b.start_ns; });
  return out;
}

}  // namespace fastenough::analysis
