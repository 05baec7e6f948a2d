// Embedding family. embedding(weight[V, D], indices[...], padding_idx,
// scale_grad_by_freq, sparse) gathers one row of D elements per index:
//   bytes = indices + numel(indices) * D * w_size (rows read: each lookup
//           counted, repeated indices included, as the kernel reads them)
//         + numel(indices) * D * w_size (output written); FLOPs = 0.
// embedding_dense_backward(grad_output[..., D], indices, num_weights,
// padding_idx, scale_grad_by_freq) scatter-adds the gradient rows:
//   bytes = grad_output + indices + num_weights * D * size (grad weight
//           written); FLOPs = numel(grad_output) (one add per element).
#include <string>

#include "fastenough/roofline/model_util.h"
#include "fastenough/roofline/op_work.h"

namespace fastenough::roofline {

using detail::BadShapes;
using detail::TensorArg;

bool IsEmbeddingName(std::string_view n) {
  return n == "aten::embedding" || n == "aten::embedding_dense_backward";
}

StatusOr<OpWork> ModelEmbedding(const OpCall& c) {
  OpWork w;
  w.family = OpFamily::kEmbedding;
  if (c.name == "aten::embedding") {
    const OpArg* weight = TensorArg(c, 0, 2, 2);
    const OpArg* idx = TensorArg(c, 1);
    if (weight == nullptr || idx == nullptr) return BadShapes(c, "expects weight [V, D] and indices");
    const double rows = idx->numel() * static_cast<double>(weight->dims[1]);
    w.dtype = weight->dtype;
    w.bytes = idx->bytes() + 2.0 * rows * DtypeBytes(weight->dtype);
    return w;
  }
  if (c.name == "aten::embedding_dense_backward") {
    const OpArg* go = TensorArg(c, 0, 1);
    const OpArg* idx = TensorArg(c, 1);
    const OpArg* nw = c.arg(2);
    if (go == nullptr || idx == nullptr) return BadShapes(c, "expects grad_output and indices");
    if (nw == nullptr || !nw->int_value()) {
      return NoModel(c.name + " without Concrete Inputs: num_weights (the gradient's rows) not recorded");
    }
    if (*nw->int_value() < 0) return BadShapes(c, "num_weights is negative");
    w.dtype = go->dtype;
    w.flops = go->numel();
    w.bytes = go->bytes() + idx->bytes() +
              static_cast<double>(*nw->int_value()) * go->dims.back() * DtypeBytes(go->dtype);
    return w;
  }
  return NoModel(c.name + " is not an embedding op");
}

}  // namespace fastenough::roofline
