// Padding arithmetic over the real batches of a run: how many positions were
// computed, how many were padding, and how many a length-aware batching would
// compute. Input per batch: the padded width and each row's real length, as
// read from an attention mask of shape [batch, width] (1 = real token).
#pragma once

#include <cstdint>
#include <vector>

namespace fastenough::checks {

struct PaddedBatch {
  int64_t width = 0;             // positions per row as run (mask.shape[1])
  std::vector<int64_t> lengths;  // real tokens per row (mask.sum(1))
};

struct PaddingSummary {
  int64_t batches = 0;
  int64_t rows = 0;
  int64_t positions = 0;           // sum of rows * width: what was computed
  int64_t real_tokens = 0;         // sum of lengths
  int64_t dynamic_positions = 0;   // same batches, each padded to its own longest row
  int64_t bucketed_positions = 0;  // rows sorted by length, same batch sizes, dynamic padding
  double padded_share = 0;         // 1 - real_tokens / positions
  double bucketed_saving_share = 0;  // 1 - bucketed_positions / positions
};

// Rows longer than their batch width are clamped to it (a mask cannot hold more).
PaddingSummary SummarisePadding(const std::vector<PaddedBatch>& batches);

}  // namespace fastenough::checks
