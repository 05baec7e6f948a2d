// cpu-oversubscribed: the processes of the run ask for more compute threads
// than the cores they may run on (sched_getaffinity), e.g. two torchrun ranks
// with torch's default of one thread per core on a 2-core machine: 4 threads
// on 2 cores, each step several times slower than with one thread each.
// DataLoader workers count one thread each (torch sets one in workers).
// Threads compete only when the cores are busy: when the process tree used
// less than 85% of the cores in the loop (the sampler's CPU share), the threads
// mostly wait (idle DataLoader workers of minGPT's char dataset, dcgan's small
// convolutions: 0.6 to 0.7 of 2 cores) and fewer of them would change nothing.
#include <algorithm>
#include <cstdio>

#include "fastenough/findings/catalog.h"
#include "fastenough/rundir/run_findings.h"

namespace fastenough::rundir {

namespace {
constexpr double kBusyCoresShare = 0.85;  // of the cores, for threads to compete
}  // namespace

void AddCpuThreadFindings(const std::vector<AgentRecord>& agents,
                          std::optional<double> loop_cpu_pct,
                          std::vector<findings::Finding>* out) {
  int64_t processes = 0, threads = 0, workers = 0, cores = 0, per_process = 0;
  for (const AgentRecord& a : agents) {
    if (!a.in_the_loop() || !a.torch || !a.torch_threads || !a.cores) continue;
    ++processes;
    threads += *a.torch_threads;
    per_process = std::max(per_process, *a.torch_threads);
    cores = cores == 0 ? *a.cores : std::min(cores, *a.cores);
    int64_t w = 0;
    for (const DataLoaderInfo& d : a.dataloaders) w = std::max(w, d.num_workers);
    workers += w;
  }
  if (processes == 0 || threads + workers <= cores) return;
  const int64_t fit_threads = std::max<int64_t>(1, (cores - std::min(cores - 1, workers)) / processes);
  // The only advice is fewer torch threads: when each process already runs
  // no more than that (one thread beside idle DataLoader workers), there is
  // nothing to change.
  if (fit_threads >= per_process) return;
  if (loop_cpu_pct && *loop_cpu_pct < kBusyCoresShare * 100.0 * static_cast<double>(cores)) return;
  findings::Finding f =
      findings::NewFinding("cpu-oversubscribed", findings::Verdict::kAvoidable, -1);
  f.source = "agent";
  char title[256];
  std::snprintf(title, sizeof title,
                "%lld process%s x %lld torch thread%s%s on %lld core%s: %lld threads compete "
                "for the cores",
                static_cast<long long>(processes), processes == 1 ? "" : "es",
                static_cast<long long>(per_process), per_process == 1 ? "" : "s",
                workers > 0 ? (" + " + std::to_string(workers) + " DataLoader workers").c_str() : "",
                static_cast<long long>(cores), cores == 1 ? "" : "s",
                static_cast<long long>(threads + workers));
  f.title = title;
  f.evidence.emplace_back("cores", cores);
  f.evidence.emplace_back("processes", processes);
  f.evidence.emplace_back("torch_threads_per_process", per_process);
  f.evidence.emplace_back("dataloader_workers", workers);
  f.evidence.emplace_back("threads_total", threads + workers);
  if (loop_cpu_pct) f.evidence.emplace_back("loop_cpu_pct", *loop_cpu_pct);
  const int64_t fit = fit_threads;
  f.evidence.emplace_back("suggested_threads_per_process", fit);
  f.action = "Set torch.set_num_threads(" + std::to_string(fit) + ") (or OMP_NUM_THREADS=" +
             std::to_string(fit) + ") in each process so that threads x processes does not "
             "exceed the " + std::to_string(cores) + " cores; compare the steady step time "
             "before and after.";
  out->push_back(std::move(f));
}

}  // namespace fastenough::rundir
