// Why a hot op runs far below its roof: the causes its recorded shapes and
// the device can show (issue 38 item 3; docs/findings.md, the below-roof
// codes). Each is computed from one roofline row (roofline/rank_roofline.h:
// the op, its Input Dims / Input type, the peak it was held to) and the
// device's SM count (deviceProperties numSms), never from a FLOP ratio:
//
//   fp32-in-mixed-precision  a matrix op (matmul, attention, convolution) held
//                            to an FP32 / TF32 peak while at least half of the
//                            other matrix rows' device time runs BF16 / FP16 /
//                            FP8 (kMixedShare)
//   gemm-dims-unaligned      a GEMM whose K or N (the contiguous dims of its
//                            operands and output) is not a multiple of what
//                            the tensor cores need for the dtype it ran in:
//                            8 for BF16 / FP16, 16 for FP8 / INT8, 4 for TF32
//                            (plain FP32 on the vector units needs none)
//   attention-short-sequence attention whose query and key lengths are both
//                            at most kShortSequence (256: two 128-row tiles),
//                            where a flash kernel's fixed cost per (batch,
//                            head) block dominates the little work it has
//   gemm-memory-bound-shape  a GEMM whose arithmetic intensity is below the
//                            device's ridge (bound "memory") and whose smaller
//                            output dim (M or N) is at most one tile
//                            (kTile = 128): a tall-skinny product, GEMV-like
//   gemm-wave-quantization   a GEMM whose output tiles (kTile x kTile assumed,
//                            the common BF16 / FP16 tile of cuBLAS / CUTLASS
//                            on A100 / H100 and of hipBLASLt on CDNA) fill the
//                            SMs' waves to under kWaveEfficiency (75%):
//                            tiles = batch * ceil(M / 128) * ceil(N / 128),
//                            waves = ceil(tiles / SMs),
//                            wave efficiency = tiles / (waves * SMs)
//                            and the op's % of its roof lies between
//                            kWaveExplains (40%) and 100% of the ceiling the
//                            waves set (100 * wave efficiency): above it the
//                            kernel does not use that tile, far under it
//                            something else costs more than the waves
// An op gets at most one cause, the first that applies in the order above (so
// that no two findings claim the op's time twice).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "fastenough/findings/finding.h"
#include "fastenough/roofline/op_call.h"
#include "fastenough/roofline/rank_roofline.h"

namespace fastenough::findings {

// Which rows the roofline verdicts weigh (docs/findings.md, ops-near-roof and
// the below-roof codes):
//   hot        its device time is at least kRoofHotShare of the rank's device
//              activity (kernels, copies, memsets) over the whole trace
//   near roof  at least kNearRoofPct % of the roof that binds it (the bound
//              side's percentage: time at the roof / device time)
//   far below  under kFarBelowRoofPct % of that roof
// A rank is device-bound when its devices are busy at least kDeviceBoundBusy
// of the steady steps (the share step-bound calls "device compute").
constexpr double kRoofHotShare = 0.05;
constexpr double kNearRoofPct = 70.0;
constexpr double kFarBelowRoofPct = 50.0;
constexpr double kDeviceBoundBusy = 0.85;
// Below-roof findings weigh ops whose calls take at least this much device
// time each (the small-kernels detector's 10 us): under it a kernel's fixed
// cost (launch, ramp-up) is of the order of its time, and small-kernels
// speaks for it.
constexpr int64_t kMinBelowRoofCallNs = 10'000;
// ops-near-roof: the hot near-roof ops hold at least this share of the rank's
// device time.
constexpr double kNearRoofDeviceShare = 0.5;

constexpr int kTile = 128;
constexpr double kWaveEfficiency = 0.75;
constexpr double kWaveExplains = 0.4;
constexpr int64_t kShortSequence = 256;
constexpr double kMixedShare = 0.5;

// M, N, K of a GEMM-class call (mm, addmm, bmm, baddbmm, matmul, linear,
// _scaled_mm, _grouped_mm of 3-d operands), batch the product of its batch
// dims; nullopt for any other op or shapes that do not fit.
struct GemmShape {
  double batch = 1;
  int64_t m = 0, n = 0, k = 0;
};
std::optional<GemmShape> GemmShapeOf(const roofline::OpCall& c);

// Query / key lengths and head dim of an attention call (the SDPA family,
// forward and backward); nullopt for any other op.
struct AttentionShape {
  double batch_heads = 0;
  int64_t query_len = 0, key_len = 0, head_dim = 0;
};
std::optional<AttentionShape> AttentionShapeOf(const roofline::OpCall& c);

struct WaveFill {
  int64_t tiles = 0;
  int64_t waves = 0;
  double last_wave_fill = 0;  // tiles of the last wave / SMs
  double efficiency = 0;      // tiles / (waves * SMs)
};
// nullopt when sms <= 0 or the GEMM is empty.
std::optional<WaveFill> WaveFillOf(const GemmShape& g, int sms);

// The multiple of K and N the tensor cores need for the column the op was
// held to ("bf16", "fp16" -> 8; "fp8" or an int8 input -> 16; "tf32" -> 4);
// 0 when none applies (FP32 / FP64 on the vector units).
int TensorCoreMultiple(const std::string& peak_dtype, roofline::Dtype recorded);

struct BelowRoofCause {
  std::string code;
  Verdict verdict = Verdict::kInsufficientEvidence;
  std::string why;  // one sentence with the figures
  std::vector<std::pair<std::string, EvidenceValue>> evidence;
};

// The cause a row far below its roof can show, or nullopt (no cause, or a row
// without a roof: no peaks, no model). low_precision_share: of the rank's
// other matrix rows' device time, the share held to a BF16 / FP16 / FP8 peak
// (NaN: none). sms: the device's SM / CU count (0 unknown: no wave cause).
std::optional<BelowRoofCause> BelowRoofCauseOf(const roofline::OpRoofline& row, int sms,
                                               double low_precision_share);

// The summed duration of every device activity (kernel, memcpy, memset) of
// the store.
int64_t DeviceActivityNs(const trace::EventStore& s);

}  // namespace fastenough::findings
