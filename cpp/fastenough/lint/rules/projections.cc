// Separate q/k/v (or gate/up) projections of one input: one GEMM each where one
// merged linear would do. Port of python/fastenough/lint/rules/projections.py.
#include <algorithm>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "fastenough/lint/name_match.h"
#include "fastenough/lint/rules/families.h"
#include "fastenough/lint/structural_key.h"

namespace fastenough::lint::rules {

namespace {

constexpr std::string_view kProjectionExplain = R"(Two or more projections of the same input (q_proj(x), k_proj(x), v_proj(x), or
gate_proj(x) and up_proj(x)) launch one GEMM each, each reading the input again.
One linear with the weights concatenated (qkv_proj, gate_up_proj) does the same
arithmetic in one larger GEMM; split its output with .split() or .chunk(). When
loading pretrained weights, concatenate them once at load time. Shared with the
trace detector unfused-projections.)";

// The role a projection's attribute name plays: "q", "k", "v", "gate", "up" or
// "" (q_proj, to_q, wq, w1 = gate, w3 = up, key_linear, ...).
std::string Role(std::string_view attr) {
  std::string name = AsciiLower(attr);
  for (std::string_view suffix : {"_proj", "_projection", "_linear", "_lin", "_layer"}) {
    if (name.ends_with(suffix)) name.resize(name.size() - suffix.size());
  }
  for (std::string_view prefix : {"to_", "w_", "fc_", "linear_"}) {
    if (name.starts_with(prefix)) name.erase(0, prefix.size());
  }
  static constexpr std::pair<std::string_view, std::string_view> kAliases[] = {
      {"query", "q"}, {"key", "k"}, {"value", "v"}, {"wq", "q"}, {"wk", "k"}, {"wv", "v"},
      {"w1", "gate"}, {"w3", "up"}, {"gate", "gate"}, {"up", "up"}, {"q", "q"}, {"k", "k"},
      {"v", "v"}};
  for (const auto& [alias, role] : kAliases) {
    if (name == alias) return std::string(role);
  }
  return "";
}

struct Projection {
  const Node* call;
  std::string_view attr;
  std::string role;
};

void CheckProjection(const ModuleContext& ctx, std::vector<Hit>& out) {
  for (const Function& fn : ctx.scope().functions()) {
    // self.<proj>(x) calls grouped by their input expression, in first-seen order.
    std::vector<std::pair<std::string, std::vector<Projection>>> by_input;
    for (const Site* site : fn.calls) {
      const Node& call = *site->node;
      const Node* f = call.func();
      if (!(f->is(Kind::kAttribute) && f->value()->is(Kind::kName) &&
            f->value()->name == "self" && call.args().size() == 1 && call.keywords().empty())) {
        continue;
      }
      std::string role = Role(f->name);
      if (role.empty()) continue;
      std::string key = StructuralKey(call.args()[0]);
      auto it = std::find_if(by_input.begin(), by_input.end(),
                             [&](const auto& group) { return group.first == key; });
      if (it == by_input.end()) {
        by_input.emplace_back(std::move(key), std::vector<Projection>{});
        it = by_input.end() - 1;
      }
      it->second.push_back({&call, f->name, std::move(role)});
    }
    for (const auto& [key, calls] : by_input) {
      for (std::initializer_list<std::string_view> family :
           {std::initializer_list<std::string_view>{"q", "k", "v"},
            std::initializer_list<std::string_view>{"gate", "up"}}) {
        std::set<std::string> roles;
        std::set<std::string_view> names;
        for (const Projection& p : calls) {
          if (IsAnyOf(p.role, family)) {
            roles.insert(p.role);
            names.insert(p.attr);
          }
        }
        if (roles.size() < 2) continue;
        const Node* first = calls.front().call;
        for (const Projection& p : calls) {
          if (p.call->line < first->line ||
              (p.call->line == first->line && p.call->col < first->col)) {
            first = p.call;
          }
        }
        std::string list;
        for (std::string_view n : names) {
          if (!list.empty()) list += ", ";
          list += n;
        }
        out.push_back({first, "separate projections " + list +
                                  " of one input: merge them into one linear and split the "
                                  "output"});
      }
    }
  }
}

constexpr Rule kProjectionRules[] = {
    {"unfused-projections", "separate-qkv-or-gate-up",
     "separate q/k/v or gate/up projections of one input", kProjectionExplain, CheckProjection},
};

}  // namespace

std::span<const Rule> ProjectionRules() { return kProjectionRules; }

}  // namespace fastenough::lint::rules
