// The performance model of one op: the work its recorded shapes imply.
//
// Conventions (docs/roofline.md has the table of formulas per family):
//  - FLOPs count 2 per multiply-add; matmul-class work (GEMM, attention,
//    convolution) runs on the matrix units, the rest on the vector units.
//  - bytes are the minimum traffic to device memory: every input read once,
//    every output written once, nothing re-read (caches assumed perfect).
//  - Ops without a model give kUnimplemented ("no model: ..."): callers count
//    and list them, never guess. Shapes that contradict the op's schema give
//    kInvalidArgument.
#pragma once

#include <string>
#include <vector>

#include "fastenough/roofline/dtype.h"
#include "fastenough/roofline/op_call.h"
#include "fastenough/util/status.h"

namespace fastenough::roofline {

enum class OpFamily : uint8_t {
  kMatmul,
  kAttention,
  kConvolution,
  kElementwise,
  kReduction,
  kNormalization,
  kSoftmax,
  kEmbedding,
};
const char* OpFamilyName(OpFamily f);

struct OpWork {
  OpFamily family = OpFamily::kElementwise;
  double flops = 0;   // floating-point operations (2 per multiply-add)
  double bytes = 0;   // minimum bytes moved to / from device memory
  Dtype dtype = Dtype::kUnknown;  // the dtype whose peak bounds the FLOPs
  bool matrix = false;            // matrix units (tensor cores / MFMA) do the FLOPs
  // What the model had to assume (e.g. "is_causal not recorded: taken as False").
  std::vector<std::string> notes;

  // FLOPs per byte; 0 when no bytes.
  double intensity() const { return bytes > 0 ? flops / bytes : 0.0; }
};

// The model for a call, dispatched on its name ("aten::mm", ...).
StatusOr<OpWork> ModelOp(const OpCall& call);
// Convenience: parse the trace's raw argument lists, then model.
StatusOr<OpWork> ModelOp(std::string_view name, std::string_view input_dims_json,
                         std::string_view input_types_json, std::string_view concrete_json = {});

// True for the status of an op that has no model (counted and listed by
// callers), as opposed to shapes that contradict the op.
inline bool IsNoModel(const Status& s) { return s.code() == StatusCode::kUnimplemented; }
inline Status NoModel(const std::string& what) { return Unimplemented("no model: " + what); }

// Family entry points (one file each); nullopt-free: each returns NoModel for
// a name outside its family.
bool IsMatmulName(std::string_view name);
StatusOr<OpWork> ModelMatmul(const OpCall& call);
bool IsAttentionName(std::string_view name);
StatusOr<OpWork> ModelAttention(const OpCall& call);
bool IsConvolutionName(std::string_view name);
StatusOr<OpWork> ModelConvolution(const OpCall& call);
bool IsElementwiseName(std::string_view name);  // elementwise, reduction, norm, softmax
StatusOr<OpWork> ModelElementwise(const OpCall& call);
bool IsEmbeddingName(std::string_view name);
StatusOr<OpWork> ModelEmbedding(const OpCall& call);

}  // namespace fastenough::roofline
