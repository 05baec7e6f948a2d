// cpu-fallback: inside a steady step, a device-to-host copy, then CPU ops
// that launch nothing on the device, then a host-to-device copy, all on the
// same host thread:
//   aten::to -> cudaMemcpyAsync (Memcpy DtoH)      # .cpu()
//   aten::searchsorted, aten::sort ...             # no kernel under them
//   aten::to -> cudaMemcpyAsync (Memcpy HtoD)      # .to("cuda")
// Ops that only move or allocate (to, copy_, empty, ...) do not count as the
// computation. Saving bound: the CPU ops' time plus the two copies, per
// round trip (what running them on the device could at most remove).
#include <algorithm>
#include <map>
#include <unordered_map>

#include "fastenough/analysis/memcpy.h"
#include "fastenough/findings/catalog.h"
#include "fastenough/findings/detectors.h"

namespace fastenough::findings {

namespace {

// Ops that move, allocate or view data: they are the round trip itself or
// bookkeeping, not the computation that fell back to the CPU.
bool IsDataMovement(std::string_view n) {
  static constexpr std::string_view kOps[] = {
      "aten::to", "aten::_to_copy", "aten::copy_", "aten::empty", "aten::empty_strided",
      "aten::empty_like", "aten::zeros", "aten::zeros_like", "aten::ones", "aten::ones_like",
      "aten::full", "aten::full_like", "aten::fill_", "aten::zero_", "aten::item",
      "aten::_local_scalar_dense", "aten::detach", "aten::detach_", "aten::view", "aten::reshape",
      "aten::_reshape_alias", "aten::contiguous", "aten::clone", "aten::pin_memory",
      "aten::_pin_memory", "aten::is_pinned", "aten::resolve_conj", "aten::resolve_neg",
      "aten::lift_fresh", "aten::tensor", "aten::scalar_tensor", "aten::select", "aten::slice",
      "aten::as_strided", "aten::unsqueeze", "aten::squeeze", "aten::expand", "aten::t",
      "aten::transpose", "aten::permute", "aten::alias", "aten::unbind", "aten::split",
      "aten::chunk", "aten::narrow", "aten::set_", "aten::record_stream", "aten::result_type",
      "aten::numpy_T", "aten::flatten", "aten::stack", "aten::cat"};
  for (std::string_view k : kOps) {
    if (n == k) return true;
  }
  return n.rfind("aten::", 0) != 0;  // record_function ranges, Python-level names
}

}  // namespace

void DetectCpuFallback(const DetectContext& ctx, std::vector<Finding>& out) {
  const auto& st = ctx.store;
  // launching runtime row -> memcpy direction
  std::unordered_map<int32_t, std::pair<analysis::CopyDirection, uint32_t>> copy_of_launch;
  for (size_t i = 0; i < st.size(); ++i) {
    if (st.kind[i] != trace::EventKind::kMemcpy || st.launch_row[i] == trace::kNoRow) continue;
    copy_of_launch[st.launch_row[i]] = {analysis::ParseCopyDirection(st.name_of(i)),
                                        static_cast<uint32_t>(i)};
  }
  if (copy_of_launch.empty()) return;
  const auto& order = ctx.tree.host_order;
  int64_t trips = 0, cpu_ns = 0, copy_ns = 0, ops = 0;
  std::map<std::string, std::pair<int64_t, int32_t>> by_op;  // name -> (ns, example row)
  for (size_t k = 0; k < order.size(); ++k) {
    auto it = copy_of_launch.find(static_cast<int32_t>(order[k]));
    if (it == copy_of_launch.end() || it->second.first != analysis::CopyDirection::kDtoH) continue;
    const uint32_t dtoh = order[k];
    const int step = ctx.StepOf(st.ts_ns[dtoh]);
    if (step < 0) continue;
    // Walk forward on the same thread to the next HtoD launch in the step.
    std::vector<uint32_t> between;
    size_t m = k + 1;
    int32_t htod_copy = -1;
    for (; m < order.size(); ++m) {
      const uint32_t r = order[m];
      if (st.pid[r] != st.pid[dtoh] || st.tid[r] != st.tid[dtoh]) break;
      if (ctx.StepOf(st.ts_ns[r]) != step) break;
      auto c = copy_of_launch.find(static_cast<int32_t>(r));
      if (c != copy_of_launch.end()) {
        if (c->second.first == analysis::CopyDirection::kHtoD) htod_copy = static_cast<int32_t>(c->second.second);
        break;  // any next copy closes the window
      }
      if (st.kind[r] != trace::EventKind::kCpuOp || st.ts_ns[r] < st.end_ns(dtoh)) continue;
      if (ctx.tree.launches_device[r] || IsDataMovement(st.name_of(r))) continue;
      const int32_t p = ctx.tree.parent[r];
      if (p != trace::kNoRow && st.kind[p] == trace::EventKind::kCpuOp &&
          !ctx.tree.launches_device[p] && !IsDataMovement(st.name_of(p)) && st.ts_ns[p] >= st.end_ns(dtoh)) {
        continue;  // counted through its parent
      }
      between.push_back(r);
    }
    if (htod_copy < 0 || between.empty()) continue;
    ++trips;
    const uint32_t dtoh_copy = it->second.second;
    copy_ns += st.dur_ns[dtoh_copy] + st.dur_ns[htod_copy];
    for (uint32_t r : between) {
      ++ops;
      cpu_ns += st.dur_ns[r];
      auto& e = by_op[std::string(st.name_of(r))];
      e.first += st.dur_ns[r];
      if (e.first == st.dur_ns[r]) e.second = static_cast<int32_t>(r);
    }
  }
  if (trips == 0) return;
  // Under 1% of a step the round trips are not worth a change.
  const double mean_step = ctx.steady_ns / ctx.steps();
  if ((cpu_ns + copy_ns) / ctx.steps() < 0.01 * mean_step) return;
  Finding f = NewFinding("cpu-fallback", Verdict::kAvoidable, st.rank);
  AddEvidence(f, "round_trips_per_step", Round3(trips / ctx.steps()));
  AddEvidence(f, "cpu_ops_per_step", Round3(ops / ctx.steps()));
  AddEvidence(f, "cpu_op_ns_per_step", static_cast<int64_t>(cpu_ns / ctx.steps()));
  AddEvidence(f, "round_trip_copy_ns_per_step", static_cast<int64_t>(copy_ns / ctx.steps()));
  std::vector<std::pair<int64_t, int32_t>> top;
  for (auto& [n, v] : by_op) top.push_back(v);
  std::sort(top.begin(), top.end(), [](auto& a, auto& b) { return a.first > b.first; });
  for (size_t i = 0; i < top.size() && i < 3; ++i) f.where.push_back(WhereOfRow(ctx, top[i].second));
  ctx.SetSaving(f, cpu_ns + copy_ns);
  out.push_back(std::move(f));
}

}  // namespace fastenough::findings
