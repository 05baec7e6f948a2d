// Everything fastenough computes about one rank (one trace file): the input
// of the finding detectors and of the report serializer.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "fastenough/analysis/critical_path.h"
#include "fastenough/analysis/device_breakdown.h"
#include "fastenough/analysis/device_turns.h"
#include "fastenough/analysis/graph_launches.h"
#include "fastenough/analysis/kernel_efficiency.h"
#include "fastenough/analysis/launch_stats.h"
#include "fastenough/analysis/memory_timeline.h"
#include "fastenough/analysis/step_breakdown.h"
#include "fastenough/analysis/steps.h"
#include "fastenough/analysis/top_kernels.h"
#include "fastenough/analysis/top_ops.h"
#include "fastenough/timeline/interval_set.h"
#include "fastenough/trace/event_store.h"

namespace fastenough::analysis {

struct RankOptions {
  BreakdownOptions breakdown;
  // The deeper analyses (per-step breakdown, kernel efficiency, memory,
  // critical path, graphs); off only to measure what they cost.
  bool depth = true;
  // Run the analyses that read only the store on a second thread (same
  // result; the pipeline asks for it when it has cores to spare).
  bool parallel = false;
};

struct RankAnalysis {
  int rank = 0;
  std::string path;
  std::vector<DeviceBreakdown> devices;  // by device index, with per-stream gaps
  timeline::IntervalSet busy_all;        // union of device activity, all devices
  StepStats steps;                       // ProfilerStep windows, steady range
  LaunchStats launch;
  std::vector<KernelRow> kernels;  // every kernel name, heaviest first
  std::vector<OpRow> ops;          // every cpu op name, heaviest (inclusive) first
  // The deeper analyses (docs/trace-depth.md); empty when RankOptions::depth is off.
  std::vector<timeline::StepWindow> steady;  // SteadyWindows(): what they measure over
  StepBreakdown step_breakdown;
  KernelEfficiency efficiency;
  std::vector<MemoryTimeline> memory;
  CriticalPath critical_path;
  GraphStats graphs;
  CompiledRegions compiled;
  DeviceTurns device_turns;  // several devices of this process: who worked when
};

RankAnalysis AnalyzeRank(const trace::EventStore& store, const RankOptions& options = {});

}  // namespace fastenough::analysis
