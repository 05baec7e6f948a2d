// Repeatability (issue 37, item 10): a run's findings beside those of the
// earlier runs of the same command that the history (.fastenough/runs.db in
// the working directory, read by python/fastenough/store/repeatability.py)
// holds. Which findings came in every run, with the spread of their savings,
// and which came and went: what `fastenough ab` says of a protocol, said of
// the findings, so that a finding seen once is not taken for one seen every
// time (timm's validate.py gave different findings in two runs).
//
// Read from the earlier runs' report.json files; nothing is measured again. A
// finding is its code (and rank, in a job of several): its title and place
// can change with the numbers it carries.
//
// The report's "repeatability" (absent without an earlier run):
//   {"runs": n (this one and the earlier ones),
//    "earlier": [{"id", "run_dir", "started_at"}] (newest first),
//    "stable": [{"code", "rank"?, "verdict", "per_step_ns"?: {min, max, runs},
//                "share_of_step"?: {min, max, runs}}]   (in every run)
//    "varied": [{"code", "rank"?, "verdict", "runs", "in_this_run"}]}
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "fastenough/findings/finding.h"
#include "fastenough/report/json_writer.h"
#include "fastenough/report/run_blocks.h"

namespace fastenough::rundir {

// An earlier run of the same command, as the history lists it.
using EarlierRun = report::EarlierRun;  // report/run_blocks.h
// At most this many earlier runs are compared (the newest readable ones).
constexpr size_t kEarlierRuns = 4;
// A report.json larger than this is not read (a run's report stays small).
constexpr uint64_t kEarlierReportMaxBytes = 64ull << 20;

// What one run found of one finding key.
struct SeenFinding {
  std::string code;
  int rank = -1;  // -1: not a rank's
  std::string verdict;
  double per_step_ns = -1;  // -1: not known
  double share_of_step = -1;
};

using Spread = report::Spread;
using RepeatedFinding = report::RepeatedFinding;
using Repeatability = report::Repeatability;
// The findings of a report.json (code, rank, verdict, saving), or nullopt when
// it cannot be read (missing, too large, not a report).
std::optional<std::vector<SeenFinding>> ReadReportFindings(const std::string& path);

// This run's findings against the earlier runs' (newest first; those whose
// report cannot be read are skipped, at most kEarlierRuns are used); nullopt
// without a readable earlier run.
std::optional<Repeatability> CompareWithEarlierRuns(const std::vector<findings::Finding>& current,
                                                    const std::vector<EarlierRun>& earlier);

// The same from findings already read (tests).
std::optional<Repeatability> CompareFindings(const std::vector<SeenFinding>& current,
                                             const std::vector<EarlierRun>& earlier,
                                             const std::vector<std::vector<SeenFinding>>& seen);

// The report's "repeatability" object where the writer stands (tests; the report
// writes it from its declaration, report/fields/run_fields.h).
void WriteRepeatability(report::JsonWriter& w, const Repeatability& r);

}  // namespace fastenough::rundir
