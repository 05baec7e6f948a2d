#include "fastenough/lint/rule_registry.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "fastenough/lint/rules/families.h"

namespace fastenough::lint {

namespace {

constexpr CodeInfo kCodes[] = {
    {"sync-in-loop", "Host waits for the device inside a loop", true},
    {"transfer-in-loop", "Host-device transfer in every iteration", true},
    {"pageable-memcpy", "Copies from pageable host memory", true},
    {"dataloader-bound", "Batches loaded in the main process", true},
    {"autograd-in-eval", "Autograd on in an evaluation forward", true},
    {"train-mode-in-eval", "Training-mode layers during evaluation", true},
    {"kv-cache-in-scoring", "Key/value cache built in a scoring forward", true},
    {"unused-outputs", "Hidden states or attentions requested and dropped", true},
    {"full-vocab-logits", "Normalised logits for every position, few used", true},
    {"serial-small-gemm", "Small matmuls in a Python loop (grouped GEMM candidate)", true},
    {"unfused-projections", "Separate projections of one input", true},
    {"transpose-contiguous", "Layout copy after transpose/permute in forward", false},
    {"optimizer-not-fused", "Optimizer without foreach/fused on a device", false},
    {"manual-attention", "Attention written by hand (SDPA candidate)", false},
};

std::vector<const Rule*> BuildAll() {
  std::vector<const Rule*> all;
  for (auto family : {rules::HostSyncRules, rules::DynamicShapeRules, rules::TransferRules,
                      rules::EvalModeRules, rules::HfOutputRules, rules::LogitsRules,
                      rules::GroupedGemmRules, rules::ProjectionRules, rules::LayoutRules,
                      rules::OptimizerRules, rules::AttentionRules}) {
    for (const Rule& r : family()) all.push_back(&r);
  }
  // Every rule's code is listed in kCodes and rule names are unique: a broken
  // table is a bug to catch at the first use, in every build.
  for (size_t i = 0; i < all.size(); ++i) {
    if (FindCode(all[i]->code) == nullptr) {
      std::fprintf(stderr, "fastenough: lint rule %.*s has an unlisted code\n",
                   static_cast<int>(all[i]->name.size()), all[i]->name.data());
      std::abort();
    }
    for (size_t j = 0; j < i; ++j) {
      if (all[j]->name == all[i]->name) std::abort();
    }
  }
  return all;
}

}  // namespace

std::span<const Rule* const> AllRules() {
  static const std::vector<const Rule*> all = BuildAll();
  return all;
}

std::span<const CodeInfo> AllCodes() { return kCodes; }

const CodeInfo* FindCode(std::string_view code) {
  for (const CodeInfo& c : kCodes) {
    if (c.code == code) return &c;
  }
  return nullptr;
}

RuleSelection RuleSelection::All() {
  RuleSelection s;
  s.rules_.assign(AllRules().begin(), AllRules().end());
  return s;
}

RuleSelection RuleSelection::ForCodes(const std::vector<std::string>& codes) {
  RuleSelection s;
  for (const Rule* r : AllRules()) {
    if (std::find(codes.begin(), codes.end(), r->code) != codes.end()) s.rules_.push_back(r);
  }
  return s;
}

}  // namespace fastenough::lint
