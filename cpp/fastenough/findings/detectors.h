// The trace detectors of one rank, one per file (sync_in_loop.cc, ...). Each
// reads the shared DetectContext and appends its findings. Detectors whose
// waste is device idle time also add the idle they explain to `explained`, so
// that gpu-idle-host-bound reports only the remainder (savings of different
// findings would otherwise count the same idle gap twice).
#pragma once

#include <string>
#include <vector>

#include "fastenough/analysis/memcpy.h"
#include "fastenough/findings/detect_context.h"
#include "fastenough/findings/finding.h"
#include "fastenough/timeline/interval_set.h"

namespace fastenough::findings {

void DetectSyncInLoop(const DetectContext& ctx, std::vector<Finding>& out,
                      timeline::IntervalSet& explained);
void DetectPageableMemcpy(const DetectContext& ctx, std::vector<Finding>& out,
                          timeline::IntervalSet& explained);
void DetectTransferInLoop(const DetectContext& ctx, std::vector<Finding>& out);
void DetectCpuFallback(const DetectContext& ctx, std::vector<Finding>& out);
// serial-small-gemm and unfused-projections (one analysis, two codes).
void DetectGemmPatterns(const DetectContext& ctx, std::vector<Finding>& out,
                        timeline::IntervalSet& explained);
void DetectNoTensorCores(const DetectContext& ctx, std::vector<Finding>& out);
void DetectSmallKernels(const DetectContext& ctx, std::vector<Finding>& out);
void DetectDataloaderBound(const DetectContext& ctx, std::vector<Finding>& out,
                           timeline::IntervalSet& explained);
void DetectCommNotOverlapped(const DetectContext& ctx, std::vector<Finding>& out);
void DetectGpuIdleHostBound(const DetectContext& ctx, const timeline::IntervalSet& explained,
                            std::vector<Finding>& out);

// Helpers shared by the detectors.
void AddEvidence(Finding& f, std::string key, EvidenceValue v);
// Python file:line (when with_stack) and the enclosing op of a host row.
Location WhereOfRow(const DetectContext& ctx, int32_t row);
double Round3(double x);
// A host<->device copy that is not the blocking read of a sync cause
// (.item(), .cpu(): those belong to sync-in-loop): the copies the transfer
// detectors (pageable-memcpy, transfer-in-loop) weigh.
bool IsTransferOutsideSync(const DetectContext& ctx, const analysis::CopyRow& c);

}  // namespace fastenough::findings
