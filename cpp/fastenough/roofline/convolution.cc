// Convolution family: convolution / _convolution (and conv1d-3d,
// conv_transpose1d-3d, cudnn_convolution[_transpose], miopen_convolution,
// convolution_backward), any stride, padding, dilation, groups, 1-3 spatial
// dims, transposed or not.
//
// input [N, Cin, *in], weight [Cout, Cin/g, *k] (transposed: [Cin, Cout/g, *k]).
// Output size per spatial dim:
//   out = floor((in + 2p - d(k-1) - 1) / s) + 1            (convolution)
//   out = (in - 1) s - 2p + d(k-1) + output_padding + 1    (transposed)
// FLOPs = 2 * N * Cout * prod(out) * (Cin/g) * prod(k): every output element is
// a dot product over its group's input channels and the kernel window (padding
// taps counted, as the kernels compute them). Transposed: every input element
// scatters into Cout/g * prod(k) outputs: 2 * N * Cin * prod(in) * (Cout/g) * prod(k).
// A bias adds N * Cout * prod(out). Bytes: input, weight, bias read once,
// output written once. stride / padding / dilation / groups come from
// Concrete Inputs; without them there is no model (the output size is unknown).
#include <cmath>
#include <string>

#include "fastenough/roofline/model_util.h"
#include "fastenough/roofline/op_work.h"

