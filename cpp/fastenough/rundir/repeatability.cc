#include "fastenough/rundir/repeatability.h"

#include <simdjson.h>

#include <algorithm>
#include <map>
#include <utility>

#include "fastenough/report/fields/json_fields.h"
#include "fastenough/report/fields/run_fields.h"
#include "fastenough/util/file_bytes.h"

namespace fastenough::rundir {

namespace {

namespace dom = simdjson::dom;

using Key = std::pair<std::string, int>;  // code, rank (-1: none)

// A run's findings by key, in the order of the run's ranking; of several
// with one key, the one with the largest saving per step.
struct ByKey {
  std::vector<Key> order;
  std::map<Key, SeenFinding> seen;

  explicit ByKey(const std::vector<SeenFinding>& findings) {
    for (const SeenFinding& f : findings) {
      const Key k{f.code, f.rank};
      auto it = seen.find(k);
      if (it == seen.end()) {
        order.push_back(k);
        seen.emplace(k, f);
      } else if (f.per_step_ns > it->second.per_step_ns) {
        it->second = f;
      }
    }
  }
};

std::optional<Spread> SpreadOf(const std::vector<double>& values) {
  if (values.empty()) return std::nullopt;
  Spread s;
  s.min = *std::min_element(values.begin(), values.end());
  s.max = *std::max_element(values.begin(), values.end());
  s.runs = static_cast<int>(values.size());
  return s;
}

double NonNegative(dom::element e) {
  double d;
  if (e.get_double().get(d) != simdjson::SUCCESS || !(d >= 0)) return -1;
  return d;
}

}  // namespace

std::optional<std::vector<SeenFinding>> ReadReportFindings(const std::string& path) {
  std::string text;
  if (!ReadRegularFile(path, kEarlierReportMaxBytes, &text).ok()) return std::nullopt;
  dom::parser parser;
  dom::object doc;
  dom::array list;
  if (parser.parse(text).get_object().get(doc) != simdjson::SUCCESS ||
      doc["findings"].get_array().get(list) != simdjson::SUCCESS) {
    return std::nullopt;
  }
  std::vector<SeenFinding> out;
  for (dom::element e : list) {
    dom::object f;
    if (e.get_object().get(f) != simdjson::SUCCESS) continue;
    SeenFinding s;
    std::string_view text_value;
    s.code = f["code"].get_string().get(text_value) == simdjson::SUCCESS
                 ? std::string(text_value) : "?";
    int64_t rank;
    if (f["rank"].get_int64().get(rank) == simdjson::SUCCESS && rank >= 0) {
      s.rank = static_cast<int>(rank);
    }
    if (f["verdict"].get_string().get(text_value) == simdjson::SUCCESS) s.verdict = text_value;
    dom::object saving;
    if (f["saving"].get_object().get(saving) == simdjson::SUCCESS) {
      dom::element v;
      if (saving["per_step_ns"].get(v) == simdjson::SUCCESS) s.per_step_ns = NonNegative(v);
      if (saving["share_of_step"].get(v) == simdjson::SUCCESS) s.share_of_step = NonNegative(v);
    }
    out.push_back(std::move(s));
  }
  return out;
}

std::optional<Repeatability> CompareFindings(const std::vector<SeenFinding>& current,
                                             const std::vector<EarlierRun>& earlier,
                                             const std::vector<std::vector<SeenFinding>>& seen) {
  if (earlier.empty()) return std::nullopt;
  std::vector<ByKey> runs;
  runs.emplace_back(current);
  for (const auto& s : seen) runs.emplace_back(s);
  const size_t n = runs.size();
  std::vector<Key> order = runs[0].order;  // this run's order (its ranking) first
  for (size_t r = 1; r < n; ++r) {
    for (const Key& k : runs[r].order) {
      if (std::find(order.begin(), order.end(), k) == order.end()) order.push_back(k);
    }
  }
  Repeatability out;
  out.runs = static_cast<int>(n);
  out.earlier = earlier;
  for (const Key& k : order) {
    std::vector<const SeenFinding*> present;  // newest first
    for (const ByKey& r : runs) {
      auto it = r.seen.find(k);
      if (it != r.seen.end()) present.push_back(&it->second);
    }
    RepeatedFinding entry;
    entry.code = k.first;
    entry.rank = k.second;
    entry.verdict = present.front()->verdict;
    if (present.size() == n) {
      std::vector<double> steps, shares;
      for (const SeenFinding* f : present) {
        if (f->per_step_ns >= 0) steps.push_back(f->per_step_ns);
        if (f->share_of_step >= 0) shares.push_back(f->share_of_step);
      }
      entry.per_step_ns = SpreadOf(steps);
      entry.share_of_step = SpreadOf(shares);
      out.stable.push_back(std::move(entry));
    } else {
      entry.runs = static_cast<int>(present.size());
      entry.in_this_run = runs[0].seen.count(k) > 0;
      out.varied.push_back(std::move(entry));
    }
  }
  return out;
}

std::optional<Repeatability> CompareWithEarlierRuns(const std::vector<findings::Finding>& current,
                                                    const std::vector<EarlierRun>& earlier) {
  std::vector<SeenFinding> now;
  for (const findings::Finding& f : current) {
    SeenFinding s;
    s.code = f.code;
    s.rank = f.rank;
    s.verdict = findings::VerdictName(f.verdict);
    s.per_step_ns = f.saving.per_step_ns >= 0 ? static_cast<double>(f.saving.per_step_ns) : -1;
    s.share_of_step = f.saving.share_of_step >= 0 ? f.saving.share_of_step : -1;
    now.push_back(std::move(s));
  }
  std::vector<EarlierRun> used;
  std::vector<std::vector<SeenFinding>> seen;
  for (const EarlierRun& e : earlier) {
    if (used.size() >= kEarlierRuns) break;
    auto found = ReadReportFindings(e.run_dir + "/report.json");
    if (!found) continue;  // gone, damaged or too large: not compared
    used.push_back(e);
    seen.push_back(std::move(*found));
  }
  return CompareFindings(now, used, seen);
}

void WriteRepeatability(report::JsonWriter& w, const Repeatability& r) {
  report::fields::WriteObject(w, r);  // report/fields/run_fields.h
}

}  // namespace fastenough::rundir
