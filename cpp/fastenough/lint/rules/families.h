// The rule families, one file each under rules/. Each returns its rules in a
// fixed order; rule_registry.cc lists the families in the order lint runs them.
//
// Adding a rule: write its check in the file of its family (or a new family
// file declared here and listed in rule_registry.cc), give it a Rule with its
// code, a unique name, a one-line summary and the --explain text, and add
// positive and negative snippets to tests/python/lint/test_lint_rules.py. Codes are
// stable: add new ones, never rename; list a new code in rule_registry.cc.
#pragma once

#include <span>

#include "fastenough/lint/rule.h"

namespace fastenough::lint::rules {

std::span<const Rule> HostSyncRules();       // host_sync.cc
std::span<const Rule> DynamicShapeRules();   // dynamic_shapes.cc
std::span<const Rule> TransferRules();       // transfers.cc
std::span<const Rule> EvalModeRules();       // eval_mode.cc
std::span<const Rule> HfOutputRules();       // hf_outputs.cc
std::span<const Rule> LogitsRules();         // logits.cc
std::span<const Rule> GroupedGemmRules();    // grouped_gemm.cc
std::span<const Rule> ProjectionRules();     // projections.cc
std::span<const Rule> LayoutRules();         // layout.cc
std::span<const Rule> OptimizerRules();      // optimizer.cc
std::span<const Rule> AttentionRules();      // attention.cc

}  // namespace fastenough::lint::rules
