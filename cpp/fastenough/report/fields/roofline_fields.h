// The declared fields (field.h) of a rank's roofline (roofline/rank_roofline.h,
// docs/roofline.md): per hot (op, shapes), its work from the shapes, the device
// time of what it launched, and where that sits against the device's roofs.
// The report writes them under roofline.per_rank[], a rank summary under
// roofline.
#pragma once

#include "fastenough/report/fields/field.h"
#include "fastenough/roofline/rank_roofline.h"

namespace fastenough::report::fields {

template <class V>
void Fields(V& v, Of<roofline::PeakUsed>) {
  v.Name("roofline_peak");
  using T = roofline::PeakUsed;
  v.Field("device", &T::device, Unit::kNone,
          "the peak table's device (docs/roofline.md); null: no device matched", kNullIfEmpty);
  v.Field("dtype", &T::dtype, Unit::kNone,
          "the peak's column (bf16, fp16, fp8, tf32, fp32, fp32_matrix, fp64, fp64_matrix); "
          "null: none published",
          OneOf("bf16|fp16|fp8|tf32|fp32|fp32_matrix|fp64|fp64_matrix", Null::kEmpty));
  v.Field("flop_per_s", &T::flop_per_s, Unit::kPerSecond, "the compute roof; null unknown");
  v.Field("bytes_per_s", &T::bytes_per_s, Unit::kPerSecond, "the memory roof; null unknown");
  v.Field("source", &T::source, Unit::kNone,
          "the vendor document, and how the trace's device was matched; null none",
          kNullIfEmpty);
}

template <class V>
void Fields(V& v, Of<roofline::OpRoofline>) {
  v.Name("roofline_op");
  using T = roofline::OpRoofline;
  v.Field("op", &T::op, Unit::kNone, "the op's name");
  v.Field("input_dims", &T::input_dims, Unit::kNone, "\"Input Dims\" as JSON text");
  v.Field("input_types", &T::input_types, Unit::kNone, "\"Input type\" as JSON text; null absent",
          kNullIfEmpty);
  v.Field("family", &T::family, Unit::kNone, "the model's op family",
          OneOf("matmul|attention|convolution|elementwise|reduction|normalization|softmax|"
                "embedding"));
  v.Field("calls", &T::calls, Unit::kCount,
          "calls with these arguments that launched device activity", Attr{.least = "1"});
  v.Field("device_ns", &T::device_ns, Unit::kNs,
          "the summed duration of every kernel, memcpy and memset they launched");
  v.Field("flops", &T::flops, Unit::kCount, "floating-point operations of one call (2 per multiply-add)");
  v.Field("bytes", &T::bytes, Unit::kBytes,
          "the minimum bytes one call moves (inputs read once, outputs written once)");
  v.Field("arithmetic_intensity", &T::arithmetic_intensity, Unit::kNone,
          "flops / bytes (FLOPs per byte); null with no bytes");
  v.Field("achieved_flop_per_s", &T::achieved_flop_per_s, Unit::kPerSecond,
          "calls * flops / device time; null with no device time");
  v.Field("achieved_bytes_per_s", &T::achieved_bytes_per_s, Unit::kPerSecond,
          "calls * bytes / device time; null with no device time");
  v.Field("pct_of_compute_peak", &T::pct_of_compute_peak, Unit::kPercent,
          "achieved_flop_per_s / peak.flop_per_s; null without that peak");
  v.Field("pct_of_memory_peak", &T::pct_of_memory_peak, Unit::kPercent,
          "achieved_bytes_per_s / peak.bytes_per_s; null without that peak");
  v.Field("bound", &T::bound, Unit::kNone,
          "the roof it sits under: compute when its intensity is at or above the ridge "
          "(peak.flop_per_s / peak.bytes_per_s); null without both peaks",
          OneOf("compute|memory", Null::kEmpty));
  v.Field("time_at_roof_ns", &T::time_at_roof_ns, Unit::kNs,
          "max(flops / peak.flop_per_s, bytes / peak.bytes_per_s) over all its calls: the "
          "least device time its work allows; null without both peaks");
  v.Field("peak", &T::peak, Unit::kNone, "the peak it is held to");
  v.Field("notes", &T::notes, Unit::kNone, "what the model assumed, and why a figure is null");
}

template <class V>
void Fields(V& v, Of<roofline::UnmodelledOps>) {
  v.Name("roofline_unmodelled");
  using T = roofline::UnmodelledOps;
  v.Field("count", &T::count, Unit::kCount,
          "hot (op, shapes) groups without a model (or whose shapes contradict the op): not guessed");
  v.Field("device_ns", &T::device_ns, Unit::kNs, "their device time");
  v.Field("ops", &T::ops, Unit::kNone, "their distinct op names, hottest first");
}

template <class V>
void Fields(V& v, Of<roofline::RankRoofline>) {
  v.Name("rank_roofline");
  using T = roofline::RankRoofline;
  v.Field("rank", &T::rank, Unit::kId, "the rank");
  v.Field("ops", &T::ops, Unit::kNone,
          "the hottest (op, Input Dims, Input type, Concrete Inputs) groups with a model, by "
          "device time, heaviest first; [] for a trace without device activity");
  v.Field("unmodelled", &T::unmodelled, Unit::kNone,
          "the groups without a model that are as hot as a row of ops");
}

template <class V>
void Fields(V& v, Of<roofline::OpWorstRank>) {
  v.Name("roofline_worst_rank");
  using T = roofline::OpWorstRank;
  v.Field("op", &T::op, Unit::kNone, "the op's name");
  v.Field("input_dims", &T::input_dims, Unit::kNone, "\"Input Dims\" as JSON text");
  v.Field("input_types", &T::input_types, Unit::kNone, "\"Input type\" as JSON text; null absent",
          kNullIfEmpty);
  v.Field("ranks", &T::ranks, Unit::kCount,
          "ranks with a row of this (op, shapes) that has a bound", Attr{.least = "2"});
  v.Field("device_ns", &T::device_ns, Unit::kNs, "its device time summed over those ranks");
  v.Field("worst_rank", &T::worst_rank, Unit::kId,
          "the rank that ran it furthest below its binding roof (lowest % of the roof its "
          "bound names; ties: the lower rank)");
  v.Field("worst_pct_of_roof", &T::worst_pct_of_roof, Unit::kPercent,
          "that rank's % of its binding roof (pct_of_compute_peak or pct_of_memory_peak, as "
          "its bound says)");
  v.Field("worst_bound", &T::worst_bound, Unit::kNone, "the roof the worst rank's row sits under",
          OneOf("compute|memory"));
  v.Field("best_rank", &T::best_rank, Unit::kId,
          "the rank that ran it closest to its binding roof (ties: the lower rank)");
  v.Field("best_pct_of_roof", &T::best_pct_of_roof, Unit::kPercent,
          "that rank's % of its binding roof");
}

}  // namespace fastenough::report::fields
