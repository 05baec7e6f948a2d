// Everything fastenough computes about one rank (one trace file): the input
// of the finding detectors and of the report serializer.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "fastenough/analysis/device_breakdown.h"
#include "fastenough/analysis/launch_stats.h"
#include "fastenough/analysis/steps.h"
#include "fastenough/analysis/top_kernels.h"
#include "fastenough/analysis/top_ops.h"
#include "fastenough/timeline/interval_set.h"
#include "fastenough/trace/event_store.h"

namespace fastenough::analysis {

struct RankOptions {
  BreakdownOptions breakdown;
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
};

RankAnalysis AnalyzeRank(const trace::EventStore& store, const RankOptions& options = {});

}  // namespace fastenough::analysis
