// Every lint rule and every code lint reports, and a choice of rules to run.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "fastenough/lint/rule.h"

namespace fastenough::lint {

// All rules, family by family, in the order lint runs them.
std::span<const Rule* const> AllRules();

// The codes lint reports, with their titles; runtime = `fastenough run` and
// `analyze` report the same code from measurements.
std::span<const CodeInfo> AllCodes();
const CodeInfo* FindCode(std::string_view code);

// The rules to run on each file.
class RuleSelection {
 public:
  static RuleSelection All();
  // The rules whose code is one of `codes` (unknown codes select nothing).
  static RuleSelection ForCodes(const std::vector<std::string>& codes);

  std::span<const Rule* const> rules() const { return rules_; }

 private:
  std::vector<const Rule*> rules_;
};

}  // namespace fastenough::lint
