// Findings from the sampler's view of the run: devices shared with other
// processes (device-shared) and device memory near the limit or far below it
// (memory-near-limit, memory-headroom).
#pragma once

#include <vector>

#include "fastenough/findings/finding.h"
#include "fastenough/rundir/meta_facts.h"
#include "fastenough/rundir/phase_table.h"

namespace fastenough::rundir {

struct RunReportOptions;

void AddSamplerFindings(const MetaFacts& meta, const std::vector<PhaseRow>& phases,
                        const RunReportOptions& options, std::vector<findings::Finding>* out);

}  // namespace fastenough::rundir
