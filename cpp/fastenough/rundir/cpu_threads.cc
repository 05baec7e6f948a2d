// cpu-oversubscribed: the processes of the run ask for more compute threads
// than the cores they may run on (sched_getaffinity), e.g. two torchrun ranks
// with torch's default of one thread per core on a 2-core machine: 4 threads
// on 2 cores, each step several times slower than with one thread each.
// Threads compete only when they run at once:
//  - when the process tree used less than 85% of the cores in the loop (the
//    sampler's CPU share), they mostly wait (dcgan's small convolutions: 0.6
//    to 0.7 of 2 cores) and fewer of them would change nothing;
//  - DataLoader workers count for the cores they were measured to use (the
//    sampler's per-process rows): the two workers of minGPT's char dataset
//    use a few percent of a core beside two torch threads that keep both
//    cores busy, and "one torch thread" would halve the step's compute for
//    nothing. Without per-process rows (older run directories) each worker
//    counts one thread, as torch sets one in workers.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "fastenough/findings/catalog.h"
#include "fastenough/rundir/run_findings.h"

namespace fastenough::rundir {

namespace {
constexpr double kBusyCoresShare = 0.85;  // of the cores, for threads to compete
// Cores' worth of demand beyond the cores before workers count as competing:
// half a core is a step at most a quarter slower on 2 cores, and no
// measurement noise of the sampler's 2 Hz ticks makes it up.
constexpr double kWorkerExcessCores = 0.5;
}  // namespace

void AddCpuThreadFindings(const std::vector<AgentRecord>& agents, const LoopCpu& loop_cpu,
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
  // Torch threads that alone fit the cores compete only with busy workers,
  // which only a measurement says: a loop the sampler never saw (dcgan's few
  // steady steps, shorter than its 2 Hz tick) is no finding.
  if (threads <= cores && !loop_cpu.tree_pct) return;
  // What the workers ask of the cores: what they used, when measured.
  double worker_cores = static_cast<double>(workers);
  if (loop_cpu.helpers_pct) worker_cores = std::min(worker_cores, *loop_cpu.helpers_pct / 100.0);
  const double demand = static_cast<double>(threads) + worker_cores;
  if (threads <= cores && demand < static_cast<double>(cores) + kWorkerExcessCores) return;
  const int64_t busy_workers = std::min<int64_t>(
      cores - 1, std::llround(worker_cores));
  const int64_t fit_threads = std::max<int64_t>(1, (cores - busy_workers) / processes);
  // The only advice is fewer torch threads: when each process already runs
  // no more than that (one thread beside busy DataLoader workers), there is
  // nothing to change.
  if (fit_threads >= per_process) return;
  const std::optional<double>& loop_cpu_pct = loop_cpu.tree_pct;
  if (loop_cpu_pct && *loop_cpu_pct < kBusyCoresShare * 100.0 * static_cast<double>(cores)) return;
  findings::Finding f =
      findings::NewFinding("cpu-oversubscribed", findings::Verdict::kAvoidable, -1);
  f.source = "agent";
  std::string workers_text;
  if (workers > 0) {
    workers_text = " + " + std::to_string(workers) + " DataLoader workers";
    if (loop_cpu.helpers_pct) {
      char used[64];
      std::snprintf(used, sizeof used, " (busy %.1f cores)", worker_cores);
      workers_text += used;
    }
  }
  char title[320];
  std::snprintf(title, sizeof title,
                "%lld process%s x %lld torch thread%s%s on %lld core%s: %lld threads compete "
                "for the cores",
                static_cast<long long>(processes), processes == 1 ? "" : "es",
                static_cast<long long>(per_process), per_process == 1 ? "" : "s",
                workers_text.c_str(), static_cast<long long>(cores), cores == 1 ? "" : "s",
                static_cast<long long>(threads + workers));
  f.title = title;
  f.evidence.emplace_back("cores", cores);
  f.evidence.emplace_back("processes", processes);
  f.evidence.emplace_back("torch_threads_per_process", per_process);
  f.evidence.emplace_back("dataloader_workers", workers);
  f.evidence.emplace_back("threads_total", threads + workers);
  if (loop_cpu_pct) f.evidence.emplace_back("loop_cpu_pct", *loop_cpu_pct);
  if (workers > 0 && loop_cpu.helpers_pct) {
    f.evidence.emplace_back("dataloader_workers_cpu_pct", *loop_cpu.helpers_pct);
  }
  const int64_t fit = fit_threads;
  f.evidence.emplace_back("suggested_threads_per_process", fit);
  f.action = "Set torch.set_num_threads(" + std::to_string(fit) + ") (or OMP_NUM_THREADS=" +
             std::to_string(fit) + ") in each process so that threads x processes does not "
             "exceed the " + std::to_string(cores) + " cores; compare the steady step time "
             "before and after.";
  out->push_back(std::move(f));
}

}  // namespace fastenough::rundir
