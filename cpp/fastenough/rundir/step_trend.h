// Whether a run of steady steps trends: a loop whose step time drifts (a
// program, or a tool inside it, that slows down as it runs) is not one steady
// state, however narrow its spread at any moment. The "steady" phase is the
// agent's (the first steps settled), so the report asks again, afterwards,
// of all the steady steps in order (issue 37, item 7: functorch's
// Lennard-Jones fit drifted from 0.34 to 1.35 s a step and read "Measurement
// complete ... the loop reached steady steps" with a median of 344 ms).
//
// Three tests must all say so, each robust to the spikes of a loaded machine:
//   * the median of the last third of the steps is kDriftRatio times that of
//     the first third or more, and at least kDriftMinRiseNs above it;
//   * Spearman's rank correlation with their index of the medians of
//     consecutive blocks of steps (kTrendBlocks blocks: a one-step spike
//     moves no block's median) is at least kDriftRho: a trend through the
//     whole run, not one jump or a handful of slow steps.
// Only a slow-down: a steady loop that speeds up is warm-up ending late
// (caches, the allocator, lazy initialisation), and the programs of this
// project's own tests do that by the dozen in sub-millisecond steps (43 of
// 214 steady phases of one test session); their figures are not the
// program being slowed. The thresholds were set on 214 steady phases of run
// directories left by the test suite, the corpus and the Lennard-Jones runs
// (9 of 214 trip: every Lennard-Jones run that slowed under the agent,
// 2.8x-7.2x at rho 0.78-0.97; two evaluations that end in a generation whose
// prefix grows; a DQN whose training starts mid-run; a REINFORCE rollout. A
// load-driven wobble of 1.5x-2.7x at rho 0.56-0.67 does not). Fewer than
// kMinTrendSteps steps: no verdict.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace fastenough::rundir {

inline constexpr int64_t kMinTrendSteps = 30;
inline constexpr double kDriftRatio = 2.0;
inline constexpr double kDriftRho = 0.7;
inline constexpr int64_t kDriftMinRiseNs = 1'000'000;
inline constexpr size_t kTrendBlocks = 30;

struct StepTrend {
  int64_t steps = 0;
  int64_t head_median_ns = 0;  // the first third's median
  int64_t tail_median_ns = 0;  // the last third's
  double rho = 0;              // Spearman's, of the block medians with their index
  bool drifts = false;
};

// Durations in the order the steps ran.
StepTrend AssessTrend(const std::vector<int64_t>& durations);

// Spearman's rank correlation of values with their index (ties get their mean
// rank); 0 when fewer than 3 values or all equal.
double SpearmanWithIndex(const std::vector<int64_t>& values);

}  // namespace fastenough::rundir
