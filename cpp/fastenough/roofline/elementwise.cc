// Bytes-bound families: elementwise, reduction, normalisation, softmax.
// Their FLOPs are small next to their traffic; they are judged on bytes:
//   bytes = every tensor input read once + every output written once.
// Elementwise: output = the broadcast of the tensor inputs (bool for
//   comparisons); in-place ops (name ends in "_") write their first input;
//   an out= tensor (a trailing tensor argument past the op's inputs) is the
//   output, written and not read. FLOPs = 1 per output element (fill_,
//   zero_, copy_, clone: 0).
// Reduction: bytes = input + output (the input's shape without the reduced
//   dims, from Concrete Inputs' dim list; all dims when no list). FLOPs = 1
//   per input element.
// Normalisation (layer_norm, native_layer_norm, rms_norm, batch_norm):
//   bytes = input + weight + bias + output + the fp32 statistics they save
//   (mean / rstd per normalised row). FLOPs: 7 per element (layer_norm and
//   batch_norm: mean 1, variance 2, normalise 2, affine 2), rms_norm 4.
// Softmax (_softmax, softmax, _log_softmax, log_softmax): bytes = input +
//   output; FLOPs 5 per element (max, subtract, exp, sum, divide). Backward
//   (_softmax_backward_data, _log_softmax_backward_data): reads grad_output
//   and output, writes grad_input; 4 FLOPs per element.
#include <algorithm>
#include <string>

#include "fastenough/roofline/model_util.h"
#include "fastenough/roofline/op_work.h"

