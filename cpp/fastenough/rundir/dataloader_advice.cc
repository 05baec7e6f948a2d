// The trace's dataloader-bound advises workers, pinned memory and prefetch,
// which is right for a loader that decodes files for a GPU. For a
// TensorDataset on a CPU-only job each item is one index into tensors already
// in memory: what costs is the per-item indexing and collation in Python, and
// workers or pinned memory do not help.
#include <algorithm>

#include "fastenough/rundir/run_findings.h"

namespace fastenough::rundir {

namespace {

// A CPU run whose DataLoader already has workers: more of them help only when
// a core is free for them. dcgan's FakeData on 2 cores had 2 workers beside 2
// torch threads, and "use num_workers>0" was advice already taken (issue 22):
// the workers and the loop share the cores, so the wait is bounded by them.
void FitWorkerAdvice(const std::vector<AgentRecord>& agents,
                     std::vector<findings::Finding>* findings) {
  int64_t workers = 0, threads = 0, cores = 0;
  for (const AgentRecord& a : agents) {
    if (!a.in_the_loop()) continue;
    for (const DataLoaderInfo& d : a.dataloaders) workers = std::max(workers, d.num_workers);
    if (a.torch_threads) threads += *a.torch_threads;
    if (a.cores) cores = cores == 0 ? *a.cores : std::min(cores, *a.cores);
  }
  if (workers == 0 || cores == 0) return;
  for (findings::Finding& f : *findings) {
    if (f.code != "dataloader-bound") continue;
    f.evidence.emplace_back("num_workers", workers);
    f.evidence.emplace_back("torch_threads", threads);
    f.evidence.emplace_back("cores", cores);
    const std::string w = std::to_string(workers), c = std::to_string(cores),
                      t = std::to_string(threads);
    if (workers + threads >= cores) {
      f.verdict = findings::Verdict::kBounded;
      f.title = "Steps wait for the next batch: the " + w + " DataLoader workers and " + t +
                " torch threads share " + c + " cores";
      f.action = "The workers already run beside the loop and no core is free for more: the "
                 "wait is the cost of making each batch on these cores. Make items cheaper "
                 "(decode and transform once, cache the result), or run where more cores "
                 "are free.";
    } else {
      f.action = "Raise num_workers (now " + w + "; " + c + " cores, " + t +
                 " torch threads) and keep persistent_workers=True, or make items cheaper "
                 "(decode and transform once, cache the result).";
    }
  }
}

}  // namespace

void FitDataloaderAdvice(const std::vector<AgentRecord>& agents, bool has_device,
                         std::vector<findings::Finding>* findings) {
  const DataLoaderInfo* in_memory = nullptr;
  for (const AgentRecord& a : agents) {
    for (const DataLoaderInfo& d : a.dataloaders) {
      if (d.in_memory && in_memory == nullptr) in_memory = &d;
    }
  }
  if (!has_device && in_memory == nullptr) FitWorkerAdvice(agents, findings);
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
