// Test helper: a finding's evidence by key, for the tests of the detectors,
// the agent-check decisions and the run findings. Header-only, tests only.
#pragma once

#include <gtest/gtest.h>

#include <string_view>
#include <variant>

#include "fastenough/findings/finding.h"

namespace fastenough::findings::testing {

// The value of evidence `key`, of type T; a test failure when it is absent.
template <typename T>
T Ev(const Finding& f, std::string_view key) {
  for (const auto& [k, v] : f.evidence) {
    if (k == key) return std::get<T>(v);
  }
  ADD_FAILURE() << "no evidence " << key << " in " << f.code;
  return T{};
}

inline bool HasEv(const Finding& f, std::string_view key) {
  for (const auto& [k, v] : f.evidence) {
    if (k == key) return true;
  }
  return false;
}

}  // namespace fastenough::findings::testing
