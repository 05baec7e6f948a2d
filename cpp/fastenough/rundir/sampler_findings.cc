#include "fastenough/rundir/sampler_findings.h"

#include <cstdio>
#include <map>
#include <string>

#include "fastenough/rundir/run_report.h"
#include "fastenough/util/units.h"

namespace fastenough::rundir {

void AddSamplerFindings(const MetaFacts& meta, const std::vector<PhaseRow>& phases,
                        const RunReportOptions& options, std::vector<findings::Finding>* out) {
  // device-shared: one finding per device that had processes of others.
  std::map<std::pair<std::string, int>, std::vector<const MetaFacts::Other*>> by_device;
  for (const auto& o : meta.others) by_device[{o.source, o.device}].push_back(&o);
  for (const auto& [key, procs] : by_device) {
    findings::Finding f;
    f.code = "device-shared";
    f.verdict = findings::Verdict::kInsufficientEvidence;
    f.source = "sampler";
    f.title = "Device " + std::to_string(key.second) + " (" + key.first + ") was shared with " +
              std::to_string(procs.size()) + " other process(es) during the run";
    f.evidence.emplace_back("device", static_cast<int64_t>(key.second));
    f.evidence.emplace_back("other_process_count", static_cast<int64_t>(procs.size()));
    int64_t mem = 0;
    std::string pids;
    for (const auto* p : procs) {
      if (p->max_used_bytes > 0) mem += p->max_used_bytes;
      if (!pids.empty()) pids += ",";
      pids += std::to_string(p->pid);
    }
    f.evidence.emplace_back("other_pids", pids);
    if (mem > 0) f.evidence.emplace_back("other_memory_bytes", mem);
    f.action =
        "Other jobs on the same device take compute and memory, so these timings may be slow "
        "and noisy; rerun on an idle device (or set CUDA_VISIBLE_DEVICES to a free one) before "
        "trusting small differences.";
    out->push_back(std::move(f));
  }

  // Memory near the limit / far below it, from the steady phase (or, without
  // one, the whole run) of each rank.
  std::map<int, const PhaseRow*> chosen;
  for (const PhaseRow& p : phases) {
    if (!p.mem_used_max || !p.mem_total || *p.mem_total <= 0) continue;
    auto it = chosen.find(p.rank);
    if (it == chosen.end() || (p.name == "steady" && it->second->name != "steady") ||
        (p.name == it->second->name && *p.mem_used_max > *it->second->mem_used_max)) {
      chosen[p.rank] = &p;
    }
  }
  for (const auto& [rank, p] : chosen) {
    double share = static_cast<double>(*p->mem_used_max) / static_cast<double>(*p->mem_total);
    findings::Finding f;
    f.source = "sampler";
    f.rank = rank;
    f.evidence.emplace_back("phase", p->name);
    f.evidence.emplace_back("mem_used_max_bytes", *p->mem_used_max);
    f.evidence.emplace_back("mem_total_bytes", *p->mem_total);
    f.evidence.emplace_back("used_share", share);
    const std::string used = util::FormatBytes(static_cast<double>(*p->mem_used_max));
    const std::string total = util::FormatBytes(static_cast<double>(*p->mem_total));
    if (share >= options.near_limit_share) {
      f.code = "memory-near-limit";
      f.verdict = findings::Verdict::kBounded;
      f.title = "Device memory " + used + " of " + total + " used in phase '" + p->name + "'";
      f.action =
          "Memory is nearly full: a larger batch or model will not fit, and allocator retries "
          "can slow steps; check the allocator's reserved peak before raising the batch.";
    } else if (share < options.headroom_share && p->name == "steady") {
      f.code = "memory-headroom";
      f.verdict = findings::Verdict::kInsufficientEvidence;
      f.title = "Only " + used + " of " + total + " device memory used in the steady loop";
      f.action =
          "A larger batch may raise throughput: sweep the batch size with "
          "fastenough.sweep_batch and keep the knee of items/s (device memory as seen by the "
          "driver, all processes included).";
    } else {
      continue;
    }
    out->push_back(std::move(f));
  }
}

}  // namespace fastenough::rundir
