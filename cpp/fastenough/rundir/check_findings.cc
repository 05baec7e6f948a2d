#include "fastenough/rundir/check_findings.h"

#include <simdjson.h>

#include "fastenough/rundir/json_fields.h"
#include "fastenough/rundir/run_files.h"

namespace fastenough::rundir {

namespace dom = simdjson::dom;

// The findings the agent's checks already decided (in the core, through the
// binding) and wrote to checks.json:
//   {"schema":"fastenough.checks/1","checks_error":null,"findings":[{"code":..,
//    "verdict":"avoidable","title":..,"source":"agent","evidence":{..},"where":[..],
//    "saving":{"per_step_ns":..,"share_of_step":..,"total_ns":..,"upper_bound":true},
//    "action":..,"rank":0}], ...}
ChecksFile ReadCheckFindings(const std::string& path, const char* label,
                             std::vector<findings::Finding>* out,
                             std::vector<std::string>* problems) {
  ChecksFile file;
  std::optional<std::string> text = ReadFile(path, label, problems);
  if (!text) return file;
  file.present = true;
  dom::parser parser;
  dom::object o;
  if (parser.parse(*text).get_object().get(o) != simdjson::SUCCESS) {
    problems->push_back(std::string(label) + ": not a JSON object; ignored");
    return file;
  }
  std::string_view err;
  if (o["checks_error"].get_string().get(err) == simdjson::SUCCESS && !err.empty()) {
    problems->push_back(std::string(label) + ": the agent's checks stopped: " + std::string(err));
    file.error = std::string(err);
  }
  dom::object padding;
  if (o["padding"].get_object().get(padding) == simdjson::SUCCESS) {
    auto real = IntField(padding, "real_tokens");
    auto positions = IntField(padding, "positions");
    if (real && positions && *positions > 0) {
      file.real_token_share = static_cast<double>(*real) / static_cast<double>(*positions);
    }
    file.padding_batches = IntField(padding, "batches").value_or(0);
  }
  dom::array list;
  if (o["findings"].get_array().get(list) != simdjson::SUCCESS) return file;
  for (dom::element e : list) {
    dom::object f;
    std::string_view code;
    if (e.get_object().get(f) != simdjson::SUCCESS ||
        f["code"].get_string().get(code) != simdjson::SUCCESS) {
      problems->push_back(std::string(label) + ": a finding without a code was skipped");
      continue;
    }
    findings::Finding x;
    x.code = std::string(code);
    x.source = "agent";
    std::string_view sv;
    if (f["verdict"].get_string().get(sv) == simdjson::SUCCESS) {
      if (sv == "avoidable") x.verdict = findings::Verdict::kAvoidable;
      else if (sv == "bounded") x.verdict = findings::Verdict::kBounded;
      else x.verdict = findings::Verdict::kInsufficientEvidence;
    }
    if (f["title"].get_string().get(sv) == simdjson::SUCCESS) x.title = std::string(sv);
    if (f["source"].get_string().get(sv) == simdjson::SUCCESS) x.source = std::string(sv);
    if (f["action"].get_string().get(sv) == simdjson::SUCCESS) x.action = std::string(sv);
    x.rank = static_cast<int>(IntField(f, "rank").value_or(-1));
    dom::object ev;
    if (f["evidence"].get_object().get(ev) == simdjson::SUCCESS) {
      for (auto [k, v] : ev) {
        int64_t i;
        double d;
        std::string_view str;
        if (v.is_int64() && v.get_int64().get(i) == simdjson::SUCCESS) {
          x.evidence.emplace_back(std::string(k), i);
        } else if (v.get_double().get(d) == simdjson::SUCCESS) {
          x.evidence.emplace_back(std::string(k), d);
        } else if (v.get_string().get(str) == simdjson::SUCCESS) {
          x.evidence.emplace_back(std::string(k), std::string(str));
        } else if (!v.is_null()) {
          x.evidence.emplace_back(std::string(k), simdjson::minify(v));
        }
      }
    }
    dom::array where;
    if (f["where"].get_array().get(where) == simdjson::SUCCESS) {
      for (dom::element w : where) {
        dom::object wo;
        if (w.get_object().get(wo) != simdjson::SUCCESS) continue;
        findings::Location loc;
        if (wo["file"].get_string().get(sv) == simdjson::SUCCESS) loc.file = std::string(sv);
        loc.line = static_cast<int>(IntField(wo, "line").value_or(0));
        loc.def_line = static_cast<int>(IntField(wo, "def_line").value_or(0));
        if (wo["inside"].get_string().get(sv) == simdjson::SUCCESS) loc.inside = std::string(sv);
        if (wo["function"].get_string().get(sv) == simdjson::SUCCESS) loc.function = std::string(sv);
        if (wo["op"].get_string().get(sv) == simdjson::SUCCESS) loc.op = std::string(sv);
        if (wo["kernel"].get_string().get(sv) == simdjson::SUCCESS) loc.kernel = std::string(sv);
        loc.stream = IntField(wo, "stream").value_or(-1);
        loc.rank = static_cast<int>(IntField(wo, "rank").value_or(-1));
        x.where.push_back(std::move(loc));
      }
    }
    dom::object saving;
    if (f["saving"].get_object().get(saving) == simdjson::SUCCESS) {
      x.saving.per_step_ns = IntField(saving, "per_step_ns").value_or(-1);
      x.saving.total_ns = IntField(saving, "total_ns").value_or(-1);
      double share;
      if (saving["share_of_step"].get_double().get(share) == simdjson::SUCCESS) {
        x.saving.share_of_step = share;
      }
      bool ub;
      if (saving["upper_bound"].get_bool().get(ub) == simdjson::SUCCESS) x.saving.upper_bound = ub;
    }
    out->push_back(std::move(x));
  }
  return file;
}

}  // namespace fastenough::rundir
