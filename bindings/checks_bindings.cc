// Agent check entry points: the agent (Python, inside the user's process)
// measures; the verdict, the saving and the padding/duplicate arithmetic are
// decided by the core (cpp/fastenough/checks/).
#include <nanobind/nanobind.h>
#include <nanobind/stl/map.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "fastenough/checks/verdicts.h"
#include "fastenough/checks/duplicate_weights.h"
#include "fastenough/checks/padding.h"
#include "fastenough/findings/catalog.h"
#include "register.h"
#include "status_to_python.h"

namespace nb = nanobind;

namespace fastenough::bindings {

namespace {

nb::dict FindingToDict(const findings::Finding& f) {
  nb::dict d;
  d["code"] = f.code;
  d["verdict"] = findings::VerdictName(f.verdict);
  d["title"] = f.title;
  d["source"] = f.source;
  nb::dict ev;
  for (const auto& [k, v] : f.evidence) {
    if (auto* i = std::get_if<int64_t>(&v)) {
      ev[k.c_str()] = *i;
    } else if (auto* x = std::get_if<double>(&v)) {
      ev[k.c_str()] = *x;
    } else {
      ev[k.c_str()] = std::get<std::string>(v);
    }
  }
  d["evidence"] = ev;
  nb::list where;
  for (const auto& w : f.where) {
    nb::dict l;
    if (!w.file.empty()) {
      l["file"] = w.file;
      l["line"] = w.line;
      l["function"] = w.function;
    }
    if (!w.op.empty()) l["op"] = w.op;
    where.append(l);
  }
  d["where"] = where;
  nb::dict s;
  s["per_step_ns"] = f.saving.per_step_ns >= 0 ? nb::cast(f.saving.per_step_ns) : nb::none();
  s["share_of_step"] = f.saving.share_of_step >= 0 ? nb::cast(f.saving.share_of_step) : nb::none();
  s["total_ns"] = f.saving.total_ns >= 0 ? nb::cast(f.saving.total_ns) : nb::none();
  s["upper_bound"] = f.saving.upper_bound;
  d["saving"] = s;
  d["action"] = f.action;
  if (f.rank >= 0) d["rank"] = f.rank;
  return d;
}

// where: [{"file","line","function"} | {"op"}]
nb::object CheckVerdict(const std::string& code, const std::map<std::string, double>& numbers,
                       const std::map<std::string, std::string>& texts, nb::list where) {
  checks::CheckInput in;
  in.numbers = numbers;
  in.texts = texts;
  for (nb::handle h : where) {
    nb::dict w = nb::borrow<nb::dict>(h);
    findings::Location loc;
    if (w.contains("file")) loc.file = nb::cast<std::string>(w["file"]);
    if (w.contains("line")) loc.line = nb::cast<int>(w["line"]);
    if (w.contains("function")) loc.function = nb::cast<std::string>(w["function"]);
    if (w.contains("op")) loc.op = nb::cast<std::string>(w["op"]);
    in.where.push_back(std::move(loc));
  }
  checks::MaybeFinding f = ValueOrThrow(checks::VerdictOf(code, in));
  if (!f) return nb::none();
  return FindingToDict(*f);
}

nb::dict SummarisePadding(const std::vector<std::pair<int64_t, std::vector<int64_t>>>& batches) {
  std::vector<checks::PaddedBatch> in;
  in.reserve(batches.size());
  for (const auto& [width, lengths] : batches) in.push_back({width, lengths});
  checks::PaddingSummary s = checks::SummarisePadding(in);
  nb::dict d;
  d["batches"] = s.batches;
  d["rows"] = s.rows;
  d["positions"] = s.positions;
  d["real_tokens"] = s.real_tokens;
  d["dynamic_positions"] = s.dynamic_positions;
  d["bucketed_positions"] = s.bucketed_positions;
  d["padded_share"] = s.padded_share;
  d["bucketed_saving_share"] = s.bucketed_saving_share;
  d["width_squares"] = s.width_squares;
  d["bucketed_width_squares"] = s.bucketed_width_squares;
  d["bucketed_square_saving_share"] = s.bucketed_square_saving_share;
  d["saving_bound_share"] = s.saving_bound_share;
  return d;
}

std::vector<std::vector<size_t>> DuplicateCandidates(
    const std::vector<std::pair<std::string, std::pair<int64_t, uint64_t>>>& rows,
    int64_t min_bytes) {
  std::vector<checks::StorageRow> in;
  in.reserve(rows.size());
  for (const auto& [key, v] : rows) in.push_back({key, v.first, v.second});
  return checks::DuplicateCandidates(in, min_bytes);
}

// Every code the core can emit, for `fastenough explain` and the test that
// each has a section in docs/findings.md.
nb::list FindingCatalog() {
  nb::list out;
  for (const auto& e : findings::Catalog()) {
    nb::dict d;
    d["code"] = std::string(e.code);
    d["source"] = std::string(e.source);
    d["title"] = std::string(e.title);
    d["changes_results"] = e.changes_results;
    out.append(d);
  }
  return out;
}

}  // namespace

void RegisterChecks(nb::module_& m) {
  m.def("check_verdict", &CheckVerdict, nb::arg("code"), nb::arg("numbers"), nb::arg("texts"),
        nb::arg("where"),
        "The verdict of one agent check from its measured evidence: returns the finding as a dict "
        "(fastenough.report/1 Finding) or None when the evidence shows no waste.");
  m.def("check_padding_summary", &SummarisePadding, nb::arg("batches"),
        "batches: [(width, [real length per row])] -> padding and bucketing figures.");
  m.def("check_duplicate_candidates", &DuplicateCandidates, nb::arg("rows"), nb::arg("min_bytes"),
        "rows: [(storage key, (nbytes, sample hash))] -> groups of row indices that may hold "
        "equal bytes (confirm by a full comparison).");
  m.def("finding_catalog", &FindingCatalog,
        "[{code, source, title, changes_results}] for every finding code the core can emit.");
}

}  // namespace fastenough::bindings
