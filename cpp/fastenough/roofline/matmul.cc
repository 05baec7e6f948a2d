// Matmul family: mm, addmm, bmm, baddbmm, matmul, linear, _scaled_mm,
// _grouped_mm. A GEMM of [M, K] x [K, N] does M*N*K multiply-adds = 2*M*N*K
// FLOPs and must at least read A and B and write C once:
//   bytes = (M*K + K*N) * in_size + M*N * out_size.
// A bias / input added to the product (addmm, baddbmm, linear with bias)
// adds one FLOP per output element and its own elements to the bytes.
#include <string>

#include "fastenough/roofline/model_util.h"
#include "fastenough/roofline/op_work.h"

namespace fastenough::roofline {

using detail::BadShapes;
using detail::Dims;
using detail::Prod;
using detail::TensorArg;

bool IsMatmulName(std::string_view n) {
  return n == "aten::mm" || n == "aten::addmm" || n == "aten::bmm" || n == "aten::baddbmm" ||
         n == "aten::matmul" || n == "aten::linear" || n == "aten::_scaled_mm" ||
         n == "aten::_grouped_mm" || n == "aten::_scaled_grouped_mm";
}

namespace {

OpWork Gemm(double batch, double m, double n, double k, Dtype dtype, double in_bytes,
            double out_bytes, const OpArg* addend) {
  OpWork w;
  w.family = OpFamily::kMatmul;
  w.matrix = true;
  w.dtype = dtype;
  w.flops = 2.0 * batch * m * n * k;
  w.bytes = in_bytes + out_bytes;
  if (addend != nullptr) {
    w.flops += batch * m * n;  // one add per output element
    w.bytes += addend->bytes();
  }
  return w;
}

}  // namespace

StatusOr<OpWork> ModelMatmul(const OpCall& c) {
  const std::string_view n = c.name;
  if (n == "aten::mm" || n == "aten::addmm") {
    // mm(self[M, K], mat2[K, N]); addmm(self=bias, mat1[M, K], mat2[K, N], beta, alpha)
    const size_t first = n == "aten::addmm" ? 1 : 0;
    const OpArg* a = TensorArg(c, first, 2, 2);
    const OpArg* b = TensorArg(c, first + 1, 2, 2);
    if (a == nullptr || b == nullptr) return BadShapes(c, "expects two 2-d tensors");
    if (a->dims[1] != b->dims[0]) {
      return BadShapes(c, "inner dims differ: " + Dims(a->dims) + " x " + Dims(b->dims));
    }
    const OpArg* bias = first == 1 ? TensorArg(c, 0) : nullptr;
    if (first == 1 && bias == nullptr) return BadShapes(c, "addmm's first argument is not a tensor");
    const double M = a->dims[0], K = a->dims[1], N = b->dims[1];
    const double out = M * N * DtypeBytes(a->dtype);
    return Gemm(1, M, N, K, a->dtype, a->bytes() + b->bytes(), out, bias);
  }
  if (n == "aten::bmm" || n == "aten::baddbmm") {
    // bmm(self[B, M, K], mat2[B, K, N]); baddbmm(self[B, M, N] (broadcastable), batch1, batch2, beta, alpha)
    const size_t first = n == "aten::baddbmm" ? 1 : 0;
    const OpArg* a = TensorArg(c, first, 3, 3);
    const OpArg* b = TensorArg(c, first + 1, 3, 3);
    if (a == nullptr || b == nullptr) return BadShapes(c, "expects two 3-d tensors");
    if (a->dims[0] != b->dims[0] || a->dims[2] != b->dims[1]) {
      return BadShapes(c, "batch or inner dims differ: " + Dims(a->dims) + " x " + Dims(b->dims));
    }
    const OpArg* add = first == 1 ? TensorArg(c, 0) : nullptr;
    if (first == 1 && add == nullptr) return BadShapes(c, "baddbmm's first argument is not a tensor");
    const double B = a->dims[0], M = a->dims[1], K = a->dims[2], N = b->dims[2];
    return Gemm(B, M, N, K, a->dtype, a->bytes() + b->bytes(), B * M * N * DtypeBytes(a->dtype),
                add);
  }
  if (n == "aten::linear") {
    // linear(input[..., K], weight[N, K], bias[N]?): y = x W^T + b
    const OpArg* x = TensorArg(c, 0, 1);
    const OpArg* wt = TensorArg(c, 1, 2, 2);
    if (x == nullptr || wt == nullptr) return BadShapes(c, "expects input[..., K] and weight[N, K]");
    if (x->dims.back() != wt->dims[1]) {
      return BadShapes(c, "input's last dim differs from weight's: " + Dims(x->dims) + ", " +
                              Dims(wt->dims));
    }
    const OpArg* bias = TensorArg(c, 2);  // None is recorded as [] with type ""
    const double M = Prod(x->dims, 0, x->dims.size() - 1), K = x->dims.back(), N = wt->dims[0];
    return Gemm(1, M, N, K, x->dtype, x->bytes() + wt->bytes(), M * N * DtypeBytes(x->dtype),
                bias);
  }
  if (n == "aten::matmul") {
    // torch.matmul: 1-d operands are promoted ([K] -> [1, K] / [K, 1]); the
    // batch dims of both broadcast.
    const OpArg* a = TensorArg(c, 0, 1);
    const OpArg* b = TensorArg(c, 1, 1);
    if (a == nullptr || b == nullptr) return BadShapes(c, "expects two tensors of rank >= 1");
    std::vector<int64_t> ad = a->dims, bd = b->dims;
    if (ad.size() == 1) ad.insert(ad.begin(), 1);
    if (bd.size() == 1) bd.push_back(1);
    const int64_t M = ad[ad.size() - 2], K = ad.back(), N = bd.back();
    if (bd[bd.size() - 2] != K) {
      return BadShapes(c, "inner dims differ: " + Dims(a->dims) + " x " + Dims(b->dims));
    }
    // Broadcast batch dims.
    const size_t ab = ad.size() - 2, bb = bd.size() - 2, rank = std::max(ab, bb);
    double batch = 1;
    for (size_t i = 0; i < rank; ++i) {
      const int64_t x = i < rank - ab ? 1 : ad[i - (rank - ab)];
      const int64_t y = i < rank - bb ? 1 : bd[i - (rank - bb)];
      if (x != y && x != 1 && y != 1) {
        return BadShapes(c, "batch dims do not broadcast: " + Dims(a->dims) + " x " + Dims(b->dims));
      }
      batch *= static_cast<double>(std::max(x, y));
    }
    return Gemm(batch, M, N, K, a->dtype, a->bytes() + b->bytes(),
                batch * M * N * DtypeBytes(a->dtype), nullptr);
  }
  if (n == "aten::_scaled_mm") {
    // _scaled_mm(self[M, K] fp8, mat2[K, N] fp8, scale_a, scale_b, bias?, scale_result?,
    //            out_dtype?, use_fast_accum): FP8 GEMM; the output is out_dtype
    // (Concrete Inputs: a c10::ScalarType code, "15" = bf16) or the input's type.
    const OpArg* a = TensorArg(c, 0, 2, 2);
    const OpArg* b = TensorArg(c, 1, 2, 2);
    if (a == nullptr || b == nullptr) return BadShapes(c, "expects two 2-d tensors");
    if (a->dims[1] != b->dims[0]) {
      return BadShapes(c, "inner dims differ: " + Dims(a->dims) + " x " + Dims(b->dims));
    }
    const double M = a->dims[0], K = a->dims[1], N = b->dims[1];
    double in = a->bytes() + b->bytes();
    for (size_t i : {size_t{2}, size_t{3}, size_t{5}}) {
      if (const OpArg* s = TensorArg(c, i)) in += s->bytes();  // the scales
    }
    Dtype out = a->dtype;
    OpWork note;
    if (const OpArg* od = c.arg(6); od != nullptr && od->int_value()) {
      const Dtype d = DtypeFromScalarTypeCode(*od->int_value());
      if (d != Dtype::kUnknown) out = d;
    } else {
      note.notes.push_back("out_dtype not recorded: output taken as the input's dtype");
    }
    OpWork w = Gemm(1, M, N, K, a->dtype, in, M * N * DtypeBytes(out), TensorArg(c, 4, 1));
    w.notes = note.notes;
    return w;
  }
  if (n == "aten::_grouped_mm" || n == "aten::_scaled_grouped_mm") {
    // The output is bf16 (the only out_dtype either op supports today).
    const double out_size = 2.0;
    // _grouped_mm(mat_a, mat_b, offs?, bias?, out_dtype?): the 3-d x 3-d form is
    // a batched GEMM (G groups of [M, K] x [K, N]); the forms with offsets split
    // a 2-d operand into groups whose sizes only the offs tensor's values say.
    const OpArg* a = TensorArg(c, 0, 2, 3);
    const OpArg* b = TensorArg(c, 1, 2, 3);
    if (a == nullptr || b == nullptr) return BadShapes(c, "expects 2-d or 3-d operands");
    if (a->dims.size() == 3 && b->dims.size() == 3) {
      if (a->dims[0] != b->dims[0] || a->dims[2] != b->dims[1]) {
        return BadShapes(c, "group or inner dims differ: " + Dims(a->dims) + " x " + Dims(b->dims));
      }
      const double G = a->dims[0], M = a->dims[1], K = a->dims[2], N = b->dims[2];
      return Gemm(G, M, N, K, a->dtype, a->bytes() + b->bytes(), G * M * N * out_size,
                  nullptr);
    }
    if (a->dims.size() == 2 && b->dims.size() == 3) {
      // mat_a[total_M, K] split by offs into G row groups, mat_b[G, K, N]:
      // sum over groups of 2*M_g*K*N = 2*total_M*K*N whatever the split.
      if (a->dims[1] != b->dims[1]) {
        return BadShapes(c, "inner dims differ: " + Dims(a->dims) + " x " + Dims(b->dims));
      }
      const double M = a->dims[0], K = a->dims[1], N = b->dims[2];
      return Gemm(1, M, N, K, a->dtype, a->bytes() + b->bytes(), M * N * out_size, nullptr);
    }
    return NoModel(c.name + " with 2-d x 2-d operands: the group sizes are in offs' values");
  }
  return NoModel(c.name + " is not a matmul op");
}

}  // namespace fastenough::roofline
