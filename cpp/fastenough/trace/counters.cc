#include "fastenough/trace/counters.h"

namespace fastenough::trace {

namespace {
constexpr CounterInfo kInfos[] = {
#define FE_COUNTER_INFO(name, sev, desc) {#name, Severity::sev, desc},
    FE_TRACE_COUNTERS(FE_COUNTER_INFO)
#undef FE_COUNTER_INFO
};
static_assert(sizeof(kInfos) / sizeof(kInfos[0]) == kCounterCount);
}  // namespace

const CounterInfo& GetCounterInfo(Counter c) { return kInfos[static_cast<size_t>(c)]; }

std::string_view SeverityName(Severity s) {
  switch (s) {
    case Severity::kInfo: return "info";
    case Severity::kDataLoss: return "data-loss";
    case Severity::kError: return "error";
  }
  return "unknown";
}

bool Counters::HasErrors() const {
  for (size_t i = 0; i < kCounterCount; ++i) {
    if (values_[i] != 0 && kInfos[i].severity == Severity::kError) return true;
  }
  return false;
}

}  // namespace fastenough::trace
