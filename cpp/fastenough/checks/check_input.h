// CheckInput: the evidence the in-process agent measured for one check, as
// named numbers (unit in the key, e.g. "graph_bytes_per_forward") and texts,
// plus the source locations. The agent only measures; the verdict and the
// saving are decided here, in the core, by the VerdictOn* functions (checks/verdicts.h).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "fastenough/findings/finding.h"

namespace fastenough::checks {

struct CheckInput {
  std::map<std::string, double> numbers;
  std::map<std::string, std::string> texts;
  std::vector<findings::Location> where;

  // A number the agent did not measure reads as `missing` (-1 by default).
  double Num(const std::string& key, double missing = -1) const {
    auto it = numbers.find(key);
    return it == numbers.end() ? missing : it->second;
  }
  bool Has(const std::string& key) const { return Num(key) >= 0; }
  std::string Text(const std::string& key) const {
    auto it = texts.find(key);
    return it == texts.end() ? std::string() : it->second;
  }
};

}  // namespace fastenough::checks
