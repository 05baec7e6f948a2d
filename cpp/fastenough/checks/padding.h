// Padding arithmetic over the real batches of a run: how many positions were
// computed, how many were padding, and how many a length-aware batching would
// compute. Input per batch: the padded width and each row's real length, as
// read from an attention mask of shape [batch, width] (1 = real token).
//
// What bucketing saves is bounded, not estimated: with a step's time
//   c + a * positions + b * (sum over rows of width^2),   a, b, c >= 0
// (the per-position work such as the linear layers; attention's scores and
// softmax, which grow with the square of the padded width; everything else),
// bucketing saves (a dP + b dQ) / (c + a P + b Q) of a step, which is at most
// max(dP / P, dQ / Q) whatever a, b and c are (a weighted mean of the two
// shares, the weights a P and b Q, over a denominator c can only enlarge).
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
  // Sum over rows of the row's padded width squared: what attention's
  // width x width scores grow with, as run and as bucketed.
  int64_t width_squares = 0;
  int64_t bucketed_width_squares = 0;
  double padded_share = 0;           // 1 - real_tokens / positions
  double bucketed_saving_share = 0;  // 1 - bucketed_positions / positions
  double bucketed_square_saving_share = 0;  // 1 - bucketed_width_squares / width_squares
  // The most bucketing can save of a step under the model above: the larger of
  // the two shares (never below 0: a fix that removes nothing saves nothing).
  double saving_bound_share = 0;
};

// Rows longer than their batch width are clamped to it (a mask cannot hold more).
PaddingSummary SummarisePadding(const std::vector<PaddedBatch>& batches);

}  // namespace fastenough::checks
