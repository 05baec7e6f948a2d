// no-tensor-cores: fp32 GEMM kernels on a device with compute capability
// >= 8.0 (deviceProperties "computeMajor"). A kernel counts when its name is
// a GEMM ("ampere_sgemm_32x32_sliced1x4_nn", "gemm" ...) without a
// tensor-core / reduced-precision marker, and its CPU op's "Input type" says
// float (when the trace has types). Verdict bounded: fp32 is the protocol;
// TF32/BF16 change numerics. No saving is claimed (it would be a guess).
#include <algorithm>
#include <cctype>
#include <map>
#include <string>

#include "fastenough/findings/catalog.h"
#include "fastenough/findings/detectors.h"

namespace fastenough::findings {

namespace {

std::string Lower(std::string_view s) {
  std::string o(s);
  for (char& c : o) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return o;
}

bool IsFp32GemmName(std::string_view name) {
  const std::string n = Lower(name);
  if (n.find("gemm") == std::string::npos) return false;
  for (const char* m : {"tensorop", "hmma", "bf16", "f16", "fp16", "half", "tf32", "i8", "int8",
                        "s16816", "s1688", "h1688", "h16816", "wgmma", "xmma", "fp8", "e4m3"}) {
    if (n.find(m) != std::string::npos) return false;
  }
  return true;
}

}  // namespace

void DetectNoTensorCores(const DetectContext& ctx, std::vector<Finding>& out) {
  if (ctx.max_compute_major < 8) return;
  const auto& st = ctx.store;
  std::vector<int8_t> fp32(st.strings().size(), -1);  // per name id, decided lazily
  int64_t count = 0, ns = 0, typed = 0;
  std::map<std::string, std::pair<int64_t, int32_t>> by_kernel;  // name -> (ns, example launch)
  for (size_t i = 0; i < st.size(); ++i) {
    if (st.kind[i] != trace::EventKind::kKernel || !ctx.InSteady(st.ts_ns[i])) continue;
    int8_t& d = fp32[st.name[i]];
    if (d < 0) d = IsFp32GemmName(st.name_of(i)) ? 1 : 0;
    if (!d) continue;
    const int32_t op = st.cpu_op_row[i];
    if (op != trace::kNoRow && st.input_types[op] != kNoString) {
      const std::string_view types = st.strings().Get(st.input_types[op]);
      if (types.find("\"float\"") == std::string_view::npos) continue;
      ++typed;
    }
    ++count;
    ns += st.dur_ns[i];
    auto& k = by_kernel[std::string(st.name_of(i))];
    if (k.first == 0) k.second = st.launch_row[i] != trace::kNoRow ? st.launch_row[i] : op;
    k.first += st.dur_ns[i];
  }
  if (count == 0) return;
  int64_t busy = ctx.analysis.busy_all.TotalLength();
  busy = std::max<int64_t>(1, timeline::Intersect(ctx.analysis.busy_all, ctx.steady_set).TotalLength());
  if (ns < busy / 100) return;  // under 1% of device time: not worth a protocol change
  Finding f = NewFinding("no-tensor-cores", Verdict::kBounded, st.rank);
  AddEvidence(f, "fp32_gemm_kernels", count);
  AddEvidence(f, "fp32_gemm_ns_per_step", static_cast<int64_t>(ns / ctx.steps()));
  AddEvidence(f, "share_of_device_busy", Round3(static_cast<double>(ns) / busy));
  AddEvidence(f, "kernels_with_float_input_type", typed);
  AddEvidence(f, "compute_capability_major", static_cast<int64_t>(ctx.max_compute_major));
  AddEvidence(f, "bounded_by", std::string("the fp32 numeric protocol; TF32/BF16 change numerics"));
  // The heaviest fp32 kernel, located at one of its own launches.
  auto top = std::max_element(by_kernel.begin(), by_kernel.end(),
                              [](auto& a, auto& b) { return a.second.first < b.second.first; });
  Location loc = WhereOfRow(ctx, top->second.second);
  loc.kernel = top->first;
  f.where.push_back(loc);
  out.push_back(std::move(f));
}

}  // namespace fastenough::findings
