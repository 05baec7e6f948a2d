// The throughput knee of a batch sweep (fastenough.sweep_batch).
//
// Given the throughputs measured at increasing batch sizes (index order is
// size order), the knee is the smallest index whose throughput is at least
// (1 - within) times the best: past it, a bigger batch buys less than
// `within` more throughput and costs memory and latency.
// Edge cases:
//   no values, or every value NaN / non-positive: -1 (no knee).
//   one usable value: its index.
//   NaN or non-positive entries (a size that failed) are never the knee.
//   within < 0 is treated as 0 (only the best qualifies); within >= 1 makes
//   the first usable size the knee.
#pragma once

#include <cstdint>
#include <vector>

namespace fastenough::stats {

int64_t KneeIndex(const std::vector<double>& throughputs, double within = 0.05);

}  // namespace fastenough::stats
