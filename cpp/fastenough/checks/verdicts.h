// Verdicts and savings of the agent's runtime checks (docs/report-schema.md, docs/findings.md).
// Each VerdictOn* returns no finding when the evidence shows no waste. Savings
// are derived from measured time only (probe forwards, timed calls, step
// medians); when nothing was timed the saving stays unknown (-1).
#pragma once

#include <optional>
#include <string_view>

#include "fastenough/checks/check_input.h"
#include "fastenough/findings/finding.h"
#include "fastenough/util/status.h"

namespace fastenough::checks {

using MaybeFinding = std::optional<findings::Finding>;

MaybeFinding VerdictOnAutogradInEval(const CheckInput& in);
MaybeFinding VerdictOnTrainModeInEval(const CheckInput& in);
MaybeFinding VerdictOnKvCacheInScoring(const CheckInput& in);
MaybeFinding VerdictOnUnusedOutputs(const CheckInput& in);
MaybeFinding VerdictOnFullVocabLogits(const CheckInput& in);
MaybeFinding VerdictOnPaddingWaste(const CheckInput& in);
MaybeFinding VerdictOnDuplicateWeights(const CheckInput& in);
MaybeFinding VerdictOnMemoryHeadroom(const CheckInput& in);
MaybeFinding VerdictOnMemoryNearLimit(const CheckInput& in);
MaybeFinding VerdictOnRecompileInSteady(const CheckInput& in);
MaybeFinding VerdictOnSyncInLoop(const CheckInput& in);

// Dispatch by finding code; an unknown code is InvalidArgument.
StatusOr<MaybeFinding> VerdictOf(std::string_view code, const CheckInput& in);

}  // namespace fastenough::checks
