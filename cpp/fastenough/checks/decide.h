// Verdicts and savings of the agent's runtime checks (docs/report-schema.md, docs/findings.md).
// Each Decide* returns no finding when the evidence shows no waste. Savings
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

MaybeFinding DecideAutogradInEval(const CheckInput& in);
MaybeFinding DecideTrainModeInEval(const CheckInput& in);
MaybeFinding DecideKvCacheInScoring(const CheckInput& in);
MaybeFinding DecideUnusedOutputs(const CheckInput& in);
MaybeFinding DecideFullVocabLogits(const CheckInput& in);
MaybeFinding DecidePaddingWaste(const CheckInput& in);
MaybeFinding DecideDuplicateWeights(const CheckInput& in);
MaybeFinding DecideMemoryHeadroom(const CheckInput& in);
MaybeFinding DecideMemoryNearLimit(const CheckInput& in);
MaybeFinding DecideRecompileInSteady(const CheckInput& in);
MaybeFinding DecideSyncInLoop(const CheckInput& in);

// Dispatch by finding code; an unknown code is InvalidArgument.
StatusOr<MaybeFinding> Decide(std::string_view code, const CheckInput& in);

}  // namespace fastenough::checks