namespace fastenough::roofline {

using detail::BadShapes;
using detail::Dims;
using detail::Prod;
using detail::TensorArg;

namespace {

enum class Kind { kElementwise, kCompare, kWriteOnly, kCopy, kReduction, kLayerNorm, kLayerNormBwd,
                  kRmsNorm, kBatchNorm, kSoftmax, kSoftmaxBwd };

struct Entry {
  std::string_view base;  // without "aten::" and without a trailing "_"
  Kind kind;
  int inputs;  // leading tensor inputs (elementwise); a later tensor is an out= tensor
};

constexpr Entry kEntries[] = {
    {"add", Kind::kElementwise, 2}, {"sub", Kind::kElementwise, 2}, {"rsub", Kind::kElementwise, 2},
    {"mul", Kind::kElementwise, 2}, {"div", Kind::kElementwise, 2}, {"pow", Kind::kElementwise, 2},
    {"maximum", Kind::kElementwise, 2}, {"minimum", Kind::kElementwise, 2},
    {"remainder", Kind::kElementwise, 2}, {"fmod", Kind::kElementwise, 2},
    {"where", Kind::kElementwise, 3}, {"lerp", Kind::kElementwise, 3},
    {"addcmul", Kind::kElementwise, 3}, {"addcdiv", Kind::kElementwise, 3},
    {"clamp", Kind::kElementwise, 3}, {"clamp_min", Kind::kElementwise, 2},
    {"clamp_max", Kind::kElementwise, 2}, {"relu", Kind::kElementwise, 1},
    {"gelu", Kind::kElementwise, 1}, {"silu", Kind::kElementwise, 1},
    {"sigmoid", Kind::kElementwise, 1}, {"tanh", Kind::kElementwise, 1},
    {"exp", Kind::kElementwise, 1}, {"log", Kind::kElementwise, 1}, {"neg", Kind::kElementwise, 1},
    {"abs", Kind::kElementwise, 1}, {"sqrt", Kind::kElementwise, 1}, {"rsqrt", Kind::kElementwise, 1},
    {"reciprocal", Kind::kElementwise, 1}, {"square", Kind::kElementwise, 1},
    {"sin", Kind::kElementwise, 1}, {"cos", Kind::kElementwise, 1},
    {"hardtanh", Kind::kElementwise, 1}, {"leaky_relu", Kind::kElementwise, 1},
    {"elu", Kind::kElementwise, 1}, {"log2", Kind::kElementwise, 1},
    {"threshold_backward", Kind::kElementwise, 2}, {"gelu_backward", Kind::kElementwise, 2},
    {"silu_backward", Kind::kElementwise, 2}, {"sigmoid_backward", Kind::kElementwise, 2},
    {"tanh_backward", Kind::kElementwise, 2},
    {"eq", Kind::kCompare, 2}, {"ne", Kind::kCompare, 2}, {"lt", Kind::kCompare, 2},
    {"le", Kind::kCompare, 2}, {"gt", Kind::kCompare, 2}, {"ge", Kind::kCompare, 2},
    {"fill", Kind::kWriteOnly, 1}, {"zero", Kind::kWriteOnly, 1},
    {"copy", Kind::kCopy, 2}, {"clone", Kind::kCopy, 1},
    {"sum", Kind::kReduction, 1}, {"mean", Kind::kReduction, 1}, {"amax", Kind::kReduction, 1},
    {"amin", Kind::kReduction, 1}, {"prod", Kind::kReduction, 1}, {"var", Kind::kReduction, 1},
    {"std", Kind::kReduction, 1}, {"logsumexp", Kind::kReduction, 1},
    {"argmax", Kind::kReduction, 1}, {"argmin", Kind::kReduction, 1},
    {"layer_norm", Kind::kLayerNorm, 1}, {"native_layer_norm", Kind::kLayerNorm, 1},
    {"native_layer_norm_backward", Kind::kLayerNormBwd, 1},
    {"rms_norm", Kind::kRmsNorm, 1}, {"_fused_rms_norm", Kind::kRmsNorm, 1},
    {"native_batch_norm", Kind::kBatchNorm, 1}, {"_native_batch_norm_legit", Kind::kBatchNorm, 1},
    {"cudnn_batch_norm", Kind::kBatchNorm, 1}, {"miopen_batch_norm", Kind::kBatchNorm, 1},
    {"_softmax", Kind::kSoftmax, 1}, {"softmax", Kind::kSoftmax, 1},
    {"_log_softmax", Kind::kSoftmax, 1}, {"log_softmax", Kind::kSoftmax, 1},
    {"_softmax_backward_data", Kind::kSoftmaxBwd, 2},
    {"_log_softmax_backward_data", Kind::kSoftmaxBwd, 2},
};

struct ElementwiseLookup {
  const Entry* entry = nullptr;
  bool inplace = false;
};

ElementwiseLookup FindElementwise(std::string_view n) {
  ElementwiseLookup l;
  if (n.rfind("aten::", 0) != 0) return l;
  n.remove_prefix(6);
  // In-place variants end in one "_" (add_, zero_); names that end in "_"
  // themselves are none of ours. _softmax starts with "_": strip only the end.
  std::string_view base = n;
  if (n.size() > 1 && n.back() == '_') {
    base = n.substr(0, n.size() - 1);
    l.inplace = true;
  }
  for (const Entry& e : kEntries) {
    if (e.base == base) {
      l.entry = &e;
      return l;
    }
  }
  for (const Entry& e : kEntries) {  // "_softmax" etc. never take a trailing "_"
    if (e.base == n) {
      l.entry = &e;
      l.inplace = false;
      return l;
    }
  }
  return l;
}

// Broadcast of shapes; nullopt when they do not broadcast.
std::optional<std::vector<int64_t>> Broadcast(const std::vector<const OpArg*>& ts) {
  size_t rank = 0;
  for (const OpArg* t : ts) rank = std::max(rank, t->dims.size());
  std::vector<int64_t> out(rank, 1);
  for (const OpArg* t : ts) {
    const size_t off = rank - t->dims.size();
    for (size_t i = 0; i < t->dims.size(); ++i) {
      const int64_t d = t->dims[i];
      int64_t& o = out[off + i];
      if (d == o || d == 1) continue;
      if (o != 1) return std::nullopt;
      o = d;
    }
  }
  return out;
}

OpWork Vector(OpFamily f, Dtype d, double flops, double bytes) {
  OpWork w;
  w.family = f;
  w.dtype = d;
  w.flops = flops;
  w.bytes = bytes;
  return w;
}

StatusOr<OpWork> Elementwise(const OpCall& c, const Entry& e, bool inplace) {
  std::vector<const OpArg*> ins;
  const OpArg* out = nullptr;
  for (size_t i = 0; i < c.args.size(); ++i) {
    const OpArg* a = TensorArg(c, i);
    if (a == nullptr) continue;
    if (static_cast<int>(i) < e.inputs) {
      ins.push_back(a);
    } else {
      out = a;  // out=: the trailing tensor
    }
  }
  if (ins.empty()) return BadShapes(c, "no tensor input");
  if (e.kind == Kind::kWriteOnly) {  // fill_(self, value), zero_(self)
    return Vector(OpFamily::kElementwise, ins[0]->dtype, 0, ins[0]->bytes());
  }
  if (e.kind == Kind::kCopy) {  // copy_(self, src): read src, write self; clone(self)
    const OpArg* src = ins.size() > 1 ? ins[1] : ins[0];
    return Vector(OpFamily::kElementwise, ins[0]->dtype, 0, src->bytes() + ins[0]->bytes());
  }
  auto shape = Broadcast(ins);
  if (!shape) {
    std::string s;
    for (const OpArg* a : ins) s += Dims(a->dims) + " ";
    return BadShapes(c, "input shapes do not broadcast: " + s);
  }
  double read = 0;
  for (const OpArg* a : ins) read += a->bytes();
  // The output's dtype: the first input with dims (a 0-d tensor such as a
  // wrapped Python number does not promote), bool for comparisons.
  Dtype d = ins[0]->dtype;
  for (const OpArg* a : ins) {
    if (!a->dims.empty()) {
      d = a->dtype;
      break;
    }
  }
  const double elems = Prod(*shape);
  double write = elems * DtypeBytes(e.kind == Kind::kCompare ? Dtype::kBool : d);
  if (inplace) {
    write = ins[0]->bytes();
  } else if (out != nullptr) {
    write = out->bytes();
  }
  return Vector(OpFamily::kElementwise, d, elems, read + write);
}

StatusOr<OpWork> Reduction(const OpCall& c, std::string_view base) {
  const OpArg* x = TensorArg(c, 0);
  if (x == nullptr) return BadShapes(c, "expects a tensor input");
  OpWork w = Vector(OpFamily::kReduction, x->dtype, static_cast<double>(x->numel()), x->bytes());
  // The reduced dims: argument 1 (dim) of the dim overloads; the full
  // reductions (sum(self, dtype), amax(self)) have at most two arguments.
  double out_elems = 1;
  const OpArg* dim = c.args.size() > 2 ? c.arg(1) : nullptr;
  if (dim != nullptr && dim->ints()) {
    const std::vector<int64_t> dims = *dim->ints();  // "[]": all dims
    const int64_t r = static_cast<int64_t>(x->dims.size());
    std::vector<bool> reduced(x->dims.size(), dims.empty());
    for (int64_t dd : dims) {
      if (dd < -r || dd >= r) return BadShapes(c, "dim out of range for " + Dims(x->dims));
      reduced[static_cast<size_t>(dd < 0 ? dd + r : dd)] = true;
    }
    for (size_t i = 0; i < x->dims.size(); ++i) {
      if (!reduced[i]) out_elems *= static_cast<double>(x->dims[i]);
    }
  } else if (dim != nullptr) {
    w.notes.push_back("reduced dims not recorded (no Concrete Inputs): output counted as one "
                      "element (the minimum)");
  }
  Dtype od = x->dtype;
  if (base == "argmax" || base == "argmin") od = Dtype::kInt64;
  if ((base == "sum" || base == "prod") && !IsFloating(x->dtype)) od = Dtype::kInt64;
  w.bytes += out_elems * DtypeBytes(od);
  return w;
}

// Rows normalised together: numel / prod(normalized_shape), the shape from
// Concrete Inputs or else from the weight.
std::optional<double> NormalizedSize(const OpCall& c, size_t shape_arg, size_t weight_arg,
                                     OpWork* w) {
  if (const OpArg* s = c.arg(shape_arg); s != nullptr && s->ints() && !s->ints()->empty()) {
    return Prod(*s->ints());
  }
  if (const OpArg* wt = TensorArg(c, weight_arg, 1)) return static_cast<double>(wt->numel());
  const OpArg* x = TensorArg(c, 0, 1);
  if (x == nullptr) return std::nullopt;
  w->notes.push_back("normalized_shape not recorded and no weight: taken as the last dim");
  return static_cast<double>(x->dims.back());
}

}  // namespace

bool IsElementwiseName(std::string_view n) { return FindElementwise(n).entry != nullptr; }

StatusOr<OpWork> ModelElementwise(const OpCall& c) {
  const ElementwiseLookup l = FindElementwise(c.name);
  if (l.entry == nullptr) return NoModel(c.name + " is not an elementwise / reduction / norm op");
  const Entry& e = *l.entry;
  switch (e.kind) {
    case Kind::kElementwise: case Kind::kCompare: case Kind::kWriteOnly: case Kind::kCopy:
      return Elementwise(c, e, l.inplace);
    case Kind::kReduction:
      return Reduction(c, e.base);
    case Kind::kLayerNorm: case Kind::kRmsNorm: {
      // layer_norm(input, normalized_shape, weight?, bias?, eps, ...);
      // rms_norm(input, normalized_shape, weight?, eps)
      const OpArg* x = TensorArg(c, 0, 1);
      if (x == nullptr) return BadShapes(c, "expects a tensor input");
      const bool ln = e.kind == Kind::kLayerNorm;
      OpWork w = Vector(OpFamily::kNormalization, x->dtype, 0, 2 * x->bytes());
      auto n = NormalizedSize(c, 1, 2, &w);
      if (!n || *n <= 0) return BadShapes(c, "normalized_shape does not fit the input");
      const double rows = static_cast<double>(x->numel()) / *n;
      w.flops = (ln ? 7.0 : 4.0) * static_cast<double>(x->numel());
      if (const OpArg* wt = TensorArg(c, 2, 1)) w.bytes += wt->bytes();
      if (ln) {
        if (const OpArg* b = TensorArg(c, 3, 1)) w.bytes += b->bytes();
      }
      // Saved statistics: layer_norm writes mean and rstd; the rms norms rstd
      // (fp32; fp64 for fp64 input).
      const double stat = x->dtype == Dtype::kFP64 ? 8.0 : 4.0;
      if (c.name == "aten::native_layer_norm" || c.name == "aten::layer_norm") w.bytes += 2 * rows * stat;
      if (c.name == "aten::_fused_rms_norm") w.bytes += rows * stat;
      return w;
    }
    case Kind::kLayerNormBwd: {
      // native_layer_norm_backward(grad_out, input, normalized_shape, mean, rstd,
      //                            weight?, bias?, output_mask)
      const OpArg* go = TensorArg(c, 0, 1);
      const OpArg* x = TensorArg(c, 1, 1);
      if (go == nullptr || x == nullptr) return BadShapes(c, "expects grad_out and input");
      OpWork w = Vector(OpFamily::kNormalization, x->dtype, 10.0 * x->numel(), 0);
      bool mask[3] = {true, true, true};
      detail::ReadOutputMask(c, 7, mask);
      const OpArg* wt = TensorArg(c, 5, 1);
      const OpArg* b = TensorArg(c, 6, 1);
      w.bytes = go->bytes() + x->bytes();
      for (size_t i : {size_t{3}, size_t{4}}) {
        if (const OpArg* s = TensorArg(c, i)) w.bytes += s->bytes();  // mean, rstd
      }
      if (wt != nullptr) w.bytes += wt->bytes();  // read for grad_input
      if (mask[0]) w.bytes += x->bytes();
      if (mask[1] && wt != nullptr) w.bytes += wt->bytes();
      if (mask[2] && b != nullptr) w.bytes += b->bytes();
      return w;
    }
    case Kind::kBatchNorm: {
      // native_batch_norm(input, weight?, bias?, running_mean?, running_var?, training, momentum, eps)
      const OpArg* x = TensorArg(c, 0, 2);
      if (x == nullptr) return BadShapes(c, "expects input [N, C, ...]");
      OpWork w = Vector(OpFamily::kNormalization, x->dtype, 7.0 * x->numel(), 2 * x->bytes());
      for (size_t i = 1; i <= 4; ++i) {
        if (const OpArg* p = TensorArg(c, i, 1, 1)) w.bytes += p->bytes();
      }
      w.bytes += 2.0 * static_cast<double>(x->dims[1]) * 4.0;  // save_mean, save_invstd
      return w;
    }
    case Kind::kSoftmax: {
      // _softmax(self, dim, half_to_float); softmax(self, dim, dtype?)
      const OpArg* x = TensorArg(c, 0, 1);
      if (x == nullptr) return BadShapes(c, "expects a tensor input");
      Dtype od = x->dtype;
      if (c.name == "aten::_softmax" || c.name == "aten::_log_softmax") {
        if (const OpArg* h = c.arg(2); h != nullptr && h->bool_value().value_or(false)) {
          od = Dtype::kFP32;
        }
      } else if (const OpArg* dt = c.arg(2); dt != nullptr && dt->int_value()) {
        const Dtype d = DtypeFromScalarTypeCode(*dt->int_value());
        if (d != Dtype::kUnknown) od = d;
      }
      const double n = static_cast<double>(x->numel());
      return Vector(OpFamily::kSoftmax, x->dtype, 5.0 * n, x->bytes() + n * DtypeBytes(od));
    }
    case Kind::kSoftmaxBwd: {
      // _softmax_backward_data(grad_output, output, dim, input_dtype)
      const OpArg* go = TensorArg(c, 0, 1);
      const OpArg* y = TensorArg(c, 1, 1);
      if (go == nullptr || y == nullptr || go->dims != y->dims) {
        return BadShapes(c, "expects grad_output and output of one shape");
      }
      Dtype od = go->dtype;
      if (const OpArg* dt = c.arg(3); dt != nullptr && dt->int_value()) {
        const Dtype d = DtypeFromScalarTypeCode(*dt->int_value());
        if (d != Dtype::kUnknown) od = d;
      }
      const double n = static_cast<double>(go->numel());
      return Vector(OpFamily::kSoftmax, go->dtype, 4.0 * n,
                    go->bytes() + y->bytes() + n * DtypeBytes(od));
    }
  }
  return NoModel(c.name);
}

}  // namespace fastenough::roofline
