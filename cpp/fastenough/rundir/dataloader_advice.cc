// The trace's dataloader-bound advises workers, pinned memory and prefetch,
// which is right for a loader that decodes files for a GPU. For a
// TensorDataset on a CPU-only job each item is one index into tensors already
// in memory: what costs is the per-item indexing and collation in Python, and
// workers or pinned memory do not help.
#include "fastenough/rundir/run_findings.h"

namespace fastenough::rundir {

void FitDataloaderAdvice(const std::vector<AgentRecord>& agents, bool has_device,
                         std::vector<findings::Finding>* findings) {
  const DataLoaderInfo* in_memory = nullptr;
  for (const AgentRecord& a : agents) {
    for (const DataLoaderInfo& d : a.dataloaders) {
      if (d.in_memory && in_memory == nullptr) in_memory = &d;
    }
  }
  if (in_memory == nullptr || has_device) return;
  for (findings::Finding& f : *findings) {
    if (f.code != "dataloader-bound") continue;
    f.evidence.emplace_back("dataset", in_memory->dataset);
    f.evidence.emplace_back("num_workers", in_memory->num_workers);
    f.action =
        "The data is an in-memory " + in_memory->dataset + " and there is no device: workers "
        "and pin_memory do not help. Index the tensors a batch at a time (a BatchSampler as "
        "the DataLoader's sampler with batch_size=None, or slice the tensors directly) or "
        "raise the batch size, so that the per-item Python indexing and collation go away.";
  }
}

}  // namespace fastenough::rundir
