// The job's report from its ranks' summaries (rank_summary.h), whether they
// were just taken from traces (`fastenough analyze`) or read back from
// fastenough.rank-summary/1 files (`fastenough merge`): the same summaries
// give the same report.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "fastenough/report/rank_summary.h"
#include "fastenough/report/report.h"
#include "fastenough/util/status.h"

namespace fastenough::pipeline {

// Summaries in input order. Inputs and counters list every rank; meta and the
// shape census are the first input's (ranks run the same model); cross-rank
// findings (straggler-rank) come from the collectives; the findings of every
// rank are ranked; steps, top kernels (top_n) and top ops (top_n) are merged
// over the ranks.
report::Report AssembleReport(std::vector<report::RankSummary> ranks, size_t top_n);

// One job has one input per rank. Two inputs of the same rank (two traces
// that claim it, one file given twice, two rank-0 summaries) would be shown
// as two rows of one rank with its steps counted twice: refused, naming both
// inputs (InvalidArgument: a usage error). `what` names the inputs in the
// message ("traces", "summaries"); `files`, when given, are the files the
// summaries were read from (else their traces' paths name them).
Status CheckOneInputPerRank(const std::vector<report::RankSummary>& ranks, const char* what,
                            const std::vector<std::string>& files = {});

}  // namespace fastenough::pipeline