namespace fastenough::roofline {

using detail::BadShapes;
using detail::Dims;
using detail::Prod;
using detail::TensorArg;

namespace {

struct ConvolutionSignature {
  std::string_view name;
  int input, weight, bias, stride, padding, dilation, transposed, output_padding, groups;
  int fixed_transposed;  // -1: read the transposed argument; 0 / 1: fixed by the op
};

constexpr ConvolutionSignature kConvolutionSignatures[] = {
    {"aten::convolution", 0, 1, 2, 3, 4, 5, 6, 7, 8, -1},
    {"aten::_convolution", 0, 1, 2, 3, 4, 5, 6, 7, 8, -1},
    {"aten::conv1d", 0, 1, 2, 3, 4, 5, -1, -1, 6, 0},
    {"aten::conv2d", 0, 1, 2, 3, 4, 5, -1, -1, 6, 0},
    {"aten::conv3d", 0, 1, 2, 3, 4, 5, -1, -1, 6, 0},
    {"aten::conv_transpose1d", 0, 1, 2, 3, 4, 7, -1, 5, 6, 1},
    {"aten::conv_transpose2d", 0, 1, 2, 3, 4, 7, -1, 5, 6, 1},
    {"aten::conv_transpose3d", 0, 1, 2, 3, 4, 7, -1, 5, 6, 1},
    {"aten::cudnn_convolution", 0, 1, -1, 3, 2, 4, -1, -1, 5, 0},
    {"aten::cudnn_convolution_transpose", 0, 1, -1, 4, 2, 5, -1, 3, 6, 1},
    {"aten::miopen_convolution", 0, 1, 2, 4, 3, 5, -1, -1, 6, 0},
    // convolution_backward(grad_output, input, weight, bias_sizes, stride, padding,
    //                      dilation, transposed, output_padding, groups, output_mask)
    {"aten::convolution_backward", 1, 2, -1, 4, 5, 6, 7, 8, 9, -1},
};

const ConvolutionSignature* FindConvolution(std::string_view n) {
  for (const ConvolutionSignature& s : kConvolutionSignatures) {
    if (s.name == n) return &s;
  }
  return nullptr;
}

// An int-list argument expanded to `rank` entries ("[2]" means 2 in every dim).
std::optional<std::vector<int64_t>> IntList(const OpCall& c, int index, size_t rank,
                                            int64_t fallback, bool* missing) {
  if (index < 0) return std::vector<int64_t>(rank, fallback);
  const OpArg* a = c.arg(static_cast<size_t>(index));
  std::optional<std::vector<int64_t>> v = a != nullptr ? a->ints() : std::nullopt;
  if (!v) {
    *missing = true;
    return std::nullopt;
  }
  if (v->size() == 1 && rank > 1) v->assign(rank, v->front());
  if (v->size() != rank) return std::nullopt;
  return v;
}

}  // namespace

bool IsConvolutionName(std::string_view n) { return FindConvolution(n) != nullptr; }

StatusOr<OpWork> ModelConvolution(const OpCall& c) {
  const ConvolutionSignature* sig = FindConvolution(c.name);
  if (sig == nullptr) return NoModel(c.name + " is not a convolution op");
  const bool backward = c.name == "aten::convolution_backward";
  const OpArg* x = TensorArg(c, sig->input, 2, 5);
  const OpArg* wt = TensorArg(c, sig->weight, 3, 5);
  if (x == nullptr || wt == nullptr) {
    return BadShapes(c, "expects input [N, C, *spatial] and weight [Cout, C/groups, *kernel]");
  }
  const size_t rank = wt->dims.size() - 2;  // spatial dims
  std::vector<int64_t> in = x->dims;
  if (in.size() == rank + 1) in.insert(in.begin(), 1);  // unbatched input
  if (in.size() != rank + 2) {
    return BadShapes(c, "input and weight ranks differ: " + Dims(x->dims) + ", " + Dims(wt->dims));
  }
  if (!c.has_concrete) {
    return NoModel(c.name + " without Concrete Inputs: stride, padding, dilation and groups "
                   "(and so the output size) are not recorded");
  }
  bool missing = false;
  // conv2d(..., padding="same" | "valid") records the string.
  std::optional<std::vector<int64_t>> padding;
  bool same = false;
  if (const OpArg* p = c.arg(static_cast<size_t>(sig->padding)); p != nullptr &&
                                                                 (p->concrete == "same" || p->concrete == "valid")) {
    same = p->concrete == "same";
    padding = std::vector<int64_t>(rank, 0);
  } else {
    padding = IntList(c, sig->padding, rank, 0, &missing);
  }
  auto stride = IntList(c, sig->stride, rank, 1, &missing);
  auto dilation = IntList(c, sig->dilation, rank, 1, &missing);
  auto out_pad = IntList(c, sig->output_padding, rank, 0, &missing);
  std::optional<int64_t> groups = 1;
  if (sig->groups >= 0) {
    const OpArg* g = c.arg(static_cast<size_t>(sig->groups));
    groups = g != nullptr ? g->int_value() : std::nullopt;
  }
  bool transposed = sig->fixed_transposed == 1;
  if (sig->fixed_transposed < 0) {
    const OpArg* t = c.arg(static_cast<size_t>(sig->transposed));
    std::optional<bool> tv = t != nullptr ? t->bool_value() : std::nullopt;
    if (!tv) missing = true;
    transposed = tv.value_or(false);
  }
  if (missing || !groups.has_value()) {
    return NoModel(c.name + ": stride, padding, dilation, groups or transposed not in Concrete Inputs");
  }
  if (!stride || !padding || !dilation || !out_pad) {
    return BadShapes(c, "stride / padding / dilation do not match the " + std::to_string(rank) +
                            " spatial dims");
  }
  // Concrete values are unchecked text: bound them (2^31) and do the size
  // arithmetic in doubles, so that no input can overflow an integer.
  constexpr int64_t kMaxParam = int64_t{1} << 31;
  auto in_range = [&](const std::vector<int64_t>& v, int64_t lo) {
    for (int64_t x : v) {
      if (x < lo || x > kMaxParam) return false;
    }
    return true;
  };
  if (!in_range(*stride, 1) || !in_range(*dilation, 1) || !in_range(*padding, 0) ||
      !in_range(*out_pad, 0) || *groups < 1 || *groups > kMaxParam) {
    return BadShapes(c, "stride / dilation / groups must be positive, padding not negative");
  }
  const double g = static_cast<double>(*groups);
  const double n = static_cast<double>(in[0]), cin = static_cast<double>(in[1]);
  const double w0 = static_cast<double>(wt->dims[0]), w1 = static_cast<double>(wt->dims[1]);
  double cout = 0;
  if (!transposed) {
    if (w1 * g != cin || std::fmod(w0, g) != 0) {
      return BadShapes(c, "weight " + Dims(wt->dims) + " does not fit input channels " +
                              std::to_string(in[1]) + " with groups " + std::to_string(*groups));
    }
    cout = w0;
  } else {
    if (w0 != cin || std::fmod(cin, g) != 0) {
      return BadShapes(c, "transposed weight " + Dims(wt->dims) + " does not fit input channels " +
                              std::to_string(in[1]) + " with groups " + std::to_string(*groups));
    }
    cout = w1 * g;
  }
  std::vector<double> out(rank);
  for (size_t i = 0; i < rank; ++i) {
    const double x = static_cast<double>(in[2 + i]), k = static_cast<double>(wt->dims[2 + i]);
    const double s = static_cast<double>((*stride)[i]), p = static_cast<double>((*padding)[i]);
    const double d = static_cast<double>((*dilation)[i]);
    if (same) {
      out[i] = std::ceil(x / s);
    } else if (!transposed) {
      const double span = x + 2 * p - d * (k - 1) - 1;
      if (span < 0) return BadShapes(c, "kernel larger than the padded input");
      out[i] = std::floor(span / s) + 1;
    } else {
      out[i] = (x - 1) * s - 2 * p + d * (k - 1) + static_cast<double>((*out_pad)[i]) + 1;
    }
    if (!(out[i] > 0)) return BadShapes(c, "output size not positive");
  }
  double out_prod = 1;
  for (double o : out) out_prod *= o;
  const double kernel = Prod(wt->dims, 2);
  const double out_elems = n * cout * out_prod;
  const double macs = transposed ? n * cin * Prod(in, 2) * (cout / g) * kernel
                                 : out_elems * (cin / g) * kernel;
  const int esize = DtypeBytes(x->dtype);
  OpWork w;
  w.family = OpFamily::kConvolution;
  w.matrix = true;
  w.dtype = x->dtype;
  if (!backward) {
    w.flops = 2.0 * macs;
    w.bytes = x->bytes() + wt->bytes() + out_elems * esize;
    if (const OpArg* b = sig->bias >= 0 ? TensorArg(c, sig->bias, 1, 1) : nullptr) {
      w.flops += out_elems;
      w.bytes += b->bytes();
    }
    return w;
  }
  // convolution_backward: output_mask [grad_input, grad_weight, grad_bias].
  const OpArg* go = TensorArg(c, 0);
  if (go == nullptr) return BadShapes(c, "expects grad_output");
  bool mask[3] = {true, true, false};
  if (const OpArg* bs = c.arg(3); bs != nullptr && bs->ints() && !bs->ints()->empty()) mask[2] = true;
  if (!detail::ReadOutputMask(c, 10, mask)) {
    w.notes.push_back("output_mask not recorded: all gradients taken as computed");
  }
  w.bytes = go->bytes();
  if (mask[0]) {  // grad_input = conv_transpose(grad_output, weight): reads weight, writes dX
    w.flops += 2.0 * macs;
    w.bytes += wt->bytes() + x->bytes();
  }
  if (mask[1]) {  // grad_weight: reads input, writes dW
    w.flops += 2.0 * macs;
    w.bytes += x->bytes() + wt->bytes();
  }
  if (mask[2]) {  // grad_bias: a sum over N and the output positions
    w.flops += out_elems;
    w.bytes += cout * esize;
  }
  return w;
}

}  // namespace fastenough::roofline
