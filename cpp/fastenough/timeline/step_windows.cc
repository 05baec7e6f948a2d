#include "fastenough/timeline/step_windows.h"

#include <algorithm>
#include <charconv>
#include <string_view>
#include <unordered_map>

namespace fastenough::timeline {

namespace {
constexpr std::string_view kPrefix = "ProfilerStep#";
}  // namespace

std::vector<StepWindow> FindStepWindows(const trace::EventStore& store) {
  // Names are interned: decide once per distinct name id, not once per row.
  const StringTable& strings = store.strings();
  std::unordered_map<StringId, int64_t> step_number;  // name id -> N, only step names
  for (StringId id = 1; id < strings.size(); ++id) {
    std::string_view s = strings.Get(id);
    if (s.substr(0, kPrefix.size()) != kPrefix) continue;
    std::string_view digits = s.substr(kPrefix.size());
    int64_t n = -1;
    auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
    if (ec != std::errc() || p != digits.data() + digits.size()) n = -1;
    step_number.emplace(id, n);
  }
  std::vector<StepWindow> out;
  if (step_number.empty()) return out;

  std::unordered_map<int64_t, size_t> by_number;  // N -> index in out
  for (size_t i = 0; i < store.size(); ++i) {
    auto it = step_number.find(store.name[i]);
    if (it == step_number.end()) continue;
    StepWindow w{it->second, store.ts_ns[i], store.end_ns(i), static_cast<uint32_t>(i)};
    const bool device_side = store.kind[i] == trace::EventKind::kGpuUserAnnotation;
    if (w.number >= 0) {
      auto [slot, inserted] = by_number.emplace(w.number, out.size());
      if (!inserted) {
        StepWindow& prev = out[slot->second];
        const bool prev_device = store.kind[prev.row] == trace::EventKind::kGpuUserAnnotation;
        if (prev_device && !device_side) prev = w;
        continue;
      }
    }
    out.push_back(w);
  }
  std::sort(out.begin(), out.end(), [](const StepWindow& a, const StepWindow& b) {
    return a.start_ns != b.start_ns ? a.start_ns < b.start_ns : a.number < b.number;
  });
  return out;
}

}  // namespace fastenough::timeline
