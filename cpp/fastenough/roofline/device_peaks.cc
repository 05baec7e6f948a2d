#include "fastenough/roofline/device_peaks.h"

#include <simdjson.h>

#include <algorithm>
#include <cctype>
#include <set>

namespace fastenough::roofline {

namespace {

// Sources: the vendor document each figure is published in. Dense figures:
// NVIDIA's datasheets print Hopper / Blackwell / Ada tensor figures "with
// sparsity", halved here. Where derivable the figures were cross-checked as
// units x clock x rate (MI300X: 304 CUs x 2.1 GHz x 2,048 FP16 FLOPs/clock =
// 1,307.4 TFLOP/s); the Gaudi 2 FP8 figure (865) was not re-read from Intel's
// document (docs/roofline.md says so).
constexpr const char* kA100 =
    "NVIDIA A100 Tensor Core GPU datasheet (nvidia-a100-datasheet-us-nvidia-1758950-r4-web.pdf), "
    "https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/a100/pdf/"
    "nvidia-a100-datasheet-us-nvidia-1758950-r4-web.pdf";
constexpr const char* kH100 =
    "NVIDIA H100 Tensor Core GPU datasheet (tensor figures with sparsity halved), "
    "https://resources.nvidia.com/en-us-tensor-core/nvidia-tensor-core-gpu-datasheet";
constexpr const char* kH200 =
    "NVIDIA H200 Tensor Core GPU product page / datasheet (tensor figures with sparsity halved), "
    "https://www.nvidia.com/en-us/data-center/h200/";
constexpr const char* kB200 =
    "NVIDIA HGX platform specifications, HGX B200 per-GPU column (tensor figures with sparsity "
    "halved), https://www.nvidia.com/en-us/data-center/hgx/";
constexpr const char* kL40S =
    "NVIDIA L40S datasheet (tensor figures with sparsity halved), "
    "https://www.nvidia.com/en-us/data-center/l40s/";
constexpr const char* kRtx4090 =
    "NVIDIA Ada GPU Architecture whitepaper v2.1, Appendix A, GeForce RTX 4090 (tensor figures "
    "with FP32 accumulate, dense), https://images.nvidia.com/aem-dam/Solutions/geforce/ada/"
    "nvidia-ada-gpu-architecture.pdf";
constexpr const char* kMI210 =
    "AMD Instinct MI210 accelerator specifications, "
    "https://www.amd.com/en/products/accelerators/instinct/mi200/mi210.html";
constexpr const char* kMI250 =
    "AMD Instinct MI250 accelerator specifications (per OAM = 2 GCDs; halved per GCD), "
    "https://www.amd.com/en/products/accelerators/instinct/mi200/mi250.html";
constexpr const char* kMI250X =
    "AMD Instinct MI250X accelerator specifications (per OAM = 2 GCDs; halved per GCD), "
    "https://www.amd.com/en/products/accelerators/instinct/mi200/mi250x.html";
constexpr const char* kMI300X =
    "AMD Instinct MI300X data sheet, https://www.amd.com/content/dam/amd/en/documents/"
    "instinct-tech-docs/data-sheets/amd-instinct-mi300x-data-sheet.pdf";
constexpr const char* kMI325X =
    "AMD Instinct MI325X accelerator specifications, "
    "https://www.amd.com/en/products/accelerators/instinct/mi300/mi325x.html";
constexpr const char* kMI355X =
    "AMD Instinct MI355X accelerator specifications, "
    "https://www.amd.com/en/products/accelerators/instinct/mi350/mi355x.html";
constexpr const char* kGaudi2 =
    "Intel Gaudi 3 AI Accelerator white paper, Gaudi 2 comparison column (MME figures), "
    "https://www.intel.com/content/www/us/en/content-details/817486/"
    "intel-gaudi-3-ai-accelerator-white-paper.html";
constexpr const char* kGaudi3 =
    "Intel Gaudi 3 AI Accelerator white paper (MME figures), "
    "https://www.intel.com/content/www/us/en/content-details/817486/"
    "intel-gaudi-3-ai-accelerator-white-paper.html";
constexpr const char* kMax1550 =
    "Intel Data Center GPU Max 1550 product specifications (ark), "
    "https://www.intel.com/content/www/us/en/products/sku/232873/"
    "intel-data-center-gpu-max-1550/specifications.html";

// name, fp64, fp64_matrix, fp32, fp32_matrix, tf32, bf16, fp16, fp8, TB/s, source
std::vector<DevicePeaks> BuiltinDevices() {
  return {
      {"NVIDIA A100 SXM4 40GB", 9.7, 19.5, 19.5, 0, 156, 312, 312, 0, 1.555, kA100},
      {"NVIDIA A100 SXM4 80GB", 9.7, 19.5, 19.5, 0, 156, 312, 312, 0, 2.039, kA100},
      {"NVIDIA A100 PCIe 40GB", 9.7, 19.5, 19.5, 0, 156, 312, 312, 0, 1.555, kA100},
      {"NVIDIA A100 PCIe 80GB", 9.7, 19.5, 19.5, 0, 156, 312, 312, 0, 1.935, kA100},
      {"NVIDIA H100 SXM5 80GB", 34, 67, 67, 0, 494.5, 989.5, 989.5, 1979, 3.35, kH100},
      {"NVIDIA H100 PCIe 80GB", 26, 51, 51, 0, 378, 756.5, 756.5, 1513, 2.0, kH100},
      {"NVIDIA H100 NVL 94GB", 30, 60, 60, 0, 417.5, 835.5, 835.5, 1670.5, 3.9, kH100},
      {"NVIDIA H200 SXM 141GB", 34, 67, 67, 0, 494.5, 989.5, 989.5, 1979, 4.8, kH200},
      {"NVIDIA H200 NVL 141GB", 30, 60, 60, 0, 417.5, 835.5, 835.5, 1670.5, 4.8, kH200},
      {"NVIDIA B200 (HGX, 1000 W)", 37, 37, 75, 0, 1100, 2250, 2250, 4500, 7.7, kB200},
      {"NVIDIA L40S", 0, 0, 91.6, 0, 183, 362.05, 362.05, 733, 0.864, kL40S},
      {"NVIDIA GeForce RTX 4090", 0, 0, 82.6, 0, 82.6, 165.2, 165.2, 330.3, 1.008, kRtx4090},
      {"AMD Instinct MI210", 22.6, 45.3, 22.6, 45.3, 0, 181.0, 181.0, 0, 1.6384, kMI210},
      {"AMD Instinct MI250 (one GCD)", 22.65, 45.25, 22.65, 45.25, 0, 181.05, 181.05, 0, 1.6384,
       kMI250},
      {"AMD Instinct MI250X (one GCD)", 23.95, 47.85, 23.95, 47.85, 0, 191.5, 191.5, 0, 1.6384,
       kMI250X},
      {"AMD Instinct MI300X", 81.7, 163.4, 163.4, 163.4, 653.7, 1307.4, 1307.4, 2614.9, 5.3,
       kMI300X},
      {"AMD Instinct MI325X", 81.7, 163.4, 163.4, 163.4, 653.7, 1307.4, 1307.4, 2614.9, 6.0,
       kMI325X},
      {"AMD Instinct MI355X", 78.6, 78.6, 157.3, 157.3, 0, 2516.6, 2516.6, 5033.2, 8.0, kMI355X},
      {"Intel Gaudi 2", 0, 0, 0, 0, 0, 432, 0, 865, 2.45, kGaudi2},
      {"Intel Gaudi 3", 0, 0, 0, 0, 0, 1835, 0, 1835, 3.7, kGaudi3},
      {"Intel Data Center GPU Max 1550", 52, 52, 52, 0, 419, 839, 839, 0, 3.2768, kMax1550},
  };
}

// Lower-case alphanumeric tokens, plus each adjacent pair joined ("Gaudi 3"
// -> gaudi, 3, gaudi3; "RTX 4090" -> rtx4090).
std::set<std::string> Tokens(std::string_view name) {
  std::vector<std::string> toks;
  std::string cur;
  for (char ch : name) {
    if (std::isalnum(static_cast<unsigned char>(ch))) {
      cur += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    } else if (!cur.empty()) {
      toks.push_back(std::move(cur));
      cur.clear();
    }
  }
  if (!cur.empty()) toks.push_back(std::move(cur));
  std::set<std::string> out(toks.begin(), toks.end());
  for (size_t i = 0; i + 1 < toks.size(); ++i) out.insert(toks[i] + toks[i + 1]);
  return out;
}

long IndexOf(const std::vector<DevicePeaks>& d, std::string_view name) {
  for (size_t i = 0; i < d.size(); ++i) {
    if (d[i].name == name) return static_cast<long>(i);
  }
  return -1;
}

constexpr double kGB = 1e9;

}  // namespace

std::string SquashDeviceName(std::string_view name) {
  std::string s;
  for (char ch : name) {
    if (std::isalnum(static_cast<unsigned char>(ch))) {
      s += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    }
  }
  return s;
}

DeviceQuery DeviceQuery::From(const trace::DeviceProperties& p) {
  DeviceQuery q;
  q.name = p.name;
  q.num_sms = p.num_sms;
  q.total_memory_bytes = p.total_memory_bytes;
  q.compute_major = p.compute_major;
  q.compute_minor = p.compute_minor;
  q.warp_size = p.warp_size;
  return q;
}

StatusOr<PeakFlops> PeakFlopsFor(const DevicePeaks& d, Dtype dtype, bool matrix) {
  PeakFlops p;
  auto pick = [&](double v, const char* col) {
    p.flop_per_s = v * 1e12;
    p.column = col;
    return v > 0;
  };
  bool ok = false;
  if (matrix) {
    switch (dtype) {
      case Dtype::kFP64: ok = pick(d.fp64_matrix, "fp64_matrix") || pick(d.fp64, "fp64"); break;
      case Dtype::kFP32: ok = pick(d.fp32_matrix, "fp32_matrix") || pick(d.fp32, "fp32"); break;
      case Dtype::kTF32: ok = pick(d.tf32, "tf32"); break;
      case Dtype::kBF16: ok = pick(d.bf16, "bf16"); break;
      case Dtype::kFP16: ok = pick(d.fp16, "fp16"); break;
      case Dtype::kFP8: ok = pick(d.fp8, "fp8"); break;
      default: break;
    }
  } else {
    ok = dtype == Dtype::kFP64 ? pick(d.fp64, "fp64") : pick(d.fp32, "fp32");
  }
  if (!ok) {
    return NotFound(std::string("no published ") + (matrix ? "matrix " : "vector ") +
                    DtypeName(dtype) + " peak for " + d.name);
  }
  return p;
}

PeakTable PeakTable::Builtin() {
  PeakTable t;
  t.devices_ = BuiltinDevices();
  t.builtin_count_ = t.devices_.size();
  return t;
}

long PeakTable::MatchBuiltin(const DeviceQuery& q, std::string* how) const {
  const std::set<std::string> t = Tokens(q.name);
  auto has = [&](const char* tok) { return t.count(tok) > 0; };
  auto idx = [&](std::string_view n) { return IndexOf(devices_, n); };
  const double mem = static_cast<double>(q.total_memory_bytes);
  *how = "name";
  if (has("a100")) {
    const bool pcie = has("pcie");
    bool big = true;
    if (has("80gb")) {
      big = true;
    } else if (has("40gb")) {
      big = false;
    } else if (mem > 0) {
      big = mem > 60 * kGB;  // 80 GB parts report ~85e9, 40 GB parts ~42.5e9
      *how = "name + memory size";
    } else {
      *how = "name (memory size unknown: the 80GB part taken)";
    }
    if (pcie) return idx(big ? "NVIDIA A100 PCIe 80GB" : "NVIDIA A100 PCIe 40GB");
    return idx(big ? "NVIDIA A100 SXM4 80GB" : "NVIDIA A100 SXM4 40GB");
  }
  if (has("h100")) {
    if (has("pcie")) return idx("NVIDIA H100 PCIe 80GB");
    if (has("nvl")) return idx("NVIDIA H100 NVL 94GB");
    return idx("NVIDIA H100 SXM5 80GB");
  }
  if (has("h200")) return idx(has("nvl") ? "NVIDIA H200 NVL 141GB" : "NVIDIA H200 SXM 141GB");
  if (has("b200")) return idx("NVIDIA B200 (HGX, 1000 W)");
  if (has("l40s")) return idx("NVIDIA L40S");
  // The RTX 4090 D (China) has fewer SMs: not the 4090.
  if (has("rtx4090") && !has("4090d")) return idx("NVIDIA GeForce RTX 4090");
  if (has("mi355x")) return idx("AMD Instinct MI355X");
  if (has("mi325x")) return idx("AMD Instinct MI325X");
  if (has("mi300x")) return idx("AMD Instinct MI300X");
  if (has("mi250x") && has("mi250")) {
    // ROCm names both parts "AMD Instinct MI250X / MI250": the CU count decides
    // (110 per GCD on the MI250X, 104 on the MI250).
    if (q.num_sms == 104) {
      *how = "name + 104 CUs";
      return idx("AMD Instinct MI250 (one GCD)");
    }
    *how = q.num_sms == 110 ? "name + 110 CUs" : "name (CU count unknown: the MI250X taken)";
    return idx("AMD Instinct MI250X (one GCD)");
  }
  if (has("mi250x")) return idx("AMD Instinct MI250X (one GCD)");
  if (has("mi250")) return idx("AMD Instinct MI250 (one GCD)");
  if (has("mi210")) return idx("AMD Instinct MI210");
  if (has("gaudi3") || has("hl325")) return idx("Intel Gaudi 3");
  if (has("gaudi2") || has("hl225")) return idx("Intel Gaudi 2");
  if (has("max1550")) return idx("Intel Data Center GPU Max 1550");
  // ROCm builds that name every device "AMD Radeon Graphics": the gfx
  // architecture (computeMajor.minor), CUs and memory size pick the part.
  const bool amd = has("amd") || has("radeon") || q.warp_size == 64;
  if (amd && q.compute_major == 9) {
    const std::string arch = q.compute_minor == 0   ? "gfx90a"
                             : q.compute_minor == 4 ? "gfx942"
                             : q.compute_minor == 5 ? "gfx950"
                                                    : "gfx9." + std::to_string(q.compute_minor);
    *how = "architecture " + arch + " with " + std::to_string(q.num_sms) + " CUs";
    if (q.compute_minor == 0 && q.num_sms == 104) {
      // The MI210 has 104 CUs too: its peaks are the same within 0.3 %.
      *how += " (one MI250 GCD; an MI210 has the same CUs and peaks)";
      return idx("AMD Instinct MI250 (one GCD)");
    }
    if (q.compute_minor == 0 && q.num_sms == 110) return idx("AMD Instinct MI250X (one GCD)");
    if (q.compute_minor == 4 && q.num_sms == 304) {
      *how += " and " + std::to_string(static_cast<int64_t>(mem / kGB)) + " GB";
      return idx(mem > 224 * kGB ? "AMD Instinct MI325X" : "AMD Instinct MI300X");
    }
    if (q.compute_minor == 5 && q.num_sms == 256) return idx("AMD Instinct MI355X");
  }
  return -1;
}

StatusOr<DeviceMatch> PeakTable::Lookup(const DeviceQuery& q) const {
  // Devices an override added match by their whole name first.
  const std::string key = SquashDeviceName(q.name);
  for (size_t i = 0; i < added_keys_.size(); ++i) {
    if (!key.empty() && added_keys_[i] == key) {
      return DeviceMatch{devices_[builtin_count_ + i], "name (from the --peaks file)"};
    }
  }
  std::string how;
  const long i = MatchBuiltin(q, &how);
  if (i < 0) {
    return NotFound("no peaks known for device \"" + q.name +
                    "\" (give them with --peaks FILE.json)");
  }
  return DeviceMatch{devices_[static_cast<size_t>(i)], how};
}

StatusOr<DeviceMatch> PeakTable::Lookup(std::string_view name) const {
  DeviceQuery q;
  q.name = std::string(name);
  return Lookup(q);
}

Status PeakTable::ApplyOverride(std::string_view json) {
  namespace dom = simdjson::dom;
  dom::parser parser;
  dom::object root;
  if (parser.parse(json).get_object().get(root) != simdjson::SUCCESS) {
    return InvalidArgument("peaks file: not a JSON object");
  }
  dom::array devices;
  for (auto [k, v] : root) {
    if (k != "devices") return InvalidArgument("peaks file: unknown key \"" + std::string(k) + "\"");
  }
  if (root["devices"].get_array().get(devices) != simdjson::SUCCESS) {
    return InvalidArgument("peaks file: \"devices\" must be a list");
  }
  PeakTable next = *this;
  std::set<std::string> seen;
  size_t n = 0;
  for (dom::element e : devices) {
    const std::string where = "peaks file: devices[" + std::to_string(n++) + "]";
    dom::object d;
    if (e.get_object().get(d) != simdjson::SUCCESS) return InvalidArgument(where + " is not an object");
    std::string_view name;
    if (d["name"].get_string().get(name) != simdjson::SUCCESS || SquashDeviceName(name).empty()) {
      return InvalidArgument(where + ": \"name\" must be a non-empty string");
    }
    if (!seen.insert(SquashDeviceName(name)).second) {
      return InvalidArgument(where + ": device \"" + std::string(name) + "\" given twice");
    }
    DevicePeaks p;
    bool has_tflops = false, has_mem = false;
    std::string source = "peaks file";
    std::vector<std::pair<std::string, double>> fields;
    for (auto [k, v] : d) {
      if (k == "name") continue;
      if (k == "source") {
        std::string_view s;
        if (v.get_string().get(s) != simdjson::SUCCESS) return InvalidArgument(where + ": \"source\" must be a string");
        source = std::string(s);
      } else if (k == "memory_tb_per_s") {
        double x = 0;
        if (v.get_double().get(x) != simdjson::SUCCESS || !(x > 0) || x > 1e3) {
          return InvalidArgument(where + ": \"memory_tb_per_s\" must be a positive number of TB/s");
        }
        fields.emplace_back("memory_tb_per_s", x);
        has_mem = true;
      } else if (k == "tflops") {
        dom::object t;
        if (v.get_object().get(t) != simdjson::SUCCESS) return InvalidArgument(where + ": \"tflops\" must be an object");
        for (auto [tk, tv] : t) {
          static const std::set<std::string_view> kKeys = {"fp64", "fp64_matrix", "fp32", "fp32_matrix",
                                                         "tf32", "bf16", "fp16", "fp8"};
          if (kKeys.count(tk) == 0) {
            return InvalidArgument(where + ": unknown dtype \"" + std::string(tk) +
                                   "\" in tflops (fp64, fp64_matrix, fp32, fp32_matrix, tf32, bf16, fp16, fp8)");
          }
          double x = 0;
          if (tv.get_double().get(x) != simdjson::SUCCESS || x < 0 || x > 1e6) {
            return InvalidArgument(where + ": tflops." + std::string(tk) +
                                   " must be a number of TFLOP/s, 0 or more");
          }
          fields.emplace_back(std::string(tk), x);
          has_tflops = true;
        }
      } else {
        return InvalidArgument(where + ": unknown key \"" + std::string(k) +
                               "\" (name, tflops, memory_tb_per_s, source)");
      }
    }
    if (!has_tflops && !has_mem) return InvalidArgument(where + ": gives neither tflops nor memory_tb_per_s");
    auto set = [](DevicePeaks* dp, const std::string& f, double x) {
      if (f == "fp64") dp->fp64 = x;
      else if (f == "fp64_matrix") dp->fp64_matrix = x;
      else if (f == "fp32") dp->fp32 = x;
      else if (f == "fp32_matrix") dp->fp32_matrix = x;
      else if (f == "tf32") dp->tf32 = x;
      else if (f == "bf16") dp->bf16 = x;
      else if (f == "fp16") dp->fp16 = x;
      else if (f == "fp8") dp->fp8 = x;
      else if (f == "memory_tb_per_s") dp->memory_tb_per_s = x;
    };
    // A built-in device (by tolerant match, or by its canonical name) is
    // overridden field by field; an earlier override's device likewise.
    DeviceQuery q;
    q.name = std::string(name);
    std::string how;
    long i = next.MatchBuiltin(q, &how);
    if (i < 0) i = IndexOf(next.devices_, name);
    const std::string key = SquashDeviceName(name);
    for (size_t a = 0; i < 0 && a < next.added_keys_.size(); ++a) {
      if (next.added_keys_[a] == key) i = static_cast<long>(next.builtin_count_ + a);
    }
    if (i >= 0) {
      DevicePeaks& dp = next.devices_[static_cast<size_t>(i)];
      for (const auto& [f, x] : fields) set(&dp, f, x);
      dp.source = source;
      continue;
    }
    if (!has_mem) {
      return InvalidArgument(where + ": \"" + std::string(name) +
                             "\" is not a built-in device, so memory_tb_per_s is required");
    }
    p.name = std::string(name);
    for (const auto& [f, x] : fields) set(&p, f, x);
    p.source = source;
    next.devices_.push_back(p);
    next.added_keys_.push_back(key);
  }
  *this = std::move(next);
  return Status::Ok();
}

namespace {

// The fewest edits (insert, delete, substitute) that make `pattern` appear
// anywhere inside `text` (Sellers' approximate substring match).
size_t EditsToAppearIn(std::string_view pattern, std::string_view text) {
  std::vector<size_t> prev(pattern.size() + 1), cur(pattern.size() + 1);
  for (size_t i = 0; i <= pattern.size(); ++i) prev[i] = i;
  size_t best = prev[pattern.size()];
  for (char c : text) {
    cur[0] = 0;  // a match may start anywhere in text
    for (size_t i = 1; i <= pattern.size(); ++i) {
      const size_t sub = prev[i - 1] + (pattern[i - 1] == c ? 0 : 1);
      cur[i] = std::min({sub, prev[i] + 1, cur[i - 1] + 1});
    }
    best = std::min(best, cur[pattern.size()]);
    std::swap(prev, cur);
  }
  return best;
}

}  // namespace

std::vector<std::string> PeakTable::CloseNames(std::string_view name, size_t n) const {
  const std::string q = SquashDeviceName(name.substr(0, 256));
  if (q.empty()) return {};
  const size_t limit = std::max<size_t>(2, q.size() / 3);
  std::vector<std::pair<size_t, size_t>> scored;  // (edits, index)
  for (size_t i = 0; i < devices_.size(); ++i) {
    const size_t e = EditsToAppearIn(q, SquashDeviceName(devices_[i].name));
    if (e <= limit) scored.emplace_back(e, i);
  }
  std::stable_sort(scored.begin(), scored.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::string> out;
  for (size_t k = 0; k < scored.size() && out.size() < n; ++k) {
    out.push_back(devices_[scored[k].second].name);
  }
  return out;
}

}  // namespace fastenough::roofline
