#include "fastenough/util/units.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace fastenough::util {

namespace {

constexpr const char* kAbsent = "-";

struct Unit {
  double scale;    // in the input's units
  int decimals;
  const char* name;
  double next_at;  // printed values from this on belong to the next unit
};

// `value / unit.scale` printed with the unit's decimals; `printed` gets the
// number as the text says it (after rounding), to choose the unit by.
std::string Print(double value, const Unit& unit, double* printed) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", unit.decimals, value / unit.scale);
  *printed = std::strtod(buf, nullptr);
  if (*printed == 0 && buf[0] == '-') {  // "-0.0": no sign on a zero
    std::snprintf(buf, sizeof buf, "%.*f", unit.decimals, 0.0);
  }
  return std::string(buf) + " " + unit.name;
}

template <size_t N>
std::string Scaled(double value, const Unit (&units)[N]) {
  for (size_t i = 0; i + 1 < N; ++i) {
    double printed = 0;
    std::string text = Print(value, units[i], &printed);
    if (std::fabs(printed) < units[i].next_at) return text;
  }
  double printed = 0;
  return Print(value, units[N - 1], &printed);
}

}  // namespace

std::string FormatDuration(double ns) {
  if (!std::isfinite(ns)) return kAbsent;
  static constexpr Unit kUnits[] = {
      {1.0, 0, "ns", 1000.0},       {1e3, 1, "\u00b5s", 1000.0}, {1e6, 2, "ms", 1000.0},
      {1e9, 2, "s", 60.0},          {60e9, 1, "min", 0.0},
  };
  return Scaled(ns, kUnits);
}

std::string FormatBytes(double bytes) {
  if (!std::isfinite(bytes) || bytes < 0) return kAbsent;
  static constexpr double kKi = 1024.0;
  static constexpr Unit kUnits[] = {
      {1.0, 0, "B", kKi},
      {kKi, 1, "KiB", kKi},
      {kKi * kKi, 1, "MiB", kKi},
      {kKi * kKi * kKi, 1, "GiB", kKi},
      {kKi * kKi * kKi * kKi, 1, "TiB", 0.0},
  };
  return Scaled(bytes, kUnits);
}

std::string FormatShare(double share) {
  if (!std::isfinite(share) || share < 0) return kAbsent;
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.1f%%", 100.0 * share + 0.0);  // + 0.0: -0.0 -> 0.0
  return buf;
}

}  // namespace fastenough::util
