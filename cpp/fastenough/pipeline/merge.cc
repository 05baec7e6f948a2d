#include "fastenough/pipeline/merge.h"

#include "fastenough/pipeline/assemble.h"
#include "fastenough/report/rank_summary_json.h"
#include "fastenough/report/report_json.h"
#include "fastenough/util/file_bytes.h"

namespace fastenough::pipeline {

using report::ParseRankSummary;
using report::RankSummary;
using report::Report;
using report::ReportToJson;

StatusOr<std::vector<RankSummary>> ReadRankSummaries(const std::vector<std::string>& paths) {
  if (paths.empty()) return InvalidArgument("no rank summaries given");
  std::vector<RankSummary> summaries;
  for (const std::string& path : paths) {
    uint64_t file_bytes = 0;
    bool truncated = false;
    StatusOr<PaddedBuffer> text = ReadFileBytes(path, &file_bytes, &truncated);
    if (!text.ok()) {
      const Status& st = text.status();
      if (st.message().rfind(path, 0) == 0) return st;
      return Status(st.code(), path + ": " + st.message());
    }
    if (truncated) return DataLoss(path + ": the gzip stream ends early");
    StatusOr<RankSummary> s = ParseRankSummary(text.value().view(), path);
    if (!s.ok()) return s.status();
    summaries.push_back(std::move(s).value());
  }
  return summaries;
}

StatusOr<Report> MergeRankSummaries(const std::vector<std::string>& paths, size_t top_n) {
  StatusOr<std::vector<RankSummary>> summaries = ReadRankSummaries(paths);
  if (!summaries.ok()) return summaries.status();
  FE_RETURN_IF_ERROR(CheckOneInputPerRank(summaries.value(), "summaries", paths));
  return AssembleReport(std::move(summaries).value(), top_n);
}

StatusOr<std::string> MergeRankSummariesToJson(const std::vector<std::string>& paths,
                                               size_t top_n) {
  StatusOr<Report> r = MergeRankSummaries(paths, top_n);
  if (!r.ok()) return r.status();
  return ReportToJson(r.value());
}

}  // namespace fastenough::pipeline
