// The trace detectors of one rank, one per file (sync_in_loop.cc, ...). Each
// reads the shared DetectContext and appends its findings. Detectors whose
// waste is device idle time also add the idle they explain to `explained`, so
// that gpu-idle-host-bound reports only the remainder (savings of different
// findings would otherwise count the same idle gap twice).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "fastenough/analysis/device_turns.h"
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
void DetectDevicesTakeTurns(const DetectContext& ctx, std::vector<Finding>& out);
// devices-take-turns, for the devices of a rank and for the ranks of a job
// (rank_turns.cc): when it is worth a finding, and its evidence ("device" or
// "rank" names the workers: devices / busiest_device, ranks / busiest_rank).
bool WorthTurnsFinding(const analysis::DeviceTurns& t);
void AddTurnsEvidence(Finding& f, const analysis::DeviceTurns& t, double steps,
                      std::string_view who);
void DetectGpuIdleHostBound(const DetectContext& ctx, const timeline::IntervalSet& explained,
                            std::vector<Finding>& out);
// From the deeper analyses (RankAnalysis): low-occupancy, and memory-near-limit
// of a trace recorded with profile_memory=True.
void DetectLowOccupancy(const DetectContext& ctx, std::vector<Finding>& out);
void DetectMemoryNearLimit(const DetectContext& ctx, std::vector<Finding>& out);
// From the rank's roofline rows (ctx.roofline): ops-near-roof, the bounded
// verdict of a device-bound rank whose hot ops run near their roofs
// (ops_near_roof.cc), and one finding per cause a hot op far below its roof
// shows (roofline_causes.h, below_roof.cc).
void DetectOpsNearRoof(const DetectContext& ctx, std::vector<Finding>& out);
void DetectBelowRoof(const DetectContext& ctx, std::vector<Finding>& out);
// Adds efficiency and critical-path evidence to the findings (depth_evidence.cc).
void AddDepthEvidence(const DetectContext& ctx, const timeline::IntervalSet& explained,
                      std::vector<Finding>& out);

// Helpers shared by the detectors.
void AddEvidence(Finding& f, std::string key, EvidenceValue v);
// Python file:line (when with_stack) and the enclosing op of a host row.
Location WhereOfRow(const DetectContext& ctx, int32_t row);
double Round3(double x);
// The row's track as the trace named it, at the middle of the event (a time
// inside it: viewers bind an arrow to the slice that holds its end point).
TracePoint PointOfRow(const DetectContext& ctx, int32_t row);
// Adds a mark over [start_ns, end_ns], at `row` unless it is kNoRow; none
// once the finding holds kMaxMarks.
void AddMark(const DetectContext& ctx, Finding& f, std::string what, int64_t start_ns,
             int64_t end_ns, int32_t row = trace::kNoRow);
// A host<->device copy that is not the blocking read of a sync cause
// (.item(), .cpu(): those belong to sync-in-loop): the copies the transfer
// detectors (pageable-memcpy, transfer-in-loop) weigh.
bool IsTransferOutsideSync(const DetectContext& ctx, const analysis::CopyRow& c);

}  // namespace fastenough::findings
