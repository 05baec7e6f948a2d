// The one central list of per-event problems a trace reader can meet (the
// Perfetto "stats" idea). A reader never stops on a bad event: it counts it
// here and goes on. Every report lists the counters that are non-zero.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

namespace fastenough::trace {

enum class Severity : uint8_t {
  kInfo,      // tolerated quirk, nothing lost
  kDataLoss,  // some events or fields were dropped; figures may be incomplete
  kError,     // the analysis is unreliable
};

// X(name, severity, description)
#define FE_TRACE_COUNTERS(X)                                                                     \
  X(file_truncated, kDataLoss, "the file ends inside the event list; events read so far are kept") \
  X(gzip_truncated, kDataLoss, "the gzip stream ends early; the bytes decompressed so far are used") \
  X(event_malformed, kDataLoss, "an event could not be parsed even after repair and was dropped")  \
  X(event_too_large, kDataLoss, "an event was larger than 64 MiB (the per-event limit) and was skipped unread") \
  X(event_repaired, kInfo, "an event with an unescaped quote or other damage was repaired")        \
  X(event_not_object, kDataLoss, "an element of the event list is not a JSON object")              \
  X(event_missing_ts, kDataLoss, "an event has no usable timestamp and was dropped")               \
  X(event_missing_ph, kInfo, "an event has no phase; treated as a complete ('X') event")          \
  X(duration_unusable, kDataLoss, "an event's duration was negative, not finite, beyond 64 bits or longer than a year (or its end was); the event was dropped") \
  X(duration_missing, kInfo, "a complete event has no duration; taken as zero")                    \
  X(number_as_string, kInfo, "a number was given as a string and was converted")                   \
  X(number_not_finite, kInfo, "a number was 'inf', 'nan', 'N/A' or similar; treated as absent")   \
  X(integer_overflow, kInfo, "an integer did not fit 64 bits; the field was ignored")              \
  X(invalid_utf8, kInfo, "a string was not valid UTF-8; invalid bytes were replaced")              \
  X(unknown_category, kInfo, "an event category fastenough does not know; kept as 'other'")        \
  X(unknown_phase, kInfo, "an event phase fastenough does not use; skipped")                       \
  X(kernel_without_launch, kInfo, "a device event has no runtime launch with its correlation id")  \
  X(kernel_before_launch, kInfo, "a device event starts before the runtime call that launched it; left out of the launch delays") \
  X(correlation_duplicated, kInfo, "several launch calls share a correlation id; a device event is linked to the latest that starts before it") \
  X(bytes_unusable, kDataLoss, "a byte count was negative or beyond 2^48 (256 TiB): a copy's size was taken as unknown, an allocator event was dropped") \
  X(rank_unusable, kDataLoss, "distributedInfo's rank or world_size was not an integer in range (rank 0 to 2^31-2, world_size 1 to 2^31-1, rank below world_size); taken as unknown") \
  X(flow_duplicated, kInfo, "a flow endpoint was seen more than once")                             \
  X(flow_unmatched, kInfo, "a flow start or end has no partner")                                   \
  X(string_pid_tid, kInfo, "a pid or tid was a string; mapped to a numeric id")                    \
  X(top_level_extra, kInfo, "top-level keys fastenough does not use were skipped")

enum class Counter : uint16_t {
#define FE_COUNTER_ENUM(name, sev, desc) name,
  FE_TRACE_COUNTERS(FE_COUNTER_ENUM)
#undef FE_COUNTER_ENUM
      kCount
};

constexpr size_t kCounterCount = static_cast<size_t>(Counter::kCount);

struct CounterInfo {
  std::string_view name;
  Severity severity;
  std::string_view description;
};

const CounterInfo& GetCounterInfo(Counter c);
std::string_view SeverityName(Severity s);

// Per-load counter values.
class Counters {
 public:
  void Add(Counter c, uint64_t n = 1) { values_[static_cast<size_t>(c)] += n; }
  uint64_t Get(Counter c) const { return values_[static_cast<size_t>(c)]; }
  void Merge(const Counters& other) {
    for (size_t i = 0; i < kCounterCount; ++i) values_[i] += other.values_[i];
  }
  // True if any counter of error severity is non-zero.
  bool HasErrors() const;

 private:
  std::array<uint64_t, kCounterCount> values_{};
};

}  // namespace fastenough::trace
