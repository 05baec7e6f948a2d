#include "fastenough/analysis/collectives.h"

#include <algorithm>
#include <string_view>

#include "fastenough/analysis/memcpy.h"

namespace fastenough::analysis {

RankCollectives CollectCollectives(const trace::EventStore& store) {
  RankCollectives out;
  out.rank = store.rank;
  const std::vector<int8_t> is_comm = CommunicationByName(store);
  for (size_t i = 0; i < store.size(); ++i) {
    if (store.kind[i] != trace::EventKind::kKernel || is_comm[store.name[i]] != 1) continue;
    out.by_name[std::string(store.name_of(i))].push_back({store.ts_ns[i], store.dur_ns[i]});
  }
  if (out.by_name.empty()) {
    // A CPU (gloo) job: the host ranges of its collectives. "gloo:" only, not
    // "c10d::allreduce_": that dispatcher op nests in itself (two per call),
    // and "record_param_comms" wraps every backend alike.
    for (size_t i = 0; i < store.size(); ++i) {
      if (store.kind[i] != trace::EventKind::kUserAnnotation) continue;
      const std::string_view name = store.name_of(i);
      if (name.rfind("gloo:", 0) != 0) continue;
      out.by_name[std::string(name)].push_back({store.ts_ns[i], store.dur_ns[i]});
    }
  }
  for (auto& [name, calls] : out.by_name) std::sort(calls.begin(), calls.end());
  return out;
}

}  // namespace fastenough::analysis
