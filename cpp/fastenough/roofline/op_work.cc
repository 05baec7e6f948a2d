#include "fastenough/roofline/op_work.h"

namespace fastenough::roofline {

const char* OpFamilyName(OpFamily f) {
  switch (f) {
    case OpFamily::kMatmul: return "matmul";
    case OpFamily::kAttention: return "attention";
    case OpFamily::kConvolution: return "convolution";
    case OpFamily::kElementwise: return "elementwise";
    case OpFamily::kReduction: return "reduction";
    case OpFamily::kNormalization: return "normalization";
    case OpFamily::kSoftmax: return "softmax";
    case OpFamily::kEmbedding: return "embedding";
  }
  return "unknown";
}

StatusOr<OpWork> ModelOp(const OpCall& call) {
  const std::string_view n = call.name;
  if (IsMatmulName(n)) return ModelMatmul(call);
  if (IsAttentionName(n)) return ModelAttention(call);
  if (IsConvolutionName(n)) return ModelConvolution(call);
  if (IsEmbeddingName(n)) return ModelEmbedding(call);
  if (IsElementwiseName(n)) return ModelElementwise(call);
  return NoModel(std::string(n) + " is not an op the performance model knows");
}

StatusOr<OpWork> ModelOp(std::string_view name, std::string_view input_dims_json,
                         std::string_view input_types_json, std::string_view concrete_json) {
  StatusOr<OpCall> call = ParseOpCall(name, input_dims_json, input_types_json, concrete_json);
  if (!call.ok()) return call.status();
  return ModelOp(*call);
}

}  // namespace fastenough::roofline
